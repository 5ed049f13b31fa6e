/**
 * A table of tasks that workers hold with a lease: cloud recording (ADR 071) and live push
 * (ADR 085) share these rules and this one helper (issue 29, ADR 111).
 *
 * - A task is born 'starting'. A worker claims it by writing itself as `owner` with a lease
 *   (`lease_until`) that it renews while it works.
 * - A claim takes the oldest claimable task: a 'starting' task younger than the start timeout that
 *   nobody holds (or whose holder's lease ran out), or a running task whose lease ran out (a
 *   takeover: its worker died or stalled). Rows another claimer has locked are skipped, so two
 *   workers never take the same task.
 * - One compositor per room: a task is not claimable while the room's task in the rival table is
 *   held, with a live lease, by another owner.
 * - Only the owner renews, and only while the task is active.
 * - A 'starting' task is unheld when nobody holds it or its holder's lease ran out; the start
 *   timeout fails it then.
 *
 * Each table keeps its own columns and states; this helper owns the lease columns and the
 * statements over them. They are written against a view of the table (`tasks`, `rival`) with only
 * the columns every leased table has, under the real table's name.
 */
import type { ExpressionBuilder, Transaction } from 'kysely';
import type { Database } from './database.ts';
import type { DB } from './schema.ts';

/** The tables with leased tasks. */
export type LeasedTable = 'record_tasks' | 'live_tasks';

export interface LeaseRules {
  table: LeasedTable;
  /** The states a task is worked in after 'starting'; a claim takes them over once the lease ran out. */
  running: readonly string[];
  /** The table whose held task in the same room leaves this room to its holder, and its active states. */
  rival: { table: LeasedTable; active: readonly string[] };
  /** How long a lease lasts from its claim or renewal. */
  leaseSeconds: number;
  /** How long a 'starting' task waits for a worker. */
  startTimeoutSeconds: number;
}

/** The columns every leased table has. */
export type LeaseColumns = {
  id: string;
  room_id: string;
  room_number: string;
  state: string;
  owner: string | null;
  lease_until: Date | null;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
  failure: string | null;
};

type LeaseDB = {
  tasks: LeaseColumns;
  rival: LeaseColumns;
};

export type Trx = Transaction<DB>;

export class LeasedTasks<Row extends LeaseColumns> {
  readonly rules: LeaseRules;
  readonly #db: Database;

  constructor(db: Database, rules: LeaseRules) {
    this.#db = db;
    this.rules = rules;
  }

  /** When a lease taken or renewed at `now` runs out. */
  leaseUntil(now: Date): Date {
    return new Date(now.getTime() + this.rules.leaseSeconds * 1000);
  }

  /** 'starting' tasks created at or before this (seen at `now`) are past the start timeout. */
  startCutoff(now: Date): Date {
    return new Date(now.getTime() - this.rules.startTimeoutSeconds * 1000);
  }

  /** The states in which a task is active: 'starting' and the running ones. */
  get active(): string[] {
    return ['starting', ...this.rules.running];
  }

