import { sql, type Transaction } from 'kysely';
import type { Database } from '../platform/db/database.ts';
import type { DB } from '../platform/db/schema.ts';

type Q = Database | Transaction<DB>;

export const userColumns = [
  'id',
  'mobile',
  'name',
  'kind',
  'promo_code',
  'promo_points',
  'vip_room_time',
  'vip_room_remaining_number',
  'vip_big_room_people_number',
  'vip_big_room_time',
  'record_room_time',
  'credit_window_until',
] as const;

export class AccountRepository {
  private readonly db: Database;
  constructor(db: Database) {
    this.db = db;
  }

  transaction<T>(fn: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(fn);
  }

  lockKey(trx: Q, key: string) {
    return sql`select pg_advisory_xact_lock(hashtext(${key}))`.execute(trx);
  }

  findUserById(id: string, q: Q = this.db) {
    return q.selectFrom('users').select(userColumns).where('id', '=', id).executeTakeFirst();
  }

  findUserByMobile(mobile: string, q: Q = this.db) {
    return q.selectFrom('users').select(userColumns).where('mobile', '=', mobile).executeTakeFirst();
  }

  async insertUser(q: Q, values: { mobile: string | null; name: string; kind: 'teacher' | 'tourist'; promo_code: string | null }) {
    return q
      .insertInto('users')
      .values({ ...values, vip_room_time: null, vip_big_room_time: null, record_room_time: null, credit_window_until: null })
      .onConflict((oc) => oc.doNothing())
      .returning(userColumns)
      .executeTakeFirst();
  }

  updateName(id: string, name: string) {
    return this.db.updateTable('users').set({ name }).where('id', '=', id).returning(userColumns).executeTakeFirst();
  }

  insertSession(q: Q, row: { token_hash: string; user_id: string; expires_at: Date; ip: string }) {
    return q
      .insertInto('sessions')
      .values({ ...row, revoked_at: null })
      .execute();
  }

  findLiveSession(tokenHash: string, now: Date) {
    return this.db
      .selectFrom('sessions')
      .innerJoin('users', 'users.id', 'sessions.user_id')
      .select(['users.id', 'users.name', 'users.mobile', 'users.kind'])
      .where('sessions.token_hash', '=', tokenHash)
      .where('sessions.revoked_at', 'is', null)
      .where('sessions.expires_at', '>', now)
      .executeTakeFirst();
  }

  revokeSession(tokenHash: string, now: Date) {
    return this.db
      .updateTable('sessions')
      .set({ revoked_at: now })
      .where('token_hash', '=', tokenHash)
      .where('revoked_at', 'is', null)
      .execute();
  }

  /** Everything the send limits need, in one read: the last send to the number and the counts. */
  async sendStats(q: Q, mobile: string, ip: string, hourAgo: Date, dayAgo: Date) {
    const r = await sql<{ last: Date | null; ip_hour: string; mobile_hour: string; mobile_day: string }>`
      select max(created_at) filter (where mobile = ${mobile}) as last,
             count(*) filter (where ip = ${ip} and created_at > ${hourAgo}) as ip_hour,
             count(*) filter (where mobile = ${mobile} and created_at > ${hourAgo}) as mobile_hour,
             count(*) filter (where mobile = ${mobile}) as mobile_day
      from sms_codes
      where (mobile = ${mobile} or ip = ${ip}) and created_at > ${dayAgo}`.execute(q);
    const row = r.rows[0];
    return {
      last: row?.last ? new Date(row.last) : null,
      ipHour: Number(row?.ip_hour ?? 0),
      mobileHour: Number(row?.mobile_hour ?? 0),
      mobileDay: Number(row?.mobile_day ?? 0),
    };
  }

  insertCode(q: Q, row: { mobile: string; purpose: string; code_hash: string; ip: string; created_at: Date; expires_at: Date }) {
    return q
      .insertInto('sms_codes')
      .values({ ...row, used_at: null })
      .returning('id')
      .executeTakeFirstOrThrow();
  }

  deleteCode(id: string) {
    return this.db.deleteFrom('sms_codes').where('id', '=', id).execute();
  }

  /** The newest code for the number that can still be used. */
  activeCode(q: Q, mobile: string, purpose: string, now: Date, maxTries: number) {
    return q
      .selectFrom('sms_codes')
      .select(['id', 'code_hash', 'failed_attempts'])
      .where('mobile', '=', mobile)
      .where('purpose', '=', purpose)
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .where('failed_attempts', '<', maxTries)
      .orderBy('created_at', 'desc')
      .limit(1)
      .executeTakeFirst();
  }

  addFailedAttempt(q: Q, id: string) {
    return q
      .updateTable('sms_codes')
      .set((eb) => ({ failed_attempts: eb('failed_attempts', '+', 1) }))
      .where('id', '=', id)
      .execute();
  }

  async markCodeUsed(q: Q, id: string, now: Date): Promise<boolean> {
    const r = await q.updateTable('sms_codes').set({ used_at: now }).where('id', '=', id).where('used_at', 'is', null).executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  async purgeExpired(now: Date): Promise<void> {
    const day = 24 * 3600 * 1000;
    await this.db
      .deleteFrom('sms_codes')
      .where('created_at', '<', new Date(now.getTime() - 2 * day))
      .execute();
    await this.db
      .deleteFrom('sessions')
      .where('expires_at', '<', new Date(now.getTime() - 7 * day))
      .execute();
    await this.db
      .deleteFrom('rate_hits')
      .where('at', '<', new Date(now.getTime() - 2 * day))
      .execute();
    await this.db
      .deleteFrom('idempotency_keys')
      .where('created_at', '<', new Date(now.getTime() - 2 * day))
      .execute();
  }
}

export type UserRow = NonNullable<Awaited<ReturnType<AccountRepository['findUserById']>>>;
