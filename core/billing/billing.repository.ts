import type { Transaction } from 'kysely';
import type { Database } from '../platform/db/database.ts';
import type { DB } from '../platform/db/schema.ts';
import { userColumns } from '../account/account.repository.ts';

export type Trx = Transaction<DB>;

export class BillingRepository {
  private readonly db: Database;
  constructor(db: Database) {
    this.db = db;
  }

  entitlements(userId: string, q: Database | Trx = this.db) {
    return q.selectFrom('users').select(userColumns).where('id', '=', userId).executeTakeFirst();
  }

  /** Locks the user's row for the rest of the transaction (credits are spent one at a time). */
  lockEntitlements(trx: Trx, userId: string) {
    return trx.selectFrom('users').select(userColumns).where('id', '=', userId).forUpdate().executeTakeFirst();
  }

  async spendCredit(trx: Trx, userId: string, windowUntil: Date, now: Date): Promise<boolean> {
    const r = await trx
      .updateTable('users')
      .set((eb) => ({ vip_room_remaining_number: eb('vip_room_remaining_number', '-', 1), credit_window_until: windowUntil }))
      .where('id', '=', userId)
      .where('vip_room_remaining_number', '>', 0)
      .executeTakeFirst();
    if (Number(r.numUpdatedRows) !== 1) return false;
    await trx
      .insertInto('credit_ledger')
      .values({ user_id: userId, delta: -1, reason: 'mini-class', room_id: null, created_at: now })
      .execute();
    return true;
  }

  /** Used by orders (billing issue) and by tests to grant packages. */
  grant(
    userId: string,
    patch: Partial<{
      vip_room_time: Date | null;
      vip_room_remaining_number: number;
      vip_big_room_people_number: number;
      vip_big_room_time: Date | null;
      record_room_time: Date | null;
    }>,
  ) {
    return this.db.updateTable('users').set(patch).where('id', '=', userId).execute();
  }
}
