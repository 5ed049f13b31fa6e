/**
 * bench/realtime: fan-out latency of the room channel (socket.io `/room`) on one web process.
 *
 *   node bench/realtime.ts [--engines=pglite,postgres] [--rooms=200] [--per-room=10] [--rate=1]
 *                          [--duration=10] [--warmup=3] [--ramp-up=2,4,8,16] [--ramp-down=0.75,0.5,0.25,0.1,0.05]
 *                          [--step=8] [--client-procs=1] [--max-in-flight=1] [--quiet-wait=30] [--cpu-prof]
 *
 * Per engine: a server child (bench/lib/realtime-server.ts, the whole product on its own fresh
 * database) seeds `rooms` whiteboard classes (type 2, cap 200) of `per-room` people (the creator
 * and tourists) and hands their room tokens over IPC. Memory: the server's RSS and heap after two
 * full GCs, before any socket connects and after every client connected and joined, / clients.
 * Then client processes (bench/lib/realtime-clients.ts, whole rooms each) run:
 *   (a) steady: `rate` events per client per second: each room's creator sends `customRoomEvent`
 *       (a checked, saved patch), the others `chat` (a saved message); latency = emit -> receipt at
 *       every other client of the room, separately per kind;
 *   (b) a ramp: from the steady rate up (--ramp-up) until the p99 of either kind passes 100 ms, or
 *       down (--ramp-down) until it falls under 100 ms when the steady rate is already past it.
 * Open loop at the given rate, except that a client with --max-in-flight requests unanswered skips
 * its turn (shown as "skipped"): an overloaded server's backlog stays bounded, so later steps are
 * not measuring the previous one's queue; a row with skips was overloaded and its latencies are
 * those of the requests that went out. Between runs the bench waits for the server to go idle.
 * With --cpu-prof, one more window at the steady rate is profiled in the server (inspector, just
 * that window; not one of the reported rows) and summarised.
 * Results go to bench/results/realtime-<time>.{md,json}.
 */
import { runBench } from './lib/entry.ts';
import { fork, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startPostgres, type RunningPostgres } from '../tests/support/postgres.ts';
import { summariseProfile } from './lib/cpu-profile.ts';
import { cpuWindow, machineBusy } from './lib/cpu-usage.ts';
import type { ClientsToParent, KindResult, ParentToClients, RunResult } from './lib/realtime-clients.ts';
import type { ParentToServer, SeededRoom, ServerToParent } from './lib/realtime-server.ts';
import { fmtMs, fmtRate, markdownTable, Samples } from './lib/stats.ts';

const root = path.join(import.meta.dirname, '..');
const resultsDir = path.join(root, 'bench', 'results');

const { values: args } = parseArgs({
  options: {
    engines: { type: 'string', default: 'pglite,postgres' },
    rooms: { type: 'string', default: '200' },
    'per-room': { type: 'string', default: '10' },
    rate: { type: 'string', default: '1' },
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '3' },
    'ramp-up': { type: 'string', default: '2,4,8,16' },
    'ramp-down': { type: 'string', default: '0.75,0.5,0.25,0.1,0.05' },
    'max-in-flight': { type: 'string', default: '1' },
    step: { type: 'string', default: '8' },
    'client-procs': { type: 'string', default: '1' },
    'quiet-wait': { type: 'string', default: '30' },
    'cpu-prof': { type: 'boolean', default: false },
  },
  strict: true,
});

const ENGINES = args.engines.split(',').filter(Boolean);
const ROOMS = Number(args.rooms);
const PER_ROOM = Number(args['per-room']);
const RATE = Number(args.rate);
const DURATION_MS = Number(args.duration) * 1000;
const WARMUP_MS = Number(args.warmup) * 1000;
const RAMP_UP = args['ramp-up'].split(',').filter(Boolean).map(Number);
const RAMP_DOWN = args['ramp-down'].split(',').filter(Boolean).map(Number);
const STEP_MS = Number(args.step) * 1000;
const STEP_WARMUP_MS = 2000;
const DRAIN_MS = 2000;
const CLIENT_PROCS = Math.max(1, Number(args['client-procs']));
const MAX_IN_FLIGHT = Math.max(1, Number(args['max-in-flight']));
const LIMIT_MS = 100;
const RUN_LIMIT_MS = 10 * 60_000;
for (const e of ENGINES) if (e !== 'pglite' && e !== 'postgres') throw new Error(`unknown engine ${e}`);
const engineOf = (e: string) => e as 'pglite' | 'postgres';

