/**
 * The statements of cloud recording: tasks (claimed by recorders with a lease, ADR 071), their
 * segments, and the records library. Every change of a task's state is one conditional UPDATE, so
 * two writers (a recorder and the start timeout, two recorders) can never both win.
 */
import { sql, type Transaction } from 'kysely';
import type { Config } from '../platform/config.ts';
import type { Database } from '../platform/db/database.ts';
import { LeasedTasks } from '../platform/db/leased-tasks.ts';
import { notify, RECORDER_TASKS_CHANNEL } from '../platform/db/notify.ts';
import type { DB, RecordTaskState } from '../platform/db/schema.ts';

export type Trx = Transaction<DB>;

export interface TaskRow {
  id: string;
  room_id: string;
  room_number: string;
  user_id: string;
  state: RecordTaskState;
  owner: string | null;
  lease_until: Date | null;
  created_at: Date;
  started_at: Date | null;
  stop_requested_at: Date | null;
  finished_at: Date | null;
  failure: string | null;
  record_id: string | null;
  allowed_until: Date | null;
}

export interface RecordRowDb {
  id: string;
  user_id: string;
  type: number;
  task_id: string | null;
  room_number: string | null;
  file_name: string;
  object_key: string | null;
  file_size: string | null;
  duration_ms: number | null;
  created_at: Date;
  /** Studio recordings (ADR 086): the upload until its MP4 is made, the poster, why it could not be made. */
  source_key: string | null;
  poster_key: string | null;
  failure: string | null;
}

const RECORD_COLUMNS = [
  'id',
  'user_id',
  'type',
  'task_id',
  'room_number',
  'file_name',
  'object_key',
  'file_size',
  'duration_ms',
  'created_at',
  'source_key',
  'poster_key',
  'failure',
] as const;

const LIVE: RecordTaskState[] = ['starting', 'recording'];

export type LeaseConfig = Pick<Config, 'RECORDING_LEASE_SECONDS' | 'RECORDING_START_TIMEOUT_SECONDS'>;

export class RecordingRepository {
  readonly db: Database;
  /**
   * The tasks as recorders hold them (core/platform/db/leased-tasks.ts): a claim takes a 'starting'
   * task or a 'recording'/'stopping' one whose lease ran out, in a room no other recorder pushes live
   * (one compositor per room, ADR 085).
   */
  readonly leases: LeasedTasks<TaskRow>;

  constructor(db: Database, config: LeaseConfig) {
    this.db = db;
    this.leases = new LeasedTasks<TaskRow>(db, {
      table: 'record_tasks',
      running: ['recording', 'stopping'],
      rival: { table: 'live_tasks', active: ['starting', 'live', 'reconnecting'] },
      leaseSeconds: config.RECORDING_LEASE_SECONDS,
      startTimeoutSeconds: config.RECORDING_START_TIMEOUT_SECONDS,
    });
  }

  /** A new task in 'starting'; undefined when the room has one starting or recording already (unique index). */
  async insertTask(v: { roomId: string; roomNumber: string; userId: string; now: Date; allowedUntil: Date | null }) {
    const row = await this.db
      .insertInto('record_tasks')
      .values({
        room_id: v.roomId,
        room_number: v.roomNumber,
        user_id: v.userId,
        state: 'starting',
        created_at: v.now,
        allowed_until: v.allowedUntil,
      })
      .onConflict((oc) =>
        // Literals, not parameters: PostgreSQL matches the partial unique index by its predicate.
        oc
          .column('room_id')
          .where(sql<boolean>`state in ('starting', 'recording')`)
          .doNothing(),
      )
      .returningAll()
      .executeTakeFirst();
    if (row) await this.wakeRecorders(v.roomNumber);
    return row;
  }

  /** Tells every recorder that a task of this room was asked for or asked to stop (ADR 109; at the commit inside `q`'s transaction). */
  async wakeRecorders(roomNumber: string, q: Database | Trx = this.db): Promise<void> {
    await notify(q, RECORDER_TASKS_CHANNEL, `record:${roomNumber}`);
  }

  async task(taskId: string, q: Database | Trx = this.db): Promise<TaskRow | undefined> {
    return q.selectFrom('record_tasks').selectAll().where('id', '=', taskId).executeTakeFirst();
  }

  lockTask(trx: Trx, taskId: string): Promise<TaskRow | undefined> {
    return trx.selectFrom('record_tasks').selectAll().where('id', '=', taskId).forUpdate().executeTakeFirst();
  }

  /** The room's task that is starting or recording, if any. */
  liveTaskOfRoom(roomId: string): Promise<TaskRow | undefined> {
    return this.db
      .selectFrom('record_tasks')
      .selectAll()
      .where('room_id', '=', roomId)
      .where('state', 'in', LIVE)
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
  }

