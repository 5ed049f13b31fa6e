/**
 * bench/api: throughput and latency of the /api contract at 100 concurrent clients, beside a bare
 * node:http handler answering the same JSON, on PGlite and on PostgreSQL, in one run.
 *
 *   node bench/api.ts [--duration=10] [--warmup=3] [--concurrency=100] [--engines=pglite,postgres]
 *                     [--scenarios=info,info-uncached,sequence] [--quiet-wait=60] [--retries=3] [--cpu-prof]
 *
 * Every server runs in its own child process (bench/lib/api-server.ts); this process only generates
 * load, with one keep-alive connection per virtual client (bench/lib/http-client.ts), each from its
 * own loopback address 127.0.0.x. Scenarios, per server:
 *
 * - info: getRoomInfoByRoomNumber with the product's settings (look-ups of one room shared for
 *   ROOM_INFO_CACHE_MS): each client loops `POST /api/getRoomInfoByRoomNumber` over the rooms
 *   created while seeding (100 open rooms).
 * - info-uncached: the same loop on a second server of the same engine started with
 *   ROOM_INFO_CACHE_MS=0 (every look-up reads the database), seeded with its own rooms.
 * - sequence (sign-in + create + join): each client loops sendPhoneCode (fresh mobile) -> loginUser (code read
 *   from the server's dev outbox over IPC; not timed) -> createAgoraRoom -> userJoinAgoraRoom.
 *   Reported per request and per sequence (sequence latency = the sum of its four requests).
 * - bare: the reference handler, same loop as getRoomInfoByRoomNumber.
 *
 * Each measurement is preceded by a warm-up on the same server. A request counts as an error when
 * the connection fails or times out, the HTTP status is not 200, or the envelope code is not '0';
 * errors are not in requests/s nor in the latencies, and are shown beside them.
 *
 * Before starting it waits (at most --quiet-wait seconds) for the machine to be quiet, and it shows
 * beside every row the CPU each process used, including what other processes took, and on
 * PostgreSQL the statements the server sent per request (counted in the server process). A
 * measurement during which other processes used more than 10 % of a core waits for quiet again and
 * is repeated (warm-up included), at most --retries times; the report says how many were.
 *
 * With --cpu-prof the servers run under `node --cpu-prof`; the profiles land in bench/results/ and a
 * self-time summary of each is printed.
 */
import { runBench } from './lib/entry.ts';
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
const SCENARIO_NAMES = ['info', 'info-uncached', 'sequence'] as const;
type Scenario = (typeof SCENARIO_NAMES)[number];
const isScenario = (s: string): s is Scenario => (SCENARIO_NAMES as readonly string[]).includes(s);
const resultsDir = path.join(root, 'bench', 'results');

const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '3' },
    concurrency: { type: 'string', default: '100' },
    engines: { type: 'string', default: 'pglite,postgres' },
    scenarios: { type: 'string', default: SCENARIO_NAMES.join(',') },
    'quiet-wait': { type: 'string', default: '60' },
    retries: { type: 'string', default: '3' },
    'cpu-prof': { type: 'boolean', default: false },
  },
  allowPositionals: true,
});

