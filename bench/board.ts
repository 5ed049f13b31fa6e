/**
 * bench/board: the whiteboard server (socket.io `/board`).
 *
 *   node bench/board.ts [--engines=pglite,postgres] [--sizes=10000,100000] [--repeat=5]
 *                       [--drawers=30] [--duration=10] [--warmup=2] [--stroke-every=1000]
 *                       [--batch-ms=40] [--batches=10] [--watch-seconds=5] [--watch-ms=33]
 *
 * Per engine, a server child (bench/lib/board-server.ts: the whole product on a fresh database,
 * plus a bare socket.io echo server as the reference) and clients here:
 *   (1) load: time for the server to produce getBoard's payload for a page of N operations (fresh
 *       strokes), warm and cold (from the database), beside a plain JSON.stringify of the same
 *       items; and a page whose long history was cleared (N strokes, clear, 1,000 strokes) beside a
 *       fresh page of those 1,000. Goal: 100,000 operations under 300 ms.
 *   (2) fan-out: `drawers` clients in one room each draw a stroke every `stroke-every` ms (live
 *       batches every `batch-ms`, then the finished stroke as a `create` operation); latency =
 *       emit of the operation -> its `sync` at every client of the room. The same traffic through
 *       the echo server (relay only) is the reference. Goal: p99 under 50 ms.
 *   (3) live strokes: one teacher streams a stroke for `watch-seconds` (a batch every `watch-ms`);
 *       the rate at which a watcher receives the batches, beside the rate they were sent. Goal:
 *       20 updates/s or more.
 * The paint half of the bench (Chromium) is the browser side's; it builds its boards with
 * bench/lib/board-seed.ts (`buildBoard`). Results go to bench/results/board-<time>.{md,json}.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { io, type Socket } from 'socket.io-client';
import { startPostgres, type RunningPostgres } from '../tests/support/postgres.ts';
import type { BoardServerToParent, LoadResult, ParentToBoardServer } from './lib/board-server.ts';
import { strokeAt } from './lib/board-seed.ts';
import { runBench } from './lib/entry.ts';
import { fmtMs, fmtRate, markdownTable, Samples } from './lib/stats.ts';

const root = path.join(import.meta.dirname, '..');
const { values: args } = parseArgs({
  options: {
    engines: { type: 'string', default: 'pglite,postgres' },
    sizes: { type: 'string', default: '10000,100000' },
    repeat: { type: 'string', default: '5' },
    drawers: { type: 'string', default: '30' },
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '2' },
    'stroke-every': { type: 'string', default: '1000' },
    'batch-ms': { type: 'string', default: '40' },
    batches: { type: 'string', default: '10' },
    'watch-seconds': { type: 'string', default: '5' },
    'watch-ms': { type: 'string', default: '33' },
  },
  strict: true,
});
const ENGINES = args.engines.split(',').filter(Boolean) as Array<'pglite' | 'postgres'>;
const SIZES = args.sizes.split(',').filter(Boolean).map(Number);
const REPEAT = Number(args.repeat);
const DRAWERS = Number(args.drawers);
const DURATION_MS = Number(args.duration) * 1000;
const WARMUP_MS = Number(args.warmup) * 1000;
const STROKE_EVERY = Number(args['stroke-every']);
const BATCH_MS = Number(args['batch-ms']);
const BATCHES = Number(args.batches);
const WATCH_MS = Number(args['watch-seconds']) * 1000;
const WATCH_EVERY = Number(args['watch-ms']);
for (const e of ENGINES as string[]) if (e !== 'pglite' && e !== 'postgres') throw new Error(`unknown engine ${e}`);

const log = (s: string) => console.error(`[board] ${s}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A request to the child without its id (the id is added per call). */
type Request =
  Extract<ParentToBoardServer, { type: 'room' | 'load' }> extends infer U ? (U extends { id: number } ? Omit<U, 'id'> : never) : never;

