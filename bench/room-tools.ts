/**
 * bench/room-tools: the room channel with a class of 300 students answering quizzes (issue 30,
 * ADR 113), beside today's chat fan-out in the same class and the same run.
 *
 *   node bench/room-tools.ts [--engines=pglite,postgres] [--students=300] [--rounds=5] [--chat-senders=30]
 *
 * Per engine: a server child (bench/lib/realtime-server.ts: the whole product on a fresh database,
 * its clock following the wall clock) seeds one whiteboard class of the teacher and `students`
 * tourists (the class cap raised); this process connects them all over socket.io and joins them.
 * Then, alternating, `rounds` times each:
 *   - quiz: the teacher starts a quiz; every student answers at once. answers/s = answers / (last
 *     acknowledgement - first send). Tally latency, per answer: its acknowledgement was the k-th of
 *     the round; the time until the teacher holds a quizTally counting at least k.
 *   - chat: `chat-senders` students each send one line at once; latency = send -> receipt at each
 *     other member of the class (every delivery is a sample); deliveries/s over the burst.
 * Results go to bench/results/room-tools-<time>.{md,json}.
 */
import { runBench } from './lib/entry.ts';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { Socket } from 'socket.io-client';
import { startPostgres, type RunningPostgres } from '../tests/support/postgres.ts';
import type { ParentToServer } from './lib/realtime-server.ts';
import { ask, connect, startServer } from './lib/room-bots.ts';
import { fmtMs, fmtRate, markdownTable, Samples } from './lib/stats.ts';

const root = path.join(import.meta.dirname, '..');
const { values: args } = parseArgs({
  options: {
    engines: { type: 'string', default: 'pglite,postgres' },
    students: { type: 'string', default: '300' },
    rounds: { type: 'string', default: '5' },
    'chat-senders': { type: 'string', default: '30' },
  },
  strict: true,
});
const ENGINES = args.engines.split(',').filter(Boolean) as Array<'pglite' | 'postgres'>;
const STUDENTS = Number(args.students);
const ROUNDS = Number(args.rounds);
const CHAT_SENDERS = Number(args['chat-senders']);
const log = (s: string) => console.error(`[room-tools] ${s}`);

interface EngineResult {
  engine: string;
  students: number;
  answersPerSecond: number;
  tally: { p50: number; p99: number; max: number; count: number };
  chatDeliveriesPerSecond: number;
  chat: { p50: number; p99: number; max: number; count: number };
  joinMs: number;
}

