/**
 * bench/api: throughput and latency of the /api contract at 100 concurrent clients, beside a bare
 * node:http handler answering the same JSON, on PGlite and on PostgreSQL, in one run.
 *
 *   node bench/api.ts [--duration=10] [--warmup=3] [--concurrency=100] [--engines=pglite,postgres]
 *                     [--scenarios=info,sequence] [--quiet-wait=60] [--cpu-prof] [--pg-pool=N] [--pg-prepared]
 *
 * Every server runs in its own child process (bench/lib/api-server.ts); this process only generates
 * load, with one keep-alive connection per virtual client (bench/lib/http-client.ts), each from its
 * own loopback address 127.0.0.x. Scenarios, per server:
 *
 * - getRoomInfoByRoomNumber: each client loops `POST /api/getRoomInfoByRoomNumber` over the rooms
 *   created while seeding (100 open rooms).
 * - sign-in + create + join: each client loops sendPhoneCode (fresh mobile) -> loginUser (code read
 *   from the server's dev outbox over IPC; not timed) -> createAgoraRoom -> userJoinAgoraRoom.
 *   Reported per request and per sequence (sequence latency = the sum of its four requests).
 * - bare: the reference handler, same loop as getRoomInfoByRoomNumber.
 *
 * Each measurement is preceded by a warm-up on the same server. A request counts as an error when
 * the connection fails or times out, the HTTP status is not 200, or the envelope code is not '0';
 * errors are not in requests/s nor in the latencies, and are shown beside them.
 *
 * Before starting it waits (at most --quiet-wait seconds) for the machine to be quiet, and it shows
 * beside every row the CPU each process used, including what other processes took.
 *
 * --pg-pool=N is an experiment: the PostgreSQL server gets a pool of N connections instead of the
 * product's default, and --pg-prepared sends every statement as a named prepared statement (parsed
 * and planned once per connection): both show what a change in core/platform/db would buy.
 *
 * With --cpu-prof the servers run under `node --cpu-prof`; the profiles land in bench/results/ and a
 * self-time summary of each is printed.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { hostname, cpus, totalmem } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { startPostgres, type RunningPostgres } from '../tests/support/postgres.ts';
import type { ChildToParent, ParentToChild } from './lib/api-server.ts';
import { summariseProfile } from './lib/cpu-profile.ts';
import { cpuWindow, machineBusy, type CpuShares } from './lib/cpu-usage.ts';
import { Connection } from './lib/http-client.ts';
import { fmtMs, fmtRate, markdownTable, Tally, type TallySummary } from './lib/stats.ts';

const root = path.join(import.meta.dirname, '..');
const resultsDir = path.join(root, 'bench', 'results');

const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '3' },
    concurrency: { type: 'string', default: '100' },
    engines: { type: 'string', default: 'pglite,postgres' },
    scenarios: { type: 'string', default: 'info,sequence' },
    'quiet-wait': { type: 'string', default: '60' },
    'pg-pool': { type: 'string' },
    'pg-prepared': { type: 'boolean', default: false },
    'cpu-prof': { type: 'boolean', default: false },
  },
  allowPositionals: true,
});

const DURATION_S = Math.min(Math.max(Number(args.duration), 1), 60);
const WARMUP_S = Math.min(Math.max(Number(args.warmup), 0), 30);
const CONCURRENCY = Math.min(Math.max(Math.trunc(Number(args.concurrency)), 1), 1000);
const ENGINES = args.engines.split(',').filter((e): e is Engine => e === 'pglite' || e === 'postgres');
const SCENARIOS = new Set(args.scenarios.split(','));
const CPU_PROF = args['cpu-prof'];
/** An experiment: the PostgreSQL pool size (the product's default when unset). */
const PG_POOL = args['pg-pool'] ? Math.min(Math.max(Math.trunc(Number(args['pg-pool'])), 1), 200) : null;
/** An experiment: every statement as a named prepared statement on PostgreSQL. */
const PG_PREPARED = args['pg-prepared'];
/** A hard stop for the whole run, whatever happens. */
const RUN_LIMIT_MS = 10 * 60_000;
const REQUEST_TIMEOUT_MS = 10_000;
/** Before starting: wait up to QUIET_WAIT_S for the machine to be under QUIET_PCT % of one core busy. */
const QUIET_PCT = 15;
const QUIET_WAIT_S = Math.min(Math.max(Number(args['quiet-wait']), 0), 300);

