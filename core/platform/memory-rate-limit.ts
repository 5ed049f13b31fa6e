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
