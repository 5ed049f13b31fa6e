import { sql } from 'kysely';
import type { Database } from '../platform/db/database.ts';

/** Reads of the live room and writes of its members and chat; the rooms row itself is written by RoomState. */
export class LiveRepository {
  private readonly db: Database;
  constructor(db: Database) {
    this.db = db;
  }

  /** Who was kicked from which room since `since` (ADR 066: a web node that starts sends these again). */
  kickedSince(since: Date) {
    return this.db
      .selectFrom('room_members')
      .innerJoin('rooms', 'rooms.id', 'room_members.room_id')
      .select(['rooms.room_number', 'room_members.user_id'])
      .where('room_members.kicked_at', '>', since)
      .execute();
  }

  /** The room (open or not) with its live fields. */
  room(roomNumber: string) {
    return this.db
      .selectFrom('rooms')
      .select(['id', 'room_number', 'room_type', 'create_user', 'is_vip', 'state', 'trial_started_at', 'ends_at', 'is_demo', 'class_mode'])
      .where('room_number', '=', roomNumber)
      .orderBy('created_at', 'desc')
      .limit(1)
      .executeTakeFirst();
  }

  /** Is this person on the room's stage now (ADR 112: the media token's word)? */
  async onStage(roomId: string, userId: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('room_stage_seats')
      .select('phase')
      .where('room_id', '=', roomId)
      .where('user_id', '=', userId)
      .where('phase', '=', 'on')
      .executeTakeFirst();
    return !!row;
  }

  membership(roomId: string, userId: string) {
    return this.db
      .selectFrom('room_members')
      .innerJoin('users', 'users.id', 'room_members.user_id')
      .select(['room_members.role', 'room_members.left_at', 'room_members.kicked_at', 'users.name'])
      .where('room_members.room_id', '=', roomId)
      .where('room_members.user_id', '=', userId)
      .executeTakeFirst();
  }

  /** People who hold a seat (not left, not kicked), with names. */
  seated(roomId: string) {
    return this.db
      .selectFrom('room_members')
      .innerJoin('users', 'users.id', 'room_members.user_id')
      .select(['room_members.user_id', 'room_members.role', 'users.name'])
      .where('room_members.room_id', '=', roomId)
      .where('room_members.left_at', 'is', null)
      .where('room_members.kicked_at', 'is', null)
      .where('room_members.role', '!=', 'observer')
      .orderBy('room_members.joined_at')
      .execute();
  }

  leave(roomId: string, userId: string, now: Date) {
    return this.db
      .updateTable('room_members')
      .set({ left_at: now })
      .where('room_id', '=', roomId)
      .where('user_id', '=', userId)
      .where('left_at', 'is', null)
      .execute();
  }

  async kick(roomId: string, userId: string, now: Date): Promise<boolean> {
    const r = await this.db
      .updateTable('room_members')
      .set({ kicked_at: now, left_at: now })
      .where('room_id', '=', roomId)
      .where('user_id', '=', userId)
      .where('kicked_at', 'is', null)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) === 1;
  }

  insertChat(row: {
    room_id: string;
    user_id: string;
    name: string;
    text: string;
    created_at: Date;
    group_no?: number | null;
    group_round?: number | null;
  }) {
    return this.db.insertInto('chat_messages').values(row).returning(['id', 'created_at']).executeTakeFirstOrThrow();
  }

  /** The last lines of the main room, and of these breakout groups of this round (ADR 116). */
  async lastChats(roomId: string, limit: number, seen: { round: number; groups: number[] } = { round: 0, groups: [] }) {
    const rows = await this.db
      .selectFrom('chat_messages')
      .select(['id', 'user_id', 'name', 'text', 'created_at', 'group_no'])
      .where('room_id', '=', roomId)
      .where((eb) =>
        seen.groups.length
          ? eb.or([eb('group_no', 'is', null), eb.and([eb('group_round', '=', seen.round), eb('group_no', 'in', seen.groups)])])
          : eb('group_no', 'is', null),
      )
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
    return rows.reverse();
  }

  /** Open rooms whose timed session ended or that nobody used for `idleSince`. */
  expiredRooms(now: Date, idleSince: Date) {
    return this.db
      .selectFrom('rooms')
      .select(['id', 'room_number', sql<boolean>`ends_at is not null and ends_at <= ${now}`.as('timed_out')])
      .where('state', '=', 'open')
      .where((eb) =>
        eb.or([
          eb.and([eb('ends_at', 'is not', null), eb('ends_at', '<=', now)]),
          eb(eb.fn.coalesce('last_active_at', 'created_at'), '<', idleSince),
        ]),
      )
      .limit(500)
      .execute();
  }
}

export type LiveRoomRow = NonNullable<Awaited<ReturnType<LiveRepository['room']>>>;
