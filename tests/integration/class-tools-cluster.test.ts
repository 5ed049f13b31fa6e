/**
 * The class tools across two web nodes over one PostgreSQL and one Redis (ADR 096, ADR 113): buzzer
 * presses on both nodes at once have one winner; the teacher on node A hears the tally of answers
 * taken on node B (the seat target crosses nodes);
 * node B goes away mid-quiz while answers are in flight, and no acknowledged answer is lost: its
 * students, back through node A, find their own answer, and the tally holds every one of them.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '#core/platform/db/database.ts';
import { createLogger } from '#core/platform/logger.ts';
import { startBanshu, type Banshu } from '#server/app.ts';
import { postgresAdminUrl } from '#tests/support/database.ts';
import { createTestDatabase, type TestDatabase } from '#tests/support/postgres.ts';
import { startRedis, type TestRedis } from '#tests/support/redis.ts';
import { ask, waitFor, type RoomSocket } from '#tests/support/room-client.ts';
import { startS3, type TestS3 } from '#tests/support/s3.ts';
import { CLASS_TOOLS_ENV, joinAs, seedClass } from '#tests/support/class-tools.ts';

const sockets: RoomSocket[] = [];
afterEach(() => {
  for (const s of sockets.splice(0)) s.close();
});

describe('class tools across two web nodes (PostgreSQL, Redis)', () => {
  let redis: TestRedis;
  let s3: TestS3;
  let created: TestDatabase;
  let a: Banshu;
  let b: Banshu | null = null;

  beforeAll(async () => {
    [redis, s3, created] = await Promise.all([startRedis(), startS3(), createTestDatabase(postgresAdminUrl())]);
    const env = {
      NODE_ENV: 'test',
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      SESSION_SECRET: 'f'.repeat(64),
      DATA_DIR: '/tmp/banshu-class-tools-cluster-test',
      DATABASE_URL: created.url,
      MEDIA_PUBLIC_URL: 'http://127.0.0.1:9',
      REDIS_URL: redis.url,
      ROLE: 'web',
      ...CLASS_TOOLS_ENV,
      ...s3.env,
    };
    const open = () => openDatabase({ url: created.url, dataDir: null });
    a = await startBanshu(env, { database: await open(), logger: createLogger('silent'), web: { mode: 'none' } });
    b = await startBanshu(env, { database: await open(), logger: createLogger('silent'), web: { mode: 'none' } });
  }, 60_000);

  afterAll(async () => {
    await a?.close();
    await b?.close();
    await created?.drop();
    await s3?.close();
    await redis?.close();
  });

  it('buzzer presses on two nodes at once: exactly one wins, and both nodes show the same winner', async () => {
    const N = 20;
    const c = await seedClass(a.platform.services, { students: N });
    const join = async (url: string, p: (typeof c.students)[number]) => {
      const j = await joinAs(url, p);
      sockets.push(j.socket);
      return j;
    };
    const teacher = await join(a.url, c.teacher);
    const students = await Promise.all(c.students.map((p, i) => join(i % 2 ? b!.url : a.url, p)));
    for (let round = 1; round <= 3; round++) {
      const open = students.map((s) => waitFor(s.socket, 'tools', (x) => x.buzzer?.round === round && x.buzzer.status === 'open'));
      expect((await ask(teacher.socket, 'buzzerOpen')).data.round).toBe(round);
      await Promise.all(open);
      const shown = [teacher, ...students].map((s) =>
        waitFor(s.socket, 'tools', (x) => x.buzzer?.round === round && x.buzzer.status === 'won').then((x) => x.buzzer!.winner!.userId),
      );
      const codes = await Promise.all(students.map((s) => ask(s.socket, 'buzzerPress', { round }).then((x) => x.code)));
      expect(codes.filter((x) => x === '0')).toHaveLength(1);
      expect(codes.filter((x) => x !== '0').every((x) => x === '31024')).toBe(true);
      const winner = c.students[codes.indexOf('0')]!.userId;
      for (const w of await Promise.all(shown)) expect(w).toBe(winner);
    }
  }, 60_000);

  it('a web node that goes away mid-quiz loses no acknowledged answer', async () => {
    const N = 20;
    const c = await seedClass(a.platform.services, { students: N });
    const join = async (url: string, p: (typeof c.students)[number]) => {
      const j = await joinAs(url, p);
      sockets.push(j.socket);
      return j;
    };
    const teacher = await join(a.url, c.teacher);
    const onB = await Promise.all(c.students.slice(0, N / 2).map((p) => join(b!.url, p)));
    const onA = await Promise.all(c.students.slice(N / 2).map((p) => join(a.url, p)));

    const shown = onB.map((s) => waitFor(s.socket, 'tools', (x) => x.quiz?.status === 'open'));
    const q = await ask(teacher.socket, 'quizStart', { options: 3, multiple: false, correct: ['B'], limitSeconds: 0, showOwn: false });
    expect(q.code).toBe('0');
    const id = q.data.id;
    await Promise.all(shown); // the state crossed to node B
    const first = await Promise.all([...onB, ...onA].map((s) => ask(s.socket, 'quizAnswer', { id, choice: ['A'] })));
    expect(first.every((x) => x.code === '0')).toBe(true);
    // Answers taken on B reach the teacher's seat on A.
    await waitFor(teacher.socket, 'quizTally', (x) => x.answered === N && x.tally[0] === N);

    // Node B's students change their answer: half are acknowledged, then B goes away while the
    // other half are in flight.
    const change = (s: (typeof onB)[number]) =>
      ask(s.socket, 'quizAnswer', { id, choice: ['B'] }, 3000).then(
        (x) => x.code,
        () => 'lost',
      );
    const acked = await Promise.all(onB.slice(0, N / 4).map(change));
    expect(acked.every((x) => x === '0')).toBe(true);
    const changes = [...acked.map((x) => Promise.resolve(x)), ...onB.slice(N / 4).map(change)];
    const closing = b!.close();
    b = null;
    const outcomes = await Promise.all(changes);
    await closing;
    console.log(
      `class tools cluster: changes on the node that went away (the first ${N / 4} acknowledged before it went, the rest in flight): ${outcomes.join(' ')}`,
    );

    // Back through A: each finds their own answer; an acknowledged change is there.
    const back = await Promise.all(c.students.slice(0, N / 2).map((p) => join(a.url, p)));
    back.forEach((j, i) => {
      const mine = j.snapshot.myAnswers?.quiz;
      if (outcomes[i] === '0') expect(mine, `student ${i}`).toEqual(['B']);
      else expect([['A'], ['B']]).toContainEqual(mine);
    });
    const teacherBack = await join(a.url, c.teacher);
    const held = teacherBack.snapshot.toolsPrivate!;
    expect(held.answered).toBe(N);
    for (const [i, p] of c.students.slice(0, N / 2).entries()) {
      const row = held.answers.find((x) => x.userId === p.userId)!;
      if (outcomes[i] === '0') expect(row.choice).toEqual(['B']);
    }
    // They go on answering through A, and the teacher's tally follows.
    const again = await Promise.all(back.map((j) => ask(j.socket, 'quizAnswer', { id, choice: ['C'] })));
    expect(again.every((x) => x.code === '0')).toBe(true);
    const tally = await waitFor(teacherBack.socket, 'quizTally', (x) => x.tally[2] === N / 2 && x.tally[0] === N / 2);
    expect(tally.answered).toBe(N);
  }, 120_000);
});
