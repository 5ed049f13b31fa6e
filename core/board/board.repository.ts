import { sql } from 'kysely';
import type { Database } from '../platform/db/database.ts';

export interface BoardRoomRow {
  id: string;
  room_number: string;
  room_type: number;
  create_user: string;
  wb_power: '0' | '1';
  state: 'open' | 'closed';
  room_extend: string;
  /** The courseware document the room shows (its slides' layers are `doc:{id}:{slide}`), or null. */
  document_id: string | null;
  /** A demo room ends at `ends_at` even before housekeeping closes it (ADR 092). */
  is_demo: boolean;
  ends_at: Date | null;
}

/** Why an insert did not happen: another writer took the next number, or the opId is known. */
export type InsertOutcome = { kind: 'inserted'; seq: number } | { kind: 'stale' } | { kind: 'duplicate' };

const isUniqueViolation = (e: unknown) => typeof e === 'object' && e !== null && (e as { code?: unknown }).code === '23505';

export class BoardRepository {
  private readonly db: Database;
  constructor(db: Database) {
    this.db = db;
  }

  /** The latest room with this number (open or closed). */
  room(roomNumber: string): Promise<BoardRoomRow | undefined> {
    return this.db
      .selectFrom('rooms')
      .select(['id', 'room_number', 'room_type', 'create_user', 'wb_power', 'state', 'room_extend', 'document_id', 'is_demo', 'ends_at'])
      .where('room_number', '=', roomNumber)
      .orderBy('created_at', 'desc')
      .limit(1)
      .executeTakeFirst();
  }

  /** The room's last sequence number (0 for a board never drawn on). */
  async roomSeq(roomId: string): Promise<number> {
    const row = await this.db.selectFrom('board_rooms').select('seq').where('room_id', '=', roomId).executeTakeFirst();
    return row ? Number(row.seq) : 0;
  }

  /**
   * One statement: takes the room's next number only if it is still `expected + 1` (another
   * writer, on this node or another, makes it stale) and stores the operation under it. A repeated
   * opId violates the unique index and the whole statement, counter included, is undone.
   */
  async insertOp(roomId: string, expected: number, op: { page: string; opId: string; uid: string; body: string }): Promise<InsertOutcome> {
    try {
      // The first operation of a room creates its counter; later ones move it only from `expected`.
      const next =
        expected === 0
          ? sql`insert into board_rooms as b (room_id, seq) values (${roomId}, 1)
                on conflict (room_id) do update set seq = b.seq + 1 where b.seq = 0 returning seq`
          : sql`update board_rooms set seq = seq + 1 where room_id = ${roomId} and seq = ${expected} returning seq`;
      const rows = await sql<{ seq: string }>`
        with s as (${next})
        insert into board_ops (room_id, seq, page, op_id, user_id, body)
        select ${roomId}, s.seq, ${op.page}, ${op.opId}, ${op.uid}, ${op.body} from s
        returning seq`.execute(this.db);
      const seq = rows.rows[0]?.seq;
      return seq === undefined ? { kind: 'stale' } : { kind: 'inserted', seq: Number(seq) };
    } catch (e) {
      if (isUniqueViolation(e)) return { kind: 'duplicate' };
      throw e;
    }
  }