type Engine = 'pglite' | 'postgres';
const ENGINE_LABEL: Record<Engine, string> = { pglite: 'PGlite', postgres: 'PostgreSQL' };

// ---------------------------------------------------------------------------------------------
// Server children

class ServerChild {
  readonly kind: string;
  readonly child: ChildProcess;
  url = '';
  database: string | null = null;
  #nextId = 1;
  readonly #waiting = new Map<number, (code: string | null) => void>();
  readonly #exited: Promise<void>;

  constructor(kind: string, env: Record<string, string>, profDir: string | null) {
    this.kind = kind;
    const execArgv = profDir ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`, `--cpu-prof-name=${kind}-${String(Date.now())}.cpuprofile`] : [];
    this.child = fork(path.join(root, 'bench', 'lib', 'api-server.ts'), [kind], {
      cwd: root,
      execArgv,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.#exited = new Promise((resolve) => this.child.once('exit', () => resolve()));
    this.child.on('message', (raw) => {
      const m = raw as ChildToParent;
      if (m.type === 'code') {
        this.#waiting.get(m.id)?.(m.code);
        this.#waiting.delete(m.id);
      }
    });
  }

  static async start(kind: string, env: Record<string, string>, profDir: string | null): Promise<ServerChild> {
    const s = new ServerChild(kind, env, profDir);
    const ready = await new Promise<ChildToParent & { type: 'ready' }>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${kind} server did not start within 60 s`)), 60_000);
      s.child.on('message', (raw) => {
        const m = raw as ChildToParent;
        if (m.type === 'ready') {
          clearTimeout(timer);
          resolve(m);
        }
      });
      s.child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`${kind} server exited with ${String(code)} before it was ready`));
      });
    });
    s.url = ready.url;
    s.database = ready.database;
    return s;
  }

  /** The newest SMS code the server sent to `mobile`, read from its dev outbox. */
  code(mobile: string): Promise<string | null> {
    const id = this.#nextId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#waiting.delete(id);
        resolve(null);
      }, 5_000);
      this.#waiting.set(id, (code) => {
        clearTimeout(timer);
        resolve(code);
      });
      this.child.send({ type: 'code', id, mobile } satisfies ParentToChild);
    });
  }

  async close(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    if (this.child.connected) this.child.send({ type: 'close' } satisfies ParentToChild);
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 30_000);
    await this.#exited;
    clearTimeout(timer);
  }
}

// ---------------------------------------------------------------------------------------------
// Virtual clients

interface Client {
  index: number;
  conn: Connection;
}

function makeClients(url: string): Client[] {
  return Array.from({ length: CONCURRENCY }, (_, index) => ({
    index,
    // 127.0.0.2 .. 127.0.0.251: per-address limits see one address per client, as in real life.
    conn: new Connection(url, { localAddress: `127.0.0.${String(2 + (index % 250))}`, timeoutMs: REQUEST_TIMEOUT_MS }),
  }));
}

/** A measured (or warm-up) window: results completing after `end` are dropped. */
interface Window {
  end: number;
}

type Envelope = { code?: unknown; data?: unknown };

/** One API call, timed and tallied. Returns the envelope's data on success, undefined on error. */
async function call(
  c: Client,
  win: Window,
  tallies: Tally[],
  name: string,
  body: unknown,
  token?: string,
): Promise<{ data: unknown; ms: number } | undefined> {
  const t0 = performance.now();
  let kind: string | null = null;
  let data: unknown;
  try {
    const answer = await c.conn.post(`/api/${name}`, JSON.stringify(body), token ? { token } : {});
    if (answer.status !== 200) kind = `HTTP ${String(answer.status)}`;
    else {
      const env = JSON.parse(answer.body) as Envelope;
      if (env.code !== '0') kind = `code ${String(env.code)}`;
      else data = env.data;
    }
  } catch (err) {
    kind = (err as Error).message;
  }
  const t1 = performance.now();
  if (t1 > win.end) return kind ? undefined : { data, ms: t1 - t0 };
  for (const t of tallies) {
    if (kind) t.error(`${name}: ${kind}`);
    else t.ok.add(t1 - t0);
  }
  return kind ? undefined : { data, ms: t1 - t0 };
}

