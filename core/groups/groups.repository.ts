/**
 * The breakout groups' tables (migration 0017, ADR 116): the class's session row (the row a change
 * locks), its groups, and where each student is this round. A change runs in `locked`: one
 * transaction holding the session row, so two web nodes never place the same student twice or end
 * the same round twice. Nothing else may query the database inside it (PGlite has one connection).
 */
import type { Transaction } from 'kysely';
import type { Database } from '../platform/db/database.ts';
import type { DB } from '../platform/db/schema.ts';

type Q = Database | Transaction<DB>;

export interface SessionRow {
  status: 'off' | 'running' | 'closing';
  round: number;
  teacher_in: number;
  allow_choose: boolean;
  late_joiners: 'auto' | 'teacher';
  started_at: Date | null;
  ends_at: Date | null;
  closing_at: Date | null;
  background: unknown;
  last_boards: unknown;
}

export interface GroupRow {
  no: number;
  name: string;
  leader: string | null;
  page: number;
  help_at: Date | null;
}

export interface PlaceRow {
  user_id: string;
  group_no: number;
}

const OFF: SessionRow = {
  status: 'off',
  round: 0,
  teacher_in: 0,
  allow_choose: false,
  late_joiners: 'auto',
  started_at: null,
  ends_at: null,
  closing_at: null,
  background: null,
  last_boards: [],
};

/** The queries of one change (or of a read without the lock). */
export class GroupsTx {
  readonly #q: Q;
  readonly #roomId: string;
  constructor(q: Q, roomId: string) {
    this.#q = q;
    this.#roomId = roomId;
  }

