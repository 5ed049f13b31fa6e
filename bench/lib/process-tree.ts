/**
 * CPU and memory of a process and everything it started (a recorder and its ffmpeg children), from
 * /proc (Linux): CPU from /proc/<pid>/stat (utime + stime, plus cutime + cstime so children it
 * already reaped still count), memory as PSS from /proc/<pid>/smaps_rollup (shared pages split
 * between the processes that map them, so a tree's PSS adds up without counting libraries twice).
 */
import { readdirSync, readFileSync } from 'node:fs';

/** USER_HZ: 100 on every Linux the project targets. */
const TICKS_PER_SECOND = 100;

interface Stat {
  ppid: number;
  /** utime + stime + cutime + cstime, in ticks. */
  ticks: number;
}

function statOf(pid: number): Stat | null {
  try {
    const text = readFileSync(`/proc/${String(pid)}/stat`, 'latin1');
    // Fields after the command name (which may hold spaces) start after the last ')'; field 3 is first.
    const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { ppid: Number(f[1]), ticks: Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]) };
  } catch {
    return null;
  }
}

/** PSS in kB of one process (0 when it is gone or unreadable). */
export function pssKb(pid: number): number {
  try {
    const m = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${String(pid)}/smaps_rollup`, 'latin1'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

/** The process and all its descendants that are alive now. */
export function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    const s = statOf(Number(e));
    if (!s) continue;
    const list = children.get(s.ppid) ?? [];
    list.push(Number(e));
    children.set(s.ppid, list);
  }
  const tree: number[] = [];
  const queue = [root];
  while (queue.length) {
    const pid = queue.shift()!;
    if (!statOf(pid)) continue;
    tree.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return tree;
}

export interface TreeSample {
  atMs: number;
  /** CPU ticks of every process seen so far (the last value of one that ended). */
  ticks: number;
  pssKb: number;
  processes: number;
}

export interface TreeUsage {
  seconds: number;
  /** % of one core over the window. */
  cpuPct: number;
  cpuSeconds: number;
  peakPssMb: number;
  meanPssMb: number;
  /** Most processes in the tree at once. */
  processes: number;
  samples: number;
}

/**
 * Samples a process tree every `everyMs` until `stop()`; the usage covers the first to the last
 * sample. A process of the tree that ends keeps its last CPU ticks in the sum.
 */
export function sampleTree(root: number, everyMs = 500): { stop(): TreeUsage; samples: TreeSample[] } {
  const lastTicks = new Map<number, number>();
  const samples: TreeSample[] = [];
  const take = () => {
    const pids = processTree(root);
    // Once the root has ended a sample would only stretch the window.
    if (pids.length === 0) return;
    let pss = 0;
    for (const pid of pids) {
      const s = statOf(pid);
      if (s) lastTicks.set(pid, s.ticks);
      pss += pssKb(pid);
    }
    let ticks = 0;
    for (const t of lastTicks.values()) ticks += t;
    samples.push({ atMs: performance.now(), ticks, pssKb: pss, processes: pids.length });
  };
  take();
  const timer = setInterval(take, everyMs);
  return {
    samples,
    stop() {
      clearInterval(timer);
      take();
      return usageOf(samples);
    },
  };
}

export function usageOf(samples: TreeSample[]): TreeUsage {
  const first = samples[0];
  const last = samples.at(-1);
  if (!first || !last || last.atMs <= first.atMs) {
    return { seconds: 0, cpuPct: NaN, cpuSeconds: 0, peakPssMb: NaN, meanPssMb: NaN, processes: 0, samples: samples.length };
  }
  const seconds = (last.atMs - first.atMs) / 1000;
  const cpuSeconds = (last.ticks - first.ticks) / TICKS_PER_SECOND;
  const pss = samples.map((s) => s.pssKb).filter((v) => v > 0);
  return {
    seconds,
    cpuPct: (100 * cpuSeconds) / seconds,
    cpuSeconds,
    peakPssMb: pss.length ? Math.max(...pss) / 1024 : NaN,
    meanPssMb: pss.length ? pss.reduce((a, b) => a + b, 0) / pss.length / 1024 : NaN,
    processes: Math.max(...samples.map((s) => s.processes)),
    samples: samples.length,
  };
}

/** CPU ticks of this process's reaped children (ffmpeg runs it waited for), in seconds. */
export function reapedChildrenCpuSeconds(): number {
  const text = readFileSync('/proc/self/stat', 'latin1');
  const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return (Number(f[13]) + Number(f[14])) / TICKS_PER_SECOND;
}

/** Busy and total ticks of the whole machine (all cores), from the first line of /proc/stat. */
export function machineTicks(): { busy: number; total: number } {
  const v = (readFileSync('/proc/stat', 'latin1').split('\n', 1)[0] ?? '').trim().split(/\s+/).slice(1).map(Number);
  const total = v.slice(0, 8).reduce((a, b) => a + b, 0);
  return { busy: total - (v[3] ?? 0) - (v[4] ?? 0), total };
}

/** CPU seconds of one process itself (utime + stime, no children), or NaN when it is gone. */
export function ownCpuSeconds(pid: number): number {
  try {
    const text = readFileSync(`/proc/${String(pid)}/stat`, 'latin1');
    const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / TICKS_PER_SECOND;
  } catch {
    return NaN;
  }
}