  /** The query builder with the view's tables; `#table`/`#rival` name the real ones. */
  #view(q: Database | Trx = this.#db) {
    return q.withTables<LeaseDB>();
  }

  get #table() {
    return this.rules.table as string as 'tasks';
  }

  get #rival() {
    return this.rules.rival.table as string as 'rival';
  }

  /** Claimable by `owner` at `now` (the rules above). */
  #claimable(eb: ExpressionBuilder<LeaseDB, 'tasks'>, owner: string, now: Date) {
    const rival = this.rules.rival;
    return eb.and([
      eb.or([
        eb.and([
          eb('tasks.state', '=', 'starting'),
          eb('tasks.created_at', '>', this.startCutoff(now)),
          eb.or([eb('tasks.owner', 'is', null), eb('tasks.lease_until', '<', now)]),
        ]),
        eb.and([
          eb('tasks.state', 'in', [...this.rules.running]),
          eb.or([eb('tasks.lease_until', 'is', null), eb('tasks.lease_until', '<', now)]),
        ]),
      ]),
      eb.not(
        eb.exists(
          eb
            .selectFrom(`${this.#rival} as rival`)
            .select('rival.id')
            .whereRef('rival.room_id', '=', 'tasks.room_id')
            .where('rival.state', 'in', [...rival.active])
            .where('rival.owner', 'is not', null)
            .where('rival.owner', '<>', owner)
            .where('rival.lease_until', '>=', now),
        ),
      ),
    ]);
  }

  /**
   * Takes the oldest claimable task for `owner` at `now` (only of `onlyRooms` when given): its
   * owner and a fresh lease are written (and, with `startedAt`, `started_at` unless it is set).
   * The row as it is now, its previous owner (null: a new task), and what `within` gave, which runs
   * in the same transaction (not `then`: an object with a `then` is taken for a promise). Null when there is nothing to take.
   */
  async claim<X = undefined>(
    owner: string,
    now: Date,
    opts: { onlyRooms?: string[] | undefined; startedAt?: boolean; within?: (trx: Trx, row: Row) => Promise<X> } = {},
  ): Promise<{ row: Row; previousOwner: string | null; within: X | undefined } | null> {
    const { onlyRooms } = opts;
    if (onlyRooms?.length === 0) return null;
    return this.#db.transaction().execute(async (trx) => {
      const pick = await this.#view(trx)
        .selectFrom(`${this.#table} as tasks`)
        .$if(onlyRooms !== undefined, (q) => q.where('tasks.room_number', 'in', onlyRooms!))
        .select(['tasks.id', 'tasks.owner'])
        .where((eb) => this.#claimable(eb, owner, now))
        .orderBy('tasks.created_at')
        .limit(1)
        .forUpdate()
        .skipLocked()
        .executeTakeFirst();
      if (!pick) return null;
      const leased = { owner, lease_until: this.leaseUntil(now) };
      const row = (await this.#view(trx)
        .updateTable(this.#table)
        .set((eb) => (opts.startedAt ? { ...leased, started_at: eb.fn.coalesce('started_at', eb.val(now)) } : leased))
        .where('id', '=', pick.id)
        .returningAll()
        .executeTakeFirstOrThrow()) as Row;
      return { row, previousOwner: pick.owner, within: opts.within ? await opts.within(trx, row) : undefined };
    });
  }

  /** The tasks `owner` could claim at `now` outside `exceptRooms` (the oldest first, at most `limit`); nothing is taken. */
  waiting(owner: string, now: Date, exceptRooms: string[], limit = 20): Promise<Array<{ id: string; room_number: string }>> {
    return this.#view()
      .selectFrom(`${this.#table} as tasks`)
      .select(['tasks.id', 'tasks.room_number'])
      .where((eb) => this.#claimable(eb, owner, now))
      .$if(exceptRooms.length > 0, (q) => q.where('tasks.room_number', 'not in', exceptRooms))
      .orderBy('tasks.created_at')
      .limit(limit)
      .execute();
  }

  /**
   * Extends the lease from `now` while `owner` holds the task active, with `also` (the table's own
   * columns, e.g. what the worker reports) written beside it. The row as it is now, or undefined.
   */
  async renew(taskId: string, owner: string, now: Date, also: Partial<Omit<Row, keyof LeaseColumns>> = {}): Promise<Row | undefined> {
    // `also` holds columns of the real table the view does not name.
    const set = { ...(also as object), lease_until: this.leaseUntil(now) } as Partial<LeaseColumns>;
    return (await this.#view()
      .updateTable(this.#table)
      .set(set)
      .where('id', '=', taskId)
      .where('owner', '=', owner)
      .where('state', 'in', this.active)
      .returningAll()
      .executeTakeFirst()) as Row | undefined;
  }

  /** Fails a 'starting' task nobody holds at `now` (the start timeout); the row as failed, undefined when a worker has it or it moved on. */
  async failUnheld(taskId: string, now: Date, failure: string): Promise<Row | undefined> {
    return (await this.#view()
      .updateTable(this.#table)
      .set({ state: 'failed', failure, finished_at: now, lease_until: null })
      .where('id', '=', taskId)
      .where('state', '=', 'starting')
      .where((eb) => eb.or([eb('owner', 'is', null), eb('lease_until', '<', now)]))
      .returningAll()
      .executeTakeFirst()) as Row | undefined;
  }
}