const log = (s: string) => console.error(`[realtime] ${s}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------------------------------------
// Child processes

class Child<In, Out extends { type: string }> {
  readonly proc: ChildProcess;
  readonly #listeners = new Set<(m: Out) => void>();
  constructor(file: string, argv: string[], execArgv: string[], env: Record<string, string>) {
    this.proc = fork(file, argv, {
      cwd: root,
      execArgv,
      env: { ...process.env, ...env },
      serialization: 'advanced',
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.proc.on('message', (m) => {
      for (const l of [...this.#listeners]) l(m as Out);
    });
  }
  get pid(): number {
    return this.proc.pid ?? 0;
  }
  send(m: In): void {
    this.proc.send(m as object);
  }
  /** The next message of `type` (and passing `match`), or a rejection after `ms` or at exit. */
  next<T extends Out['type']>(
    type: T,
    ms: number,
    match: (m: Extract<Out, { type: T }>) => boolean = () => true,
  ): Promise<Extract<Out, { type: T }>> {
    return new Promise((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        this.#listeners.delete(on);
        this.proc.off('exit', onExit);
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`no ${type} from ${path.basename(String(this.proc.spawnargs[1]))} within ${String(ms)} ms`));
      }, ms);
      const onExit = (code: number | null) => {
        done();
        reject(new Error(`child exited (${String(code)}) while waiting for ${type}`));
      };
      const on = (m: Out) => {
        if (m.type === 'error') {
          done();
          reject(new Error((m as unknown as { message: string }).message));
        } else if (m.type === type && match(m as Extract<Out, { type: T }>)) {
          done();
          resolve(m as Extract<Out, { type: T }>);
        }
      };
      this.#listeners.add(on);
      this.proc.once('exit', onExit);
    });
  }
  async stop(ms = 8000): Promise<void> {
    if (this.proc.exitCode !== null || this.proc.signalCode !== null) return;
    const exited = new Promise((r) => this.proc.once('exit', r));
    try {
      this.send({ type: 'close' } as In);
    } catch {
      // IPC already gone
    }
    await Promise.race([exited, sleep(ms)]);
    if (this.proc.exitCode === null && this.proc.signalCode === null) {
      this.proc.kill('SIGKILL');
      await exited;
    }
  }
}

type ServerChild = Child<ParentToServer, ServerToParent>;
type ClientsChild = Child<ParentToClients, ClientsToParent>;
let ids = 1;

/** utime + stime of one process in ticks (USER_HZ 100), 0 when gone. */
function ticksOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${String(pid)}/stat`, 'latin1');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(f[11]) + Number(f[12]);
  } catch {
    return 0;
  }
}

// ---------------------------------------------------------------------------------------------
// Measurements

interface KindRow {
  events: number;
  deliveries: number;
  p50: number;
  p99: number;
  max: number;
  ackP99: number;
  /** Deliveries expected but not seen by the end of the drain. */
  lost: number;
  errors: Record<string, number>;
}

interface RunRow {
  engine: string;
  phase: 'steady' | 'ramp' | 'profiled';
  rate: number;
  seconds: number;
  custom: KindRow;
  chat: KindRow;
  cpu: { server: number; database: number | null; clients: number[]; other: number };
  sendLagP99: number;
  loopDelayP99: number;
}

interface MemRow {
  engine: string;
  clients: number;
  before: NodeJS.MemoryUsage;
  after: NodeJS.MemoryUsage;
  seedMs: number;
  connectMs: number;
  connectErrors: Record<string, number>;
}

