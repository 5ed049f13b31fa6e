import { sql, type Transaction } from 'kysely';
import type { Database } from '../platform/db/database.ts';
import type { DB, RoomMembersTable } from '../platform/db/schema.ts';

type Q = Database | Transaction<DB>;
export type Trx = Transaction<DB>;

const roomColumns = [
  'rooms.id',
  'rooms.room_number',
  'rooms.room_type',
  'rooms.create_user',
  'rooms.consumption',
  'rooms.is_vip',
  'rooms.max_member',
  'rooms.state',
  'rooms.show_state',
  'rooms.wb_power',
  'rooms.room_extend',
  'rooms.ppt_id',
  'rooms.ppt_current_page',
  'rooms.is_record_status',
  'rooms.record_state',
  'rooms.live_state',
  'rooms.trial_started_at',
  'rooms.ends_at',
  'rooms.created_at',
  'rooms.is_demo',
  'rooms.class_mode',
] as const;

export class RoomRepository {
  private readonly db: Database;
  constructor(db: Database) {
    this.db = db;
  }

  transaction<T>(fn: (trx: Trx) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(fn);
  }

  /** `lock` (inside a transaction) holds the room row, so joins of one room take seats one at a time. */
  findOpenRoom(roomNumber: string, q: Q = this.db, lock = false) {
    const query = q
      .selectFrom('rooms')
      .innerJoin('users', 'users.id', 'rooms.create_user')
      .select([...roomColumns, 'users.name as creator_name'])
      .select((eb) =>
        eb
          .selectFrom('room_members')
          .select((e) => e.fn.countAll<string>().as('n'))
          .whereRef('room_members.room_id', '=', 'rooms.id')
          .where('room_members.left_at', 'is', null)
          .where('room_members.kicked_at', 'is', null)
          .where('room_members.role', '!=', 'observer')
          .as('participants'),
      )
      .where('rooms.room_number', '=', roomNumber)
      .where('rooms.state', '=', 'open');
    return (lock ? query.forUpdate('rooms') : query).executeTakeFirst();
  }

  member(trx: Q, roomId: string, userId: string) {
    return trx.selectFrom('room_members').selectAll().where('room_id', '=', roomId).where('user_id', '=', userId).executeTakeFirst();
  }

  /** Seated people other than the creator (whose seat is always kept) and observers. */
  async countSeatedOrdinary(trx: Q, roomId: string, exceptUserId: string): Promise<number> {
    const row = await trx
      .selectFrom('room_members')
      .select((e) => e.fn.countAll<string>().as('n'))
      .where('room_id', '=', roomId)
      .where('user_id', '!=', exceptUserId)
      .where('left_at', 'is', null)
      .where('kicked_at', 'is', null)
      .where('role', 'not in', ['observer', 'creator'])
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  upsertMember(
    trx: Trx,
    row: { room_id: string; user_id: string; role: RoomMembersTable['role']; user_type: RoomMembersTable['user_type']; joined_at: Date },
  ) {
    return trx
      .insertInto('room_members')
      .values({ ...row, left_at: null, kicked_at: null })
      .onConflict((oc) =>
        oc.columns(['room_id', 'user_id']).doUpdateSet({ left_at: null, user_type: row.user_type, joined_at: row.joined_at }),
      )
      .execute();
  }

  idempotentResponse(trx: Trx, userId: string, scope: string, key: string) {
    return trx
      .selectFrom('idempotency_keys')
      .select('response')
      .where('user_id', '=', userId)
      .where('scope', '=', scope)
      .where('key', '=', key)
      .executeTakeFirst();
  }

  /** Claims the key inside the transaction: a concurrent duplicate waits for it, then sees the answer. */
  async claimIdempotencyKey(trx: Trx, userId: string, scope: string, key: string, now: Date): Promise<boolean> {
    await sql`select pg_advisory_xact_lock(hashtext(${`idem:${userId}:${scope}:${key}`}))`.execute(trx);
    const existing = await this.idempotentResponse(trx, userId, scope, key);
    if (existing) return false;
    await trx.insertInto('idempotency_keys').values({ user_id: userId, scope, key, response: null, created_at: now }).execute();
    return true;
  }

  storeIdempotentResponse(trx: Trx, userId: string, scope: string, key: string, response: unknown) {
    return trx
      .updateTable('idempotency_keys')
      .set({ response: JSON.stringify(response) })
      .where('user_id', '=', userId)
      .where('scope', '=', scope)
      .where('key', '=', key)
      .execute();
  }

  roomsCreatedBy(userId: string, before: Date, limit: number) {
    return this.db
      .selectFrom('rooms')
      .select(['room_number', 'room_type', 'is_vip', 'state', 'created_at'])
      .where('create_user', '=', userId)
      .where('created_at', '<', before)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
  }

  /** "My classrooms": the creator's listed rooms (not deleted), newest first, of one type or all. */
  listedRooms(userId: string, opts: { roomType?: number | undefined; before?: Date | undefined; offset: number; limit: number }) {
    let q = this.db
      .selectFrom('rooms')
      .select(['id', 'room_number', 'room_type', 'is_vip', 'state', 'created_at'])
      .where('create_user', '=', userId)
      .where('hidden_at', 'is', null);
    if (opts.roomType !== undefined) q = q.where('room_type', '=', opts.roomType);
    if (opts.before) q = q.where('created_at', '<', opts.before);
    return q.orderBy('created_at', 'desc').orderBy('id', 'desc').offset(opts.offset).limit(opts.limit).execute();
  }

  async countListedRooms(userId: string, roomType?: number): Promise<number> {
    let q = this.db
      .selectFrom('rooms')
      .select((e) => e.fn.countAll<string>().as('n'))
      .where('create_user', '=', userId)
      .where('hidden_at', 'is', null);
    if (roomType !== undefined) q = q.where('room_type', '=', roomType);
    const row = await q.executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  /** A room of the list by its row, for its creator's end / delete. */
  listedRoom(roomId: string) {
    return this.db
      .selectFrom('rooms')
      .select(['id', 'room_number', 'create_user', 'state'])
      .where('id', '=', roomId)
      .where('hidden_at', 'is', null)
      .executeTakeFirst();
  }

  /** Takes a closed room off its creator's list; the row stays for its board, recordings and bills. */
  async hideRoom(roomId: string, userId: string, now: Date): Promise<boolean> {
    const row = await this.db
      .updateTable('rooms')
      .set({ hidden_at: now })
      .where('id', '=', roomId)
      .where('create_user', '=', userId)
      .where('state', '=', 'closed')
      .where('hidden_at', 'is', null)
      .returning('id')
      .executeTakeFirst();
    return row !== undefined;
  }
}

export type OpenRoomRow = NonNullable<Awaited<ReturnType<RoomRepository['findOpenRoom']>>>;
