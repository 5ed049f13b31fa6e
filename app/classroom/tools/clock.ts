/**
 * The class tools' clock (ADR 114): every countdown and stopwatch is shown from the server's time,
 * whatever the browser's own clock says. The offset (server minus local) comes from the join
 * snapshot's `serverTime` and from each `tools` event's `serverTime`, taken when they arrive.
 *
 * A time that arrives late (the network's delay) makes the offset look smaller than it is, never
 * larger: of the recent readings in one regime the largest is the best. A reading that differs
 * from the latest by more than CLOCK_JUMP_MS is a clock that moved (the browser's set by hand, a
 * laptop waking), and the readings before it no longer count.
 */

/** Readings this close to the latest belong to the same clock; further away, the clock moved. */
export const CLOCK_JUMP_MS = 1000;
/** How long a reading counts (monotonic time): the network's delay changes over a class. */
export const CLOCK_WINDOW_MS = 60_000;

interface Reading {
  offset: number;
  /** Monotonic time of the reading (performance.now()). */
  mono: number;
}

/** The server clock's offset from this browser's, from the readings so far. */
export class ClockOffset {
  #readings: Reading[] = [];

  /** A server time `serverTime` arrived when this browser's clock said `localNow` (and the monotonic clock `mono`). */
  sample(serverTime: number, localNow: number, mono: number): void {
    if (!Number.isFinite(serverTime) || serverTime <= 0) return;
    const offset = serverTime - localNow;
    const latest = this.#readings.at(-1);
    // A jump of the browser's (or the server's) clock: start again from this reading.
    if (latest && Math.abs(offset - latest.offset) > CLOCK_JUMP_MS) this.#readings = [];
    this.#readings = [...this.#readings.filter((r) => mono - r.mono <= CLOCK_WINDOW_MS), { offset, mono }].slice(-16);
  }

  /** Server time minus local time, in ms; 0 before any reading. */
  get offset(): number {
    if (this.#readings.length === 0) return 0;
    return Math.max(...this.#readings.map((r) => r.offset));
  }

  get known(): boolean {
    return this.#readings.length > 0;
  }
}

/** A timer as the `tools` state carries it (core/contracts/class-tools.ts). */
export interface TimerLike {
  kind: 'countdown' | 'stopwatch';
  running: boolean;
  durationMs: number;
  elapsedMs: number;
  startedAt: number;
}

/** Time run so far at server time `serverNow`. */
export function timerElapsedMs(timer: TimerLike, serverNow: number): number {
  const since = timer.running && timer.startedAt > 0 ? Math.max(0, serverNow - timer.startedAt) : 0;
  return timer.elapsedMs + since;
}

/** What the timer shows at server time `serverNow`: a countdown's time left (never below 0), a stopwatch's time run. */
export function timerShownMs(timer: TimerLike, serverNow: number): number {
  const elapsed = timerElapsedMs(timer, serverNow);
  return timer.kind === 'countdown' ? Math.max(0, timer.durationMs - elapsed) : elapsed;
}

/** A countdown that has reached zero (paused at zero counts too). */
export function timerDone(timer: TimerLike, serverNow: number): boolean {
  return timer.kind === 'countdown' && timer.durationMs > 0 && timerShownMs(timer, serverNow) === 0;
}

/** When a running countdown reaches zero, in server time; null when it is not running or is a stopwatch. */
export function timerEndsAt(timer: TimerLike): number | null {
  if (timer.kind !== 'countdown' || !timer.running || timer.startedAt <= 0) return null;
  return timer.startedAt + Math.max(0, timer.durationMs - timer.elapsedMs);
}

/**
 * The digits shown: `mm:ss`, `h:mm:ss` from an hour. A countdown rounds up (it shows 00:01 until
 * the last millisecond and 00:00 only at its end), a stopwatch down (00:00 for its first second).
 */
export function formatTimer(ms: number, kind: TimerLike['kind']): string {
  const clamped = Math.max(0, ms);
  const total = kind === 'countdown' ? Math.ceil(clamped / 1000) : Math.floor(clamped / 1000);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const mmss = `${String(m).padStart(2, '0')}:${String(s).padStart(2, '0')}`;
  return h > 0 ? `${String(h)}:${mmss}` : mmss;
}

/** The timer's length as typed (minutes and seconds, empty = 0); null when not a whole length of 1 s to 99:59. */
export function durationFrom(minutes: string, seconds: string): number | null {
  const read = (text: string) => (text.trim() === '' ? 0 : /^\d{1,3}$/.test(text.trim()) ? Number(text.trim()) : NaN);
  const m = read(minutes);
  const s = read(seconds);
  if (!Number.isInteger(m) || !Number.isInteger(s) || m > 99 || s > 59) return null;
  const ms = (m * 60 + s) * 1000;
  return ms > 0 ? ms : null;
}

/** The time left of a quiz with a limit (`endsAt` in server time), in ms, never below 0; null without a limit. */
export function quizLeftMs(endsAt: number, serverNow: number): number | null {
  return endsAt > 0 ? Math.max(0, endsAt - serverNow) : null;
}
