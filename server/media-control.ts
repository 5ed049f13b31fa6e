/**
 * Revocations across processes (ADR 032). The sending side listens to this process's room event
 * bus and turns a stage change, the breakout groups (ADR 117), a kick-out or an ended class into a signed control call to
 * the media node the room is on (from the registry, or MEDIA_PUBLIC_URL); the media node's side
 * checks the call and applies it. A room served in this very process is left to the in-process
 * listener of server/media.ts.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  MEDIA_CONTROL_MAX_BYTES,
  MEDIA_CONTROL_PATH,
  MEDIA_CONTROL_SIGNATURE_HEADER,
  MEDIA_CONTROL_VERSION,
  MEDIA_CONTROL_WINDOW_MS,
  signControl,
  verifyControl,
  type MediaControlCommand,
} from '#core/contracts/media-control.ts';
import { groupsEventSchema, type GroupsEvent } from '#core/contracts/groups.ts';
import type { Database } from '#core/platform/db/database.ts';
import type { BusMessage, EventBus } from '#core/platform/events.ts';
import type { Logger } from '#core/platform/logger.ts';
import type { MediaNodes } from '#core/rooms/media.service.ts';
import { LiveRepository } from '#core/rooms/live.repository.ts';
import type { MediaServer } from '../media-server/server.ts';

/**
 * The breakout groups' map (issue 31, ADR 117) of a `groups` event: every member of a group with
 * its number, and the teacher while visiting one; nobody when the groups are off.
 */
export function spacesOfGroups(g: Pick<GroupsEvent, 'status' | 'groups' | 'teacher' | 'teacherIn'>): Array<[string, number]> {
  if (g.status === 'off') return [];
  const spaces = new Map<string, number>();
  for (const group of g.groups) for (const userId of group.members) spaces.set(userId, group.no);
  if (g.teacherIn > 0 && g.teacher) spaces.set(g.teacher, g.teacherIn);
  return [...spaces];
}

/** The media side of a room event, or null when the media does not care. */
export function commandFromBus(m: BusMessage): MediaControlCommand | null {
  if (!('room' in m.target)) return null;
  const room = m.target.room;
  // Breakout groups (issue 31, ADR 117): the whole map of who is in which space, from the room's
  // whole-state event (parsed by its schema: it may have crossed nodes). Never a seat's message.
  if (m.event === 'groups' && !('user' in m.target)) {
    const g = groupsEventSchema.safeParse(m.payload);
    return g.success ? { op: 'groups', room, serverTime: g.data.serverTime, spaces: spacesOfGroups(g.data) } : null;
  }
  // The bus is typed by the channel contracts: the event name tells the payload.
  // The stage (ADR 112): the whole set of who is on it, and who just left it.
  if (m.event === 'stage') {
    if (m.payload.outcome === 'hand' || m.payload.outcome === 'settings') return null;
    return { op: 'stage', room, userIds: m.payload.onStage.map((s) => s.userId), off: m.payload.off };
  }
  // The class mode (ADR 099) travels as a room-info patch.
  if (m.event === 'customRoomEvent' && m.payload.mode) return { op: 'mode', room, mode: m.payload.mode };
  if (m.event === 'kickout') return { op: 'removeUser', room, userId: m.payload.userId };
  if (m.event === 'roomClosed') return { op: 'closeRoom', room };
  return null;
}

/**
 * A revocation matters as long as the token it revokes could still be used (MEDIA_TOKEN_TTL_SECONDS,
 * 120 s by default): a node that is down or restarting for a while still gets it when it is back.
 * Tries at once, then after 0.3 s, 1 s, 3 s, and every 10 s after, until `retryForMs` has passed.
 */
const FIRST_DELAYS_MS = [300, 1000, 3000];
const LATER_DELAY_MS = 10_000;
export const DEFAULT_RETRY_FOR_MS = 130_000;
const CALL_TIMEOUT_MS = 3000;

export interface ControlRetry {
  retryForMs?: number;
  /** The wait between tries after the first few (10 s). */
  laterDelayMs?: number;
  /** Stops waiting (the process is closing). */
  signal?: AbortSignal;
}

function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    timer.unref();
    signal?.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });
}

export interface MediaControlSenderDeps {
  events: EventBus;
  nodes: MediaNodes;
  secret: string;
  logger: Logger;
  /** A node served by this process (its rooms hear the bus directly). */
  isLocal(nodeId: string): boolean;
  /** How long a revocation is retried (the media token lifetime and a margin). */
  retryForMs?: number;
}

