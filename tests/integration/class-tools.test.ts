/**
 * The class tools held by the server (issue 30, ADR 113), over real room-channel sockets on both
 * database engines: forged and out-of-order commands of every tool are refused with their code,
 * change nothing and broadcast nothing; each tool's rules as a class uses them; the state survives
 * a reconnect, reaches a late joiner, stays with a closed class and is empty in the room's next one.
 */
import { afterEach, expect, it } from 'vitest';
import { sql } from 'kysely';
import { eachEngine } from '#tests/support/engines-matrix.ts';
import { ask, rawAsk, record, waitFor, type RoomSocket } from '#tests/support/room-client.ts';
import { CLASS_TOOLS_ENV, joinAs, seedClass, type Joined, type Person } from '#tests/support/class-tools.ts';
import type { TestServer } from '#tests/support/server.ts';
import { emptyClassTools, type ClassTools } from '#core/contracts/class-tools.ts';
import { ToolsRepository } from '#core/tools/tools.repository.ts';

const sockets: RoomSocket[] = [];
afterEach(() => {
  for (const s of sockets.splice(0)) s.close();
});

async function join(server: TestServer, p: Person): Promise<Joined> {
  const j = await joinAs(server.url, p);
  sockets.push(j.socket);
  return j;
}

/** The class's tools as the server holds them now, with the creator's private views. */
async function held(server: TestServer, room: string, teacher: Person) {
  const s = await server.banshu.platform.services.tools.snapshot({ room, uid: teacher.userId, role: 'creator' });
  return JSON.stringify({ tools: s.tools, quiz: s.toolsPrivate, poll: s.pollPrivate });
}

const TOOL_EVENTS = ['tools', 'quizTally', 'pollTally', 'rewarded'] as const;