  /** Many operations numbered `expected + 1 ...` in one transaction; fails if another writer moved the counter. */
  async insertMany(roomId: string, expected: number, ops: Array<{ page: string; opId: string; uid: string; body: string }>): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      const next = String(expected + ops.length);
      const moved =
        expected === 0
          ? await sql`insert into board_rooms as b (room_id, seq) values (${roomId}, ${next})
                on conflict (room_id) do update set seq = ${next} where b.seq = 0 returning seq`.execute(trx)
          : await sql`update board_rooms set seq = ${next} where room_id = ${roomId} and seq = ${expected} returning seq`.execute(trx);
      if (moved.rows.length !== 1) throw new Error('board log moved under a bulk insert');
      await trx
        .insertInto('board_ops')
        .values(
          ops.map((o, i) => ({
            room_id: roomId,
            seq: String(expected + 1 + i),
            page: o.page,
            op_id: o.opId,
            user_id: o.uid,
            body: o.body,
          })),
        )
        .execute();
    });
  }

  async seqOfOpId(roomId: string, opId: string): Promise<number | null> {
    const row = await this.db
      .selectFrom('board_ops')
      .select('seq')
      .where('room_id', '=', roomId)
      .where('op_id', '=', opId)
      .executeTakeFirst();
    return row ? Number(row.seq) : null;
  }

  /** Every operation of the room after `seq` (catching up with another writer). */
  async opsAfter(roomId: string, seq: number): Promise<string[]> {
    const rows = await this.db
      .selectFrom('board_ops')
      .select('body')
      .where('room_id', '=', roomId)
      .where('seq', '>', String(seq))
      .orderBy('seq')
      .execute();
    return rows.map((r) => r.body);
  }

  /** One page's operations after `seq`, in order (a reader following the board: the recorder's scene). */
  async pageOpsAfter(roomId: string, page: string, seq: number): Promise<string[]> {
    const rows = await this.db
      .selectFrom('board_ops')
      .select('body')
      .where('room_id', '=', roomId)
      .where('page', '=', page)
      .where('seq', '>', String(seq))
      .orderBy('seq')
      .execute();
    return rows.map((r) => r.body);
  }

  /** The counter of a page's snapshot, if it has one (a newer one means the page was compacted or cleared). */
  async snapshotSeq(roomId: string, page: string): Promise<number | null> {
    const row = await this.db
      .selectFrom('board_snapshots')
      .select('seq')
      .where('room_id', '=', roomId)
      .where('page', '=', page)
      .executeTakeFirst();
    return row ? Number(row.seq) : null;
  }

  /** The layer's snapshot (if any) and its operations after it, in order, as a JSON array text. */
  async loadLayer(roomId: string, page: string): Promise<{ snapshot: { seq: number; state: string } | null; ops: string }> {
    const snap = await this.db
      .selectFrom('board_snapshots')
      .select(['seq', 'state'])
      .where('room_id', '=', roomId)
      .where('page', '=', page)
      .executeTakeFirst();
    const from = snap ? snap.seq : '0';
    // One row, not thousands: the operations after the snapshot as one JSON array text.
    const tail = await sql<{ ops: string | null }>`
      select '[' || string_agg(body, ',' order by seq) || ']' as ops
      from board_ops where room_id = ${roomId} and page = ${page} and seq > ${from}`.execute(this.db);
    return { snapshot: snap ? { seq: Number(snap.seq), state: snap.state } : null, ops: tail.rows[0]?.ops ?? '[]' };
  }

  /** Replaces the layer's snapshot and drops the operations it covers. */
  async saveSnapshot(roomId: string, page: string, seq: number, state: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('board_snapshots')
        .values({ room_id: roomId, page, seq: String(seq), state })
        .onConflict((oc) =>
          oc
            .columns(['room_id', 'page'])
            .doUpdateSet({ seq: String(seq), state })
            .where('board_snapshots.seq', '<', String(seq)),
        )
        .execute();
      await trx.deleteFrom('board_ops').where('room_id', '=', roomId).where('page', '=', page).where('seq', '<=', String(seq)).execute();
    });
  }

  /** Pages of the room that hold a snapshot or operations. */
  async pages(roomId: string): Promise<string[]> {
    const rows = await sql<{ page: string }>`
      select page from board_snapshots where room_id = ${roomId}
      union select distinct page from board_ops where room_id = ${roomId}`.execute(this.db);
    return rows.rows.map((r) => r.page);
  }

  /** Counts, for tests and diagnostics. */
  async counts(roomId: string): Promise<{ ops: number; snapshots: number }> {
    const [o, s] = await Promise.all([
      this.db
        .selectFrom('board_ops')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('room_id', '=', roomId)
        .executeTakeFirstOrThrow(),
      this.db
        .selectFrom('board_snapshots')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('room_id', '=', roomId)
        .executeTakeFirstOrThrow(),
    ]);
    return { ops: Number(o.n), snapshots: Number(s.n) };
  }
}
