/**
 * Media nodes for a cluster: each node reports its load every few seconds; a room is placed on the
 * least loaded live node the first time someone joins it and stays there while that node is
 * alive, so everyone in a class meets on one node.
 */
import type { Clock } from '../platform/clock.ts';
import { DomainError } from '../platform/errors.ts';
import type { MediaNodeRepository } from './media-node.repository.ts';
import type { MediaNodes } from './media.service.ts';

/** A node that has not reported for this many report periods is taken as gone. */
const MISSED_REPORTS = 3;

/** Load as a share of capacity; rooms placed since the last report count as two peers each. */
export function loadScore(n: { peers: number; capacity: number; fresh: number }): number {
  return (n.peers + 2 * n.fresh) / Math.max(1, n.capacity);
}

export class MediaRegistry implements MediaNodes {
  private readonly repo: MediaNodeRepository;
  private readonly clock: Clock;
  private readonly reportMs: number;
  constructor(repo: MediaNodeRepository, clock: Clock, reportSeconds: number) {
    this.repo = repo;
    this.clock = clock;
    this.reportMs = reportSeconds * 1000;
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

  async place(roomNumber: string): Promise<{ nodeId: string; url: string }> {
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
}
