/**
 * Breakout groups outlive the web node they were started on (issue 31, ADR 096, ADR 116): three
 * web nodes over one PostgreSQL and one Redis; node A runs in a process of its own and is
 * SIGKILLed (no close, its timers die with it), B and C run in this process. Two classes start
 * groups through node A: one whose students are spread over A and B (B heard the start), one
 * wholly on A (no surviving node has a socket of it); in both the teacher says "return all in
 * 30 s" just before the kill. (A time limit is the same stored deadline settled the same way,
 * ADR 116; the shortest is a minute, so the manual-clock tests of groups.test.ts prove it and this
 * file does not wait a real minute.) After the kill:
 * - everyone from A comes back through B or C into the same place (the join snapshot's groups
 *   are the state as started);
 * - a group's chat line still reaches only its group (and the teacher), across B and C;
 * - the countdown, falling due after the kill, still ends the groups: every
 *   student hears exactly one 'ended', whichever of B and C settled it, and everyone is back in
 *   the main room.
 * A student moved through one node and speaking at once through another: each line goes to the
 * new group (the other node's view of the groups is not stale).
 * And a rolling restart: a countdown said through node P, a node Q started after it (it heard
 * nothing of the groups), P SIGKILLed: Q still ends the groups when the countdown falls due, once.
 * Takes about 45 s + 25 s.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { placeOf, type GroupsState } from '#core/contracts/groups.ts';
import { openDatabase } from '#core/platform/db/database.ts';
import { createLogger } from '#core/platform/logger.ts';
import { startBanshu, type Banshu } from '#server/app.ts';
import { CLASS_TOOLS_ENV, joinAs, seedClass, type Person, type SeededClass } from '#tests/support/class-tools.ts';
import { postgresAdminUrl } from '#tests/support/database.ts';
import { hear, partition, stateOf, type Heard } from '#tests/support/groups.ts';
import { createTestDatabase, type TestDatabase } from '#tests/support/postgres.ts';
import { startRedis, type TestRedis } from '#tests/support/redis.ts';
import { ask, waitFor, type RoomSocket } from '#tests/support/room-client.ts';
import { startS3, type TestS3 } from '#tests/support/s3.ts';
import { until } from '#tests/support/until.ts';
import { startWebProcess, type WebProcess } from '#tests/support/web-node-process.ts';

const sockets: RoomSocket[] = [];
afterEach(() => {
  for (const s of sockets.splice(0)) s.close();
});

/** One person's seat: the node it is on, its socket, what it heard there. */
interface Seat {
  person: Person;
  node: string;
  socket: RoomSocket;
  heard: Heard;
}

async function seat(
  url: string,
  node: string,
  person: Person,
): Promise<Seat & { snapshot: Awaited<ReturnType<typeof joinAs>>['snapshot'] }> {
  const j = await joinAs(url, person);
  sockets.push(j.socket);
  return { person, node, socket: j.socket, heard: hear(j.socket), snapshot: j.snapshot };
}

