/**
 * bench/cluster: room-channel fan-out across web nodes (issue 18, ADR 096) on the local cluster
 * (infra/cluster: PostgreSQL, Redis, S3, nginx, 2 web nodes, 1 media node, no worker or recorder).
 *
 *   node bench/cluster.ts [--rooms=100] [--per-room=10] [--rate=1] [--duration=20] [--warmup=3]
 *
 * Rooms are made through the API, as people make them: one teacher signs in (the code read from
 * the web node's log), creates the whiteboard classes (type 2) and joins each; the others join as
 * visitors (`touristJoinRoom`). Two sets of rooms, two runs of the same load in one cluster:
 *   - one node: every client on web-1 (its own port): the reference;
 *   - two nodes: every client through nginx, which balances each connection over web-1 and web-2,
 *     so a room's people sit on both and every broadcast crosses Redis.
 * Each run: client processes (bench/lib/realtime-clients.ts) connect every client and join; the
 * web nodes' RSS before and after (idle) gives memory per idle client; then each client sends
 * `rate` events a second (the creator a customRoomEvent, the others chat) for `duration` seconds;
 * fan-out latency = receipt at every other client of the room - the sender's emit time.
 * The run is bounded (a hard stop at 15 minutes) and stops the cluster itself.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startCluster, type Cluster } from '../infra/cluster/cluster.ts';
import { codeFromLogs } from '../tests/e2e/cluster-helpers.ts';
import { call } from '../tests/support/api.ts';
import { runBench } from './lib/entry.ts';
import type { ClientsToParent, KindResult, ParentToClients, RunResult } from './lib/realtime-clients.ts';
import type { SeededRoom } from './lib/realtime-server.ts';
import { fmtMs, markdownTable } from './lib/stats.ts';

const { values: args } = parseArgs({
  options: {
    rooms: { type: 'string', default: '100' },
    'per-room': { type: 'string', default: '10' },
    rate: { type: 'string', default: '1' },
    duration: { type: 'string', default: '20' },
    warmup: { type: 'string', default: '3' },
    'client-procs': { type: 'string', default: '2' },
  },
  strict: true,
});
const ROOMS = Number(args.rooms);
const PER_ROOM = Number(args['per-room']);
const RATE = Number(args.rate);
const DURATION_S = Number(args.duration);
const WARMUP_S = Number(args.warmup);
const PROCS = Number(args['client-procs']);
const log = (line: string) => console.error(`[cluster] ${line}`);

function rssKb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${String(pid)}/status`, 'utf8'));
  return m ? Number(m[1]) : 0;
}

/** CPU seconds (user + system) a process has used so far. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${String(pid)}/stat`, 'utf8')
    .split(') ')[1]!
    .split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** The whole machine's busy CPU seconds so far (all cores; idle and iowait excluded). */
function machineBusySeconds(): number {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const total = f.slice(0, 8).reduce((x, y) => x + y, 0);
  return (total - f[3]! - f[4]!) / 100;
}

async function pool<T>(n: number, jobs: Array<() => Promise<T>>): Promise<T[]> {
  const out: T[] = new Array<T>(jobs.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (next < jobs.length) {
        const i = next++;
        out[i] = await jobs[i]!();
      }
    }),
  );
  return out;
}

