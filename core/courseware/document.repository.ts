/** Documents of users' libraries and the courseware fields of rooms (migration 0006). */
import type { Selectable } from 'kysely';
import type { Database } from '../platform/db/database.ts';
import type { DocumentsTable } from '../platform/db/schema.ts';

/** A documents row as read (core/platform/db/schema.ts). */
export type DocumentRow = Selectable<DocumentsTable>;

export interface CoursewareRoomRow {
  id: string;
  room_number: string;
  room_type: number;
  create_user: string;
  state: 'open' | 'closed';
  document_id: string | null;
  ppt_current_page: number;
  doc_scroll: number;
  doc_video: string;
}

const DOC_COLUMNS = [
  'id',
  'user_id',
  'name',
  'source_key',
  'pages_prefix',
  'file_hash',
  'task_id',
  'document_type',
  'status',
  'size',
  'page_count',
  'page_sizes',
  'fail_reason',
  'created_at',
  'updated_at',
] as const;

export type NewDocument = Omit<DocumentRow, 'id' | 'page_count' | 'page_sizes' | 'fail_reason'> &
  Partial<Pick<DocumentRow, 'page_count' | 'page_sizes' | 'fail_reason'>>;

export class DocumentRepository {
  private readonly db: Database;
  constructor(db: Database) {
    this.db = db;
  }

  async insert(doc: NewDocument): Promise<DocumentRow> {
    return await this.db.insertInto('documents').values(doc).returning(DOC_COLUMNS).executeTakeFirstOrThrow();
  }

  async byId(id: string): Promise<DocumentRow | undefined> {
    return await this.db.selectFrom('documents').select(DOC_COLUMNS).where('id', '=', id).executeTakeFirst();
  }

  async byIds(ids: string[]): Promise<DocumentRow[]> {
    if (ids.length === 0) return [];
    return await this.db.selectFrom('documents').select(DOC_COLUMNS).where('id', 'in', ids).execute();
  }

  /** The caller's pending (status 0) upload by its object key or task id. */
  async pendingUpload(userId: string, by: { sourceKey?: string; taskId?: string }): Promise<DocumentRow | undefined> {
    let q = this.db.selectFrom('documents').select(DOC_COLUMNS).where('user_id', '=', userId).where('status', '=', 0);
    if (by.sourceKey) q = q.where('source_key', '=', by.sourceKey);
    else if (by.taskId) q = q.where('task_id', '=', by.taskId);
    else return undefined;
    return await q.executeTakeFirst();
  }

  async pendingByKey(sourceKey: string): Promise<{ id: string } | undefined> {
    return await this.db
      .selectFrom('documents')
      .select('id')
      .where('source_key', '=', sourceKey)
      .where('status', '=', 0)
      .executeTakeFirst();
  }

  /** The caller's row that was signed for this upload key and has since been registered (its source moved beside it). */
  async registeredUpload(userId: string, uploadKey: string): Promise<DocumentRow | undefined> {
    const prefix = uploadKey.slice(0, uploadKey.lastIndexOf('/'));
    return await this.db
      .selectFrom('documents')
      .select(DOC_COLUMNS)
      .where('user_id', '=', userId)
      .where('pages_prefix', '=', prefix)
      .where('source_key', 'like', `${prefix}/source/%`)
      .executeTakeFirst();
  }

  async anyBySourceKey(sourceKey: string): Promise<boolean> {
    return !!(await this.db.selectFrom('documents').select('id').where('source_key', '=', sourceKey).limit(1).executeTakeFirst());
  }

  async byTaskId(taskId: string): Promise<DocumentRow | undefined> {
    return await this.db.selectFrom('documents').select(DOC_COLUMNS).where('task_id', '=', taskId).executeTakeFirst();
  }

  /** The caller's newest document of these bytes that is converting or converted. */
  async ownByHash(userId: string, hash: string): Promise<DocumentRow | undefined> {
    return await this.db
      .selectFrom('documents')
      .select(DOC_COLUMNS)
      .where('user_id', '=', userId)
      .where('file_hash', '=', hash)
      .where('status', 'in', [1, 3])
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
  }

  /** Anyone's conversion of these bytes, converted first, else still converting (ADR 041). */
  async reusableByHash(hash: string, exceptPrefix = ''): Promise<DocumentRow | undefined> {
    return await this.db
      .selectFrom('documents')
      .select(DOC_COLUMNS)
      .where('file_hash', '=', hash)
      .where('status', 'in', [1, 3])
      .where('pages_prefix', '!=', exceptPrefix)
      .orderBy('status', 'desc')
      .orderBy('id', 'asc')
      .limit(1)
      .executeTakeFirst();
  }