describe('breakout groups across web nodes: the node that started them is SIGKILLed (PostgreSQL, Redis)', () => {
  let redis: TestRedis;
  let s3: TestS3;
  let created: TestDatabase;
  let a: WebProcess | null = null;
  let b: Banshu;
  let c: Banshu;

  beforeAll(async () => {
    [redis, s3, created] = await Promise.all([startRedis(), startS3(), createTestDatabase(postgresAdminUrl())]);
    const env = {
      NODE_ENV: 'test',
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      SESSION_SECRET: 'g'.repeat(64),
      // A student says a line after each of 15 moves: faster than the chat's rule for a person.
      CHAT_MESSAGES_PER_10S: '1000',
      DATA_DIR: '/tmp/banshu-cluster-groups-test',
      DATABASE_URL: created.url,
      MEDIA_PUBLIC_URL: 'http://127.0.0.1:9',
      REDIS_URL: redis.url,
      ROLE: 'web',
      ...CLASS_TOOLS_ENV,
      ...s3.env,
    };
    const open = () => openDatabase({ url: created.url, dataDir: null });
    // B first: it migrates the database; A and C find it ready.
    b = await startBanshu(env, { database: await open(), logger: createLogger('silent'), web: { mode: 'none' } });
    [a, c] = await Promise.all([
      startWebProcess(env),
      (async () => startBanshu(env, { database: await open(), logger: createLogger('silent'), web: { mode: 'none' } }))(),
    ]);
  }, 90_000);

  afterAll(async () => {
    await a?.kill();
    await b?.close();
    await c?.close();
    await created?.drop();
    await s3?.close();
    await redis?.close();
  });

  it('groups started through node A outlive its SIGKILL: the same places through B and C, group chat apart, the return countdown ends them once', async () => {
    const nodeA = a!;
    const urls = { A: nodeA.url, B: b.url, C: c.url } as const;
    /**
     * `spread`: the teacher on A, the students on A and B in turn; `onA`: everyone on A. In both,
     * "return all in 30 s" is said just before the kill. `started` is each class's state as the
     * kill finds it; `due` when its groups end.
     */
    const classes: Array<{ name: string; c: SeededClass; teacher: Seat; students: Seat[]; started: GroupsState; due: number }> = [];
    for (const name of ['spread', 'onA'] as const) {
      const k = await seedClass(b.platform.services, { students: 8 });
      const teacher = await seat(urls.A, 'A', k.teacher);
      const students: Seat[] = [];
      for (const [i, p] of k.students.entries())
        students.push(await seat(name === 'spread' && i % 2 ? urls.B : urls.A, name === 'spread' && i % 2 ? 'B' : 'A', p));
      const ids = k.students.map((p) => p.userId);
      // Group 1: students 0-3, group 2: students 4-7.
      const answer = await ask(teacher.socket, 'groupsStart', {
        count: 2,
        method: 'manual',
        groups: [{ userIds: ids.slice(0, 4) }, { userIds: ids.slice(4) }],
        minutes: 0,
        allowChoose: false,
        lateJoiners: 'auto',
        board: 'blank',
      });
      expect(answer.code, name).toBe('0');
      expect(answer.data.endsAt).toBe(0);
      await until(`${name}: everyone to hear the start`, () =>
        [teacher, ...students].every((s) => s.heard.groups.some((x) => x.event.outcome === 'started')),
      );
      classes.push({ name, c: k, teacher, students, started: answer.data, due: 0 });
    }
    // "Return all in 30 s" in each class, just before the kill.
    for (const k of classes) {
      const closing = await ask(k.teacher.socket, 'groupsEnd', { afterSeconds: 30 });
      expect(closing.code).toBe('0');
      expect(closing.data).toMatchObject({ status: 'closing', endsAt: 0 });
      expect(closing.data.closingAt - closing.data.serverTime).toBe(30_000);
      k.started = closing.data;
      k.due = closing.data.closingAt;
      await until(`${k.name}: everyone to hear the countdown`, () =>
        [k.teacher, ...k.students].every((s) => s.heard.groups.some((x) => x.event.outcome === 'closing')),
      );
    }

    // Node A dies.
    const killedAt = Date.now();
    const dropped = classes.flatMap((k) => [k.teacher, ...k.students]).filter((s) => s.node === 'A');
    const gone = dropped.map((s) => new Promise((r) => (s.socket.connected ? s.socket.once('disconnect', r) : r(null))));
    await nodeA.kill('SIGKILL');
    a = null;
    await Promise.all(gone);
    for (const k of classes) expect(Date.now(), `${k.name}: the kill came well before the groups end`).toBeLessThan(k.due - 10_000);
    const endsAt = Math.max(...classes.map((k) => k.due));

    // Everyone from A comes back through B or C (in turn), into the same place.
    let turn = 0;
    for (const k of classes) {
      const ids = k.c.students.map((p) => p.userId);
      const back = async (s: Seat): Promise<Seat> => {
        if (s.node !== 'A') return s;
        const node = turn++ % 2 ? 'C' : 'B';
        const again = await seat(urls[node], node, s.person);
        expect(again.snapshot.groups.status, `${k.name}: ${s.person.name}`).toBe(k.started.status);
        expect(stateOf(again.snapshot.groups), `${k.name}: ${s.person.name}'s snapshot`).toEqual(stateOf(k.started));
        const isTeacher = s.person.userId === k.c.teacher.userId;
        expect(placeOf(again.snapshot.groups, s.person.userId, isTeacher)).toBe(placeOf(k.started, s.person.userId, isTeacher));
        return again;
      };
      k.teacher = await back(k.teacher);
      k.students = await Promise.all(k.students.map(back));
      const places = partition(k.started, ids, 2);
      expect([...places.values()]).toEqual([1, 1, 1, 1, 2, 2, 2, 2]);
      // Nobody was placed again by the returns (late joiners 'auto' would have).
      for (const s of [k.teacher, ...k.students])
        expect(
          s.heard.groups.filter((x) => x.event.outcome !== 'started' && x.event.outcome !== 'closing'),
          `${k.name}: ${s.person.name}`,
        ).toEqual([]);
      expect(stateOf((await ask(k.teacher.socket, 'groupsState')).data)).toEqual(stateOf(k.started));
    }
    console.log(
      `[cluster-groups] back after the kill within ${String(Date.now() - killedAt)} ms: ${classes
        .map((k) => `${k.name}: ${[k.teacher, ...k.students].map((s) => s.node).join('')}`)
        .join('; ')}`,
    );

    // Group chat after the kill: a line in group 1 and one in group 2 of each class, each heard
    // by its group and the teacher only (a main line of the teacher's is the fence).
    for (const k of classes) {
      const say = async (s: Seat, text: string, group: number) => {
        const said = await ask(s.socket, 'chat', { text });
        expect(said.code, text).toBe('0');
        expect(said.data.group, text).toBe(group);
      };
      const one = `${k.name} group 1 after the kill`;
      const two = `${k.name} group 2 after the kill`;
      // Students 1 and 6: on B or C, different nodes from some of their group.
      await say(k.students[1]!, one, 1);
      await say(k.students[6]!, two, 2);
      const hears = (s: Seat, text: string) => s.heard.lines.some((l) => l.line.text === text);
      await until(
        `${k.name}: each group and the teacher to hear their line`,
        () =>
          [k.teacher, ...k.students.slice(0, 4)].every((s) => hears(s, one)) &&
          [k.teacher, ...k.students.slice(4)].every((s) => hears(s, two)),
      );
      for (const s of [k.teacher, ...k.students]) {
        const l = s.heard.lines.find((x) => x.line.text === one || x.line.text === two);
        if (l) expect(l.line.group).toBe(l.line.text === one ? 1 : 2);
      }
      const fence = `${k.name} fence`;
      expect((await ask(k.teacher.socket, 'chat', { text: fence })).code).toBe('0');
      await until(`${k.name}: the fence to reach everyone`, () => k.students.every((s) => hears(s, fence)));
      for (const s of k.students.slice(0, 4)) expect(hears(s, two), `${k.name}: ${s.person.name} (group 1) heard group 2`).toBe(false);
      for (const s of k.students.slice(4)) expect(hears(s, one), `${k.name}: ${s.person.name} (group 2) heard group 1`).toBe(false);
    }

    // The countdown falls due with A gone: B or C ends the groups, each student hears it once.
    const endedOf = (s: Seat) => s.heard.groups.filter((x) => x.event.outcome === 'ended');
    const wait = Math.max(0, endsAt - Date.now()) + 15_000;
    await until(
      'every student to hear the groups end at the countdown',
      () => classes.every((k) => [k.teacher, ...k.students].every((s) => endedOf(s).length > 0)),
      { timeoutMs: wait, everyMs: 100 },
    );
    const lateness = classes.map((k) => {
      const ended = endedOf(k.teacher)[0]!.event;
      return `${k.name}: ended ${String(ended.serverTime - k.due)} ms after it was due (server time)`;
    });
    // A fence after the end: the teacher's line; by then a second 'ended' would have come too.
    for (const k of classes) {
      const fence = `${k.name} after the end`;
      expect((await ask(k.teacher.socket, 'chat', { text: fence })).code).toBe('0');
      await until(`${k.name}: the line after the end to reach everyone`, () =>
        k.students.every((s) => s.heard.lines.some((l) => l.line.text === fence)),
      );
      const ids = k.c.students.map((p) => p.userId);
      for (const s of [k.teacher, ...k.students]) {
        expect(endedOf(s), `${k.name}: ${s.person.name} (on ${s.node}) heard 'ended'`).toHaveLength(1);
        const ended = endedOf(s)[0]!.event;
        expect(ended).toMatchObject({ status: 'off', groups: [], teacherIn: 0 });
        expect(ended.lastBoards.map((x) => x.no)).toEqual([1, 2]);
        expect(ended.serverTime).toBeGreaterThanOrEqual(k.due);
      }
      const now = (await ask(k.students[0]!.socket, 'groupsState')).data;
      expect(now.status).toBe('off');
      expect([...partition(now, ids, 0).values()]).toEqual(new Array<number>(8).fill(0));
    }
    console.log(`[cluster-groups] ${lateness.join('; ')}`);
  }, 180_000);

  it('a student moved through node B speaks at once through node C: the line goes to the new group, every time', async () => {
    const k = await seedClass(b.platform.services, { students: 4 });
    const ids = k.students.map((p) => p.userId);
    const teacher = await seat(b.url, 'B', k.teacher);
    // The mover on C; one member of each group on B, one on C.
    const [mover, oneB, twoB, twoC] = [
      await seat(c.url, 'C', k.students[0]!),
      await seat(b.url, 'B', k.students[1]!),
      await seat(b.url, 'B', k.students[2]!),
      await seat(c.url, 'C', k.students[3]!),
    ];
    const started = await ask(teacher.socket, 'groupsStart', {
      count: 2,
      method: 'manual',
      groups: [{ userIds: ids.slice(0, 2) }, { userIds: ids.slice(2) }],
      minutes: 0,
      allowChoose: false,
      lateJoiners: 'teacher',
      board: 'blank',
    });
    expect(started.code).toBe('0');
    // C holds the groups in its cache: the mover's first line, in group 1.
    expect((await ask(mover.socket, 'chat', { text: 'first' })).data.group).toBe(1);
    const said: Array<{ text: string; group: number }> = [];
    // 15: the teacher's and the mover's requests stay under the room channel's flood guard (20 a second).
    for (let i = 0; i < 15; i++) {
      const to = i % 2 ? 1 : 2;
      const moved = waitFor(mover.socket, 'groups', (e) => e.outcome === 'moved' && placeOf(e, ids[0]!, false) === to);
      expect((await ask(teacher.socket, 'groupsMove', { userId: ids[0]!, group: to })).code).toBe('0');
      await moved;
      // At once, as a browser would after the event.
      const text = `line ${String(i)} in group ${String(to)}`;
      const line = await ask(mover.socket, 'chat', { text });
      expect(line.code).toBe('0');
      said.push({ text, group: line.data.group ?? 0 });
    }
    expect(said.map((x) => x.group)).toEqual(said.map((_, i) => (i % 2 ? 1 : 2)));
    // Each line reached its group only (a teacher's main line is the fence).
    expect((await ask(teacher.socket, 'chat', { text: 'moves fence' })).code).toBe('0');
    await until('the fence to reach everyone', () =>
      [oneB, twoB, twoC].every((s) => s.heard.lines.some((l) => l.line.text === 'moves fence')),
    );
    const texts = (s: Seat) => s.heard.lines.map((l) => l.line.text);
    for (const x of said) {
      const inGroup = x.group === 1 ? [oneB] : [twoB, twoC];
      const outside = x.group === 1 ? [twoB, twoC] : [oneB];
      for (const s of inGroup) expect(texts(s), `${s.person.name} should hear "${x.text}"`).toContain(x.text);
      for (const s of outside) expect(texts(s), `${s.person.name} should not hear "${x.text}"`).not.toContain(x.text);
    }
  }, 60_000);
});

