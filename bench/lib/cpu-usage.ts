/**
 * CPU time of processes over a window, from /proc (Linux): shown beside each measurement so a
 * reader sees which process was the bottleneck (the server's event loop, the database, or the
 * load generator), in % of one core.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** USER_HZ: 100 on every Linux the project targets. */
const TICKS_PER_SECOND = 100;

/** utime + stime of a process in ticks, or 0 when it is gone. */
function ticksOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${String(pid)}/stat`, 'latin1');
    // Fields after the command name (which may contain spaces) start after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;
  }
}

/** PostgreSQL backends serving `database` (their title reads "postgres: user database host(port) ..."). */
function backendsOf(database: string): number[] {
  const pids: number[] = [];
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return pids;
  }
  const needle = ` ${database} `;
  for (const e of entries) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const cmd = readFileSync(`/proc/${e}/cmdline`, 'latin1');
      if (cmd.startsWith('postgres:') && cmd.includes(needle)) pids.push(Number(e));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/** Busy and total ticks of the whole machine (all cores), from the first line of /proc/stat. */
function machineTicks(): { busy: number; total: number } {
  try {
    const line = readFileSync('/proc/stat', 'latin1').split('\n', 1)[0] ?? '';
    const v = line.trim().split(/\s+/).slice(1).map(Number);
    const total = v.slice(0, 8).reduce((a, b) => a + b, 0);
    const idle = (v[3] ?? 0) + (v[4] ?? 0);
    return { busy: total - idle, total };
  } catch {
    return { busy: 0, total: 0 };
  }
}

export interface CpuShares {
  /** % of one core over the window. */
  server: number;
  database: number | null;
  client: number;
  /** Everything else on the machine (other processes, PostgreSQL's background workers, the kernel's own threads). */
  others: number;
}

/** % of one core that the whole machine was busy over `ms` (a quietness check before measuring). */
export async function machineBusy(ms: number): Promise<number> {
  const a = machineTicks();
  await new Promise((r) => setTimeout(r, ms));
  const b = machineTicks();
  return (100 * (b.busy - a.busy)) / TICKS_PER_SECOND / (ms / 1000);
}

/** Starts measuring; call the returned function at the end of the window. */
export function cpuWindow(serverPid: number, database: string | null): () => CpuShares {
  const t0 = performance.now();
  const server0 = ticksOf(serverPid);
  const backends = database ? backendsOf(database) : [];
  const db0 = new Map(backends.map((pid) => [pid, ticksOf(pid)]));
  const client0 = process.cpuUsage();
  const machine0 = machineTicks();
  return () => {
    const seconds = (performance.now() - t0) / 1000;
    const pct = (ticks: number) => (100 * ticks) / TICKS_PER_SECOND / seconds;
    // Backends started during the window count from zero.
    let db = 0;
    if (database) for (const pid of backendsOf(database)) db += ticksOf(pid) - (db0.get(pid) ?? 0);
    const client = process.cpuUsage(client0);
    const machine = machineTicks();
    const server = pct(ticksOf(serverPid) - server0);
    const clientPct = (100 * (client.user + client.system)) / 1e6 / seconds;
    const all = pct(machine.busy - machine0.busy);
    return {
      server,
      database: database ? pct(db) : null,
      client: clientPct,
      others: Math.max(0, all - server - clientPct - (database ? pct(db) : 0)),
    };
  };
}
