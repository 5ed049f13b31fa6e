/**
 * What this recorder can still carry (ADR 105). A recorder takes a class only when it can record it
 * at real time: it measures what its sessions cost (their encoder and decoder processes' CPU from
 * /proc/<pid>/stat, and a share of its own Node process), how busy the machine is (/proc/stat), and
 * how far each encoder is behind real time, over a sliding window. A class it has not measured yet
 * is taken to cost a conservative first estimate.
 *
 * The rule (`decide`): a new room is taken when RECORDER_SLOTS allows it, no encoder here is lagging,
 * and the free CPU (the lesser of what is left of the recorder's budget and what the machine has
 * idle) covers one more session. An idle recorder always takes one: there is nothing to weigh it
 * against, and a class nobody takes is not recorded at all.
 *
 * Everything it reads from the system goes through `CpuProbe`, so tests drive it with numbers.
 */
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import type { RecordingSettings } from './types.ts';

/** What the capacity reads from the system. */
export interface CpuProbe {
  /** Cores of the machine. */
  readonly cores: number;
  /** Clock ticks per second of /proc's counters (USER_HZ). */
  readonly ticksPerSecond: number;
  /** A monotonic clock, ms. */
  now(): number;
  /** Ticks of the whole machine since boot (all cores): all of them, and the idle ones (iowait included). */
  machine(): { total: number; idle: number } | null;
  /** utime + stime of a process, in ticks; null when it is gone. */
  processTicks(pid: number): number | null;
  /** CPU seconds this Node process has used (user + system). */
  selfSeconds(): number;
}

/** USER_HZ: 100 on every Linux the project targets (bench/lib/process-tree.ts reads the same). */
const TICKS_PER_SECOND = 100;

/** The machine as /proc shows it (Linux). */
export const procProbe: CpuProbe = {
  cores: availableParallelism(),
  ticksPerSecond: TICKS_PER_SECOND,
  now: () => performance.now(),
  machine() {
    try {
      const v = (readFileSync('/proc/stat', 'latin1').split('\n', 1)[0] ?? '').trim().split(/\s+/).slice(1).map(Number);
      const total = v.slice(0, 8).reduce((a, b) => a + b, 0);
      return { total, idle: (v[3] ?? 0) + (v[4] ?? 0) };
    } catch {
      return null;
    }
  },
  processTicks(pid) {
    try {
      const text = readFileSync(`/proc/${String(pid)}/stat`, 'latin1');
      // Fields after the command name (which may hold spaces) start after the last ')'; field 3 is first.
      const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
      return Number(f[11]) + Number(f[12]);
    } catch {
      return null;
    }
  },
  selfSeconds() {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1e6;
  },
};

/** A session as the capacity sees it. */
export interface MeteredSession {
  /** Its processes now (encoder, decoders); a session whose processes are all gone is over. */
  readonly processIds?: number[];
  /** Seconds of frames queued to its encoder. */
  readonly lagSeconds?: number;
}

export interface CapacityOptions {
  /** Share of the machine (all its cores) the recorder's sessions may use (RECORDER_CPU_BUDGET). */
  budget: number;
  /** Cores one session is taken to cost until one was measured (see `firstEstimateCores`). */
  firstEstimateCores: number;
  probe?: CpuProbe;
  /** The sliding window of every figure (default 10 s). */
  windowMs?: number;
  /** An encoder whose lag over the window averages more than this is lagging (default 0.5 s). */
  lagLimitSeconds?: number;
  /** A session's cost is measured from this long after it appeared (its start: connections, decoders; default 3 s). */
  warmupMs?: number;
  /** A session counts as measured once its samples span this long (default 5 s). */
  minSpanMs?: number;
  /** `sample` more often than this does nothing (default 1 s). */
  sampleEveryMs?: number;
}

/**
 * The first estimate of a session before any was measured: 0.7 of a core for 1280x720 at 30 fps
 * (ADR 077 measured 0.32-0.67 of a core per class, the Node process and its ffmpeg together), in
 * proportion to the frames' pixels for other settings, never under 0.35 (the Node side and the
 * decoders cost that whatever the output).
 */
