import { sql, type Transaction } from 'kysely';
import type { Database } from '../platform/db/database.ts';
import type { DB } from '../platform/db/schema.ts';

type Trx = Transaction<DB>;

/** Announcements, feedback and its captcha. */
export class MessagingRepository {
  private readonly db: Database;
  constructor(db: Database) {
    this.db = db;
  }

  transaction<T>(fn: (trx: Trx) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(fn);
  }

  insertAnnouncement(v: { title: string; content: string; author: string; created_at: Date }) {
    return this.db.insertInto('announcements').values(v).returning(['id', 'title', 'content', 'created_at']).executeTakeFirstOrThrow();
  }

  listAnnouncements(before: Date | null, limit: number) {
    let q = this.db.selectFrom('announcements').select(['id', 'title', 'content', 'created_at']);
    if (before) q = q.where('created_at', '<', before);
    return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
  }

  async countAnnouncements(): Promise<number> {
    const r = await this.db
      .selectFrom('announcements')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    return Number(r.n);
  }

  deleteAnnouncement(id: string) {
    return this.db.deleteFrom('announcements').where('id', '=', id).execute();
  }

  putCaptcha(userId: string, codeHash: string, expiresAt: Date) {
    return this.db
      .insertInto('feedback_captchas')
      .values({ user_id: userId, code_hash: codeHash, expires_at: expiresAt })
      .onConflict((oc) => oc.column('user_id').doUpdateSet({ code_hash: codeHash, expires_at: expiresAt, failed_attempts: 0 }))
      .execute();
  }

  lockCaptcha(trx: Trx, userId: string) {
    return trx.selectFrom('feedback_captchas').selectAll().where('user_id', '=', userId).forUpdate().executeTakeFirst();
  }

  failCaptcha(trx: Trx, userId: string) {
    return trx
      .updateTable('feedback_captchas')
      .set((eb) => ({ failed_attempts: eb('failed_attempts', '+', 1) }))
      .where('user_id', '=', userId)
      .execute();
  }

  dropCaptcha(trx: Trx, userId: string) {
    return trx.deleteFrom('feedback_captchas').where('user_id', '=', userId).execute();
  }

  async feedbackSince(trx: Trx, userId: string, since: Date): Promise<number> {
    const r = await sql<{ n: string }>`select count(*) as n from feedback where user_id = ${userId} and created_at > ${since}`.execute(trx);
    return Number(r.rows[0]?.n ?? 0);
  }

  insertFeedback(trx: Trx, v: { user_id: string; content: string; created_at: Date }) {
    return trx.insertInto('feedback').values(v).execute();
  }

  latestFeedback(limit: number) {
    return this.db
      .selectFrom('feedback')
      .innerJoin('users', 'users.id', 'feedback.user_id')
      .select(['feedback.id', 'feedback.content', 'feedback.created_at', 'users.mobile', 'users.name'])
      .orderBy('feedback.created_at', 'desc')
      .limit(limit)
      .execute();
  }
}