/** Sends one command to a node; true once the node accepted it. */
export async function sendControl(
  url: string,
  secret: string,
  cmd: MediaControlCommand,
  logger: Logger,
  retry: ControlRetry = {},
): Promise<boolean> {
  const until = Date.now() + (retry.retryForMs ?? DEFAULT_RETRY_FOR_MS);
  for (let attempt = 0; ; attempt++) {
    if (attempt > 0) {
      const delay = FIRST_DELAYS_MS[attempt - 1] ?? retry.laterDelayMs ?? LATER_DELAY_MS;
      if (Date.now() + delay > until || retry.signal?.aborted) break;
      await pause(delay, retry.signal);
      if (retry.signal?.aborted) break;
    }
    // A new id and time per try: a retry is a fresh call, and the node's answer is idempotent.
    const body = JSON.stringify({ v: MEDIA_CONTROL_VERSION, id: randomUUID(), at: Date.now(), ...cmd });
    try {
      const res = await fetch(new URL(MEDIA_CONTROL_PATH, url), {
        method: 'POST',
        headers: { 'content-type': 'application/json', [MEDIA_CONTROL_SIGNATURE_HEADER]: signControl(secret, body) },
        body,
        signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
      });
      await res.body?.cancel();
      if (res.ok) return true;
      if (res.status < 500) {
        logger.error({ url, op: cmd.op, room: cmd.room, status: res.status }, 'media node refused a control call');
        return false;
      }
    } catch (err) {
      // One line per outage, not per try.
      if (attempt === 0) logger.warn({ err, url, op: cmd.op, room: cmd.room }, 'media control call failed; retrying');
    }
  }
  logger.error({ url, op: cmd.op, room: cmd.room }, 'media control call gave up');
  return false;
}

/**
 * The nodes a revocation goes to: the room's node and every other live one (ADR 066). A node that
 * does not hold the room yet keeps it for the token lifetime, so a revoked token cannot open the
 * room there either; this process's own node hears the bus directly.
 */
async function targets(nodes: MediaNodes, room: string, isLocal: (nodeId: string) => boolean) {
  const found = [...(nodes.locate ? [await nodes.locate(room)] : []), ...(nodes.all ? await nodes.all() : [])];
  const byUrl = new Map<string, { nodeId: string; url: string }>();
  for (const n of found) if (n && !isLocal(n.nodeId)) byUrl.set(n.url, n);
  return [...byUrl.values()];
}

export interface MediaControlSender {
  /** Sends a command to every remote node (the bus does this for room events). */
  send: (cmd: MediaControlCommand) => void;
  close(): void;
}

/** Listens to the bus and forwards revocations to remote media nodes. */
export function attachMediaControlSender(d: MediaControlSenderDeps): MediaControlSender {
  const closing = new AbortController();
  const send = (cmd: MediaControlCommand) => {
    void targets(d.nodes, cmd.room, (id) => d.isLocal(id))
      .then((nodes) =>
        Promise.all(
          nodes.map((node) =>
            sendControl(node.url, d.secret, cmd, d.logger, { retryForMs: d.retryForMs ?? DEFAULT_RETRY_FOR_MS, signal: closing.signal }),
          ),
        ),
      )
      .catch((err: unknown) => d.logger.error({ err, room: cmd.room }, 'media control: no media nodes'));
  };
  const off = d.events.subscribe((m) => {
    const cmd = commandFromBus(m);
    if (cmd) send(cmd);
  });
  return {
    send,
    close() {
      off();
      closing.abort();
    },
  };
}

/**
 * The kick-outs of the last token lifetime, from the database (ADR 066): a web node that starts
 * (again) sends them once more, so a revocation whose retries a restart cut short still reaches
 * every node, and an embedded SFU that restarted with the process holds them again.
 */
export async function recentKicks(db: Database, since: Date): Promise<MediaControlCommand[]> {
  const rows = await new LiveRepository(db).kickedSince(since);
  return rows.map((r) => ({ op: 'removeUser', room: r.room_number, userId: r.user_id }));
}

/** The node's side: POST MEDIA_CONTROL_PATH, signed; answers `{applied}` (false: the room is not here). */
export function mediaControlHandler(server: MediaServer, secret: string, logger: Logger) {
  const seen = new Map<string, number>();
  return (req: IncomingMessage, res: ServerResponse): void => {
    const reply = (status: number, body: object) => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    if (req.method !== 'POST') return reply(405, { error: 'POST only' });
    const chunks: Buffer[] = [];
    let size = 0;
    let tooBig = false;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MEDIA_CONTROL_MAX_BYTES) tooBig = true;
      else chunks.push(c);
    });
    req.on('error', () => res.destroy());
    req.on('end', () => {
      if (tooBig) return reply(413, { error: 'too large' });
      const now = Date.now();
      const msg = verifyControl(secret, Buffer.concat(chunks).toString('utf8'), req.headers[MEDIA_CONTROL_SIGNATURE_HEADER], now);
      if (!msg) return reply(401, { error: 'bad signature, stale or malformed' });
      for (const [id, until] of seen) if (until < now) seen.delete(id);
      if (seen.has(msg.id)) return reply(409, { error: 'replayed' });
      seen.set(msg.id, now + 2 * MEDIA_CONTROL_WINDOW_MS);
      const { v: _v, id: _id, at: _at, ...cmd } = msg;
      const applied = server.apply(cmd);
      logger.info({ op: cmd.op, room: cmd.room, applied }, 'media control');
      reply(200, { applied });
    });
  };
}