describe('breakout groups after a rolling restart: the only node left started after the groups did (PostgreSQL, Redis)', () => {
  let redis: TestRedis;
  let s3: TestS3;
  let created: TestDatabase;
  let env: Record<string, string>;
  let p: WebProcess | null = null;
  let q: Banshu | null = null;
  const open = () => openDatabase({ url: created.url, dataDir: null });
  const inProcess = async () => startBanshu(env, { database: await open(), logger: createLogger('silent'), web: { mode: 'none' } });

  beforeAll(async () => {
    [redis, s3, created] = await Promise.all([startRedis(), startS3(), createTestDatabase(postgresAdminUrl())]);
    env = {
      NODE_ENV: 'test',
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      SESSION_SECRET: 'h'.repeat(64),
      DATA_DIR: '/tmp/banshu-cluster-groups-restart-test',
      DATABASE_URL: created.url,
      MEDIA_PUBLIC_URL: 'http://127.0.0.1:9',
      REDIS_URL: redis.url,
      ROLE: 'web',
      ...CLASS_TOOLS_ENV,
      ...s3.env,
    };
  }, 60_000);

  afterAll(async () => {
    await p?.kill();
    await q?.close();
    await created?.drop();
    await s3?.close();
    await redis?.close();
  });

  it('a countdown said through node P ends the groups through node Q, started after it, once P is SIGKILLed', async () => {
    // The class is seeded through a node that is gone before the groups start (and migrates the database).
    const seeder = await inProcess();
    const k = await seedClass(seeder.platform.services, { students: 4 });
    await seeder.close();
    const nodeP = await startWebProcess(env);
    p = nodeP;
    const ids = k.students.map((x) => x.userId);
    const onP = [await seat(nodeP.url, 'P', k.teacher)];
    for (const x of k.students) onP.push(await seat(nodeP.url, 'P', x));
    const started = await ask(onP[0]!.socket, 'groupsStart', {
      count: 2,
      method: 'manual',
      groups: [{ userIds: ids.slice(0, 2) }, { userIds: ids.slice(2) }],
      minutes: 0,
      allowChoose: false,
      lateJoiners: 'auto',
      board: 'blank',
    });
    expect(started.code).toBe('0');
    const closing = await ask(onP[0]!.socket, 'groupsEnd', { afterSeconds: 15 });
    expect(closing.code).toBe('0');
    expect(closing.data.status).toBe('closing');
    const due = closing.data.closingAt;
    await until('everyone to hear the countdown', () => onP.every((s) => s.heard.groups.some((x) => x.event.outcome === 'closing')));

    // The rolling restart: a new node Q comes up (after the countdown was said), then P dies.
    const nodeQ = await inProcess();
    q = nodeQ;
    const gone = onP.map((s) => new Promise((r) => s.socket.once('disconnect', r)));
    await nodeP.kill('SIGKILL');
    p = null;
    await Promise.all(gone);
    expect(Date.now(), 'P died well before the countdown ends').toBeLessThan(due - 5000);
    const onQ = [await seat(nodeQ.url, 'Q', k.teacher)];
    for (const x of k.students) onQ.push(await seat(nodeQ.url, 'Q', x));
    for (const s of onQ) {
      expect(stateOf(s.snapshot.groups)).toEqual(stateOf(closing.data));
      const isTeacher = s.person.userId === k.teacher.userId;
      expect(placeOf(s.snapshot.groups, s.person.userId, isTeacher)).toBe(placeOf(closing.data, s.person.userId, isTeacher));
    }

    // The countdown falls due with only Q left: Q tells everyone, once.
    const endedOf = (s: Seat) => s.heard.groups.filter((x) => x.event.outcome === 'ended');
    await until('everyone on Q to hear the groups end at the countdown', () => onQ.every((s) => endedOf(s).length > 0), {
      timeoutMs: Math.max(0, due - Date.now()) + 10_000,
      everyMs: 100,
    });
    expect((await ask(onQ[0]!.socket, 'chat', { text: 'after the end' })).code).toBe('0');
    await until('the line after the end to reach everyone', () =>
      onQ.every((s) => s.heard.lines.some((l) => l.line.text === 'after the end')),
    );
    for (const s of onQ) {
      expect(endedOf(s), s.person.name).toHaveLength(1);
      expect(endedOf(s)[0]!.event).toMatchObject({ status: 'off', groups: [] });
      expect(endedOf(s)[0]!.event.serverTime).toBeGreaterThanOrEqual(due);
    }
  }, 90_000);
});