eachEngine(
  'class tools',
  (server) => {
    it('refuses forged and out-of-order commands of every tool with a code; nothing changes, nothing is broadcast', async () => {
      const srv = server();
      const c = await seedClass(srv.banshu.platform.services, { students: 3, observer: true, recorder: true });
      const other = await seedClass(srv.banshu.platform.services, { students: 0 });
      const t = await join(srv, c.teacher);
      const [a, b] = [await join(srv, c.students[0]!), await join(srv, c.students[1]!)];
      const obs = await join(srv, c.observer!);
      const rec = await join(srv, c.recorder!);
      const stranger = await join(srv, other.teacher);
      const tick = () => srv.clock.advance(1100); // the per-person limits count per second of the server's clock

      // The state the cases start from: an old quiz (collected), an open single-choice quiz of 4, a
      // named poll A voted in, a buzzer round A won (round 2), no timer.
      const q0 = await ask(t.socket, 'quizStart', { options: 2, multiple: false, correct: ['A'], limitSeconds: 0, showOwn: false });
      expect(q0.code).toBe('0');
      expect((await ask(t.socket, 'quizCollect', { id: q0.data.id })).code).toBe('0');
      const q1 = await ask(t.socket, 'quizStart', { options: 4, multiple: false, correct: ['B'], limitSeconds: 0, showOwn: true });
      expect(q1.code).toBe('0');
      const p1 = await ask(t.socket, 'pollStart', {
        anonymous: false,
        questions: [{ text: 'Tea?', options: ['yes', 'no'], multiple: false }],
      });
      expect(p1.code).toBe('0');
      const counted = waitFor(t.socket, 'pollTally', (x) => x.voters === 1);
      expect((await ask(a.socket, 'pollVote', { id: p1.data.id, answers: [[0]] })).code).toBe('0');
      await counted;
      expect((await ask(t.socket, 'buzzerOpen')).data.round).toBe(1);
      expect((await ask(t.socket, 'buzzerOpen')).data.round).toBe(2);
      const everyone = [t, a, b, obs, rec].map((j) => j.socket);
      const settled = everyone.map((s) => waitFor(s, 'tools', (x) => x.buzzer?.status === 'won'));
      expect((await ask(a.socket, 'buzzerPress', { round: 2 })).code).toBe('0');
      await Promise.all(settled); // every setup broadcast has arrived everywhere (they arrive in order)
      const quiz1 = q1.data.id;
      const poll1 = p1.data.id;

      type Case = [who: string, socket: RoomSocket, request: string, payload: unknown, code: string];
      const cases: Case[] = [
        // Students, observers and the recorder command nothing.
        ...(
          [
            ['quizStart', { options: 4, multiple: false, correct: ['A'], limitSeconds: 0, showOwn: false }],
            ['quizCollect', { id: quiz1 }],
            ['quizPublish', { id: quiz1 }],
            ['quizClose', { id: quiz1 }],
            ['pollStart', { anonymous: true, questions: [{ text: 'Q', options: ['a', 'b'], multiple: false }] }],
            ['pollClose', { id: poll1 }],
            ['pollPublish', { id: poll1 }],
            ['pollDismiss', { id: poll1 }],
            ['timerSet', { kind: 'countdown', durationMs: 60_000 }],
            ['timerStart', {}],
            ['timerPause', {}],
            ['timerReset', {}],
            ['timerClear', {}],
            ['buzzerOpen', {}],
            ['buzzerClose', {}],
            ['pickRandom', {}],
            ['reward', { userIds: [c.students[0]!.userId] }],
            ['reward', { quizRight: q0.data.id }],
          ] as const
        ).flatMap(([request, payload]): Case[] => [
          ['student', b.socket, request, payload, '31004'],
          ['observer', obs.socket, request, payload, '31004'],
          ['recorder', rec.socket, request, payload, '31004'],
        ]),
        // Only students answer, vote and press.
        ['observer', obs.socket, 'quizAnswer', { id: quiz1, choice: ['B'] }, '31004'],
        ['recorder', rec.socket, 'quizAnswer', { id: quiz1, choice: ['B'] }, '31004'],
        ['teacher', t.socket, 'quizAnswer', { id: quiz1, choice: ['B'] }, '31004'],
        ['observer', obs.socket, 'pollVote', { id: poll1, answers: [[1]] }, '31004'],
        ['teacher', t.socket, 'pollVote', { id: poll1, answers: [[1]] }, '31004'],
        ['observer', obs.socket, 'buzzerPress', { round: 2 }, '31004'],
        ['teacher', t.socket, 'buzzerPress', { round: 2 }, '31004'],
        // Answering for another person: the contract has no such field.
        ['student', b.socket, 'quizAnswer', { id: quiz1, choice: ['B'], userId: c.students[2]!.userId }, '5'],
        ['student', b.socket, 'pollVote', { id: poll1, answers: [[1]], userId: c.students[2]!.userId }, '5'],
        // Unknown, closed or malformed answers.
        ['student', b.socket, 'quizAnswer', { id: 'nope', choice: ['A'] }, '31020'],
        ['student', b.socket, 'quizAnswer', { id: q0.data.id, choice: ['A'] }, '31020'],
        ['student', b.socket, 'quizAnswer', { id: quiz1, choice: ['E'] }, '5'],
        ['student', b.socket, 'quizAnswer', { id: quiz1, choice: ['A', 'B'] }, '5'],
        ['student', b.socket, 'quizAnswer', { id: quiz1, choice: ['A', 'A'] }, '5'],
        ['student', b.socket, 'quizAnswer', { id: quiz1, choice: [] }, '5'],
        ['student', a.socket, 'pollVote', { id: poll1, answers: [[1]] }, '31021'],
        ['student', b.socket, 'pollVote', { id: poll1, answers: [[0], [1]] }, '5'],
        ['student', b.socket, 'pollVote', { id: poll1, answers: [[0, 1]] }, '5'],
        ['student', b.socket, 'pollVote', { id: poll1, answers: [[2]] }, '5'],
        ['student', b.socket, 'pollVote', { id: 'nope', answers: [[0]] }, '31020'],
        // The buzzer: a won round, an old round, a round not opened yet.
        ['student', b.socket, 'buzzerPress', { round: 2 }, '31024'],
        ['student', b.socket, 'buzzerPress', { round: 1 }, '31020'],
        ['student', b.socket, 'buzzerPress', { round: 3 }, '31020'],
        // The teacher out of order.
        ['teacher', t.socket, 'timerStart', {}, '31020'],
        ['teacher', t.socket, 'timerPause', {}, '31020'],
        ['teacher', t.socket, 'timerReset', {}, '31020'],
        ['teacher', t.socket, 'timerClear', {}, '31020'],
        ['teacher', t.socket, 'timerSet', { kind: 'countdown', durationMs: 0 }, '5'],
        ['teacher', t.socket, 'quizCollect', { id: q0.data.id }, '31020'],
        ['teacher', t.socket, 'quizPublish', { id: 'nope' }, '31020'],
        ['teacher', t.socket, 'quizClose', { id: q0.data.id }, '31020'],
        ['teacher', t.socket, 'quizStart', { options: 4, multiple: false, correct: ['A', 'B'], limitSeconds: 0, showOwn: false }, '5'],
        ['teacher', t.socket, 'quizStart', { options: 2, multiple: true, correct: ['C'], limitSeconds: 0, showOwn: false }, '5'],
        ['teacher', t.socket, 'pollClose', { id: 'nope' }, '31020'],
        ['teacher', t.socket, 'pollDismiss', { id: 'nope' }, '31020'],
        ['teacher', t.socket, 'reward', { quizRight: quiz1 }, '31020'],
        ['teacher', t.socket, 'reward', { userIds: [c.observer!.userId] }, '5'],
        ['teacher', t.socket, 'reward', { userIds: [c.teacher.userId] }, '5'],
        ['teacher', t.socket, 'reward', { userIds: [other.teacher.userId] }, '5'],
        // Another class's teacher reaches nothing of this one.
        ['other teacher', stranger.socket, 'quizCollect', { id: quiz1 }, '31020'],
        ['other teacher', stranger.socket, 'pollClose', { id: poll1 }, '31020'],
        ['other teacher', stranger.socket, 'reward', { quizRight: q0.data.id }, '31020'],
      ];

      const heard = everyone.flatMap((s) => TOOL_EVENTS.map((e) => ({ e, seen: record(s, e) })));
      const before = await held(srv, c.roomNumber, c.teacher);
      for (const [who, socket, request, payload, code] of cases) {
        tick();
        const answer = await rawAsk(socket, request, payload);
        expect(answer.code, `${who} ${request} ${JSON.stringify(payload)}`).toBe(code);
        expect(await held(srv, c.roomNumber, c.teacher), `${who} ${request} changed the state`).toBe(before);
      }
      // Broadcasts arrive in order: the next change's event is the first anyone hears.
      const next = everyone.map((s) => waitFor(s, 'tools', (x) => x.timer?.durationMs === 5000));
      expect((await ask(t.socket, 'timerSet', { kind: 'countdown', durationMs: 5000 })).code).toBe('0');
      await Promise.all(next);
      for (const { e, seen } of heard) expect(seen.length, e).toBe(e === 'tools' ? 1 : 0);
    });

    it('limits answers per person per second', async () => {
      const srv = server();
      const c = await seedClass(srv.banshu.platform.services, { students: 1 });
      const t = await join(srv, c.teacher);
      const s = await join(srv, c.students[0]!);
      const q = await ask(t.socket, 'quizStart', { options: 3, multiple: true, correct: ['A', 'C'], limitSeconds: 0, showOwn: false });
      const codes = [];
      for (let i = 0; i < 8; i++) codes.push((await ask(s.socket, 'quizAnswer', { id: q.data.id, choice: ['A'] })).code);
      expect(codes).toEqual(['0', '0', '0', '0', '0', '31022', '31022', '31022']);
      srv.clock.advance(1100);
      expect((await ask(s.socket, 'quizAnswer', { id: q.data.id, choice: ['C', 'A'] })).data).toEqual({ choice: ['A', 'C'] });
      const tally = await waitFor(t.socket, 'quizTally', (x) => x.answers[0]?.right === true);
      expect(tally).toMatchObject({ answered: 1, tally: [1, 0, 1], accuracy: 1 });
      expect(tally.correct).toEqual(['A', 'C']);
    });

    it('a quiz from start to reward: answers changed until collected, the tally to the teacher alone, results and trophies to all', async () => {
      const srv = server();
      const c = await seedClass(srv.banshu.platform.services, { students: 3, observer: true });
      const t = await join(srv, c.teacher);
      const ss = [await join(srv, c.students[0]!), await join(srv, c.students[1]!), await join(srv, c.students[2]!)];
      const obs = await join(srv, c.observer!);
      const talliesSeenByStudents = ss.map((s) => record(s.socket, 'quizTally'));
      const talliesSeenByObserver = record(obs.socket, 'quizTally');

      const shown = ss.map((s) => waitFor(s.socket, 'tools', (x) => x.quiz?.status === 'open'));
      const q = await ask(t.socket, 'quizStart', { options: 4, multiple: true, correct: ['A', 'C'], limitSeconds: 0, showOwn: true });
      expect(q.code).toBe('0');
      const id = q.data.id;
      expect((await Promise.all(shown)).every((x) => x.quiz?.id === id && x.quiz.result === null)).toBe(true);

      expect((await ask(ss[0]!.socket, 'quizAnswer', { id, choice: ['C', 'A'] })).code).toBe('0');
      expect((await ask(ss[1]!.socket, 'quizAnswer', { id, choice: ['A'] })).code).toBe('0');
      expect((await ask(ss[2]!.socket, 'quizAnswer', { id, choice: ['B'] })).code).toBe('0');
      // A student changes their answer: still one answer of theirs.
      expect((await ask(ss[2]!.socket, 'quizAnswer', { id, choice: ['A', 'C'] })).code).toBe('0');
      const tally = await waitFor(t.socket, 'quizTally', (x) => x.answered === 3 && x.tally[1] === 0 && x.tally[0] === 3);
      expect(tally.tally).toEqual([3, 0, 2, 0]);
      expect(tally.accuracy).toBeCloseTo(2 / 3);
      expect(tally.answers.map((x) => [x.userId, x.choice.join(''), x.right])).toEqual(
        expect.arrayContaining([
          [c.students[0]!.userId, 'AC', true],
          [c.students[1]!.userId, 'A', false],
          [c.students[2]!.userId, 'AC', true],
        ]),
      );
      // A reconnecting student gets their own answer back; the public state says how many, not who.
      const again = await join(srv, c.students[1]!);
      expect(again.snapshot.myAnswers).toMatchObject({ quiz: ['A'] });
      expect(again.snapshot.tools.quiz).toMatchObject({ id, answered: 3, result: null });
      expect(again.snapshot.toolsPrivate).toBeNull();

      const collected = await ask(t.socket, 'quizCollect', { id });
      expect(collected.data.status).toBe('collected');
      expect((await ask(ss[1]!.socket, 'quizAnswer', { id, choice: ['A', 'C'] })).code).toBe('31020');

      const published = Promise.all(
        [...ss, { socket: obs.socket }].map((s) => waitFor(s.socket, 'tools', (x) => x.quiz?.status === 'published')),
      );
      expect((await ask(t.socket, 'quizPublish', { id })).code).toBe('0');
      for (const x of await published) expect(x.quiz?.result).toEqual({ tally: [3, 0, 2, 0], correct: ['A', 'C'], answered: 3, right: 2 });

      const trophies = Promise.all(ss.map((s) => waitFor(s.socket, 'rewarded')));
      const rewarded = await ask(t.socket, 'reward', { quizRight: id });
      expect(rewarded.data.rewards).toEqual({ [c.students[0]!.userId]: 1, [c.students[2]!.userId]: 1 });
      for (const r of await trophies) expect(r.userIds.sort()).toEqual([c.students[0]!.userId, c.students[2]!.userId].sort());
      expect((await ask(t.socket, 'reward', { quizRight: id })).code).toBe('31020'); // once per quiz
      const more = await ask(t.socket, 'reward', { userIds: [c.students[1]!.userId, c.students[0]!.userId] });
      expect(more.data.rewards).toEqual({ [c.students[0]!.userId]: 2, [c.students[1]!.userId]: 1, [c.students[2]!.userId]: 1 });

      expect((await ask(t.socket, 'quizClose', { id })).code).toBe('0');
      const late = await join(srv, c.students[0]!);
      expect(late.snapshot.tools.quiz).toBeNull();
      expect(late.snapshot.tools.rewards[c.students[0]!.userId]).toBe(2);
      expect(talliesSeenByStudents.flat()).toEqual([]);
      expect(talliesSeenByObserver).toEqual([]);
    });

    it('a quiz with a time limit refuses answers past its stored deadline, even with no timer to say so', async () => {
      const srv = server();
      const c = await seedClass(srv.banshu.platform.services, { students: 1 });
      const t = await join(srv, c.teacher);
      const s = await join(srv, c.students[0]!);
      const q = await ask(t.socket, 'quizStart', { options: 2, multiple: false, correct: ['A'], limitSeconds: 30, showOwn: false });
      expect(q.data.endsAt - q.data.startedAt).toBe(30_000);
      expect((await ask(s.socket, 'quizAnswer', { id: q.data.id, choice: ['A'] })).code).toBe('0');
      srv.clock.advance(30_000); // the server's clock only: the nudge timer has not fired
      expect((await ask(s.socket, 'quizAnswer', { id: q.data.id, choice: ['B'] })).code).toBe('31020');
      const fresh = await join(srv, c.students[0]!);
      expect(fresh.snapshot.tools.quiz).toMatchObject({ status: 'collected', answered: 1 });
      expect(fresh.snapshot.myAnswers?.quiz).toEqual(['A']);
    });

    it('an anonymous poll: one vote each, no voter identity kept once closed; results only when published', async () => {
      const srv = server();
      const c = await seedClass(srv.banshu.platform.services, { students: 3 });
      const t = await join(srv, c.teacher);
      const ss = [await join(srv, c.students[0]!), await join(srv, c.students[1]!), await join(srv, c.students[2]!)];
      const questions = [
        { text: ' Which  day? ', options: ['Mon', 'Tue', 'Wed'], multiple: false },
        { text: 'Snacks', options: ['tea', 'cake'], multiple: true },
      ];
      const p = await ask(t.socket, 'pollStart', { anonymous: true, questions });
      expect(p.data).toMatchObject({ anonymous: true, status: 'open', voters: 0, result: null });
      expect(p.data.questions[0]!.text).toBe('Which  day?');
      const id = p.data.id;
      expect((await ask(ss[0]!.socket, 'pollVote', { id, answers: [[1], [0, 1]] })).code).toBe('0');
      expect((await ask(ss[1]!.socket, 'pollVote', { id, answers: [[1], [1]] })).code).toBe('0');
      expect((await ask(ss[1]!.socket, 'pollVote', { id, answers: [[0], [0]] })).code).toBe('31021');
      const live = await waitFor(t.socket, 'pollTally', (x) => x.voters === 2);
      expect(live.counts).toEqual([
        [0, 2, 0],
        [1, 2],
      ]);
      const back = await join(srv, c.students[1]!);
      expect(back.snapshot.myAnswers).toMatchObject({ pollVoted: true, poll: null });
      expect(back.snapshot.tools.poll?.result).toBeNull();

      const db = srv.banshu.platform.database.db;
      const ballots = await db.selectFrom('poll_ballots').selectAll().where('poll_id', '=', id).execute();
      expect(ballots).toHaveLength(2);
      for (const b of ballots) {
        expect(b.answers).toBeNull();
        expect(c.students.map((x) => x.userId)).not.toContain(b.voter);
      }
      const closed = await ask(t.socket, 'pollClose', { id });
      expect(closed.data.status).toBe('closed');
      expect((await db.selectFrom('polls').select('voter_key').where('id', '=', id).executeTakeFirstOrThrow()).voter_key).toBeNull();
      expect((await ask(ss[2]!.socket, 'pollVote', { id, answers: [[0], [0]] })).code).toBe('31020');
      // Nothing stored names a voter: no column of the poll's tables holds a student's id.
      const dump = JSON.stringify(
        await sql`select b.*, c.* from poll_ballots b full join poll_counts c on false where b.poll_id = ${id} or c.poll_id = ${id}`.execute(
          db,
        ),
        (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v),
      );
      for (const s of c.students) expect(dump).not.toContain(`"${s.userId}"`);

      const seen = ss.map((s) => waitFor(s.socket, 'tools', (x) => x.poll?.status === 'published'));
      expect((await ask(t.socket, 'pollPublish', { id })).code).toBe('0');
      for (const x of await Promise.all(seen))
        expect(x.poll).toMatchObject({
          voters: 2,
          result: {
            counts: [
              [0, 2, 0],
              [1, 2],
            ],
          },
        });
      expect((await ask(t.socket, 'pollDismiss', { id })).code).toBe('0');
    });

    it('a named poll keeps each vote with its voter and tells them again', async () => {
      const srv = server();
      const c = await seedClass(srv.banshu.platform.services, { students: 1 });
      const t = await join(srv, c.teacher);
      const s = await join(srv, c.students[0]!);
      const p = await ask(t.socket, 'pollStart', { anonymous: false, questions: [{ text: 'Q', options: ['a', 'b'], multiple: false }] });
      expect((await ask(s.socket, 'pollVote', { id: p.data.id, answers: [[1]] })).data).toEqual({ answers: [[1]] });
      const back = await join(srv, c.students[0]!);
      expect(back.snapshot.myAnswers).toMatchObject({ pollVoted: true, poll: [[1]] });
      expect(back.snapshot.pollPrivate).toBeNull();
      const teacherAgain = await join(srv, c.teacher);
      expect(teacherAgain.snapshot.pollPrivate).toEqual({ id: p.data.id, counts: [[0, 1]], voters: 1 });
    });

    it('countdown and stopwatch run on the server clock: start, pause, reset, clear', async () => {
      const srv = server();
      const c = await seedClass(srv.banshu.platform.services, { students: 1 });
      const t = await join(srv, c.teacher);
      const s = await join(srv, c.students[0]!);
      expect((await ask(t.socket, 'timerSet', { kind: 'countdown', durationMs: 60_000 })).data).toEqual({
        kind: 'countdown',
        running: false,
        durationMs: 60_000,
        elapsedMs: 0,
        startedAt: 0,
      });
      const startAt = srv.clock.now().getTime();
      const started = waitFor(s.socket, 'tools', (x) => x.timer?.running === true);
      expect((await ask(t.socket, 'timerStart')).data).toMatchObject({ running: true, startedAt: startAt });
      const heard = await started;
      expect(heard.serverTime).toBe(startAt);
      expect((await ask(t.socket, 'timerStart')).code).toBe('31020');
      srv.clock.advance(12_345);
      expect((await ask(t.socket, 'timerPause')).data).toMatchObject({ running: false, elapsedMs: 12_345, startedAt: 0 });
      srv.clock.advance(5000);
      expect((await ask(t.socket, 'timerStart')).data).toMatchObject({ running: true, elapsedMs: 12_345, startedAt: startAt + 17_345 });
      srv.clock.advance(60_000);
      expect((await ask(t.socket, 'timerPause')).data).toMatchObject({ elapsedMs: 60_000 }); // a countdown stops at zero
      expect((await ask(t.socket, 'timerStart')).code).toBe('31020');
      expect((await ask(t.socket, 'timerReset')).data).toMatchObject({ elapsedMs: 0, running: false });
      expect((await ask(t.socket, 'timerSet', { kind: 'stopwatch', durationMs: 99 })).data).toMatchObject({
        kind: 'stopwatch',
        durationMs: 0,
      });
      const cleared = waitFor(s.socket, 'tools', (x) => x.timer === null);
      expect((await ask(t.socket, 'timerClear')).code).toBe('0');
      await cleared;
    });

    it('random pick: uniform among the students online now, never the teacher or an observer', async () => {
      const srv = server();
      const c = await seedClass(srv.banshu.platform.services, { students: 4, observer: true });
      const t = await join(srv, c.teacher);
      expect((await ask(t.socket, 'pickRandom')).code).toBe('31023');
      await join(srv, c.observer!);
      expect((await ask(t.socket, 'pickRandom')).code).toBe('31023');
      const online = [await join(srv, c.students[0]!), await join(srv, c.students[1]!), await join(srv, c.students[2]!)];
      // The fourth student is seated but not connected.
      const counts = new Map<string, number>();
      const N = 300;
      for (let i = 0; i < N; i++) {
        srv.clock.advance(60);
        const r = await ask(t.socket, 'pickRandom');
        expect(r.code).toBe('0');
        counts.set(r.data.userId, (counts.get(r.data.userId) ?? 0) + 1);
      }
      expect([...counts.keys()].sort()).toEqual(
        c.students
          .slice(0, 3)
          .map((x) => x.userId)
          .sort(),
      );
      // Each of 3 expects 100 of 300; 60..140 holds with probability > 0.9999 per student.
      for (const n of counts.values()) expect(n).toBeGreaterThan(60);
      const last = await waitFor(online[0]!.socket, 'tools', (x) => x.pick !== null);
      expect(c.students.map((x) => x.userId)).toContain(last.pick!.userId);
    });

    it("the state survives a reconnect, reaches late joiners, stays with the closed class; the room's next class starts empty", async () => {
      const srv = server();
      const c = await seedClass(srv.banshu.platform.services, { students: 2, recorder: true });
      const t = await join(srv, c.teacher);
      const s = await join(srv, c.students[0]!);
      const q = await ask(t.socket, 'quizStart', { options: 2, multiple: false, correct: ['B'], limitSeconds: 0, showOwn: false });
      await ask(s.socket, 'quizAnswer', { id: q.data.id, choice: ['B'] });
      await ask(t.socket, 'timerSet', { kind: 'stopwatch', durationMs: 0 });
      await ask(t.socket, 'timerStart');
      await ask(t.socket, 'buzzerOpen');
      await ask(s.socket, 'buzzerPress', { round: 1 });
      await ask(t.socket, 'reward', { userIds: [c.students[0]!.userId] });
      const want = await held(srv, c.roomNumber, c.teacher);
      s.socket.close();
      const back = await join(srv, c.students[0]!);
      const late = await join(srv, c.students[1]!);
      const rec = await join(srv, c.recorder!);
      const teacherAgain = await join(srv, c.teacher);
      for (const j of [back, late, rec, teacherAgain]) {
        expect(j.snapshot.tools.quiz).toMatchObject({ id: q.data.id, answered: 1 });
        expect(j.snapshot.tools.timer).toMatchObject({ kind: 'stopwatch', running: true });
        expect(j.snapshot.tools.buzzer).toMatchObject({ round: 1, status: 'won', winner: { userId: c.students[0]!.userId, name: 's1' } });
        expect(j.snapshot.tools.rewards).toEqual({ [c.students[0]!.userId]: 1 });
      }
      expect(back.snapshot.myAnswers?.quiz).toEqual(['B']);
      expect(late.snapshot.myAnswers).toEqual({ quiz: null, poll: null, pollVoted: false });
      expect(rec.snapshot.myAnswers).toBeNull();
      expect(teacherAgain.snapshot.toolsPrivate).toMatchObject({ answered: 1, accuracy: 1 });

      const services = srv.banshu.platform.services;
      const db = srv.banshu.platform.database.db;
      const roomId = (await new ToolsRepository(db).room(c.roomNumber))!.id;
      expect((await ask(t.socket, 'endRoom')).code).toBe('0');
      const kept: ClassTools = await services.tools.state(roomId, c.roomNumber);
      expect(JSON.stringify({ tools: kept })).toBe(JSON.stringify({ tools: (JSON.parse(want) as { tools: ClassTools }).tools }));
      // The room number's next class (a number is drawn afresh, so this stands for a reuse): nothing of the last one.
      await sql`insert into rooms (room_number, room_type, create_user, consumption, is_vip, max_member, state, created_at)
        select room_number, room_type, create_user, consumption, is_vip, max_member, 'open', created_at + interval '1 hour'
        from rooms where id = ${roomId}`.execute(db);
      const next = await services.tools.snapshot({ room: c.roomNumber, uid: c.teacher.userId, role: 'creator' });
      expect(next.tools).toEqual(emptyClassTools());
      expect(next.toolsPrivate).toBeNull();
    });
  },
  { realTime: false, env: CLASS_TOOLS_ENV },
);
