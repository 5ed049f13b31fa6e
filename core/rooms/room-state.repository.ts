/**
 * Every statement that writes the `rooms` row (ADR 062). Only RoomState calls these: each write
 * answers the room number it changed, so RoomState can tell every cache, on every node, after it
 * is committed. Reads stay with the repositories that need them.
 */
import { sql, type Transaction } from 'kysely';
import type { Database } from '../platform/db/database.ts';
import type { DB } from '../platform/db/schema.ts';

export type Trx = Transaction<DB>;

/** What a creator's patch on the room channel changes (the shared view, the slide, board power, the extension). */
export type RoomStatePatch = Partial<{
  show_state: string;
  ppt_id: string;
  ppt_current_page: number;
  wb_power: '0' | '1';
  room_extend: string;
}>;
/** What the courseware a room shows changes (the document, its page, portrait scroll and video state). */
export type RoomCoursewarePatch = Partial<{
  document_id: string | null;
  ppt_current_page: number;
  doc_scroll: number;
  doc_video: string;
  show_state: string;
}>;

export interface NewRoom {
  room_number: string;
  room_type: number;
  create_user: string;
  consumption: 'on' | 'off';
  is_vip: '0' | '1';
  max_member: number;
  created_at: Date;
  /** A demo room (ADR 092): marked, with its end and board power for everyone from the start. */
  is_demo?: boolean;
  ends_at?: Date;
  wb_power?: '0' | '1';
}

/** The room number of an updated row, or null when the update matched nothing. */
const numberOf = (row: { room_number: string } | undefined): string | null => row?.room_number ?? null;

export class RoomStateRepository {
  readonly db: Database;
  constructor(db: Database) {
    this.db = db;
  }

  /** Inserts a room unless the number is taken by an open room; undefined then. */
  insertRoom(trx: Trx, values: NewRoom) {
    return (
      trx
        .insertInto('rooms')
        .values({ trial_started_at: null, ends_at: null, closed_at: null, ...values, state: 'open' })
        // A literal, not a parameter: PostgreSQL matches the partial index by its predicate, which a
        // parameter of a generic prepared plan cannot prove.
        .onConflict((oc) => oc.column('room_number').where('state', '=', sql.lit('open')).doNothing())
        .returning('id')
        .executeTakeFirst()
    );
  }

  async setEndsAt(trx: Trx, roomId: string, endsAt: Date): Promise<string | null> {
    const row = await trx
      .updateTable('rooms')
      .set({ ends_at: endsAt })
      .where('id', '=', roomId)
      .where('ends_at', 'is', null)
      .returning('room_number')
      .executeTakeFirst();
    return numberOf(row);
  }

  async patchRoom(roomId: string, patch: RoomStatePatch, now: Date): Promise<string | null> {
    const row = await this.db
      .updateTable('rooms')
      .set({ ...patch, last_active_at: now })
      .where('id', '=', roomId)
      .where('state', '=', 'open')
      .returning('room_number')
      .executeTakeFirst();
    return numberOf(row);
  }

  async touch(roomId: string, now: Date): Promise<string | null> {
    const row = await this.db
      .updateTable('rooms')
      .set({ last_active_at: now })
      .where('id', '=', roomId)
      .returning('room_number')
      .executeTakeFirst();
    return numberOf(row);
  }

  async startTrial(roomId: string, now: Date): Promise<string | null> {
    const row = await this.db
      .updateTable('rooms')
      .set({ trial_started_at: now })
      .where('id', '=', roomId)
      .where('trial_started_at', 'is', null)
      .returning('room_number')
      .executeTakeFirst();
    return numberOf(row);
  }

  async close(roomId: string, now: Date): Promise<string | null> {
    const row = await this.db
      .updateTable('rooms')
      .set({ state: 'closed', closed_at: now })
      .where('id', '=', roomId)
      .where('state', '=', 'open')
      .returning('room_number')
      .executeTakeFirst();
    return numberOf(row);
  }

  /** The room's recording state (issue 13); with `from`, only while it is one of those. */
  async setRecordState(roomId: string, to: '0' | '1' | '2', from?: ReadonlyArray<'0' | '1' | '2'>): Promise<string | null> {
    let q = this.db.updateTable('rooms').set({ record_state: to }).where('id', '=', roomId);
    if (from) q = q.where('record_state', 'in', [...from]);
    return numberOf(await q.returning('room_number').executeTakeFirst());
  }

  /** The class mode (ADR 099); null when the room is not open or already in that mode. */
  async setMode(roomId: string, mode: 'discuss' | 'lecture'): Promise<string | null> {
    const row = await this.db
      .updateTable('rooms')
      .set({ class_mode: mode })
      .where('id', '=', roomId)
      .where('state', '=', 'open')
      .where('class_mode', '!=', mode)
      .returning('room_number')
      .executeTakeFirst();
    return numberOf(row);
  }

  /** The room's live streaming state (issue 14); with `from`, only while it is one of those. */
  async setLiveState(roomId: string, to: '0' | '1' | '2', from?: ReadonlyArray<'0' | '1' | '2'>): Promise<string | null> {
    let q = this.db.updateTable('rooms').set({ live_state: to }).where('id', '=', roomId);
    if (from) q = q.where('live_state', 'in', [...from]);
    return numberOf(await q.returning('room_number').executeTakeFirst());
  }

  async setCourseware(roomId: string, patch: RoomCoursewarePatch): Promise<string | null> {
    const row = await this.db.updateTable('rooms').set(patch).where('id', '=', roomId).returning('room_number').executeTakeFirst();
    return numberOf(row);
  }
}
