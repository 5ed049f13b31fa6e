import { sql } from 'kysely';
import type { Database } from './database.ts';

/** The `rate_hits` table: every web node counts the same hits (core/platform/rate-limit.ts). */
export class RateHitsRepository {
  private readonly db: Database;
  constructor(db: Database) {
    this.db = db;
  }

  /**
   * Counts `key`'s hits after `since` and, when fewer than `limit`, records one at `now`; true if
   * it was recorded. One transaction holding the key's advisory lock, so two nodes cannot both
   * take the last hit.
   */
  takeHit(key: string, limit: number, since: Date, now: Date): Promise<boolean> {
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