async function runEngine(engine: 'pglite' | 'postgres', pg: RunningPostgres | null): Promise<EngineResult> {
  const server = startServer(engine, pg ? { BENCH_POSTGRES_ADMIN_URL: pg.url } : {});
  const ready = await server.next<{ url: string }>('ready');
  server.proc.send({ type: 'seed', id: 1, rooms: 1, perRoom: STUDENTS + 1 } satisfies ParentToServer);
  const seeded = await server.next<{ rooms: Array<{ room: string; tokens: string[] }> }>('seeded');
  const [teacherToken, ...studentTokens] = seeded.rooms[0]!.tokens;
  const t0 = performance.now();
  const teacher = await connect(ready.url, teacherToken!);
  if ((await ask(teacher, 'joinRoom')).code !== '0') throw new Error('teacher join');
  const students: Socket[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: 25 }, async () => {
      while (next < studentTokens.length) {
        const i = next++;
        const s = await connect(ready.url, studentTokens[i]!);
        const j = await ask(s, 'joinRoom');
        if (j.code !== '0') throw new Error(`join ${String(i)}: ${j.code}`);
        students[i] = s;
      }
    }),
  );
  const joinMs = performance.now() - t0;
  log(`${engine}: ${String(students.length)} students joined in ${fmtMs(joinMs)} ms`);

  const tally = new Samples();
  const chat = new Samples();
  let answerSeconds = 0;
  let answers = 0;
  let chatSeconds = 0;
  let deliveries = 0;
  const everyone = [teacher, ...students];
  // Chat receipts: each line carries its send time in its text's index.
  const sentAt = new Map<string, number>();
  let lastReceipt = 0;
  for (const s of everyone)
    s.on('messageevent', (m: { text: string }) => {
      const at = sentAt.get(m.text);
      if (at === undefined) return;
      const now = performance.now();
      chat.add(now - at);
      deliveries += 1;
      lastReceipt = now;
    });

  for (let round = 0; round < ROUNDS; round++) {
    // --- quiz ---
    const started = await ask<{ id: string }>(teacher, 'quizStart', {
      options: 4,
      multiple: false,
      correct: ['A'],
      limitSeconds: 0,
      showOwn: false,
    });
    if (started.code !== '0') throw new Error(`quizStart ${started.code}`);
    const heard: Array<{ at: number; answered: number }> = [];
    const onTally = (x: { id: string; answered: number }) => {
      if (x.id === started.data.id) heard.push({ at: performance.now(), answered: x.answered });
    };
    teacher.on('quizTally', onTally);
    const first = performance.now();
    const acked = await Promise.all(
      students.map((s, i) =>
        ask(s, 'quizAnswer', { id: started.data.id, choice: [['A', 'B', 'C', 'D'][i % 4]] }).then((a) => {
          if (a.code !== '0') throw new Error(`answer ${a.code}`);
          return performance.now();
        }),
      ),
    );
    const last = Math.max(...acked);
    answerSeconds += (last - first) / 1000;
    answers += acked.length;
    while (!heard.some((h) => h.answered === students.length)) await new Promise((r) => setTimeout(r, 2));
    teacher.off('quizTally', onTally);
    acked.sort((x, y) => x - y);
    acked.forEach((at, k) => {
      const seen = heard.find((h) => h.answered >= k + 1)!;
      tally.add(Math.max(0, seen.at - at));
    });
    await ask(teacher, 'quizClose', { id: started.data.id });

    // --- chat ---
    const senders = students.slice(0, CHAT_SENDERS);
    const expected = deliveries + senders.length * (everyone.length - 1);
    const chatStart = performance.now();
    await Promise.all(
      senders.map((s, i) => {
        const text = `r${String(round)}s${String(i)}`;
        sentAt.set(text, performance.now());
        return ask(s, 'chat', { text }).then((a) => {
          if (a.code !== '0') throw new Error(`chat ${a.code}`);
        });
      }),
    );
    while (deliveries < expected) await new Promise((r) => setTimeout(r, 2));
    chatSeconds += (lastReceipt - chatStart) / 1000;
  }
  for (const s of everyone) s.close();
  server.proc.send({ type: 'close' } satisfies ParentToServer);
  await new Promise((r) => server.proc.once('exit', r));
  const [tp50, tp99, tmax] = tally.percentiles([50, 99, 100]) as [number, number, number];
  const [cp50, cp99, cmax] = chat.percentiles([50, 99, 100]) as [number, number, number];
  return {
    engine,
    students: students.length,
    answersPerSecond: answers / answerSeconds,
    tally: { p50: tp50, p99: tp99, max: tmax, count: tally.count },
    chatDeliveriesPerSecond: deliveries / chatSeconds,
    chat: { p50: cp50, p99: cp99, max: cmax, count: chat.count },
    joinMs,
  };
}

async function main(): Promise<void> {
  const results: EngineResult[] = [];
  let pg: RunningPostgres | null = null;
  try {
    for (const engine of ENGINES) {
      if (engine === 'postgres') pg ??= await startPostgres();
      results.push(await runEngine(engine, engine === 'postgres' ? pg : null));
    }
  } finally {
    await pg?.stop();
  }
  const table = markdownTable(
    [
      'engine',
      'students',
      'answers/s',
      'tally p50 ms',
      'tally p99 ms',
      'tally max ms',
      'chat deliveries/s',
      'chat p50 ms',
      'chat p99 ms',
      'chat max ms',
    ],
    results.map((r) => [
      r.engine,
      String(r.students),
      fmtRate(r.answersPerSecond),
      fmtMs(r.tally.p50),
      fmtMs(r.tally.p99),
      fmtMs(r.tally.max),
      fmtRate(r.chatDeliveriesPerSecond),
      fmtMs(r.chat.p50),
      fmtMs(r.chat.p99),
      fmtMs(r.chat.max),
    ]),
  );
  const head = `room-tools: ${String(STUDENTS)} students, ${String(ROUNDS)} rounds, ${String(CHAT_SENDERS)} chat senders per round; ${String(cpus().length)} cores, ${(totalmem() / 2 ** 30).toFixed(1)} GiB`;
  console.log(`${head}\n\n${table}`);
  const dir = path.join(root, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  writeFileSync(path.join(dir, `room-tools-${stamp}.md`), `${head}\n\n${table}\n`);
  writeFileSync(path.join(dir, `room-tools-${stamp}.json`), JSON.stringify(results, null, 2));
}

runBench(main, 15 * 60_000, log);
