/**
 * Sliding-window rate limits kept in the database, so every web node counts the same hits.
 */
import type { Database } from './db/database.ts';
import { RateHitsRepository } from './db/rate-hits.repository.ts';
import type { Clock } from './clock.ts';

export class RateLimiter {
  private readonly hits: RateHitsRepository;
  private readonly clock: Clock;
  constructor(db: Database, clock: Clock) {
    this.hits = new RateHitsRepository(db);
    this.clock = clock;
  }

  /** Records a hit for `key` and says whether it stays within `limit` hits per `windowMs`. */
  async hit(key: string, limit: number, windowMs: number): Promise<boolean> {
    const now = this.clock.now();
    return this.hits.takeHit(key, limit, new Date(now.getTime() - windowMs), now);
  }
}