function mergeKind(parts: KindResult[], seconds: number): KindRow {
  const lat = new Samples();
  const acks = new Samples();
  let sent = 0;
  let acked = 0;
  let expected = 0;
  const errors: Record<string, number> = {};
  for (const p of parts) {
    for (const v of p.latencies) lat.add(v);
    for (const v of p.acks) acks.add(v);
    sent += p.sent;
    acked += p.acked;
    expected += p.expected;
    for (const [k, v] of Object.entries(p.ackErrors)) errors[k] = (errors[k] ?? 0) + v;
  }
  const [p50, p99, max] = lat.percentiles([50, 99, 100]) as [number, number, number];
  const [ackP99] = acks.percentiles([99]) as [number];
  void sent;
  return {
    events: acked / seconds,
    deliveries: lat.count / seconds,
    p50,
    p99,
    max,
    ackP99,
    lost: Math.max(0, expected - lat.count),
    errors,
  };
}

async function measure(
  engine: string,
  phase: RunRow['phase'],
  server: ServerChild,
  database: string | null,
  clientProcs: ClientsChild[],
  rate: number,
  warmupMs: number,
  durationMs: number,
): Promise<RunRow> {
  const results = clientProcs.map((c) => c.next('result', warmupMs + durationMs + DRAIN_MS + 30_000));
  const starts = clientProcs.map((c) => c.next('window', warmupMs + 10_000, (m) => m.edge === 'start'));
  const ends = clientProcs.map((c) => c.next('window', warmupMs + durationMs + 10_000, (m) => m.edge === 'end'));
  for (const c of clientProcs) c.send({ type: 'run', rate, warmupMs, durationMs, drainMs: DRAIN_MS, maxInFlight: MAX_IN_FLIGHT });
  await Promise.all(starts);
  const stopCpu = cpuWindow(server.pid, database);
  const t0 = performance.now();
  const c0 = clientProcs.map((c) => ticksOf(c.pid));
  await Promise.all(ends);
  const seconds = (performance.now() - t0) / 1000;
  const shares = stopCpu();
  const clientsPct = clientProcs.map((c, i) => ticksOf(c.pid) - c0[i]!).map((t) => t / seconds);
  const parts: RunResult[] = (await Promise.all(results)).map((m) => m.result);
  const row: RunRow = {
    engine,
    phase,
    rate,
    seconds: durationMs / 1000,
    custom: mergeKind(
      parts.map((p) => p.custom),
      durationMs / 1000,
    ),
    chat: mergeKind(
      parts.map((p) => p.chat),
      durationMs / 1000,
    ),
    cpu: {
      server: shares.server,
      database: shares.database,
      clients: clientsPct,
      // cpuWindow counts this (idle) parent as the client; the client processes are in "others".
      other: Math.max(0, shares.others - clientsPct.reduce((a, b) => a + b, 0)),
    },
    sendLagP99: Math.max(...parts.map((p) => p.sendLagP99)),
    loopDelayP99: Math.max(...parts.map((p) => p.loopDelayP99)),
  };
  log(
    `${engine} ${phase} ${String(rate)} ev/client/s: custom p50 ${fmtMs(row.custom.p50)} p99 ${fmtMs(row.custom.p99)} · ` +
      `chat p50 ${fmtMs(row.chat.p50)} p99 ${fmtMs(row.chat.p99)} · ${fmtRate(row.custom.deliveries + row.chat.deliveries)} deliveries/s · ` +
      `CPU server ${shares.server.toFixed(0)} % clients ${clientsPct.map((c) => c.toFixed(0)).join('+')} %`,
  );
  return row;
}

const worst = (r: RunRow) => Math.max(r.custom.p99, r.chat.p99);
const failed = (r: RunRow) =>
  worst(r) > LIMIT_MS ||
  r.custom.lost + r.chat.lost > 0 ||
  Number.isNaN(worst(r)) ||
  Boolean(r.custom.errors['skipped'] ?? r.chat.errors['skipped']);

