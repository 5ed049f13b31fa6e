/**
 * Puts a video track's RTP back in sequence order before its decoder sees it. The recorder's leg
 * asks the SFU again for what it lost (NACK) and the SFU sends it again, later than the packets
 * after it; the frame assembler (vp8.ts) takes a packet missing when its turn comes as lost, and
 * holds every frame after it back until the next keyframe. Here a gap is held open for a short
 * wait: what fills it goes out in its place, and only then does the stream skip it.
 */

/** Sequence numbers are 16 bits: the forward distance from `a` to `b`. */
const forward = (a: number, b: number) => (b - a) & 0xffff;
/** A packet this far from the one expected (ahead, or behind) starts the stream over (a new leg, a restarted sender). */
const RESTART_DISTANCE = 3000;

export interface ReorderOptions<T> {
  /** Each packet, in order, once. */
  emit: (item: T) => void;
  /** How long a gap is held open for what is missing (ms). */
  waitMs: number;
  /** More packets than this held behind a gap: it is given up at once. */
  maxHeld?: number;
  now?: () => number;
}

export class RtpReorder<T> {
  readonly #o: Required<ReorderOptions<T>>;
  #expected: number | null = null;
  readonly #held = new Map<number, T>();
  /** When the oldest gap still open was first seen (-1: none open). */
  #gapSince = -1;
  #timer: NodeJS.Timeout | null = null;
  /** Packets that came after their place was given up, and gaps given up (diagnostics). */
  late = 0;
  skipped = 0;
  /** Packets that arrived out of order and went out in their place. */
  filled = 0;

  constructor(o: ReorderOptions<T>) {
    this.#o = { maxHeld: 512, now: () => performance.now(), ...o };
  }

  push(seq: number, item: T): void {
    if (this.#expected === null) this.#expected = seq;
    const ahead = forward(this.#expected, seq);
    if (ahead >= 0x8000 && forward(seq, this.#expected) <= RESTART_DISTANCE) {
      // Just behind what was already sent on: its place was given up (or it is a duplicate).
      this.late++;
      return;
    }
    if (ahead > RESTART_DISTANCE) {
      this.#flushAll();
      this.#expected = seq;
    }
    if (this.#held.has(seq)) return;
    if (this.#held.size > 0 && seq === this.#expected) this.filled++;
    this.#held.set(seq, item);
    this.#drain();
  }

  /** Sends on what is in order; a gap held long enough (or behind too many packets) is skipped. */
  #drain(): void {
    for (;;) {
      const next = this.#held.get(this.#expected!);
      if (next !== undefined) {
        this.#held.delete(this.#expected!);
        this.#expected = (this.#expected! + 1) & 0xffff;
        this.#o.emit(next);
        continue;
      }
      if (this.#held.size === 0) {
        this.#gapSince = -1;
        break;
      }
      const now = this.#o.now();
      if (this.#gapSince < 0) this.#gapSince = now;
      if (now - this.#gapSince < this.#o.waitMs && this.#held.size <= this.#o.maxHeld) break;
      // Given up: on to the nearest packet held, and a new wait for any gap after it.
      this.#expected = this.#nearestHeld();
      this.skipped++;
      this.#gapSince = now;
    }
    this.#arm();
  }

  #nearestHeld(): number {
    let best = -1;
    let bestDistance = Infinity;
    for (const seq of this.#held.keys()) {
      const d = forward(this.#expected!, seq);
      if (d < bestDistance) {
        bestDistance = d;
        best = seq;
      }
    }
    return best;
  }

  #arm(): void {
    if (this.#held.size === 0) {
      if (this.#timer) clearTimeout(this.#timer);
      this.#timer = null;
      return;
    }
    if (this.#timer) return;
    const wait = Math.max(1, this.#gapSince + this.#o.waitMs - this.#o.now());
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.#drain();
    }, wait);
    this.#timer.unref();
  }

  /** Everything held goes out in order, gaps skipped (a restart of the stream). */
  #flushAll(): void {
    while (this.#held.size > 0) {
      const next = this.#held.get(this.#expected!);
      if (next === undefined) {
        this.#expected = this.#nearestHeld();
        this.skipped++;
        continue;
      }
      this.#held.delete(this.#expected!);
      this.#expected = (this.#expected! + 1) & 0xffff;
      this.#o.emit(next);
    }
    this.#gapSince = -1;
  }

  /** Drops what is held (the leg is made again, or the track closes). */
  reset(): void {
    this.#held.clear();
    this.#expected = null;
    this.#gapSince = -1;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
  }
}