/**
 * Runs `loop` on every client until the window ends; waits for in-flight work (bounded by
 * timeouts). Returns the window's length and the CPU the processes used during it.
 */
async function runWindow(
  server: ServerChild,
  clients: Client[],
  seconds: number,
  loop: (c: Client, win: Window) => Promise<void>,
): Promise<{ seconds: number; cpu: CpuShares }> {
  const start = performance.now();
  const win: Window = { end: start + seconds * 1000 };
  const cpu = cpuWindow(server.child.pid ?? 0, server.database);
  let shares: CpuShares | null = null;
  const stopCpu = setTimeout(() => (shares = cpu()), seconds * 1000);
  await Promise.all(clients.map((c) => loop(c, win)));
  clearTimeout(stopCpu);
  return { seconds: (Math.min(performance.now(), win.end) - start) / 1000, cpu: shares ?? cpu() };
}

// Scenario: getRoomInfoByRoomNumber (also the bare handler's loop).

function roomInfoLoop(rooms: string[], tally: Tally) {
  return async (c: Client, win: Window) => {
    // Built once: the loop measures the server, not the client's string building.
    const requests = rooms.map((roomNumber) => c.conn.request('/api/getRoomInfoByRoomNumber', JSON.stringify({ roomNumber })));
    let k = c.index;
    while (performance.now() < win.end) {
      const req = requests[k++ % requests.length]!;
      const t0 = performance.now();
      let kind: string | null = null;
      try {
        const answer = await c.conn.send(req);
        if (answer.status !== 200) kind = `HTTP ${String(answer.status)}`;
        // The envelope starts with its code; a full parse would only slow the client down.
        else if (!answer.body.startsWith('{"code":"0"')) kind = `code ${/"code":"([^"]*)"/.exec(answer.body)?.[1] ?? '?'}`;
      } catch (err) {
        kind = (err as Error).message;
      }
      const t1 = performance.now();
      if (t1 > win.end) break;
      if (kind) tally.error(kind);
      else tally.ok.add(t1 - t0);
    }
  };
}

// Scenario: sign-in + create + join.

const STEPS = ['sendPhoneCode', 'loginUser', 'createAgoraRoom', 'userJoinAgoraRoom'] as const;
type Step = (typeof STEPS)[number];

interface SequenceTallies {
  requests: Tally;
  sequences: Tally;
  steps: Record<Step, Tally>;
}

const newSequenceTallies = (): SequenceTallies => ({
  requests: new Tally(),
  sequences: new Tally(),
  steps: { sendPhoneCode: new Tally(), loginUser: new Tally(), createAgoraRoom: new Tally(), userJoinAgoraRoom: new Tally() },
});

let mobileCounter = 0;
/** Fresh, valid mobiles (/^1[3-9]\d{9}$/): 139 followed by a run-wide counter. */
const nextMobile = () => `139${String(mobileCounter++ % 100_000_000).padStart(8, '0')}`;

/** One sign-in + create + join; the room number on success. */
async function sequence(server: ServerChild, c: Client, win: Window, t: SequenceTallies): Promise<string | undefined> {
  const mobile = nextMobile();
  const tallies = (s: Step) => [t.requests, t.steps[s]];
  const fail = (why: string) => {
    if (performance.now() <= win.end) t.sequences.error(why);
    return undefined;
  };
  const sent = await call(c, win, tallies('sendPhoneCode'), 'sendPhoneCode', { mobile, area: '86' });
  if (!sent) return fail('sendPhoneCode failed');
  const code = await server.code(mobile);
  if (!code) return fail('no code in the outbox');
  const login = await call(c, win, tallies('loginUser'), 'loginUser', { mobile, code });
  const token = (login?.data as { userInfo?: { userToken?: string } } | undefined)?.userInfo?.userToken;
  if (!login || !token) return fail('loginUser failed');
  const created = await call(c, win, tallies('createAgoraRoom'), 'createAgoraRoom', { roomType: 1, consumption: 'off' }, token);
  const roomNumber = (created?.data as { roomInfo?: { roomNumber?: string } } | undefined)?.roomInfo?.roomNumber;
  if (!created || !roomNumber) return fail('createAgoraRoom failed');
  const joined = await call(c, win, tallies('userJoinAgoraRoom'), 'userJoinAgoraRoom', { roomNumber }, token);
  if (!joined) return fail('userJoinAgoraRoom failed');
  if (performance.now() <= win.end) t.sequences.ok.add(sent.ms + login.ms + created.ms + joined.ms);
  return roomNumber;
}

