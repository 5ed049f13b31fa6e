/**
 * The statements of live streaming (ADR 085): tasks claimed by recorders with a lease, like the
 * recording's (ADR 071). Each change of state is one conditional UPDATE, so a recorder, the start
 * timeout and the teacher's end can never both win.
 */
import { sql, type Selectable } from 'kysely';
import type { Database } from '../platform/db/database.ts';
import { notify, RECORDER_TASKS_CHANNEL } from '../platform/db/notify.ts';
import type { LiveTasksTable, LiveTaskState } from '../platform/db/schema.ts';

/** A live_tasks row as read. */
export type LiveTaskRow = Selectable<LiveTasksTable>;

export const ACTIVE_LIVE: LiveTaskState[] = ['starting', 'live', 'reconnecting'];

export class LiveTaskRepository {
  readonly db: Database;
  constructor(db: Database) {
    this.db = db;
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

  /**
   * Takes one task for `owner`: a 'starting' task younger than `startCutoff` nobody holds, or any
   * active task whose lease ran out. A room whose recording another recorder holds (lease alive) is
   * left to that recorder: one compositor per room.
   */
  claim(owner: string, now: Date, leaseUntil: Date, startCutoff: Date, onlyRooms?: string[]) {
    return this.db.transaction().execute(async (trx) => {
      if (onlyRooms?.length === 0) return null;
      const pick = await trx
        .selectFrom('live_tasks as l')
        .$if(onlyRooms !== undefined, (q) => q.where('l.room_number', 'in', onlyRooms!))
        .select(['l.id', 'l.owner'])
        .where((eb) =>
          eb.or([
            eb.and([
              eb('l.state', '=', 'starting'),
              eb('l.created_at', '>', startCutoff),
              eb.or([eb('l.owner', 'is', null), eb('l.lease_until', '<', now)]),
            ]),
            eb.and([
              eb('l.state', 'in', ['live', 'reconnecting']),
              eb.or([eb('l.lease_until', 'is', null), eb('l.lease_until', '<', now)]),
            ]),
          ]),
        )
        .where((eb) =>
          eb.not(
            eb.exists(
              eb
                .selectFrom('record_tasks as r')
                .select('r.id')
                .whereRef('r.room_id', '=', 'l.room_id')
                .where('r.state', 'in', ['starting', 'recording', 'stopping'])
                .where('r.owner', 'is not', null)
                .where('r.owner', '<>', owner)
                .where('r.lease_until', '>=', now),
            ),
          ),
        )
        .orderBy('l.created_at')
        .limit(1)
        .forUpdate()
        .skipLocked()
        .executeTakeFirst();
      if (!pick) return null;
      const row = await trx
        .updateTable('live_tasks')
        .set({ owner, lease_until: leaseUntil })
        .where('id', '=', pick.id)
        .returningAll()
        .executeTakeFirstOrThrow();
      return { row, previousOwner: pick.owner };
    });
  }

  /** Extends the lease (and stores what the pusher reports) while `owner` holds an active task. */
  renew(taskId: string, owner: string, leaseUntil: Date, kbps: number): Promise<LiveTaskRow | undefined> {
    return this.db
      .updateTable('live_tasks')
      .set({ lease_until: leaseUntil, kbps })
      .where('id', '=', taskId)
      .where('owner', '=', owner)
      .where('state', 'in', ACTIVE_LIVE)
      .returningAll()
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
   * `only.owner` holds it, or (`only.unheld`) while it is starting and nobody holds it. The row before the change, undefined when nothing ended.
   */
  async end(
    taskId: string,
    to: 'done' | 'failed',
    now: Date,
    failure: string | null,
    only: { owner?: string; unheld?: boolean } = {},
  ): Promise<LiveTaskRow | undefined> {
    return this.db.transaction().execute(async (trx) => {
      let lock = trx.selectFrom('live_tasks').selectAll().where('id', '=', taskId).where('state', 'in', ACTIVE_LIVE);
      if (only.owner !== undefined) lock = lock.where('owner', '=', only.owner);
      if (only.unheld)
        lock = lock.where('state', '=', 'starting').where((eb) => eb.or([eb('owner', 'is', null), eb('lease_until', '<', now)]));
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