  /** Rows left converting (1), oldest first: at a worker's start, those a killed process left (ADR 068). */
  async converting(): Promise<DocumentRow[]> {
    return await this.db.selectFrom('documents').select(DOC_COLUMNS).where('status', '=', 1).orderBy('id', 'asc').execute();
  }

  /** Rows that share one conversion (same pages). */
  async sharing(pagesPrefix: string): Promise<DocumentRow[]> {
    return await this.db.selectFrom('documents').select(DOC_COLUMNS).where('pages_prefix', '=', pagesPrefix).execute();
  }

  async countSharing(column: 'pages_prefix' | 'source_key', value: string, exceptId: string): Promise<number> {
    const r = await this.db
      .selectFrom('documents')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where(column, '=', value)
      .where('id', '!=', exceptId)
      .executeTakeFirstOrThrow();
    return Number(r.n);
  }

  async update(id: string, patch: Partial<Omit<DocumentRow, 'id' | 'user_id' | 'created_at'>>): Promise<void> {
    await this.db.updateTable('documents').set(patch).where('id', '=', id).execute();
  }

  /** Progress and outcome of a conversion, for every row that shares it (still converting ones). */
  async updateConversion(
    pagesPrefix: string,
    patch: Partial<Pick<DocumentRow, 'status' | 'page_count' | 'page_sizes' | 'fail_reason'>> & { updated_at: Date },
  ): Promise<DocumentRow[]> {
    return await this.db
      .updateTable('documents')
      .set(patch)
      .where('pages_prefix', '=', pagesPrefix)
      .where('status', '=', 1)
      .returning(DOC_COLUMNS)
      .execute();
  }

  /** Pending (0) -> converting (1), once: false when another registration got there first. */
  /** Points a pending upload at its checked copy, unless it was cancelled or moved meanwhile. */
  async moveSource(id: string, from: string, to: string): Promise<boolean> {
    const r = await this.db
      .updateTable('documents')
      .set({ source_key: to })
      .where('id', '=', id)
      .where('status', '=', 0)
      .where('source_key', '=', from)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  async claimPending(id: string, now: Date): Promise<boolean> {
    const r = await this.db
      .updateTable('documents')
      .set({ status: 1, updated_at: now })
      .where('id', '=', id)
      .where('status', '=', 0)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  async delete(id: string): Promise<void> {
    await this.db.deleteFrom('documents').where('id', '=', id).execute();
  }

  async list(userId: string, offset: number, limit: number): Promise<{ rows: DocumentRow[]; total: number }> {
    const [rows, total] = await Promise.all([
      this.db
        .selectFrom('documents')
        .select(DOC_COLUMNS)
        .where('user_id', '=', userId)
        .where('status', '>=', 1)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .offset(offset)
        .limit(limit)
        .execute(),
      this.db
        .selectFrom('documents')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('user_id', '=', userId)
        .where('status', '>=', 1)
        .executeTakeFirstOrThrow(),
    ]);
    return { rows: rows, total: Number(total.n) };
  }

  /** Signed uploads never registered, older than `before`. */
  async staleUploads(before: Date): Promise<DocumentRow[]> {
    return await this.db
      .selectFrom('documents')
      .select(DOC_COLUMNS)
      .where('status', '=', 0)
      .where('created_at', '<', before)
      .limit(1000)
      .execute();
  }

  // ---- rooms ----------------------------------------------------------------------------------

  async room(roomNumber: string): Promise<CoursewareRoomRow | undefined> {
    return this.db
      .selectFrom('rooms')
      .select(['id', 'room_number', 'room_type', 'create_user', 'state', 'document_id', 'ppt_current_page', 'doc_scroll', 'doc_video'])
      .where('room_number', '=', roomNumber)
      .orderBy('created_at', 'desc')
      .limit(1)
      .executeTakeFirst();
  }

  /** Open rooms that show one of these documents. */
  async roomsShowing(documentIds: string[]): Promise<Array<{ id: string; room_number: string; document_id: string }>> {
    if (documentIds.length === 0) return [];
    const rows = await this.db
      .selectFrom('rooms')
      .select(['id', 'room_number', 'document_id'])
      .where('document_id', 'in', documentIds)
      .where('state', '=', 'open')
      .execute();
    return rows.map((r) => ({ id: r.id, room_number: r.room_number, document_id: r.document_id! }));
  }
}