class Child {
  readonly proc: ChildProcess;
  #id = 0;
  #waiting = new Map<number, { resolve: (m: BoardServerToParent) => void; reject: (e: Error) => void }>();
  ready: Promise<{ url: string; echoUrl: string }>;
  constructor(engine: string, env: Record<string, string>) {
    this.proc = fork(path.join(import.meta.dirname, 'lib/board-server.ts'), [engine], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.ready = new Promise((resolve, reject) => {
      this.proc.once('exit', (c) => reject(new Error(`board server exited (${String(c)})`)));
      this.proc.on('message', (raw) => {
        const m = raw as BoardServerToParent;
        if (m.type === 'ready') return resolve({ url: m.url, echoUrl: m.echoUrl });
        const w = this.#waiting.get(m.id);
        if (!w) return;
        this.#waiting.delete(m.id);
        if (m.type === 'error') w.reject(new Error(m.message));
        else w.resolve(m);
      });
    });
  }
  ask<T extends BoardServerToParent>(m: Request): Promise<T> {
    const id = ++this.#id;
    return new Promise((resolve, reject) => {
      this.#waiting.set(id, { resolve: resolve as (m: BoardServerToParent) => void, reject });
      this.proc.send({ ...m, id });
    });
  }
  close(): Promise<void> {
    return new Promise((resolve) => {
      this.proc.once('exit', () => resolve());
      this.proc.send({ type: 'close' } satisfies ParentToBoardServer);
    });
  }
}

function connect(url: string, auth: Record<string, string>): Promise<Socket> {
  const s = io(url, { auth, transports: ['websocket'], forceNew: true, reconnection: false });
  return new Promise((resolve, reject) => {
    s.once('connect', () => resolve(s));
    s.once('connect_error', reject);
  });
}

interface FanOut {
  latency: Samples;
  sent: number;
  received: number;
  expected: number;
  refused: number;
  strokeSent: number;
  strokeReceived: number;
}

/**
 * `drawers` clients each draw a stroke every STROKE_EVERY ms: BATCHES live batches every BATCH_MS,
 * then the operation. `product` true: the real channel (`stroke`, then `sync` with an ack);
 * false: the echo server (`stroke`, then `msg`).
 */
async function fanOut(sockets: Socket[], product: boolean): Promise<FanOut> {
  const sentAt = new Map<string, number>();
  const r: FanOut = { latency: new Samples(), sent: 0, received: 0, expected: 0, refused: 0, strokeSent: 0, strokeReceived: 0 };
  let measuring = false;
  const event = product ? 'sync' : 'msg';
  for (const s of sockets) {
    s.on(event, (op: { opId: string }) => {
      const t = sentAt.get(op.opId);
      if (t === undefined) return;
      r.latency.add(performance.now() - t);
      r.received++;
    });
    s.on('stroke', () => {
      if (measuring) r.strokeReceived++;
    });
  }
  let stop = false;
  const drawer = async (s: Socket, who: number) => {
    await sleep((who * STROKE_EVERY) / sockets.length);
    let n = 0;
    while (!stop) {
      const started = performance.now();
      const id = `d${String(who)}-${String(n++)}`;
      const data = strokeAt(who * 100_000 + n, BATCHES * 2);
      for (let b = 0; b < BATCHES && !stop; b++) {
        s.emit('stroke', {
          strokeId: id,
          page: 'wb:0',
          points: data.points.slice(b * 4, b * 4 + 4),
          color: data.color,
          width: data.width,
          start: b === 0,
        });
        if (measuring) r.strokeSent++;
        await sleep(BATCH_MS);
      }
      if (stop) break;
      const op = { opId: id, type: 'create', btype: 'brush', id, page: 'wb:0', data };
      const track = measuring;
      if (track) {
        sentAt.set(id, performance.now());
        r.sent++;
        r.expected += sockets.length;
      }
      if (product) {
        s.emit('sync', op, (ack: { code: string }) => {
          if (ack.code !== '0') r.refused++;
        });
      } else {
        s.emit('msg', op);
      }
      const rest = STROKE_EVERY - (performance.now() - started);
      if (rest > 0) await sleep(rest);
    }
  };
  const running = sockets.map((s, i) => drawer(s, i));
  await sleep(WARMUP_MS);
  measuring = true;
  await sleep(DURATION_MS);
  measuring = false;
  stop = true;
  await Promise.all(running);
  await sleep(500);
  for (const s of sockets) s.removeAllListeners();
  return r;
}

/** One stroke streamed for WATCH_MS; the watcher's receive rate. */
async function watch(drawer: Socket, watcher: Socket): Promise<{ sentPerS: number; seenPerS: number; gapP99: number }> {
  let seen = 0;
  let last = 0;
  const gaps = new Samples();
  watcher.on('stroke', () => {
    const now = performance.now();
    if (last) gaps.add(now - last);
    last = now;
    seen++;
  });
  let sent = 0;
  const t0 = performance.now();
  while (performance.now() - t0 < WATCH_MS) {
    drawer.emit('stroke', {
      strokeId: 'watch',
      page: 'wb:0',
      points: [sent % 1000, 100, (sent % 1000) + 2, 102],
      color: 'red',
      width: 4,
      start: sent === 0,
    });
    sent++;
    await sleep(WATCH_EVERY);
  }
  const secs = (performance.now() - t0) / 1000;
  await sleep(300);
  watcher.removeAllListeners('stroke');
  const [gapP99] = gaps.percentiles([99]) as [number];
  return { sentPerS: sent / secs, seenPerS: seen / secs, gapP99 };
}

async function main(): Promise<void> {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const out: string[] = [
    `# bench/board ${new Date().toISOString()}`,
    '',
    `${String(cpus().length)} cores, ${String(Math.round(totalmem() / 2 ** 30))} GiB, Node ${process.version}`,
    '',
  ];
  const json: Record<string, unknown> = {};
  let pg: RunningPostgres | null = null;
  try {
    for (const engine of ENGINES) {
      let env: Record<string, string> = {};
      if (engine === 'postgres') {
        pg ??= await startPostgres();
        env = { BENCH_POSTGRES_ADMIN_URL: pg.url };
      }
      const child = new Child(engine, env);
      const { url, echoUrl } = await child.ready;
      log(`${engine}: server ${url}, echo ${echoUrl}`);

      // (1) load
      const loads: Array<{ label: string; r: LoadResult }> = [];
      for (const n of SIZES) {
        log(`${engine}: building a page of ${String(n)} operations`);
        loads.push({
          label: `${String(n)} strokes`,
          r: (
            await child.ask<{ type: 'loaded'; id: number; result: LoadResult }>({
              type: 'load',
              n,
              shape: 'fresh',
              after: 0,
              repeat: REPEAT,
            })
          ).result,
        });
      }
      const big = Math.max(...SIZES);
      log(`${engine}: a cleared history of ${String(big)} and a fresh page of 1,000`);
      loads.push({
        label: `${String(big)} strokes, clear, 1,000 strokes`,
        r: (
          await child.ask<{ type: 'loaded'; id: number; result: LoadResult }>({
            type: 'load',
            n: big,
            shape: 'cleared',
            after: 1000,
            repeat: REPEAT,
          })
        ).result,
      });
      loads.push({
        label: '1,000 strokes (fresh)',
        r: (
          await child.ask<{ type: 'loaded'; id: number; result: LoadResult }>({
            type: 'load',
            n: 1000,
            shape: 'fresh',
            after: 0,
            repeat: REPEAT,
          })
        ).result,
      });
      const loadTable = markdownTable(
        ['page', 'operations', 'items', 'payload', 'warm ms', 'cold ms', 'JSON.stringify ms (ref)', 'rows kept', 'snapshots', 'seeding s'],
        loads.map(({ label, r }) => [
          label,
          r.ops.toLocaleString('en-US'),
          r.items.toLocaleString('en-US'),
          `${(r.bytes / 2 ** 20).toFixed(1)} MiB`,
          fmtMs(r.warmMs),
          fmtMs(r.coldMs),
          fmtMs(r.referenceMs),
          r.rowsStored.toLocaleString('en-US'),
          String(r.snapshots),
          (r.seedMs / 1000).toFixed(1),
        ]),
      );
      console.log(`\n## ${engine}: load payload (median of ${String(REPEAT)})\n\n${loadTable}`);

      // (2) fan-out, product then echo reference
      const { tokens, room } = await child.ask<{ type: 'room'; id: number; room: string; tokens: string[] }>({
        type: 'room',
        people: DRAWERS,
      });
      const product = await Promise.all(tokens.map((token) => connect(`${url}/board`, { token })));
      log(`${engine}: fan-out, ${String(DRAWERS)} drawers`);
      const p = await fanOut(product, true);
      for (const s of product) s.close();
      const echo = await Promise.all(tokens.map(() => connect(echoUrl, { room })));
      const e = await fanOut(echo, false);
      for (const s of echo) s.close();
      const row = (label: string, f: FanOut) => {
        const [p50, p95, p99, max] = f.latency.percentiles([50, 95, 99, 100]);
        return [
          label,
          fmtRate(f.sent / (DURATION_MS / 1000)),
          `${String(f.received)}/${String(f.expected)}`,
          String(f.refused),
          fmtMs(p50!),
          fmtMs(p95!),
          fmtMs(p99!),
          fmtMs(max!),
          `${fmtRate(f.strokeReceived / (DURATION_MS / 1000))} (${((100 * f.strokeReceived) / Math.max(1, f.strokeSent * (DRAWERS - 1))).toFixed(0)} %)`,
        ];
      };
      const fanTable = markdownTable(
        [
          'channel',
          'ops/s',
          'deliveries',
          'refused',
          'p50 ms',
          'p95 ms',
          'p99 ms',
          'max ms',
          'live batches delivered/s (of sent x others)',
        ],
        [row('/board (product)', p), row('bare socket.io relay (ref)', e)],
      );
      console.log(
        `\n## ${engine}: operation fan-out, ${String(DRAWERS)} clients drawing in one room, ${String(DURATION_MS / 1000)} s\n\n${fanTable}`,
      );

      // (3) live stroke rate seen by a watcher
      const [t, w] = await Promise.all([connect(`${url}/board`, { token: tokens[0]! }), connect(`${url}/board`, { token: tokens[1]! })]);
      const live = await watch(t, w);
      t.close();
      w.close();
      const [et, ew] = await Promise.all([connect(echoUrl, { room }), connect(echoUrl, { room })]);
      const liveRef = await watch(et, ew);
      et.close();
      ew.close();
      const liveTable = markdownTable(
        ['channel', 'sent/s', 'seen by watcher/s', 'gap p99 ms'],
        [
          ['/board (product)', fmtRate(live.sentPerS), fmtRate(live.seenPerS), fmtMs(live.gapP99)],
          ['bare socket.io relay (ref)', fmtRate(liveRef.sentPerS), fmtRate(liveRef.seenPerS), fmtMs(liveRef.gapP99)],
        ],
      );
      console.log(`\n## ${engine}: live stroke updates, one drawer, one watcher\n\n${liveTable}`);

      out.push(
        `## ${engine}`,
        '',
        '### load payload',
        '',
        loadTable,
        '',
        '### fan-out',
        '',
        fanTable,
        '',
        '### live strokes',
        '',
        liveTable,
        '',
      );
      json[engine] = {
        loads,
        fanOut: { product: p.latency.percentiles([50, 95, 99, 100]), echo: e.latency.percentiles([50, 95, 99, 100]) },
        live,
        liveRef,
      };
      await child.close();
    }
  } finally {
    await pg?.stop();
  }
  const dir = path.join(root, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, `board-${stamp}.md`), out.join('\n'));
  writeFileSync(path.join(dir, `board-${stamp}.json`), JSON.stringify(json, null, 2));
}

runBench(main, 20 * 60_000, log);