export function firstEstimateCores(s: Pick<RecordingSettings, 'width' | 'height' | 'fps'>): number {
  const scale = (s.width * s.height * s.fps) / (1280 * 720 * 30);
  return Math.max(0.35, Math.round(0.7 * scale * 100) / 100);
}

export interface SessionLoad {
  id: string;
  room: string;
  /** Seconds behind real time now, and averaged over the window. */
  lagSeconds: number;
  meanLagSeconds: number;
  /** Cores it used over the window; null until measured. */
  cores: number | null;
  /** In its first seconds (`warmupMs`): an encoder starting has frames queued that say nothing of the load yet. */
  warming: boolean;
}

export interface CapacityView {
  cores: number;
  /** The recorder's budget, in cores. */
  budgetCores: number;
  /** Cores idle on the machine over the window (null before two samples). */
  machineIdleCores: number | null;
  /** Cores the recorder's sessions use (measured, or the next's cost for one not measured yet and for a room still starting). */
  usedCores: number;
  /** What one more session is taken to cost: the dearest session measured here, or the first estimate. */
  nextCores: number;
  /** Whether `nextCores` comes from a measurement. */
  measured: boolean;
  /** min(budget - used, machine idle - what the sessions not measured yet will add). */
  freeCores: number;
  sessions: SessionLoad[];
}

export type Refusal = 'slots' | 'lagging' | 'cpu';
export type Verdict = { take: true; view: CapacityView } | { take: false; why: Refusal; view: CapacityView };

interface Tracked {
  room: string;
  session: MeteredSession;
  addedAt: number;
  /** CPU seconds so far (its processes since it appeared, plus its share of the Node process). */
  cpu: number;
  ticks: Map<number, number>;
  /** Samples after its warm-up: when, its CPU seconds then, its lag then. */
  samples: Array<{ at: number; cpu: number; lag: number }>;
}

const round = (n: number) => Math.round(n * 100) / 100;

export class Capacity {
  readonly #probe: CpuProbe;
  readonly #budget: number;
  readonly #estimate: number;
  readonly #window: number;
  readonly #lagLimit: number;
  readonly #warmup: number;
  readonly #minSpan: number;
  readonly #every: number;
  readonly #sessions = new Map<string, Tracked>();
  #machine: Array<{ at: number; total: number; idle: number }> = [];
  #lastSampleAt = -Infinity;
  #self: number | null = null;
  /** The last per-session cost measured (kept when those sessions end). */
  #known: number | null = null;

  constructor(o: CapacityOptions) {
    this.#probe = o.probe ?? procProbe;
    this.#budget = o.budget;
    this.#estimate = o.firstEstimateCores;
    this.#window = o.windowMs ?? 10_000;
    this.#lagLimit = o.lagLimitSeconds ?? 0.5;
    this.#warmup = o.warmupMs ?? 3000;
    this.#minSpan = o.minSpanMs ?? 5000;
    this.#every = o.sampleEveryMs ?? 1000;
  }

  get lagLimitSeconds(): number {
    return this.#lagLimit;
  }

  /** A session started here, for `room`. Followed until its processes are gone. */
  add(id: string, room: string, session: MeteredSession): void {
    const ticks = new Map<number, number>();
    for (const pid of session.processIds ?? []) {
      const t = this.#probe.processTicks(pid);
      if (t !== null) ticks.set(pid, t);
    }
    this.#sessions.set(id, { room, session, addedAt: this.#probe.now(), cpu: 0, ticks, samples: [] });
  }

