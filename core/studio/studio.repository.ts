/** The studio's rows: uploads (studio_uploads) and the records they become (records, type 1). ADR 086. */
import type { Selectable } from 'kysely';
import type { Database } from '../platform/db/database.ts';
import type { StudioUploadsTable } from '../platform/db/schema.ts';

export type UploadRow = Selectable<StudioUploadsTable>;

export interface UnmadeRecord {
  id: string;
  user_id: string;
  source_key: string | null;
  object_key: string | null;
  failure: string | null;
  deleted_at: Date | null;
}

export class StudioRepository {
  private readonly db: Database;
  constructor(db: Database) {
    this.db = db;
  }

  async insertUpload(u: Omit<UploadRow, 'id' | 'record_id'>): Promise<UploadRow> {
    return this.db
      .insertInto('studio_uploads')
      .values({ ...u, record_id: null })
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  /** The owner's upload by token (another user's token finds nothing). */
  ownUpload(userId: string, token: string): Promise<UploadRow | undefined> {
    return this.db.selectFrom('studio_uploads').selectAll().where('token', '=', token).where('user_id', '=', userId).executeTakeFirst();
  }

  /** open -> saving, only from open and before it expired: one save joins the parts. */
  async claimForSaving(id: string, now: Date): Promise<boolean> {
    const r = await this.db
      .updateTable('studio_uploads')
      .set({ state: 'saving' })
      .where('id', '=', id)
      .where('state', '=', 'open')
      .where('expires_at', '>', now)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  /** A save that could not join the parts gives the upload back (the browser sends what is missing and saves again). */
  async reopen(id: string): Promise<void> {
    await this.db.updateTable('studio_uploads').set({ state: 'open' }).where('id', '=', id).where('state', '=', 'saving').execute();
  }

  /** saving -> saved with its new record, in one transaction. */
  async saveRecord(upload: UploadRow, r: { fileName: string; durationMs: number | null; now: Date }): Promise<string> {
    return this.db.transaction().execute(async (trx) => {
      const rec = await trx
        .insertInto('records')
        .values({
          user_id: upload.user_id,
          type: 1,
          task_id: null,
          room_number: null,
          file_name: r.fileName,
          object_key: null,
          file_size: null,
          duration_ms: r.durationMs,
          created_at: r.now,
          deleted_at: null,
          source_key: upload.object_key,
          poster_key: null,
          failure: null,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      await trx.updateTable('studio_uploads').set({ state: 'saved', record_id: rec.id }).where('id', '=', upload.id).execute();
      return rec.id;
    });
  }

  /** open -> aborted; false when it was not open. */
  async abort(id: string): Promise<boolean> {
    const r = await this.db
      .updateTable('studio_uploads')
      .set({ state: 'aborted' })
      .where('id', '=', id)
      .where('state', '=', 'open')
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  /** Open uploads past their life (and saves interrupted longer ago than that). */
  expired(now: Date, limit: number): Promise<UploadRow[]> {
    return this.db
      .selectFrom('studio_uploads')
      .selectAll()
      .where('state', 'in', ['open', 'saving'])
      .where('expires_at', '<', now)
      .orderBy('expires_at')
      .limit(limit)
      .execute();
  }

  async markAborted(id: string): Promise<void> {
    await this.db
      .updateTable('studio_uploads')
      .set({ state: 'aborted' })
      .where('id', '=', id)
      .where('state', 'in', ['open', 'saving'])
      .execute();
  }

  record(id: string): Promise<UnmadeRecord | undefined> {
    return this.db
      .selectFrom('records')
      .select(['id', 'user_id', 'source_key', 'object_key', 'failure', 'deleted_at'])
      .where('id', '=', id)
      .where('type', '=', 1)
      .executeTakeFirst();
  }

  /** The MP4 is made: the record points at it, the upload is forgotten. False when the record went meanwhile. */
  async made(id: string, m: { objectKey: string; posterKey: string; bytes: number; durationMs: number }): Promise<boolean> {
    const r = await this.db
      .updateTable('records')
      .set({ object_key: m.objectKey, poster_key: m.posterKey, file_size: m.bytes, duration_ms: m.durationMs, source_key: null })
      .where('id', '=', id)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  async failed(id: string, reason: string): Promise<void> {
    await this.db.updateTable('records').set({ failure: reason }).where('id', '=', id).execute();
  }

  /** Studio records still waiting for their MP4 (a worker's start resumes them). */
  unmade(limit: number): Promise<Array<{ id: string }>> {
    return this.db
      .selectFrom('records')
      .select('id')
      .where('type', '=', 1)
      .where('object_key', 'is', null)
      .where('failure', 'is', null)
      .where('deleted_at', 'is', null)
      .orderBy('created_at')
      .limit(limit)
      .execute();
  }
}
