/**
 * bench/groups: breakout groups (issue 31, ADR 116) in a class of 60 students split into 10
 * groups, beside a plain chat line to the same class in the same run (the reference: one write
 * and one broadcast to the room, what every room does today).
 *
 *   node bench/groups.ts [--engines=pglite,postgres] [--students=60] [--groups=10] [--rounds=5]
 *
 * Per engine: a server child (bench/lib/realtime-server.ts: the whole product on a fresh database,
 * its clock following the wall clock) seeds one whiteboard class of the teacher and `students`
 * tourists; this process connects them all over socket.io and joins them. Then `rounds` times:
 *   - chat (reference): the teacher says a line; until the last student hears it;
 *   - start: the teacher starts `groups` random groups; until the last student hears 'started';
 *   - move: four moves, one at a time (group 1 -> 2, 3 -> 4, 5 -> the main room, and back into 1);
 *     each until the last student hears 'moved';
 *   - broadcast: the teacher's message to every group; until the last student hears it;
 *   - end: "return all" now; until the last student hears 'ended';
 *   - chat (reference) again, with the groups ended;
 *   - choose: groups to choose from, then every student chooses at once; until the last student
 *     holds the state with everyone placed (the time from the first choice sent); then end.
 * Steps are 150 ms apart: the teacher's socket stays under the room channel's flood guard (20
 * requests a second), and each step starts on a quiet server.
 * Every time is from the teacher's request (or the first choice) to the last student's event.
 * Each step's answer and the state are checked (everyone placed, once); a wrong one aborts the run.
 * Results go to bench/results/groups-<time>.{md,json}.
 */
import { runBench } from './lib/entry.ts';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { Socket } from 'socket.io-client';
import type { GroupsEvent, GroupsState } from '../core/contracts/groups.ts';
import { startPostgres, type RunningPostgres } from '../tests/support/postgres.ts';
import type { ParentToServer } from './lib/realtime-server.ts';
import { ask, connect, startServer, type Ack } from './lib/room-bots.ts';
import { fmtMs, markdownTable, Samples } from './lib/stats.ts';

const root = path.join(import.meta.dirname, '..');
const { values: args } = parseArgs({
  options: {
    engines: { type: 'string', default: 'pglite,postgres' },
    students: { type: 'string', default: '60' },
    groups: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '5' },
  },
  strict: true,
});
const ENGINES = args.engines.split(',').filter(Boolean) as Array<'pglite' | 'postgres'>;
const STUDENTS = Number(args.students);
const GROUPS = Number(args.groups);
const ROUNDS = Number(args.rounds);
/** Between steps (see `timed`). */
const PAUSE_MS = 150;
const log = (s: string) => console.error(`[groups] ${s}`);

async function ok<T>(what: string, answer: Promise<Ack<T>>): Promise<T> {
  const a = await answer;
  if (a.code !== '0') throw new Error(`${what} answered ${a.code}`);
  return a.data;
}

/**
 * Resolves with the time (performance.now()) the last of `sockets` heard an `event` that `match`
 * accepts (each socket's first such event counts). Listens from the call on.
 */
function lastHeard<T>(sockets: Socket[], event: string, match: (p: T) => boolean, timeoutMs = 30_000): Promise<number> {
  return new Promise((resolve, reject) => {
    let left = sockets.length;
    let last = 0;
    const offs: Array<() => void> = [];
    const timer = setTimeout(() => {
      for (const off of offs) off();
      reject(new Error(`${String(left)} of ${String(sockets.length)} never heard the ${event}`));
    }, timeoutMs);
    for (const s of sockets) {
      const on = (p: T) => {
        if (!match(p)) return;
        s.off(event, on);
        last = Math.max(last, performance.now());
        if (--left === 0) {
          clearTimeout(timer);
          resolve(last);
        }
      };
      s.on(event, on);
      offs.push(() => s.off(event, on));
    }
  });
}

/** Throws unless `state` puts each of `n` students in one place and `placed` of them in groups. */
function checkPartition(state: GroupsState, placed: number): void {
  const all = state.groups.flatMap((g) => g.members);
  if (new Set(all).size !== all.length) throw new Error('a student in two groups');
  if (all.length !== placed) throw new Error(`${String(all.length)} students in groups, not ${String(placed)}`);
}

const STEPS = [
  'chat line (reference)',
  'start (random)',
  'move',
  'broadcast',
  'end (now)',
  'start (choose)',
  `choose (all at once)`,
] as const;
type Step = (typeof STEPS)[number];

interface EngineResult {
  engine: string;
  students: number;
  joinMs: number;
  steps: Record<Step, { median: number; max: number; count: number }>;
}