// ---------------------------------------------------------------------------------------------
// One engine

const runs: RunRow[] = [];
const mems: MemRow[] = [];
const thresholds: Array<{ engine: string; text: string }> = [];
const profiles: string[] = [];

async function benchEngine(engine: 'pglite' | 'postgres', pg: RunningPostgres | null, stamp: string): Promise<void> {
  const env: Record<string, string> = pg ? { BENCH_POSTGRES_ADMIN_URL: pg.url } : {};
  const server: ServerChild = new Child(path.join(root, 'bench', 'lib', 'realtime-server.ts'), [engine], ['--expose-gc'], env);
  const clientProcs: ClientsChild[] = [];
  try {
    const ready = await server.next('ready', 60_000);
    log(`${engine}: server ${ready.url} (pid ${String(ready.pid)}); seeding ${String(ROOMS)} rooms x ${String(PER_ROOM)}`);
    const id = ids++;
    server.send({ type: 'seed', id, rooms: ROOMS, perRoom: PER_ROOM });
    const seeded = await server.next('seeded', 180_000, (m) => m.id === id);
    log(`${engine}: seeded in ${(seeded.ms / 1000).toFixed(1)} s`);

    const memOf = async () => {
      const mid = ids++;
      server.send({ type: 'mem', id: mid });
      return (await server.next('mem', 30_000, (m) => m.id === mid)).mem;
    };
    await sleep(500);
    const before = await memOf();

    // Whole rooms per client process.
    const shares: SeededRoom[][] = Array.from({ length: CLIENT_PROCS }, () => []);
    seeded.rooms.forEach((r, i) => shares[i % CLIENT_PROCS]!.push(r));
    for (let i = 0; i < CLIENT_PROCS; i++) clientProcs.push(new Child(path.join(root, 'bench', 'lib', 'realtime-clients.ts'), [], [], {}));
    const t0 = performance.now();
    const connected = await Promise.all(
      clientProcs.map((c, i) => {
        const p = c.next('connected', 180_000);
        c.send({ type: 'connect', url: ready.url, rooms: shares[i]!, concurrency: 32 });
        return p;
      }),
    );
    const connectMs = performance.now() - t0;
    const ok = connected.reduce((a, c) => a + c.ok, 0);
    const connectErrors: Record<string, number> = {};
    for (const c of connected) for (const [k, v] of Object.entries(c.errors)) connectErrors[k] = (connectErrors[k] ?? 0) + v;
    log(
      `${engine}: ${String(ok)} clients connected and joined in ${(connectMs / 1000).toFixed(1)} s${Object.keys(connectErrors).length ? `, errors ${JSON.stringify(connectErrors)}` : ''}`,
    );
    if (ok === 0) throw new Error('no client could join');
    // Let the members broadcasts of the last joins settle.
    await sleep(2000);
    const after = await memOf();
    mems.push({ engine, clients: ok, before, after, seedMs: seeded.ms, connectMs, connectErrors });
    log(`${engine}: server RSS ${mb(before.rss)} -> ${mb(after.rss)} MB, heap ${mb(before.heapUsed)} -> ${mb(after.heapUsed)} MB`);

    // (a) steady
    const steady = await measure(engine, 'steady', server, ready.database, clientProcs, RATE, WARMUP_MS, DURATION_MS);
    runs.push(steady);
    // (b) ramp
    // Until the server is idle (under 30 % of a core over 500 ms), at most 30 s.
    const settle = async () => {
      for (const t0 = Date.now(); Date.now() - t0 < 30_000;) {
        const a = ticksOf(server.pid);
        await sleep(500);
        if ((ticksOf(server.pid) - a) / 0.5 < 30) break;
      }
      await sleep(500);
    };
    if (!failed(steady)) {
      let last = steady;
      let passed: RunRow | null = null;
      for (const rate of RAMP_UP.filter((r) => r > RATE)) {
        await settle();
        const row = await measure(engine, 'ramp', server, ready.database, clientProcs, rate, STEP_WARMUP_MS, STEP_MS);
        runs.push(row);
        if (failed(row)) {
          passed = row;
          break;
        }
        last = row;
      }
      thresholds.push({
        engine,
        text: passed
          ? `p99 passes ${String(LIMIT_MS)} ms between ${String(last.rate)} ev/client/s (${fmtMs(worst(last))} ms, ${fmtRate(sends(last))} events/s) and ${String(passed.rate)} ev/client/s (${fmtMs(worst(passed))} ms${lossNote(passed)}, ${fmtRate(sends(passed))} events/s)`
          : `p99 stays under ${String(LIMIT_MS)} ms up to ${String(last.rate)} ev/client/s (${fmtRate(sends(last))} events/s), the highest rate tried`,
      });
    } else {
      let last = steady;
      let under: RunRow | null = null;
      for (const rate of RAMP_DOWN.filter((r) => r < RATE)) {
        await settle();
        const row = await measure(engine, 'ramp', server, ready.database, clientProcs, rate, STEP_WARMUP_MS, STEP_MS);
        runs.push(row);
        if (!failed(row)) {
          under = row;
          break;
        }
        last = row;
      }
      thresholds.push({
        engine,
        text: under
          ? `p99 passes ${String(LIMIT_MS)} ms between ${String(under.rate)} ev/client/s (${fmtMs(worst(under))} ms, ${fmtRate(sends(under))} events/s) and ${String(last.rate)} ev/client/s (${fmtMs(worst(last))} ms${lossNote(last)}, ${fmtRate(sends(last))} events/s)`
          : `p99 is over ${String(LIMIT_MS)} ms even at ${String(last.rate)} ev/client/s, the lowest rate tried`,
      });
    }
    log(`${engine}: ${thresholds[thresholds.length - 1]!.text}`);

    if (args['cpu-prof']) {
      await settle();
      const file = path.join(resultsDir, `realtime-${stamp}-${engine}.cpuprofile`);
      const pid = ids++;
      server.send({ type: 'profile', id: pid, action: 'start' });
      await server.next('profiled', 10_000, (m) => m.id === pid);
      const row = await measure(engine, 'profiled', server, ready.database, clientProcs, RATE, STEP_WARMUP_MS, STEP_MS);
      runs.push(row);
      const sid = ids++;
      server.send({ type: 'profile', id: sid, action: 'stop', file });
      await server.next('profiled', 60_000, (m) => m.id === sid);
      profiles.push(file);
    }
  } finally {
    await Promise.all(clientProcs.map((c) => c.stop()));
    await server.stop();
  }
}