  /** Reads the machine and every session (at most once per `sampleEveryMs`). */
  sample(): void {
    const p = this.#probe;
    const now = p.now();
    if (now - this.#lastSampleAt < this.#every) return;
    this.#lastSampleAt = now;
    const m = p.machine();
    if (m) this.#machine.push({ at: now, ...m });
    this.#machine = this.#trim(this.#machine, now);
    // Each process's ticks since the last sample; a process new since then counts from its start.
    const alive: Tracked[] = [];
    for (const [id, s] of this.#sessions) {
      let added = 0;
      let any = false;
      const seen = new Map<number, number>();
      for (const pid of s.session.processIds ?? []) {
        const t = p.processTicks(pid);
        if (t === null) continue;
        any = true;
        added += t - (s.ticks.get(pid) ?? 0);
        seen.set(pid, t);
      }
      if (!any) {
        this.#sessions.delete(id);
        continue;
      }
      s.ticks = seen;
      s.cpu += added / p.ticksPerSecond;
      alive.push(s);
    }
    // The Node process's work since the last sample, shared equally by the sessions running.
    const self = p.selfSeconds();
    const nodeShare = this.#self === null || alive.length === 0 ? 0 : (self - this.#self) / alive.length;
    this.#self = self;
    for (const s of alive) {
      s.cpu += nodeShare;
      if (now - s.addedAt < this.#warmup) continue;
      s.samples.push({ at: now, cpu: s.cpu, lag: s.session.lagSeconds ?? 0 });
      s.samples = this.#trim(s.samples, now);
    }
    const measured = [...this.#sessions.values()].map((s) => this.#cost(s)).filter((c) => c !== null);
    if (measured.length) this.#known = Math.max(...measured);
  }

  /** Keeps the samples of the window (and the one just before it, so the window is spanned). */
  #trim<T extends { at: number }>(list: T[], now: number): T[] {
    const from = list.findIndex((x) => x.at >= now - this.#window);
    if (from === -1) return list.slice(-1);
    return from === 0 ? list : list.slice(from - 1);
  }

  #cost(s: Tracked): number | null {
    const first = s.samples[0];
    const last = s.samples.at(-1);
    if (!first || !last || last.at - first.at < this.#minSpan) return null;
    return (last.cpu - first.cpu) / ((last.at - first.at) / 1000);
  }

  /** The figures, with `pendingRooms` rooms claimed here whose session is not running (yet). */
  view(pendingRooms = 0): CapacityView {
    const cores = this.#probe.cores;
    const nextCores = this.#known ?? this.#estimate;
    const sessions: SessionLoad[] = [];
    let used = pendingRooms * nextCores;
    let unmeasured = pendingRooms * nextCores;
    for (const [id, s] of this.#sessions) {
      const cost = this.#cost(s);
      used += cost ?? nextCores;
      if (cost === null) unmeasured += nextCores;
      const lags = s.samples.map((x) => x.lag);
      sessions.push({
        id,
        room: s.room,
        lagSeconds: round(s.session.lagSeconds ?? 0),
        meanLagSeconds: round(lags.length ? lags.reduce((a, b) => a + b, 0) / lags.length : (s.session.lagSeconds ?? 0)),
        cores: cost === null ? null : round(cost),
        warming: s.samples.length === 0,
      });
    }
    const first = this.#machine[0];
    const last = this.#machine.at(-1);
    const idleCores = first && last && last.total > first.total ? ((last.idle - first.idle) / (last.total - first.total)) * cores : null;
    const budgetCores = this.#budget * cores;
    const freeCores = Math.min(budgetCores - used, (idleCores ?? cores) - unmeasured);
    return {
      cores,
      budgetCores: round(budgetCores),
      machineIdleCores: idleCores === null ? null : round(idleCores),
      usedCores: round(used),
      nextCores: round(nextCores),
      measured: this.#known !== null,
      freeCores: round(freeCores),
      sessions,
    };
  }

  /** Whether a new room may be taken, with `rooms` rooms claimed here (of which `pending` have no session running) and `slots` at most. */
  decide(o: { rooms: number; pending: number; slots: number }): Verdict {
    const view = this.view(o.pending);
    if (o.rooms >= o.slots) return { take: false, why: 'slots', view };
    if (o.rooms === 0) return { take: true, view };
    if (view.sessions.some((s) => !s.warming && s.meanLagSeconds > this.#lagLimit)) return { take: false, why: 'lagging', view };
    if (view.freeCores < view.nextCores) return { take: false, why: 'cpu', view };
    return { take: true, view };
  }

  /** Rooms with a session followed here. */
  get rooms(): string[] {
    return [...new Set([...this.#sessions.values()].map((s) => s.room))];
  }
}