async function runEngine(engine: 'pglite' | 'postgres', pg: RunningPostgres | null): Promise<EngineResult> {
  const server = startServer(engine, pg ? { BENCH_POSTGRES_ADMIN_URL: pg.url } : {});
  const ready = await server.next<{ url: string }>('ready');
  server.proc.send({ type: 'seed', id: 1, rooms: 1, perRoom: STUDENTS + 1 } satisfies ParentToServer);
  const seeded = await server.next<{ rooms: Array<{ room: string; tokens: string[] }> }>('seeded');
  const [teacherToken, ...studentTokens] = seeded.rooms[0]!.tokens;
  const t0 = performance.now();
  const teacher = await connect(ready.url, teacherToken!);
  await ok('teacher join', ask(teacher, 'joinRoom'));
  const students: Socket[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: 20 }, async () => {
      while (next < studentTokens.length) {
        const i = next++;
        const s = await connect(ready.url, studentTokens[i]!);
        await ok(`join ${String(i)}`, ask(s, 'joinRoom'));
        students[i] = s;
      }
    }),
  );
  const joinMs = performance.now() - t0;
  log(`${engine}: ${String(students.length)} students joined in ${fmtMs(joinMs)} ms`);

  const samples = Object.fromEntries(STEPS.map((s) => [s, new Samples()])) as Record<Step, Samples>;
  /** Times `send` (the teacher's request) to the last student's `event` that `match` accepts. */
  const timed = async <T, A>(step: Step, event: string, match: (p: T) => boolean, send: () => Promise<A>): Promise<A> => {
    // A pause before each step: the teacher's socket stays under the room channel's flood guard
    // (20 requests a second), and each step starts on a quiet server.
    await new Promise((r) => setTimeout(r, PAUSE_MS));
    const heard = lastHeard(students, event, match);
    const start = performance.now();
    const answer = await send();
    samples[step].add((await heard) - start);
    return answer;
  };
  const groupsEvent =
    (outcome: GroupsEvent['outcome'], also: (e: GroupsEvent) => boolean = () => true) =>
    (e: GroupsEvent) =>
      e.outcome === outcome && also(e);

  let line = 0;
  const chat = async () => {
    const text = `reference line ${String(++line)}`;
    await timed(
      'chat line (reference)',
      'messageevent',
      (m: { text: string }) => m.text === text,
      () => ok('chat', ask(teacher, 'chat', { text })),
    );
  };

  for (let round = 0; round < ROUNDS; round++) {
    await chat();
    let state = await timed('start (random)', 'groups', groupsEvent('started'), () =>
      ok(
        'groupsStart',
        ask<GroupsState>(teacher, 'groupsStart', {
          count: GROUPS,
          method: 'random',
          minutes: 0,
          allowChoose: false,
          lateJoiners: 'teacher',
          board: 'blank',
        }),
      ),
    );
    checkPartition(state, STUDENTS);
    const firstOf = (no: number) => state.groups.find((g) => g.no === no)!.members[0]!;
    const wanderer = firstOf(5);
    const moves = [
      { userId: firstOf(1), group: 2 },
      { userId: firstOf(3), group: 4 },
      { userId: wanderer, group: 0 },
      { userId: wanderer, group: 1 },
    ];
    for (const m of moves) {
      state = await timed(
        'move',
        'groups',
        groupsEvent('moved', (e) => e.userIds.includes(m.userId)),
        () => ok('groupsMove', ask<GroupsState>(teacher, 'groupsMove', m)),
      );
      checkPartition(state, m.group === 0 ? STUDENTS - 1 : STUDENTS);
    }
    const text = `Two minutes left (${String(round)})`;
    await timed(
      'broadcast',
      'groupsBroadcast',
      (b: { text: string }) => b.text === text,
      () => ok('groupsBroadcast', ask(teacher, 'groupsBroadcast', { text })),
    );
    state = await timed('end (now)', 'groups', groupsEvent('ended'), () =>
      ok('groupsEnd', ask<GroupsState>(teacher, 'groupsEnd', { afterSeconds: 0 })),
    );
    checkPartition(state, 0);
    await chat();

    const round2 = state.round + 1;
    await timed(
      'start (choose)',
      'groups',
      groupsEvent('started', (e) => e.round === round2),
      () =>
        ok(
          'groupsStart',
          ask<GroupsState>(teacher, 'groupsStart', {
            count: GROUPS,
            method: 'choose',
            minutes: 0,
            allowChoose: true,
            lateJoiners: 'teacher',
            board: 'blank',
          }),
        ),
    );
    const everyonePlaced = (e: GroupsEvent) => e.groups.reduce((n, g) => n + g.members.length, 0) === STUDENTS;
    await timed('choose (all at once)', 'groups', everyonePlaced, () =>
      Promise.all(students.map((s, i) => ok('groupsChoose', ask(s, 'groupsChoose', { group: (i % GROUPS) + 1 })))),
    );
    checkPartition(await ok('groupsState', ask<GroupsState>(teacher, 'groupsState')), STUDENTS);
    await ok('groupsEnd', ask(teacher, 'groupsEnd', { afterSeconds: 0 }));
    log(`${engine}: round ${String(round + 1)} of ${String(ROUNDS)} done`);
  }
  for (const s of [teacher, ...students]) s.close();
  server.proc.send({ type: 'close' } satisfies ParentToServer);
  await new Promise((r) => server.proc.once('exit', r));
  const steps = Object.fromEntries(
    STEPS.map((step) => {
      const [median, max] = samples[step].percentiles([50, 100]) as [number, number];
      return [step, { median, max, count: samples[step].count }];
    }),
  ) as EngineResult['steps'];
  return { engine, students: students.length, joinMs, steps };
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
  const rows = results.flatMap((r) =>
    STEPS.map((step) => {
      const s = r.steps[step];
      return [step, r.engine, String(r.students), String(s.count), fmtMs(s.median), fmtMs(s.max)];
    }),
  );
  const table = markdownTable(['step', 'engine', 'students', 'samples', 'median ms to the last student', 'max ms'], rows);
  const joins = results.map((r) => `${r.engine} ${fmtMs(r.joinMs)} ms`).join(', ');
  const head = `groups: ${String(STUDENTS)} students, ${String(GROUPS)} groups, ${String(ROUNDS)} rounds; joining took ${joins}; ${String(cpus().length)} cores, ${(totalmem() / 2 ** 30).toFixed(1)} GiB`;
  console.log(`${head}\n\n${table}`);
  const dir = path.join(root, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  writeFileSync(path.join(dir, `groups-${stamp}.md`), `${head}\n\n${table}\n`);
  writeFileSync(path.join(dir, `groups-${stamp}.json`), JSON.stringify(results, null, 2));
}

runBench(main, 15 * 60_000, log);
