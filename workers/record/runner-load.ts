/**
 * The recorder's load as the runner weighs it before each claim (ADR 105): the slots, and with a
 * capacity its measured headroom; a change between taking and refusing logged once with the
 * figures; the tasks it leaves to other recorders counted once each; the figures for the metrics.
 */
import type { Capacity, Refusal } from './capacity.ts';
import type { RunnerDeps, RunnerStats } from './runner-types.ts';

export class RunnerLoad {
  readonly #d: Pick<RunnerDeps, 'logger' | 'slots'>;
  readonly #capacity: Capacity | null;
  /** The rooms composed here now. */
  readonly #rooms: () => string[];
  /** Whether new rooms are refused now (logged once per change), and the tasks left to others. */
  #refusing: Refusal | null = null;
  readonly #refused = new Set<string>();
  #refusals = 0;
  readonly #measuredLogged = new Set<string>();

  constructor(d: Pick<RunnerDeps, 'logger' | 'slots'>, capacity: Capacity | null, rooms: () => string[]) {
    this.#d = d;
    this.#capacity = capacity;
    this.#rooms = rooms;
  }

  get refusing(): Refusal | null {
    return this.#refusing;
  }

  /**
   * Whether a new room may be taken now: under the slots, and with a capacity, the measured headroom
   * (ADR 105). A change between taking and refusing is logged once, with the figures.
   */
  mayTakeRoom(): boolean {
    const d = this.#d;
    const rooms = this.#rooms();
    if (!this.#capacity) return rooms.length < d.slots;
    const followed = new Set(this.#capacity.rooms);
    const verdict = this.#capacity.decide({ rooms: rooms.length, pending: rooms.filter((r) => !followed.has(r)).length, slots: d.slots });
    const now = verdict.take ? null : verdict.why;
    if (now !== this.#refusing) {
      if (now) d.logger.warn({ why: now, ...this.figures() }, 'recorder at capacity: new classes are left to other recorders');
      else d.logger.info(this.figures(), 'recorder has room for another class');
      this.#refusing = now;
    }
    return verdict.take;
  }

  /** Reads the load (at most once a second); a session's first measured cost is logged. */
  sample(): void {
    if (!this.#capacity) return;
    this.#capacity.sample();
    const view = this.#capacity.view();
    for (const s of view.sessions) {
      if (s.cores === null || this.#measuredLogged.has(s.id)) continue;
      this.#measuredLogged.add(s.id);
      this.#d.logger.info(
        { room: s.room, cores: s.cores, lagSeconds: s.meanLagSeconds, machineIdleCores: view.machineIdleCores },
        'recording cost measured',
      );
    }
    for (const id of this.#measuredLogged) if (!view.sessions.some((s) => s.id === id)) this.#measuredLogged.delete(id);
  }

  /** The figures a refusal is logged with (ADR 105). */
  figures() {
    const s = this.stats();
    return {
      rooms: s.rooms,
      slots: s.slots,
      freeCores: s.freeCores,
      nextCores: s.nextCores,
      measured: s.measured,
      budgetCores: s.budgetCores,
      machineIdleCores: s.machineIdleCores,
      sessionCores: s.sessions.map((x) => x.cores),
      lagSeconds: s.sessions.map((x) => x.meanLagSeconds),
    };
  }

  /** Tasks of other rooms waiting while this recorder refuses: each counted (and logged) once. */
  async countRefused(waiting: Array<{ taskId: string; roomNumber: string }>): Promise<void> {
    for (const t of waiting) {
      if (this.#refused.has(t.taskId)) continue;
      this.#refused.add(t.taskId);
      this.#refusals++;
      this.#d.logger.warn(
        { taskId: t.taskId, room: t.roomNumber, why: this.#refusing, ...this.figures() },
        'recording refused: this recorder is at capacity',
      );
    }
    // Only the recent ones are remembered (a task is waiting for RECORDING_START_TIMEOUT_SECONDS at most, or a lease).
    if (this.#refused.size > 1000) for (const id of [...this.#refused].slice(0, 500)) this.#refused.delete(id);
  }

  /** The recorder's load and refusals (ADR 105), for the operators' metrics. */
  stats(): RunnerStats {
    const v = this.#capacity?.view(this.#rooms().filter((r) => !this.#capacity!.rooms.includes(r)).length);
    return {
      rooms: this.#rooms().length,
      slots: this.#d.slots,
      sessions: v?.sessions ?? [],
      nextCores: v?.nextCores ?? null,
      measured: v?.measured ?? false,
      freeCores: v?.freeCores ?? null,
      budgetCores: v?.budgetCores ?? null,
      machineIdleCores: v?.machineIdleCores ?? null,
      refusing: this.#refusing,
      refusals: this.#refusals,
    };
  }
}