  /** max(seq)+1 of the task's segments, 0 when it has none: where a resumed recording goes on. */
  async nextSeq(trx: Trx, taskId: string): Promise<number> {
    const max = await trx
      .selectFrom('record_segments')
      .select((eb) => eb.fn.max('seq').as('m'))
      .where('task_id', '=', taskId)
      .executeTakeFirst();
    return max?.m === null || max?.m === undefined ? 0 : Number(max.m) + 1;
  }

  /** starting -> recording for its owner; undefined when it is not theirs or not starting. */
  async markStarted(taskId: string, owner: string, now: Date): Promise<TaskRow | undefined> {
    return await this.db
      .updateTable('record_tasks')
      // The recording begins with its first frame, not with the claim: the creator's timer counts from here.
      .set({ state: 'recording', started_at: now })
      .where('id', '=', taskId)
      .where('owner', '=', owner)
      .where('state', '=', 'starting')
      .returningAll()
      .executeTakeFirst();
  }

  /** 'starting' tasks older than `cutoff` (their timer may have been lost with a process). */
  staleStarting(roomId: string, cutoff: Date): Promise<Array<{ id: string }>> {
    return this.db
      .selectFrom('record_tasks')
      .select('id')
      .where('room_id', '=', roomId)
      .where('state', '=', 'starting')
      .where('created_at', '<=', cutoff)
      .execute();
  }

  setTask(trx: Trx, taskId: string, patch: Partial<Omit<TaskRow, 'id'>>) {
    return trx.updateTable('record_tasks').set(patch).where('id', '=', taskId).execute();
  }

  insertRecord(
    trx: Trx,
    v: { userId: string; taskId: string | null; roomNumber: string | null; fileName: string; type: 1 | 2; now: Date },
  ): Promise<{ id: string }> {
    return trx
      .insertInto('records')
      .values({ user_id: v.userId, type: v.type, task_id: v.taskId, room_number: v.roomNumber, file_name: v.fileName, created_at: v.now })
      .returning('id')
      .executeTakeFirstOrThrow();
  }

  completeRecord(trx: Trx, recordId: string, v: { key: string; bytes: number; durationMs: number }) {
    return trx
      .updateTable('records')
      .set({ object_key: v.key, file_size: v.bytes, duration_ms: v.durationMs })
      .where('id', '=', recordId)
      .execute();
  }

  hideRecord(trx: Trx, recordId: string, now: Date) {
    return trx.updateTable('records').set({ deleted_at: now }).where('id', '=', recordId).execute();
  }

  /** Stores a segment (a re-upload of the same seq after a resume replaces it). */
  upsertSegment(trx: Trx, taskId: string, s: { seq: number; key: string; durationMs: number; bytes: number }, now: Date) {
    return trx
      .insertInto('record_segments')
      .values({ task_id: taskId, seq: s.seq, object_key: s.key, duration_ms: s.durationMs, bytes: s.bytes, created_at: now })
      .onConflict((oc) =>
        oc.columns(['task_id', 'seq']).doUpdateSet({ object_key: s.key, duration_ms: s.durationMs, bytes: s.bytes, created_at: now }),
      )
      .execute();
  }

  async segments(taskId: string): Promise<Array<{ seq: number; key: string; durationMs: number; bytes: number }>> {
    const rows = await this.db
      .selectFrom('record_segments')
      .select(['seq', 'object_key', 'duration_ms', 'bytes'])
      .where('task_id', '=', taskId)
      .orderBy('seq')
      .execute();
    return rows.map((r) => ({ seq: r.seq, key: r.object_key, durationMs: r.duration_ms, bytes: Number(r.bytes) }));
  }

  /** The owner's record (not deleted); another user's id is answered like a missing one. */
  ownRecord(userId: string, recordId: string): Promise<RecordRowDb | undefined> {
    return this.db
      .selectFrom('records')
      .select(RECORD_COLUMNS)
      .where('id', '=', recordId)
      .where('user_id', '=', userId)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
  }

  /** A page of the owner's records, newest first, before `before` (ms epoch) when given; and how many there are. */
  async list(userId: string, type: 1 | 2, pageSize: number, before: Date | null): Promise<{ rows: RecordRowDb[]; total: number }> {
    let q = this.db
      .selectFrom('records')
      .select(RECORD_COLUMNS)
      .where('user_id', '=', userId)
      .where('type', '=', type)
      .where('deleted_at', 'is', null);
    if (before) q = q.where('created_at', '<', before);
    const [rows, count] = await Promise.all([
      q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(pageSize).execute(),
      this.db
        .selectFrom('records')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('user_id', '=', userId)
        .where('type', '=', type)
        .where('deleted_at', 'is', null)
        .executeTakeFirstOrThrow(),
    ]);
    return { rows, total: Number(count.n) };
  }

  /** Removes the record row and its task's segment rows (the objects went first). */
  async deleteRecord(recordId: string, taskId: string | null): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      if (taskId) await trx.deleteFrom('record_segments').where('task_id', '=', taskId).execute();
      await trx.deleteFrom('records').where('id', '=', recordId).execute();
    });
  }
}