  async session(): Promise<SessionRow> {
    const row = await this.#q
      .selectFrom('breakout_sessions')
      .select([
        'status',
        'round',
        'teacher_in',
        'allow_choose',
        'late_joiners',
        'started_at',
        'ends_at',
        'closing_at',
        'background',
        'last_boards',
      ])
      .where('room_id', '=', this.#roomId)
      .executeTakeFirst();
    return row ?? OFF;
  }

  async setSession(
    s: Partial<Omit<SessionRow, 'background' | 'last_boards'>> & { background?: unknown; last_boards?: unknown },
  ): Promise<void> {
    const { background, last_boards, ...rest } = s;
    await this.#q
      .updateTable('breakout_sessions')
      .set({
        ...rest,
        ...(background !== undefined ? { background: background === null ? null : JSON.stringify(background) } : {}),
        ...(last_boards !== undefined ? { last_boards: JSON.stringify(last_boards) } : {}),
      })
      .where('room_id', '=', this.#roomId)
      .execute();
  }

  /**
   * Ends the round `round` (status off, teacher back, last boards kept), only if it is still
   * running or closing: answers whether this call ended it (exactly once however many ask).
   */
  async endRound(round: number, lastBoards: unknown): Promise<boolean> {
    const r = await this.#q
      .updateTable('breakout_sessions')
      .set({ status: 'off', teacher_in: 0, allow_choose: false, ends_at: null, closing_at: null, last_boards: JSON.stringify(lastBoards) })
      .where('room_id', '=', this.#roomId)
      .where('round', '=', round)
      .where('status', 'in', ['running', 'closing'])
      .executeTakeFirst();
    if (Number(r.numUpdatedRows) !== 1) return false;
    await this.#q.deleteFrom('breakout_places').where('room_id', '=', this.#roomId).execute();
    await this.#q.deleteFrom('breakout_groups').where('room_id', '=', this.#roomId).execute();
    return true;
  }

  groups(): Promise<GroupRow[]> {
    return this.#q
      .selectFrom('breakout_groups')
      .select(['no', 'name', 'leader', 'page', 'help_at'])
      .where('room_id', '=', this.#roomId)
      .orderBy('no')
      .execute();
  }

  async putGroups(rows: GroupRow[]): Promise<void> {
    await this.#q.deleteFrom('breakout_groups').where('room_id', '=', this.#roomId).execute();
    if (rows.length)
      await this.#q
        .insertInto('breakout_groups')
        .values(rows.map((g) => ({ room_id: this.#roomId, ...g })))
        .execute();
  }

  async setGroup(no: number, set: Partial<Pick<GroupRow, 'leader' | 'help_at'>>): Promise<void> {
    await this.#q.updateTable('breakout_groups').set(set).where('room_id', '=', this.#roomId).where('no', '=', no).execute();
  }

  /** Every student's place this round, in the order they were placed. */
  places(): Promise<PlaceRow[]> {
    return this.#q
      .selectFrom('breakout_places')
      .select(['user_id', 'group_no'])
      .where('room_id', '=', this.#roomId)
      .orderBy('id')
      .execute();
  }

  /** Puts a student in a place (0: the main room), last in its order. */
  async place(userId: string, groupNo: number): Promise<void> {
    await this.#q.deleteFrom('breakout_places').where('room_id', '=', this.#roomId).where('user_id', '=', userId).execute();
    await this.#q.insertInto('breakout_places').values({ room_id: this.#roomId, user_id: userId, group_no: groupNo }).execute();
  }

  async placeAll(rows: PlaceRow[]): Promise<void> {
    await this.#q.deleteFrom('breakout_places').where('room_id', '=', this.#roomId).execute();
    // One insert per row keeps the order (the serial id) as given.
    for (const r of rows)
      await this.#q
        .insertInto('breakout_places')
        .values({ room_id: this.#roomId, ...r })
        .execute();
  }

  /** Forgets a student's place (a kick); answers the group they were in, if any. */
  async unplace(userId: string): Promise<number | null> {
    const gone = await this.#q
      .deleteFrom('breakout_places')
      .where('room_id', '=', this.#roomId)
      .where('user_id', '=', userId)
      .returning('group_no')
      .executeTakeFirst();
    return gone ? gone.group_no : null;
  }
}

export class GroupsRepository {
  private readonly db: Database;
  constructor(db: Database) {
    this.db = db;
  }

  /** The room's current class (open or closed). */
  room(roomNumber: string) {
    return this.db
      .selectFrom('rooms')
      .select(['id', 'room_number', 'create_user', 'state', 'show_state', 'document_id', 'ppt_current_page', 'room_extend'])
      .where('room_number', '=', roomNumber)
      .orderBy('created_at', 'desc')
      .limit(1)
      .executeTakeFirst();
  }

  /** A document's stored pages (the courseware background). */
  document(id: string) {
    return this.db
      .selectFrom('documents')
      .select(['id', 'pages_prefix', 'page_count', 'page_sizes'])
      .where('id', '=', id)
      .executeTakeFirst();
  }

  /** Students of the class (member, tourist; not the creator, not kicked), seated or not, with their seat state, in the order they joined. */
  students(roomId: string, creator: string) {
    return this.db
      .selectFrom('room_members')
      .select(['user_id', 'left_at'])
      .where('room_id', '=', roomId)
      .where('kicked_at', 'is', null)
      .where('role', 'in', ['member', 'tourist'])
      .where('user_id', '!=', creator)
      .orderBy('joined_at')
      .orderBy('user_id')
      .execute();
  }

  /** Reads without the lock. */
  unlocked(roomId: string): GroupsTx {
    return new GroupsTx(this.db, roomId);
  }

  /** One change of the class's groups, holding its session row until the transaction ends. */
  locked<T>(roomId: string, fn: (tx: GroupsTx) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('breakout_sessions')
        .values({ room_id: roomId })
        .onConflict((oc) => oc.column('room_id').doNothing())
        .execute();
      await trx.selectFrom('breakout_sessions').select('room_id').where('room_id', '=', roomId).forUpdate().execute();
      return fn(new GroupsTx(trx, roomId));
    });
  }
}
