/**
 * The countdown and the stopwatch of the class tools (issue 30, ADR 113): only the creator sets,
 * starts, pauses, resets and clears it. The row keeps the elapsed time and when it last started,
 * so every screen computes the same time from the server's clock.
 */
import { illegalParams, toolGone } from '../platform/errors.ts';
import type { TimerPublic } from '../contracts/class-tools.ts';
import type { ClassRow, ToolsActor, ToolsCore } from './tools-core.ts';
import type { ToolsRepository } from './tools.repository.ts';

export class TimerTools {
  readonly #core: ToolsCore;

  constructor(core: ToolsCore) {
    this.#core = core;
  }

  async timerSet(actor: ToolsActor, p: { kind: 'countdown' | 'stopwatch'; durationMs: number }): Promise<TimerPublic> {
    this.#core.onlyCreator(actor);
    if (p.kind === 'countdown' && p.durationMs < 1000) throw illegalParams('a countdown of at least 1 s');
    const room = await this.#core.openClass(actor);
    await this.#core.repo.update(room.id, {
      timer_kind: p.kind,
      timer_running: false,
      timer_duration_ms: p.kind === 'countdown' ? p.durationMs : 0,
      timer_elapsed_ms: 0,
      timer_started_at: null,
    });
    return (await this.#core.changed(room, actor.room)).timer!;
  }

  async #timer(actor: ToolsActor): Promise<{ room: ClassRow; row: Awaited<ReturnType<ToolsRepository['row']>> }> {
    this.#core.onlyCreator(actor);
    const room = await this.#core.openClass(actor);
    const row = await this.#core.repo.row(room.id);
    if (!row.timer_kind) throw toolGone('no timer');
    return { room, row };
  }

  async timerStart(actor: ToolsActor): Promise<TimerPublic> {
    const { room, row } = await this.#timer(actor);
    if (row.timer_running) throw toolGone('timer running');
    if (row.timer_kind === 'countdown' && row.timer_elapsed_ms >= row.timer_duration_ms) throw toolGone('countdown at zero');
    await this.#core.repo.update(room.id, { timer_running: true, timer_started_at: this.#core.clock.now() });
    return (await this.#core.changed(room, actor.room)).timer!;
  }

  async timerPause(actor: ToolsActor): Promise<TimerPublic> {
    const { room, row } = await this.#timer(actor);
    if (!row.timer_running || !row.timer_started_at) throw toolGone('timer not running');
    let elapsed = row.timer_elapsed_ms + Math.max(0, this.#core.clock.now().getTime() - row.timer_started_at.getTime());
    if (row.timer_kind === 'countdown') elapsed = Math.min(elapsed, row.timer_duration_ms);
    await this.#core.repo.update(room.id, { timer_running: false, timer_started_at: null, timer_elapsed_ms: Math.round(elapsed) });
    return (await this.#core.changed(room, actor.room)).timer!;
  }

  async timerReset(actor: ToolsActor): Promise<TimerPublic> {
    const { room } = await this.#timer(actor);
    await this.#core.repo.update(room.id, { timer_running: false, timer_started_at: null, timer_elapsed_ms: 0 });
    return (await this.#core.changed(room, actor.room)).timer!;
  }

  async timerClear(actor: ToolsActor): Promise<null> {
    const { room } = await this.#timer(actor);
    await this.#core.repo.update(room.id, {
      timer_kind: null,
      timer_running: false,
      timer_started_at: null,
      timer_elapsed_ms: 0,
      timer_duration_ms: 0,
    });
    await this.#core.changed(room, actor.room);
    return null;
  }
}