function sequenceLoop(server: ServerChild, t: SequenceTallies) {
  return async (c: Client, win: Window) => {
    while (performance.now() < win.end) await sequence(server, c, win, t);
  };
}

// ---------------------------------------------------------------------------------------------
// Runs

interface Row {
  scenario: string;
  engine: string;
  unit: 'requests' | 'sequences';
  summary: TallySummary;
  /** For the ratio: the row's requests/s. */
  requestsPerSecond: number;
  cpu: CpuShares;
}

const rows: Row[] = [];
const stepRows: { engine: string; step: Step; summary: TallySummary }[] = [];
let bareAnswer: string | null = null;
let bareRps = Number.NaN;

function log(line: string): void {
  process.stderr.write(`[bench/api ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
}

async function benchProduct(engine: Engine, pg: RunningPostgres | null, profDir: string | null): Promise<void> {
  log(`${engine}: starting the server`);
  const env: Record<string, string> = pg ? { BENCH_POSTGRES_ADMIN_URL: pg.url } : {};
  if (pg && PG_POOL) env['BENCH_PG_POOL'] = String(PG_POOL);
  if (pg && PG_PREPARED) env['BENCH_PG_PREPARED'] = '1';
  const server = await ServerChild.start(engine, env, profDir);
  const label = ENGINE_LABEL[engine];
  try {
    const clients = makeClients(server.url);
    // Seed: one sequence per client; its rooms are the ones getRoomInfoByRoomNumber asks about.
    const seedTallies = newSequenceTallies();
    const seedWin: Window = { end: Number.POSITIVE_INFINITY };
    const rooms = (await Promise.all(clients.map((c) => sequence(server, c, seedWin, seedTallies)))).filter((r): r is string => !!r);
    if (rooms.length === 0) throw new Error(`${engine}: seeding created no room: ${JSON.stringify(seedTallies.sequences.summary(1).errorKinds)}`);
    if (bareAnswer === null) {
      const sample = await clients[0]!.conn.post('/api/getRoomInfoByRoomNumber', JSON.stringify({ roomNumber: rooms[0] }));
      bareAnswer = sample.body;
    }

    if (SCENARIOS.has('info')) {
      log(`${engine}: getRoomInfoByRoomNumber, warm-up ${String(WARMUP_S)} s, measure ${String(DURATION_S)} s`);
      await runWindow(server, clients, WARMUP_S, roomInfoLoop(rooms, new Tally()));
      const info = new Tally();
      const w = await runWindow(server, clients, DURATION_S, roomInfoLoop(rooms, info));
      const summary = info.summary(w.seconds);
      rows.push({ scenario: 'getRoomInfoByRoomNumber', engine: label, unit: 'requests', summary, requestsPerSecond: summary.perSecond, cpu: w.cpu });
    }

    if (SCENARIOS.has('sequence')) {
      log(`${engine}: sign-in + create + join, warm-up ${String(WARMUP_S)} s, measure ${String(DURATION_S)} s`);
      await runWindow(server, clients, WARMUP_S, sequenceLoop(server, newSequenceTallies()));
      const seq = newSequenceTallies();
      const w = await runWindow(server, clients, DURATION_S, sequenceLoop(server, seq));
      const req = seq.requests.summary(w.seconds);
      const perSeq = seq.sequences.summary(w.seconds);
      rows.push({ scenario: 'sign-in + create + join, per request', engine: label, unit: 'requests', summary: req, requestsPerSecond: req.perSecond, cpu: w.cpu });
      rows.push({ scenario: 'sign-in + create + join, per sequence', engine: label, unit: 'sequences', summary: perSeq, requestsPerSecond: req.perSecond, cpu: w.cpu });
      for (const step of STEPS) stepRows.push({ engine: label, step, summary: seq.steps[step].summary(w.seconds) });
    }
    for (const c of clients) c.conn.close();
  } finally {
    await server.close();
  }
}

async function benchBare(profDir: string | null): Promise<void> {
  if (bareAnswer === null) throw new Error('no product answer to mirror');
  log('bare: starting the handler');
  const server = await ServerChild.start('bare', { BENCH_BARE_ANSWER: bareAnswer }, profDir);
  try {
    const clients = makeClients(server.url);
    const rooms = Array.from({ length: 100 }, (_, i) => String(100_000 + i * 7919));
    log(`bare: warm-up ${String(WARMUP_S)} s, measure ${String(DURATION_S)} s`);
    await runWindow(server, clients, WARMUP_S, roomInfoLoop(rooms, new Tally()));
    const tally = new Tally();
    const w = await runWindow(server, clients, DURATION_S, roomInfoLoop(rooms, tally));
    const summary = tally.summary(w.seconds);
    bareRps = summary.perSecond;
    rows.unshift({ scenario: 'bare node:http handler, same JSON', engine: '-', unit: 'requests', summary, requestsPerSecond: summary.perSecond, cpu: w.cpu });
    for (const c of clients) c.conn.close();
  } finally {
    await server.close();
  }
}

function errorsCell(s: TallySummary): string {
  if (s.errors === 0) return '0';
  const kinds = Object.entries(s.errorKinds)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 3)
    .map(([k, n]) => `${String(n)}× ${k}`)
    .join('; ');
  return `**${String(s.errors)}** (${kinds})`;
}

function report(startedAt: Date, busyBefore: number): string {
  const table = markdownTable(
    ['scenario', 'engine', 'clients', 'rate /s', 'p50 ms', 'p99 ms', 'max ms', 'errors', 'req/s vs bare', 'CPU % server / db / client / other'],
    rows.map((r) => [
      r.scenario,
      r.engine,
      String(CONCURRENCY),
      `${fmtRate(r.summary.perSecond)} ${r.unit === 'sequences' ? 'seq' : 'req'}`,
      fmtMs(r.summary.p50),
      fmtMs(r.summary.p99),
      fmtMs(r.summary.max),
      errorsCell(r.summary),
      Number.isNaN(bareRps) ? '-' : `${((100 * r.requestsPerSecond) / bareRps).toFixed(1)} %`,
      `${r.cpu.server.toFixed(0)} / ${r.cpu.database === null ? '-' : r.cpu.database.toFixed(0)} / ${r.cpu.client.toFixed(0)} / ${r.cpu.others.toFixed(0)}`,
    ]),
  );
  const steps = markdownTable(
    ['sequence step', 'engine', 'requests/s', 'p50 ms', 'p99 ms', 'max ms', 'errors'],
    stepRows.map((r) => [r.step, r.engine, fmtRate(r.summary.perSecond), fmtMs(r.summary.p50), fmtMs(r.summary.p99), fmtMs(r.summary.max), errorsCell(r.summary)]),
  );
  const verdicts: string[] = [];
  for (const r of rows.filter((x) => x.engine === 'PostgreSQL' && x.unit === 'requests')) {
    const p99ok = r.summary.p99 < 20;
    const share = r.requestsPerSecond / bareRps;
    const shareOk = share >= 0.25;
    verdicts.push(
      `- ${r.scenario} on PostgreSQL: p99 ${fmtMs(r.summary.p99)} ms ${p99ok ? '< 20 ms: met' : '>= 20 ms: NOT met'}; ` +
        `${(100 * share).toFixed(1)} % of the bare handler ${shareOk ? '>= 25 %: met' : '< 25 %: NOT met'}` +
        `${r.summary.errors ? ` (with ${String(r.summary.errors)} errors)` : ''}.`,
    );
  }
  const totalErrors = rows.reduce((n, r) => n + r.summary.errors, 0);
  const cpu = cpus();
  return [
    `## api — ${startedAt.toISOString()}`,
    '',
    `Machine: ${hostname()}, ${String(cpu.length)} × ${cpu[0]?.model.trim() ?? '?'}, ${String(Math.round(totalmem() / 2 ** 30))} GiB · Node ${process.version} · ` +
      `${String(CONCURRENCY)} clients · warm-up ${String(WARMUP_S)} s, measure ${String(DURATION_S)} s per scenario · ` +
      `load generator and each server in separate processes${CPU_PROF ? ' · servers under --cpu-prof (slower)' : ''}` +
      `${PG_POOL ? ` · **experiment: PostgreSQL pool of ${String(PG_POOL)}** (product default 10)` : ''}` +
      `${PG_PREPARED ? ' · **experiment: named prepared statements on PostgreSQL**' : ''} · ` +
      `machine ${busyBefore.toFixed(0)} % busy (of one core) just before the run${busyBefore > QUIET_PCT ? ' (**other processes were busy: numbers are skewed**)' : ''}`,
    '',
    'Clients loop closed: each sends its next request when the last answer arrives, so latency ≈ clients ÷ rate. ' +
      'CPU is % of one core (the machine has ' + String(cpus().length) + ') during the measurement: the server process, the PostgreSQL backends of its database, ' +
      'this load generator, and everything else (other processes, PostgreSQL background workers, kernel threads).',
    '',
    table,
    '',
    steps,
    '',
    totalErrors ? `**This run had ${String(totalErrors)} errors**: their rows are not clean measurements.` : 'No errors.',
    '',
    ...(verdicts.length ? ['Goal (p99 < 20 ms and >= 25 % of the bare handler on PostgreSQL):', ...verdicts] : []),
    '',
  ].join('\n');
}

