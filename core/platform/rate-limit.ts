/**
 * Sliding-window rate limits kept in the database, so every web node counts the same hits.
 */
import { sql } from 'kysely';
import type { Database } from './db/database.ts';
import type { Clock } from './clock.ts';

export class RateLimiter {
  private readonly db: Database;
  private readonly clock: Clock;
  constructor(db: Database, clock: Clock) {
    this.db = db;
    this.clock = clock;
  }

  /** Records a hit for `key` and says whether it stays within `limit` hits per `windowMs`. */
  async hit(key: string, limit: number, windowMs: number): Promise<boolean> {
    const now = this.clock.now();
    const since = new Date(now.getTime() - windowMs);
    return this.db.transaction().execute(async (trx) => {
      await sql`select pg_advisory_xact_lock(hashtext(${'rate:' + key}))`.execute(trx);
      const row = await trx
        .selectFrom('rate_hits')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('key', '=', key)
        .where('at', '>', since)
        .executeTakeFirstOrThrow();
      if (Number(row.n) >= limit) return false;
      await trx.insertInto('rate_hits').values({ key, at: now }).execute();
      return true;
    });
  }
}
