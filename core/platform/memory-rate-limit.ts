import type { Clock } from './clock.ts';

/**
 * A sliding-window limit kept in this process, for hot paths where a database round trip per hit
 * costs more than the thing being limited (chat). A person's room connections live on one web
 * node (sticky sessions), so a per-process count is their count.
 */
export class MemoryRateLimiter {
  readonly #hits = new Map<string, number[]>();
  readonly #now: () => number;
  #sweptAt = 0;

  constructor(now: () => number) {
    this.#now = now;
  }

  hit(key: string, limit: number, windowMs: number): boolean {
    const now = this.#now();
    this.#sweep(now, windowMs);
    const since = now - windowMs;
    const list = (this.#hits.get(key) ?? []).filter((t) => t > since);
    if (list.length >= limit) {
      this.#hits.set(key, list);
      return false;
    }
    list.push(now);
    this.#hits.set(key, list);
    return true;
  }

  /** Forgets keys with no recent hits, so the map does not grow with every person ever seen. */
  #sweep(now: number, windowMs: number): void {
    if (now - this.#sweptAt < windowMs) return;
    this.#sweptAt = now;
    for (const [key, list] of this.#hits) if (!list.some((t) => t > now - windowMs)) this.#hits.delete(key);
  }
}

/**
 * Token buckets kept in this process, one per key: `capacity` hits at once, refilled at
 * `perMs` tokens a millisecond. Unlike a sliding window, a steady rate at the refill rate never
 * runs dry however its hits jitter, while a flood gets `capacity` and then the refill rate.
 * Time is read from the clock (tests move a ManualClock).
 */
export class TokenBuckets {
  readonly #buckets = new Map<string, { tokens: number; at: number }>();
  readonly #clock: Clock;
  readonly #capacity: number;
  readonly #perMs: number;
  #sweptAt = 0;

  constructor(clock: Clock, capacity: number, perMs: number) {
    this.#clock = clock;
    this.#capacity = capacity;
    this.#perMs = perMs;
  }

  /** Takes one token for `key`; false (and nothing taken) when the bucket is empty. */
  take(key: string): boolean {
    const now = this.#clock.now().getTime();
    this.#sweep(now);
    const b = this.#buckets.get(key) ?? { tokens: this.#capacity, at: now };
    // A clock set back refills nothing.
    b.tokens = Math.min(this.#capacity, b.tokens + Math.max(0, now - b.at) * this.#perMs);
    b.at = now;
    this.#buckets.set(key, b);
    if (b.tokens < 1) return false;
    b.tokens -= 1;
    return true;
  }

  /** Forgets full buckets (a key not seen for a whole refill), so the map does not grow forever. */
  #sweep(now: number): void {
    const fullAfter = this.#capacity / this.#perMs;
    if (now - this.#sweptAt < fullAfter) return;
    this.#sweptAt = now;
    for (const [key, b] of this.#buckets) if (now - b.at >= fullAfter) this.#buckets.delete(key);
  }
}
