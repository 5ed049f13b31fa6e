/**
 * The stage's tables (ADR 112): `room_stage` (the carousel; the row a change locks), the seats
 * and invitations of `room_stage_seats`, the raised hands of `room_hands`. A change runs in
 * `locked`: one transaction that holds the room's stage row, so two web nodes never give the
 * same seat twice. Nothing else may query the database inside it (PGlite has one connection).
 */
import type { Transaction } from 'kysely';
import type { Database } from '../platform/db/database.ts';
import type { DB } from '../platform/db/schema.ts';

type Q = Database | Transaction<DB>;

export interface StageSeatRow {
  user_id: string;
  name: string;
  phase: 'inviting' | 'on';
  since: Date;
  deadline: Date | null;
}

export interface HandRow {
  user_id: string;
  name: string;
  raised_at: Date;
}

export interface CarouselRow {
  carousel_seconds: number;
  carousel_next_at: Date | null;
  carousel_cursor: string | null;
}

/** The queries of one locked change. */
export class StageTx {
  readonly #q: Q;
  readonly #roomId: string;
  constructor(q: Q, roomId: string) {
    this.#q = q;
    this.#roomId = roomId;
  }

  async carousel(): Promise<CarouselRow> {
    const row = await this.#q
      .selectFrom('room_stage')
      .select(['carousel_seconds', 'carousel_next_at', 'carousel_cursor'])
      .where('room_id', '=', this.#roomId)
      .executeTakeFirst();
    return row ?? { carousel_seconds: 0, carousel_next_at: null, carousel_cursor: null };
  }

  async setCarousel(c: CarouselRow): Promise<void> {
    await this.#q.updateTable('room_stage').set(c).where('room_id', '=', this.#roomId).execute();
  }

  /** Seats and invitations, longest first. */
  seats(): Promise<StageSeatRow[]> {
    return this.#q
      .selectFrom('room_stage_seats')
      .innerJoin('users', 'users.id', 'room_stage_seats.user_id')
      .select(['room_stage_seats.user_id', 'users.name', 'room_stage_seats.phase', 'room_stage_seats.since', 'room_stage_seats.deadline'])
      .where('room_stage_seats.room_id', '=', this.#roomId)
      .orderBy('room_stage_seats.since')
      .orderBy('room_stage_seats.user_id')
      .execute();
  }

  /** Raised hands, first raised first. */
  hands(): Promise<HandRow[]> {
    return this.#q
      .selectFrom('room_hands')
      .innerJoin('users', 'users.id', 'room_hands.user_id')
      .select(['room_hands.user_id', 'users.name', 'room_hands.raised_at'])
      .where('room_hands.room_id', '=', this.#roomId)
      .orderBy('room_hands.raised_at')
      .orderBy('room_hands.user_id')
      .execute();
  }

  async putSeat(userId: string, phase: 'inviting' | 'on', since: Date, deadline: Date | null): Promise<void> {
    await this.#q
      .insertInto('room_stage_seats')
      .values({ room_id: this.#roomId, user_id: userId, phase, since, deadline })
      .onConflict((oc) => oc.columns(['room_id', 'user_id']).doUpdateSet({ phase, since, deadline }))
      .execute();
  }

  /** Removes these seats (all when `userIds` is absent); answers who held them. */
  async dropSeats(userIds?: readonly string[]): Promise<Array<{ user_id: string; phase: 'inviting' | 'on' }>> {
    if (userIds && userIds.length === 0) return [];
    let q = this.#q.deleteFrom('room_stage_seats').where('room_id', '=', this.#roomId);
    if (userIds) q = q.where('user_id', 'in', userIds);
    return q.returning(['user_id', 'phase']).execute();
  }

  /** Raises a hand; false when it was up already. */
  async raise(userId: string, at: Date): Promise<boolean> {
    const r = await this.#q
      .insertInto('room_hands')
      .values({ room_id: this.#roomId, user_id: userId, raised_at: at })
      .onConflict((oc) => oc.columns(['room_id', 'user_id']).doNothing())
      .executeTakeFirst();
    return Number(r.numInsertedOrUpdatedRows ?? 0) === 1;
  }

  /** Lowers these hands; answers whose were up. */
  async lower(userIds: readonly string[]): Promise<string[]> {
    if (userIds.length === 0) return [];
    const rows = await this.#q
      .deleteFrom('room_hands')
      .where('room_id', '=', this.#roomId)
      .where('user_id', 'in', userIds)
      .returning('user_id')
      .execute();
    return rows.map((r) => r.user_id);
  }
}

export class StageRepository {
  private readonly db: Database;
  constructor(db: Database) {
    this.db = db;
  }

  /** Reads without the lock (the carousel's period: whether a turn may be due). */
  unlocked(roomId: string): StageTx {
    return new StageTx(this.db, roomId);
  }

  /** One change of the room's stage, holding its row until the transaction ends. */
  locked<T>(roomId: string, fn: (tx: StageTx) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('room_stage')
        .values({ room_id: roomId })
        .onConflict((oc) => oc.column('room_id').doNothing())
        .execute();
      await trx.selectFrom('room_stage').select('room_id').where('room_id', '=', roomId).forUpdate().execute();
      return fn(new StageTx(trx, roomId));
    });
  }
}
