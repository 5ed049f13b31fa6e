/**
 * Media nodes for a cluster: each node reports its load every few seconds; a room is placed on the
 * least loaded live node the first time someone joins it and stays there while that node is
 * alive, so everyone in a class meets on one node. A node that stops reporting is gone after three
 * report periods; one that a client says it lost is checked at once (ADR 097).
 */
import { MEDIA_CONTROL_PATH } from '../contracts/media-control.ts';
import type { Clock } from '../platform/clock.ts';
import { DomainError } from '../platform/errors.ts';
import type { MediaNodeRepository } from './media-node.repository.ts';
import type { MediaNodes } from './media.service.ts';

/** A node that has not reported for this many report periods is taken as gone. */
const MISSED_REPORTS = 3;

/** How long a node has to answer the liveness check. */
export const NODE_CHECK_TIMEOUT_MS = 1500;

/** What a liveness check found: the node answered, nothing listens there, or no answer in time. */
export type NodeCheck = 'answers' | 'refused' | 'silent';

/**
 * Asks the node's HTTP server anything (its control path answers a GET with 405): any answer but a
 * proxy's "no upstream" (502-504) means the process is there. A refused or reset connection means
 * nothing listens; a timeout is 'silent' (a stalled node or a lost machine: not proof of death).
 */
export async function checkNode(url: string, timeoutMs = NODE_CHECK_TIMEOUT_MS): Promise<NodeCheck> {
  try {
    const res = await fetch(`${url.replace(/\/+$/, '')}${MEDIA_CONTROL_PATH}`, { signal: AbortSignal.timeout(timeoutMs) });
    await res.body?.cancel();
    return res.status >= 502 && res.status <= 504 ? 'refused' : 'answers';
  } catch (err) {
    const name = (err as { name?: string }).name;
    return name === 'TimeoutError' || name === 'AbortError' ? 'silent' : 'refused';
  }
}

/** Load as a share of capacity; rooms placed since the last report count as two peers each. */
export function loadScore(n: { peers: number; capacity: number; fresh: number }): number {
  return (n.peers + 2 * n.fresh) / Math.max(1, n.capacity);
}

export class MediaRegistry implements MediaNodes {
  private readonly repo: MediaNodeRepository;
  private readonly clock: Clock;
  private readonly reportMs: number;
  private readonly check: (url: string) => Promise<NodeCheck>;
  constructor(repo: MediaNodeRepository, clock: Clock, reportSeconds: number, check: (url: string) => Promise<NodeCheck> = checkNode) {
    this.repo = repo;
    this.clock = clock;
    this.reportMs = reportSeconds * 1000;
    this.check = check;
  }

  #aliveSince(): Date {
    return new Date(this.clock.now().getTime() - MISSED_REPORTS * this.reportMs);
  }

  async locate(roomNumber: string): Promise<{ nodeId: string; url: string } | null> {
    const current = await this.repo.placement(roomNumber);
    return current ? { nodeId: current.id, url: current.url } : null;
  }

  async all(): Promise<Array<{ nodeId: string; url: string }>> {
    return (await this.repo.alive(this.#aliveSince())).map((n) => ({ nodeId: n.id, url: n.url }));
  }

  async place(roomNumber: string, failedUrl?: string): Promise<{ nodeId: string; url: string }> {
    if (failedUrl) await this.#recheck(roomNumber, failedUrl);
    const since = this.#aliveSince();
    const current = await this.repo.placement(roomNumber);
    if (current && current.seen_at.getTime() >= since.getTime()) return { nodeId: current.id, url: current.url };
    const nodes = await this.repo.alive(since);
    if (nodes.length === 0) throw new DomainError('33005', 'no media node is reporting');
    const best = nodes
      .map((n) => ({ ...n, score: loadScore({ peers: n.peers, capacity: n.capacity, fresh: Number(n.fresh ?? 0) }) }))
      .sort((a, b) => a.score - b.score || a.id.localeCompare(b.id))[0]!;
    const placed = await this.repo.place(roomNumber, best.id, this.clock.now(), since);
    if (!placed) throw new DomainError('33005', 'placement vanished');
    return { nodeId: placed.id, url: placed.url };
  }

  /**
   * A client lost the node at `failedUrl`. Only the room's own node is checked (a claim about
   * another URL is ignored) and only its failing the check takes it out: a node nothing listens
   * on is forgotten at once; one that does not answer in time only once it also missed a report
   * (a stalled but reporting node keeps its rooms, so a class is never split by one client's view).
   */
  async #recheck(roomNumber: string, failedUrl: string): Promise<void> {
    const current = await this.repo.placement(roomNumber);
    if (!current || current.url !== failedUrl) return;
    const found = await this.check(current.url);
    if (found === 'answers') return;
    const lastReportAge = this.clock.now().getTime() - current.seen_at.getTime();
    if (found === 'silent' && lastReportAge <= this.reportMs + NODE_CHECK_TIMEOUT_MS) return;
    await this.repo.forget(current.id, current.seen_at);
  }
}
