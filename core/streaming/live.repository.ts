/**
 * The statements of live streaming (ADR 085): tasks claimed by recorders with a lease, like the
 * recording's (ADR 071). Each change of state is one conditional UPDATE, so a recorder, the start
 * timeout and the teacher's end can never both win.
 */
import { sql, type Selectable } from 'kysely';
import type { Config } from '../platform/config.ts';
import type { Database } from '../platform/db/database.ts';
import { LeasedTasks } from '../platform/db/leased-tasks.ts';
import { notify, RECORDER_TASKS_CHANNEL } from '../platform/db/notify.ts';
import type { LiveTasksTable, LiveTaskState } from '../platform/db/schema.ts';

/** A live_tasks row as read. */
export type LiveTaskRow = Selectable<LiveTasksTable>;

export const ACTIVE_LIVE: LiveTaskState[] = ['starting', 'live', 'reconnecting'];

export class LiveTaskRepository {
  readonly db: Database;
  /**
   * The tasks as recorders hold them (core/platform/db/leased-tasks.ts), like the recording's: a
   * claim takes a 'starting' task or a 'live'/'reconnecting' one whose lease ran out, in a room
   * whose recording no other recorder holds (one compositor per room).
   */
  readonly leases: LeasedTasks<LiveTaskRow>;

  constructor(db: Database, config: Pick<Config, 'RECORDING_LEASE_SECONDS' | 'RECORDING_START_TIMEOUT_SECONDS'>) {
    this.db = db;
    this.leases = new LeasedTasks<LiveTaskRow>(db, {
      table: 'live_tasks',
      running: ['live', 'reconnecting'],
      rival: { table: 'record_tasks', active: ['starting', 'recording', 'stopping'] },
      leaseSeconds: config.RECORDING_LEASE_SECONDS,
      startTimeoutSeconds: config.RECORDING_START_TIMEOUT_SECONDS,
    });
  }

  /** A new task in 'starting'; undefined when the room has an active one (unique index). */
  async insertTask(v: { roomId: string; roomNumber: string; userId: string; platform: string; pushSecret: string; now: Date }) {
    const row = await this.db
      .insertInto('live_tasks')
      .values({
        room_id: v.roomId,
        room_number: v.roomNumber,
        user_id: v.userId,
        platform: v.platform,
        push_secret: v.pushSecret,
        state: 'starting',
        created_at: v.now,
      })
      .onConflict((oc) =>
        oc
          .column('room_id')
          .where(sql<boolean>`state in ('starting', 'live', 'reconnecting')`)
          .doNothing(),
      )
      .returningAll()
      .executeTakeFirst();
    // Every recorder hears it at once (ADR 109); their slow sweep is the net.
    if (row) await notify(this.db, RECORDER_TASKS_CHANNEL, `live:${v.roomNumber}`);
    return row;
  }

  task(taskId: string): Promise<LiveTaskRow | undefined> {
    return this.db.selectFrom('live_tasks').selectAll().where('id', '=', taskId).executeTakeFirst();
  }

  activeOfRoom(roomId: string): Promise<LiveTaskRow | undefined> {
    return this.db
      .selectFrom('live_tasks')
      .selectAll()
      .where('room_id', '=', roomId)
      .where('state', 'in', ACTIVE_LIVE)
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
  }

  /** starting/live/reconnecting -> `to` for its owner; undefined when it is not theirs or not active. */
  move(taskId: string, owner: string, to: 'live' | 'reconnecting', now?: Date): Promise<LiveTaskRow | undefined> {
    // The first time live is when it went live: kept across reconnects and takeovers.
    let q = this.db
      .updateTable('live_tasks')
      .set((eb) => (now ? { state: to, started_at: eb.fn.coalesce('started_at', eb.val(now)) } : { state: to }));
    q = q.where('id', '=', taskId).where('owner', '=', owner).where('state', 'in', ACTIVE_LIVE);
    if (to === 'live') q = q.where('state', '<>', 'live');
    return q.returningAll().executeTakeFirst();
  }

  /**
   * Ends an active task: 'done' (the teacher, the class) or 'failed' (with its reason); only while
   * `only.owner` holds it when given. The row before the change, undefined when nothing ended.
   */
  async end(
    taskId: string,
    to: 'done' | 'failed',
    now: Date,
    failure: string | null,
    only: { owner?: string } = {},
  ): Promise<LiveTaskRow | undefined> {
    return this.db.transaction().execute(async (trx) => {
      let lock = trx.selectFrom('live_tasks').selectAll().where('id', '=', taskId).where('state', 'in', ACTIVE_LIVE);
      if (only.owner !== undefined) lock = lock.where('owner', '=', only.owner);
      const before = await lock.forUpdate().executeTakeFirst();
      if (!before) return undefined;
      await trx
        .updateTable('live_tasks')
        .set({ state: to, finished_at: now, failure: failure?.slice(0, 500) ?? null, lease_until: null })
        .where('id', '=', taskId)
        .execute();
      // The recorder pushing it hears the end at the commit (ADR 109); its lease renewal is the net.
      await notify(trx, RECORDER_TASKS_CHANNEL, `live:${before.room_number}`);
      return before;
    });
  }

  /** 'starting' tasks older than `cutoff` nobody holds (their timer may have been lost with a process). */
  staleStarting(roomId: string, cutoff: Date, now: Date): Promise<Array<{ id: string }>> {
    return this.db
      .selectFrom('live_tasks')
      .select('id')
      .where('room_id', '=', roomId)
      .where('state', '=', 'starting')
      .where('created_at', '<=', cutoff)
      .where((eb) => eb.or([eb('owner', 'is', null), eb('lease_until', '<', now)]))
      .execute();
  }
}