async function signIn(cluster: Cluster): Promise<string> {
  const mobile = `138${String(Date.now()).slice(-8)}`;
  const sent = await call(cluster.url, 'sendPhoneCode', { mobile, area: '86' });
  if (sent.code !== '0') throw new Error(`sendPhoneCode ${sent.code}`);
  for (let i = 0; i < 100; i++) {
    const found = await codeFromLogs(cluster, mobile);
    if (found) {
      const login = await call(cluster.url, 'loginUser', { mobile, code: found.code });
      if (login.code !== '0') throw new Error(`loginUser ${login.code}`);
      return login.data.userInfo.userToken;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('no sign-in code in the logs');
}

/** `ROOMS` rooms of one teacher and PER_ROOM - 1 visitors each, all through the API (nginx). */
async function seed(cluster: Cluster, teacher: string, tag: string): Promise<SeededRoom[]> {
  const t0 = Date.now();
  const rooms = await pool(
    8,
    Array.from({ length: ROOMS }, () => async () => {
      const c = await call(cluster.url, 'createRoom', { roomType: 2 }, { token: teacher });
      if (c.code !== '0') throw new Error(`createRoom ${c.code}`);
      return c.data.roomInfo.roomNumber;
    }),
  );
  const seeded = await pool(
    16,
    rooms.map((room) => async () => {
      const own = await call(cluster.url, 'userJoinAgoraRoom', { roomNumber: room }, { token: teacher });
      if (own.code !== '0') throw new Error(`userJoinAgoraRoom ${own.code}`);
      const tokens = [own.data.imToken];
      for (let i = 1; i < PER_ROOM; i++) {
        const v = await call(cluster.url, 'touristJoinRoom', { roomNumber: room, userName: `${tag}${String(i)}` });
        if (v.code !== '0') throw new Error(`touristJoinRoom ${v.code}`);
        tokens.push(v.data.imToken);
      }
      return { room, tokens };
    }),
  );
  log(`seeded ${String(ROOMS)} rooms x ${String(PER_ROOM)} (${tag}) through the API in ${String(Date.now() - t0)} ms`);
  return seeded;
}

class Clients {
  readonly procs: ChildProcess[] = [];
  constructor(n: number) {
    for (let i = 0; i < n; i++)
      this.procs.push(
        fork(path.join(import.meta.dirname, 'lib', 'realtime-clients.ts'), [], {
          serialization: 'advanced',
          stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
        }),
      );
  }
  ask<T extends ClientsToParent['type']>(
    p: ChildProcess,
    m: ParentToClients,
    type: T,
    ms: number,
  ): Promise<Extract<ClientsToParent, { type: T }>> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${type} within ${String(ms)} ms`)), ms);
      const on = (x: ClientsToParent) => {
        if (x.type !== type) return;
        clearTimeout(timer);
        p.off('message', on);
        resolve(x as Extract<ClientsToParent, { type: T }>);
      };
      p.on('message', on);
      p.send(m);
    });
  }
  close(): void {
    for (const p of this.procs) {
      p.send({ type: 'close' } satisfies ParentToClients);
      setTimeout(() => p.kill('SIGKILL'), 5000).unref();
    }
  }
}

interface Row {
  name: string;
  clients: number;
  connectErrors: string;
  connectMs: number;
  kbPerClient: number;
  /** CPU used during the run (warm-up, window, drain) as a share of one core: web nodes, client processes. */
  webCpu: number;
  clientCpu: number;
  machineCpu: number;
  /** Send -> ack of chat lines (stored, then broadcast): p50, p99. */
  chatAck: number[];
  kinds: Array<{
    kind: string;
    skipped: number;
    sent: number;
    acked: number;
    expected: number;
    delivered: number;
    p50: number;
    p99: number;
    max: number;
  }>;
}

function pct(values: Float64Array[], ps: number[]): number[] {
  const n = values.reduce((s, v) => s + v.length, 0);
  const all = new Float64Array(n);
  let o = 0;
  for (const v of values) {
    all.set(v, o);
    o += v.length;
  }
  all.sort();
  return ps.map((p) => (n ? all[Math.min(n - 1, Math.max(0, Math.ceil((p / 100) * n) - 1))]! : Number.NaN));
}

async function runOne(name: string, url: string, rooms: SeededRoom[], webPids: () => number[]): Promise<Row> {
  const clients = new Clients(PROCS);
  try {
    const before = webPids().reduce((s, pid) => s + rssKb(pid), 0);
    // Whole rooms per client process: every send and its deliveries on one clock.
    const share = clients.procs.map((_, i) => rooms.filter((_r, j) => j % PROCS === i));
    const connected = await Promise.all(
      clients.procs.map((p, i) => clients.ask(p, { type: 'connect', url, rooms: share[i]!, concurrency: 25 }, 'connected', 180_000)),
    );
    const ok = connected.reduce((s, c) => s + c.ok, 0);
    const errors: Record<string, number> = {};
    for (const c of connected) for (const [k, v] of Object.entries(c.errors)) errors[k] = (errors[k] ?? 0) + v;
    await new Promise((r) => setTimeout(r, 5000));
    const after = webPids().reduce((s, pid) => s + rssKb(pid), 0);
    log(`${name}: ${String(ok)} clients connected and joined; web RSS ${String(before)} -> ${String(after)} kB`);
    const cpu0 = webPids().map(cpuSeconds);
    const clientCpu0 = clients.procs.map((p) => cpuSeconds(p.pid!));
    const machine0 = machineBusySeconds();
    const t0 = performance.now();
    const results = await Promise.all(
      clients.procs.map((p) =>
        clients.ask(
          p,
          { type: 'run', rate: RATE, warmupMs: WARMUP_S * 1000, durationMs: DURATION_S * 1000, drainMs: 10_000, maxInFlight: 1 },
          'result',
          (WARMUP_S + DURATION_S + 60) * 1000,
        ),
      ),
    );
    const seconds = (performance.now() - t0) / 1000;
    const webCpu = webPids().reduce((sum, pid, i) => sum + cpuSeconds(pid) - cpu0[i]!, 0) / seconds;
    const machineCpu = (machineBusySeconds() - machine0) / seconds;
    const clientCpu = clients.procs.reduce((sum, p, i) => sum + cpuSeconds(p.pid!) - clientCpu0[i]!, 0) / seconds;
    const rs: RunResult[] = results.map((r) => r.result);
    const kinds = (['custom', 'chat'] as const).map((kind) => {
      const ks: KindResult[] = rs.map((r) => r[kind]);
      const [p50, p99, max] = pct(
        ks.map((k) => k.latencies),
        [50, 99, 100],
      );
      return {
        kind,
        skipped: ks.reduce((s, k) => s + (k.ackErrors['skipped'] ?? 0), 0),
        sent: ks.reduce((s, k) => s + k.sent, 0),
        acked: ks.reduce((s, k) => s + k.acked, 0),
        expected: ks.reduce((s, k) => s + k.expected, 0),
        delivered: ks.reduce((s, k) => s + k.latencies.length, 0),
        p50: p50!,
        p99: p99!,
        max: max!,
      };
    });
    return {
      name,
      clients: ok,
      connectErrors: Object.entries(errors)
        .map(([k, v]) => `${k}: ${String(v)}`)
        .join(', '),
      connectMs: Math.max(...connected.map((c) => c.ms)),
      kbPerClient: ok ? (after - before) / ok : Number.NaN,
      webCpu,
      clientCpu,
      machineCpu,
      chatAck: pct(
        rs.map((r) => r.chat.acks),
        [50, 99],
      ),
      kinds,
    };
  } finally {
    clients.close();
    await new Promise((r) => setTimeout(r, 3000));
  }
}

async function main(): Promise<void> {
  log(
    `machine: ${String(cpus().length)} x ${cpus()[0]?.model ?? '?'}, ${String(Math.round(totalmem() / 2 ** 30))} GiB, Node ${process.version}`,
  );
  const cluster = await startCluster({
    webNodes: 2,
    mediaNodes: 1,
    workers: 0,
    recorders: 0,
    // One address (this machine) makes every visitor join: the per-address rules would stop the seeding.
    env: {
      TOURIST_JOINS_PER_MINUTE: '100000',
      ROOM_LOOKUPS_PER_MINUTE: '100000',
      ROOM_LOOKUPS_PER_HOUR: '100000',
      CHAT_MESSAGES_PER_10S: '30',
    },
    log,
  });
  try {
    const teacher = await signIn(cluster);
    const one = await seed(cluster, teacher, 'a');
    const two = await seed(cluster, teacher, 'b');
    const web1 = cluster.node('web-1');
    const web2 = cluster.node('web-2');
    const rows: Row[] = [];
    rows.push(await runOne('one node (web-1 direct)', web1.url, one, () => [web1.pid]));
    rows.push(await runOne('two nodes (nginx)', cluster.url, two, () => [web1.pid, web2.pid]));
    const table = markdownTable(
      [
        'run',
        'clients',
        'kind',
        'skipped (busy)',
        'sent',
        'acked',
        'delivered / expected',
        'p50 ms',
        'p99 ms',
        'max ms',
        'idle kB / client',
      ],
      rows.flatMap((r) =>
        r.kinds.map((k) => [
          r.name,
          String(r.clients),
          k.kind,
          String(k.skipped),
          String(k.sent),
          String(k.acked),
          `${String(k.delivered)} / ${String(k.expected)}`,
          fmtMs(k.p50),
          fmtMs(k.p99),
          fmtMs(k.max),
          r.kbPerClient.toFixed(1),
        ]),
      ),
    );
    console.log(`\n${String(ROOMS)} rooms x ${String(PER_ROOM)} clients, ${String(RATE)} event/client/s, ${String(DURATION_S)} s window\n`);
    console.log(table);
    for (const r of rows)
      console.log(
        `${r.name}: CPU during the run, web node(s) ${(r.webCpu * 100).toFixed(0)} %, client processes ${(r.clientCpu * 100).toFixed(0)} % of one core; the machine ${(r.machineCpu * 100).toFixed(0)} % of one core (of ${String(cpus().length * 100)} %); chat send -> ack p50 ${fmtMs(r.chatAck[0]!)} ms, p99 ${fmtMs(r.chatAck[1]!)} ms`,
      );
    for (const r of rows) if (r.connectErrors) console.log(`${r.name}: connect errors ${r.connectErrors}`);
  } finally {
    await cluster.stop();
  }
}

runBench(main, 15 * 60_000, log);
