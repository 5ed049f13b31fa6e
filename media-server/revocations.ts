/**
 * What this node was told to take back (ADR 066), held for the media token's lifetime whether or
 * not the room is on the node yet: a token issued before a revocation is still valid for up to
 * MEDIA_TOKEN_TTL_SECONDS, and it must not open the room (or a fresh copy of it) on this node.
 *
 * - a kick-out refuses every token of that person in that room (the web side never issues them a
 *   new one while they are out);
 * - an ended class refuses tokens of that room issued before it ended (the number may be reused
 *   by a new class, whose tokens are newer);
 * - a large-class student taken off the stage (ADR 112) loses mic and camera from a token issued
 *   before it (going up again brings a newer token).
 *
 * A token's issue time is its expiry minus the lifetime (both nodes use the same
 * MEDIA_TOKEN_TTL_SECONDS); it has second precision, so only a token issued a full second before
 * the revocation counts as older. The list is bounded: past MAX_ENTRIES the oldest goes first
 * (every entry has the same lifetime, so the oldest is the first to expire anyway).
 */
import type { MediaControlCommand } from '#core/contracts/media-control.ts';
import type { MediaTokenPayload } from '#core/contracts/media-signaling.ts';
import { DomainError } from '#core/platform/errors.ts';

export const MAX_ENTRIES = 50_000;

/** What is held: a command's op, or 'stageOff' for one person taken off a stage. */
type HeldOp = MediaControlCommand['op'] | 'stageOff';

interface Entry {
  op: HeldOp;
  /** When the node learned it (ms). */
  at: number;
  until: number;
}

export class Revocations {
  /** `op\nroom\nuser` -> the latest such revocation; insertion order is expiry order. */
  readonly #entries = new Map<string, Entry>();
  readonly #ttlMs: number;
  readonly #max: number;

  constructor(ttlSeconds: number, max = MAX_ENTRIES) {
    this.#ttlMs = ttlSeconds * 1000;
    this.#max = max;
  }

  get size(): number {
    return this.#entries.size;
  }

  static #key(op: string, room: string, userId = ''): string {
    return `${op}\n${room}\n${userId}`;
  }

  add(cmd: { op: HeldOp; room: string; userId?: string }, now: number): void {
    this.#sweep(now);
    const key = Revocations.#key(cmd.op, cmd.room, cmd.userId ?? '');
    // Re-inserted, so the map stays in expiry order.
    this.#entries.delete(key);
    this.#entries.set(key, { op: cmd.op, at: now, until: now + this.#ttlMs });
    while (this.#entries.size > this.#max) this.#entries.delete(this.#entries.keys().next().value!);
  }

  /**
   * The rights this token still carries, or a 33001 refusal. `exp` is the token's expiry (s).
   */
  check(claim: MediaTokenPayload & { exp: number }, now: number): MediaTokenPayload['pub'] {
    this.#sweep(now);
    const issuedMs = claim.exp * 1000 - this.#ttlMs;
    const older = (e: Entry | undefined) => !!e && e.until >= now && issuedMs + 1000 <= e.at;
    const kicked = this.#entries.get(Revocations.#key('removeUser', claim.room, claim.uid));
    if (kicked && kicked.until >= now) throw new DomainError('33001', 'removed from this class');
    if (older(this.#entries.get(Revocations.#key('closeRoom', claim.room)))) throw new DomainError('33001', 'this class has ended');
    if (claim.rt === 4 && claim.role !== 'creator' && older(this.#entries.get(Revocations.#key('stageOff', claim.room, claim.uid)))) {
      return claim.pub.filter((s) => s !== 'mic' && s !== 'camera');
    }
    return claim.pub;
  }

  #sweep(now: number): void {
    for (const [key, e] of this.#entries) {
      if (e.until >= now) break;
      this.#entries.delete(key);
    }
  }
}