const sends = (r: RunRow) => r.custom.events + r.chat.events;
const lossNote = (r: RunRow) => (r.custom.lost + r.chat.lost > 0 ? `, ${String(r.custom.lost + r.chat.lost)} deliveries missing` : '');
const mb = (b: number) => (b / 1048576).toFixed(1);
const kb = (b: number) => (b / 1024).toFixed(1);

// ---------------------------------------------------------------------------------------------
// Report

function report(startedAt: Date, busyBefore: number): string {
  const engineName = (e: string) => (e === 'pglite' ? 'PGlite' : 'PostgreSQL');
  const errText = (k: KindRow) => {
    const e = Object.entries(k.errors).map(([c, n]) => `${c}:${String(n)}`);
    if (k.lost) e.push(`lost:${String(k.lost)}`);
    return e.length ? e.join(' ') : '0';
  };
  const rows: string[][] = [];
  for (const r of runs) {
    for (const [kind, k] of [
      ['customRoomEvent', r.custom],
      ['chat', r.chat],
    ] as const) {
      rows.push([
        engineName(r.engine),
        r.phase,
        String(r.rate),
        kind,
        fmtRate(k.events),
        fmtRate(k.deliveries),
        fmtMs(k.p50),
        fmtMs(k.p99),
        fmtMs(k.max),
        fmtMs(k.ackP99),
        errText(k),
        `${r.cpu.server.toFixed(0)} / ${r.cpu.database === null ? '-' : r.cpu.database.toFixed(0)} / ${r.cpu.clients.map((c) => c.toFixed(0)).join('+')} / ${r.cpu.other.toFixed(0)}`,
        `${fmtMs(r.sendLagP99)} / ${fmtMs(r.loopDelayP99)}`,
      ]);
    }
  }
  const runTable = markdownTable(
    [
      'engine',
      'phase',
      'ev/client/s',
      'kind',
      'events/s',
      'deliveries/s',
      'p50 ms',
      'p99 ms',
      'max ms',
      'ack p99 ms',
      'errors',
      'CPU % server / db / clients / other',
      'client send lag p99 / loop p99 ms',
    ],
    rows,
  );
  const memTable = markdownTable(
    [
      'engine',
      'clients',
      'RSS before → after MB',
      'RSS / client KB',
      'heap used before → after MB',
      'heap / client KB',
      'external+buffers / client KB',
      'seed s',
      'connect+join s',
    ],
    mems.map((m) => [
      engineName(m.engine),
      String(m.clients),
      `${mb(m.before.rss)} → ${mb(m.after.rss)}`,
      kb((m.after.rss - m.before.rss) / m.clients),
      `${mb(m.before.heapUsed)} → ${mb(m.after.heapUsed)}`,
      kb((m.after.heapUsed - m.before.heapUsed) / m.clients),
      kb((m.after.external - m.before.external) / m.clients),
      (m.seedMs / 1000).toFixed(1),
      (m.connectMs / 1000).toFixed(1),
    ]),
  );
  return [
    `bench/realtime · ${startedAt.toISOString()} · ${String(cpus().length)} cores (${cpus()[0]?.model ?? '?'}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB · Node ${process.version}`,
    `${String(ROOMS)} rooms x ${String(PER_ROOM)} clients, ${String(CLIENT_PROCS)} client process(es); steady ${String(DURATION_MS / 1000)} s after ${String(WARMUP_MS / 1000)} s warm-up, ramp steps ${String(STEP_MS / 1000)} s after ${String(STEP_WARMUP_MS / 1000)} s; machine busy before: ${busyBefore.toFixed(0)} % of a core`,
    '',
    runTable,
    '',
    ...thresholds.map((t) => `- ${engineName(t.engine)}: ${t.text}`),
    '',
    memTable,
    '',
  ].join('\n');
}