async function main(): Promise<void> {
  // Wait (bounded) for a quiet machine: other processes' CPU skews every number here.
  let busyBefore = await machineBusy(1000);
  for (let waited = 0; busyBefore > QUIET_PCT && waited < QUIET_WAIT_S; waited += 2) {
    if (waited === 0) log(`machine ${busyBefore.toFixed(0)} % busy; waiting up to ${String(QUIET_WAIT_S)} s for it to calm down`);
    busyBefore = await machineBusy(2000);
  }
  const startedAt = new Date();
  const stamp = startedAt.toISOString().replace(/[:.]/g, '-');
  mkdirSync(resultsDir, { recursive: true });
  const profDir = CPU_PROF ? path.join(resultsDir, `prof-${stamp}`) : null;
  if (profDir) mkdirSync(profDir, { recursive: true });
  if (ENGINES.length === 0) throw new Error('--engines needs pglite and/or postgres');

  let pg: RunningPostgres | null = null;
  try {
    // The first product run also captures the answer the bare handler mirrors.
    const [first, ...rest] = ENGINES;
    const runEngine = async (engine: Engine) => {
      if (engine === 'postgres') {
        log('postgres: starting a throwaway PostgreSQL');
        pg ??= await startPostgres();
      }
      await benchProduct(engine, engine === 'postgres' ? pg : null, profDir);
    };
    await runEngine(first!);
    await benchBare(profDir);
    for (const engine of rest) await runEngine(engine);
  } finally {
    await (pg as RunningPostgres | null)?.stop();
  }

  const text = report(startedAt, busyBefore);
  process.stdout.write(`\n${text}`);
  writeFileSync(path.join(resultsDir, `api-${stamp}.md`), text);
  writeFileSync(path.join(resultsDir, `api-${stamp}.json`), JSON.stringify({ startedAt, CONCURRENCY, DURATION_S, WARMUP_S, rows, stepRows }, null, 2));
  log(`results written to bench/results/api-${stamp}.{md,json}`);

  if (profDir) {
    for (const file of readdirSync(profDir).filter((f) => f.endsWith('.cpuprofile')).sort()) {
      process.stdout.write(`\n### CPU profile ${file} (self time)\n\n${summariseProfile(path.join(profDir, file), root)}\n`);
    }
  }
}

const hardStop = setTimeout(() => {
  log(`run exceeded ${String(RUN_LIMIT_MS / 60_000)} minutes; aborting`);
  process.exit(2);
}, RUN_LIMIT_MS);
hardStop.unref();

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