const DURATION_S = Math.min(Math.max(Number(args.duration), 1), 60);
const WARMUP_S = Math.min(Math.max(Number(args.warmup), 0), 30);
const CONCURRENCY = Math.min(Math.max(Math.trunc(Number(args.concurrency)), 1), 1000);
const ENGINES = args.engines.split(',').filter((e): e is Engine => e === 'pglite' || e === 'postgres');
const SCENARIOS = new Set<Scenario>(
  args.scenarios.split(',').map((s) => {
    if (!isScenario(s)) throw new Error(`--scenarios: unknown ${JSON.stringify(s)}; choose from ${SCENARIO_NAMES.join(',')}`);
    return s;
  }),
);
const CPU_PROF = args['cpu-prof'];
/** A hard stop for the whole run, whatever happens. */
const RUN_LIMIT_MS = 20 * 60_000;
const REQUEST_TIMEOUT_MS = 10_000;
/** Before starting: wait up to QUIET_WAIT_S for the machine to be under QUIET_PCT % of one core busy. */
const QUIET_PCT = 15;
const QUIET_WAIT_S = Math.min(Math.max(Number(args['quiet-wait']), 0), 300);
/** A window during which other processes used more than OTHERS_LIMIT % of one core is measured again, up to RETRIES times. */
const OTHERS_LIMIT = 10;
const RETRIES = Math.min(Math.max(Math.trunc(Number(args.retries)), 0), 10);

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
  readonly #waiting = new Map<number, (m: ChildToParent) => void>();
  readonly #exited: Promise<void>;

  /** `settings`: product settings merged over BENCH_SERVER_ENV in the child (see api-server.ts). */
  constructor(kind: string, env: Record<string, string>, settings: Record<string, string>, profDir: string | null) {
    this.kind = kind;
    const tag = Object.entries(settings)
      .map(([k, v]) => `-${k}-${v}`)
      .join('');
    const execArgv = profDir
      ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`, `--cpu-prof-name=${kind}${tag}-${String(Date.now())}.cpuprofile`]
      : [];
    const argv = [kind, ...Object.entries(settings).map(([k, v]) => `${k}=${v}`)];
    this.child = fork(path.join(root, 'bench', 'lib', 'api-server.ts'), argv, {
      cwd: root,
      execArgv,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.#exited = new Promise((resolve) => this.child.once('exit', () => resolve()));
    this.child.on('message', (raw) => {
      const m = raw as ChildToParent;
      if (m.type === 'code' || m.type === 'stats') {
        this.#waiting.get(m.id)?.(m);
        this.#waiting.delete(m.id);
      }
    });
  }

  static async start(
    kind: string,
    env: Record<string, string>,
    settings: Record<string, string>,
    profDir: string | null,
  ): Promise<ServerChild> {
    const s = new ServerChild(kind, env, settings, profDir);
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

  /** Asks the child over IPC; null when it does not answer within 5 s. */
  #ask(message: (id: number) => ParentToChild): Promise<ChildToParent | null> {
    const id = this.#nextId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#waiting.delete(id);
        resolve(null);
      }, 5_000);
      this.#waiting.set(id, (m) => {
        clearTimeout(timer);
        resolve(m);
      });
      this.child.send(message(id));
    });
  }

  /** The newest SMS code the server sent to `mobile`, read from its dev outbox. */
  async code(mobile: string): Promise<string | null> {
    const m = await this.#ask((id) => ({ type: 'code', id, mobile }));
    return m?.type === 'code' ? m.code : null;
  }

  /** Statements the server has sent to PostgreSQL so far; null on PGlite and the bare handler. */
  async statements(): Promise<number | null> {
    const m = await this.#ask((id) => ({ type: 'stats', id }));
    return m?.type === 'stats' ? m.statements : null;
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
 * timeouts). Returns the window's length, the CPU the processes used during it and the statements
 * the server sent to PostgreSQL during it (null when not counted).
 */
async function runWindow(
  server: ServerChild,
  clients: Client[],
  seconds: number,
  loop: (c: Client, win: Window) => Promise<void>,
): Promise<{ seconds: number; cpu: CpuShares; statements: number | null }> {
  const statements0 = await server.statements();
  const start = performance.now();
  const win: Window = { end: start + seconds * 1000 };
  const cpu = cpuWindow(server.child.pid ?? 0, server.database);
  let shares: CpuShares | null = null;
  let statements1: Promise<number | null> | null = null;
  const stop = setTimeout(() => {
    shares = cpu();
    statements1 = server.statements();
  }, seconds * 1000);
  await Promise.all(clients.map((c) => loop(c, win)));
  clearTimeout(stop);
  const end = await (statements1 ?? server.statements());
  return {
    seconds: (Math.min(performance.now(), win.end) - start) / 1000,
    cpu: shares ?? cpu(),
    statements: statements0 === null || end === null ? null : end - statements0,
  };
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

/**
 * Statements each step sends to PostgreSQL, from one sequence run alone on an otherwise idle
 * server (the counter is read between steps, after a short pause for any work that follows an
 * answer). Null on engines whose statements are not counted, or when a step fails.
 */
async function probeStepStatements(server: ServerChild, c: Client): Promise<Record<Step, number> | null> {
  const settle = async () => {
    await new Promise((r) => setTimeout(r, 50));
    return server.statements();
  };
  const win: Window = { end: Number.POSITIVE_INFINITY };
  const counts: Partial<Record<Step, number>> = {};
  let before = await settle();
  if (before === null) return null;
  const step = async (s: Step, body: unknown, token?: string) => {
    const answer = await call(c, win, [], s, body, token);
    const after = await settle();
    if (!answer || after === null || before === null) throw new Error(`${s} failed while probing`);
    counts[s] = after - before;
    before = after;
    return answer.data;
  };
  try {
    const mobile = nextMobile();
    await step('sendPhoneCode', { mobile, area: '86' });
    const code = await server.code(mobile);
    if (!code) return null;
    const login = (await step('loginUser', { mobile, code })) as { userInfo?: { userToken?: string } };
    const token = login.userInfo?.userToken;
    const created = (await step('createAgoraRoom', { roomType: 1, consumption: 'off' }, token)) as { roomInfo?: { roomNumber?: string } };
    await step('userJoinAgoraRoom', { roomNumber: created.roomInfo?.roomNumber }, token);
  } catch {
    return null;
  }
  return counts as Record<Step, number>;
}

function sequenceLoop(server: ServerChild, t: SequenceTallies) {
  return async (c: Client, win: Window) => {
    while (performance.now() < win.end) await sequence(server, c, win, t);
  };
}

// ---------------------------------------------------------------------------------------------
// Quiet machine

/** Waits (at most QUIET_WAIT_S) for the machine to be under QUIET_PCT % of one core busy; returns the last reading. */
async function waitQuiet(): Promise<number> {
  let busy = await machineBusy(1000);
  for (let waited = 0; busy > QUIET_PCT && waited < QUIET_WAIT_S; waited += 2) {
    if (waited === 0) log(`machine ${busy.toFixed(0)} % busy; waiting up to ${String(QUIET_WAIT_S)} s for it to calm down`);
    busy = await machineBusy(2000);
  }
  return busy;
}

type WindowResult = Awaited<ReturnType<typeof runWindow>>;
/** Measurements repeated because other processes were busy during them. */
let repeated = 0;

/**
 * Runs `attempt` (warm-up and measured window) and runs it again, after waiting for quiet, while
 * other processes took more than OTHERS_LIMIT % of a core during its window (at most RETRIES times).
 */
async function measured<T>(what: string, attempt: () => Promise<{ w: WindowResult; value: T }>): Promise<{ w: WindowResult; value: T }> {
  let result = await attempt();
  for (let n = 1; n <= RETRIES && result.w.cpu.others > OTHERS_LIMIT; n++) {
    log(`${what}: other processes used ${result.w.cpu.others.toFixed(0)} % of a core; measuring again (${String(n)}/${String(RETRIES)})`);
    repeated++;
    await waitQuiet();
    result = await attempt();
  }
  return result;
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
  /** Statements the server sent to PostgreSQL per request (or per sequence); null when not counted. */
  statementsPerUnit: number | null;
}

const INFO_LABEL = 'getRoomInfoByRoomNumber (shared look-ups, default)';
const INFO_UNCACHED_LABEL = 'getRoomInfoByRoomNumber (ROOM_INFO_CACHE_MS=0)';

/** Statements per finished unit (answers completing after the window are not in `s`: a slight overcount). */
const perUnit = (statements: number | null, s: TallySummary): number | null =>
  statements === null || s.count + s.errors === 0 ? null : statements / (s.count + s.errors);

const rows: Row[] = [];
const stepRows: { engine: string; step: Step; summary: TallySummary; statements: number | null }[] = [];
let bareAnswer: string | null = null;
let bareRps = Number.NaN;

function log(line: string): void {
  process.stderr.write(`[bench/api ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
}

/**
 * One product server of `engine`: with the product's settings it runs the `info` and `sequence`
 * scenarios; `uncached` starts it with ROOM_INFO_CACHE_MS=0 and runs `info-uncached`. Each server
 * is seeded with its own rooms (one sequence per client).
 */
async function benchProduct(engine: Engine, uncached: boolean, pg: RunningPostgres | null, profDir: string | null): Promise<void> {
  const name = `${engine}${uncached ? ' (ROOM_INFO_CACHE_MS=0)' : ''}`;
  log(`${name}: starting the server`);
  const env: Record<string, string> = pg ? { BENCH_POSTGRES_ADMIN_URL: pg.url } : {};
  const settings: Record<string, string> = uncached ? { ROOM_INFO_CACHE_MS: '0' } : {};
  const server = await ServerChild.start(engine, env, settings, profDir);
  const label = ENGINE_LABEL[engine];
  try {
    const clients = makeClients(server.url);
    // Seed: one sequence per client; its rooms are the ones getRoomInfoByRoomNumber asks about.
    const seedTallies = newSequenceTallies();
    const seedWin: Window = { end: Number.POSITIVE_INFINITY };
    const rooms = (await Promise.all(clients.map((c) => sequence(server, c, seedWin, seedTallies)))).filter((r): r is string => !!r);
    if (rooms.length === 0)
      throw new Error(`${name}: seeding created no room: ${JSON.stringify(seedTallies.sequences.summary(1).errorKinds)}`);
    if (bareAnswer === null) {
      const sample = await clients[0]!.conn.post('/api/getRoomInfoByRoomNumber', JSON.stringify({ roomNumber: rooms[0] }));
      bareAnswer = sample.body;
    }

    if (SCENARIOS.has(uncached ? 'info-uncached' : 'info')) {
      const { w, value: info } = await measured(`${name}: getRoomInfoByRoomNumber`, async () => {
        log(`${name}: getRoomInfoByRoomNumber, warm-up ${String(WARMUP_S)} s, measure ${String(DURATION_S)} s`);
        await runWindow(server, clients, WARMUP_S, roomInfoLoop(rooms, new Tally()));
        const tally = new Tally();
        return { w: await runWindow(server, clients, DURATION_S, roomInfoLoop(rooms, tally)), value: tally };
      });
      const summary = info.summary(w.seconds);
      rows.push({
        scenario: uncached ? INFO_UNCACHED_LABEL : INFO_LABEL,
        engine: label,
        unit: 'requests',
        summary,
        requestsPerSecond: summary.perSecond,
        cpu: w.cpu,
        statementsPerUnit: perUnit(w.statements, summary),
      });
    }

    if (!uncached && SCENARIOS.has('sequence')) {
      const probe = await probeStepStatements(server, clients[0]!);
      const { w, value: seq } = await measured(`${name}: sign-in + create + join`, async () => {
        log(`${name}: sign-in + create + join, warm-up ${String(WARMUP_S)} s, measure ${String(DURATION_S)} s`);
        await runWindow(server, clients, WARMUP_S, sequenceLoop(server, newSequenceTallies()));
        const tallies = newSequenceTallies();
        return { w: await runWindow(server, clients, DURATION_S, sequenceLoop(server, tallies)), value: tallies };
      });
      const req = seq.requests.summary(w.seconds);
      const perSeq = seq.sequences.summary(w.seconds);
      const common = { engine: label, requestsPerSecond: req.perSecond, cpu: w.cpu };
      rows.push({
        ...common,
        scenario: 'sign-in + create + join, per request',
        unit: 'requests',
        summary: req,
        statementsPerUnit: perUnit(w.statements, req),
      });
      rows.push({
        ...common,
        scenario: 'sign-in + create + join, per sequence',
        unit: 'sequences',
        summary: perSeq,
        statementsPerUnit: perUnit(w.statements, perSeq),
      });
      for (const step of STEPS)
        stepRows.push({ engine: label, step, summary: seq.steps[step].summary(w.seconds), statements: probe?.[step] ?? null });
    }
    for (const c of clients) c.conn.close();
  } finally {
    await server.close();
  }
}

async function benchBare(profDir: string | null): Promise<void> {
  if (bareAnswer === null) throw new Error('no product answer to mirror');
  log('bare: starting the handler');
  const server = await ServerChild.start('bare', { BENCH_BARE_ANSWER: bareAnswer }, {}, profDir);
  try {
    const clients = makeClients(server.url);
    const rooms = Array.from({ length: 100 }, (_, i) => String(100_000 + i * 7919));
    const { w, value: tally } = await measured('bare', async () => {
      log(`bare: warm-up ${String(WARMUP_S)} s, measure ${String(DURATION_S)} s`);
      await runWindow(server, clients, WARMUP_S, roomInfoLoop(rooms, new Tally()));
      const t = new Tally();
      return { w: await runWindow(server, clients, DURATION_S, roomInfoLoop(rooms, t)), value: t };
    });
    const summary = tally.summary(w.seconds);
    bareRps = summary.perSecond;
    rows.unshift({
      scenario: 'bare node:http handler, same JSON',
      engine: '-',
      unit: 'requests',
      summary,
      requestsPerSecond: summary.perSecond,
      cpu: w.cpu,
      statementsPerUnit: null,
    });
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
    [
      'scenario',
      'engine',
      'clients',
      'rate /s',
      'p50 ms',
      'p99 ms',
      'max ms',
      'errors',
      'req/s vs bare',
      'CPU % server / db / client / other',
      'DB stmts / req or seq',
    ],
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
      r.statementsPerUnit === null ? '-' : r.statementsPerUnit < 0.1 ? r.statementsPerUnit.toFixed(4) : r.statementsPerUnit.toFixed(2),
    ]),
  );
  const steps = markdownTable(
    ['sequence step', 'engine', 'requests/s', 'p50 ms', 'p99 ms', 'max ms', 'errors', 'DB stmts (one sequence alone)'],
    stepRows.map((r) => [
      r.step,
      r.engine,
      fmtRate(r.summary.perSecond),
      fmtMs(r.summary.p50),
      fmtMs(r.summary.p99),
      fmtMs(r.summary.max),
      errorsCell(r.summary),
      r.statements === null ? '-' : String(r.statements),
    ]),
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
      `load generator and each server in separate processes${CPU_PROF ? ' · servers under --cpu-prof (slower)' : ''} · ` +
      `machine ${busyBefore.toFixed(0)} % busy (of one core) just before the run${busyBefore > QUIET_PCT ? ' (**other processes were busy: numbers are skewed**)' : ''}`,
    '',
    'Clients loop closed: each sends its next request when the last answer arrives, so latency ≈ clients ÷ rate. ' +
      'CPU is % of one core (the machine has ' +
      String(cpus().length) +
      ') during the measurement: the server process, the PostgreSQL backends of its database, ' +
      'this load generator, and everything else (other processes, PostgreSQL background workers, kernel threads). ' +
      'DB stmts: statements the server sent to PostgreSQL during the window (BEGIN/COMMIT included) per answered request, or per sequence.',
    '',
    table,
    '',
    ...(stepRows.length ? [steps, ''] : []),
    totalErrors ? `**This run had ${String(totalErrors)} errors**: their rows are not clean measurements.` : 'No errors.',
    repeated
      ? `${String(repeated)} measurement(s) were repeated because other processes were busy during them; a row whose "other" CPU is still above ${String(OTHERS_LIMIT)} % is not clean.`
      : `No measurement had other processes above ${String(OTHERS_LIMIT)} % of a core.`,
    '',
    ...(verdicts.length ? ['Goal (p99 < 20 ms and >= 25 % of the bare handler on PostgreSQL):', ...verdicts] : []),
    '',
  ].join('\n');
}

async function main(): Promise<void> {
  // Wait (bounded) for a quiet machine: other processes' CPU skews every number here.
  const busyBefore = await waitQuiet();
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
      const withPg = engine === 'postgres' ? pg : null;
      if (SCENARIOS.has('info') || SCENARIOS.has('sequence')) await benchProduct(engine, false, withPg, profDir);
      if (SCENARIOS.has('info-uncached')) await benchProduct(engine, true, withPg, profDir);
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
  writeFileSync(
    path.join(resultsDir, `api-${stamp}.json`),
    JSON.stringify({ startedAt, CONCURRENCY, DURATION_S, WARMUP_S, rows, stepRows }, null, 2),
  );
  log(`results written to bench/results/api-${stamp}.{md,json}`);

  if (profDir) {
    for (const file of readdirSync(profDir)
      .filter((f) => f.endsWith('.cpuprofile'))
      .sort()) {
      process.stdout.write(`\n### CPU profile ${file} (self time)\n\n${summariseProfile(path.join(profDir, file), root)}\n`);
    }
  }
}

runBench(main, RUN_LIMIT_MS, log);