async function main(): Promise<void> {
  const startedAt = new Date();
  const stamp = startedAt.toISOString().replace(/[:.]/g, '-');
  mkdirSync(resultsDir, { recursive: true });
  const quietMs = Number(args['quiet-wait']) * 1000;
  let busyBefore = await machineBusy(1000);
  for (const t0 = Date.now(); busyBefore > 25 && Date.now() - t0 < quietMs;) {
    log(`machine busy (${busyBefore.toFixed(0)} % of a core); waiting`);
    busyBefore = await machineBusy(2000);
  }
  let pg: RunningPostgres | null = null;
  try {
    for (const engine of ENGINES) {
      if (engine === 'postgres') {
        log('postgres: starting a throwaway PostgreSQL');
        pg ??= await startPostgres();
      }
      await benchEngine(engineOf(engine), engine === 'postgres' ? pg : null, stamp);
    }
  } finally {
    await pg?.stop();
  }
  const text = report(startedAt, busyBefore);
  process.stdout.write(`\n${text}`);
  writeFileSync(path.join(resultsDir, `realtime-${stamp}.md`), text);
  writeFileSync(path.join(resultsDir, `realtime-${stamp}.json`), JSON.stringify({ startedAt, args, runs, mems, thresholds }, null, 2));
  log(`results written to bench/results/realtime-${stamp}.{md,json}`);
  for (const file of profiles)
    process.stdout.write(`\n### CPU profile ${path.basename(file)} (self time)\n\n${summariseProfile(file, root, 25)}\n`);
}

runBench(main, RUN_LIMIT_MS, log);
