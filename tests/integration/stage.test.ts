/**
 * Stage and hands on the room channel (issue 30, ADR 112), on both database engines with real
 * socket.io clients: the hands queue in order with server times, the large class's six seats
 * besides the teacher, stepping down, leave and kick freeing a seat, the state in the join
 * snapshot, the carousel computed from stored times, the rate limit on hands, and a table of
 * forged and out-of-order commands that are refused with a code, change nothing and broadcast
 * nothing.
 */
import { afterEach, expect, it } from 'vitest';
import type { StageEvent } from '#core/contracts/stage.ts';
import { call, signIn } from '#tests/support/api.ts';
import { eachEngine } from '#tests/support/engines-matrix.ts';
import { ask, connectRoom, rawAsk, record, waitFor, type RoomSocket } from '#tests/support/room-client.ts';
import type { TestServer } from '#tests/support/server.ts';
import { until } from '#tests/support/until.ts';

const sockets: RoomSocket[] = [];
afterEach(() => {
  for (const s of sockets.splice(0)) s.close();
});

async function seat(server: TestServer, who: { token: string }, roomNumber: string) {
  const joined = await call(server.url, 'userJoinAgoraRoom', { roomNumber }, { token: who.token });
  expect(joined.code).toBe('0');
  const socket = await connectRoom(server.url, joined.data.imToken);
  sockets.push(socket);
  const snap = await ask(socket, 'joinRoom', {});
  expect(snap.code).toBe('0');
  return { socket, snapshot: snap.data };
}

/** A large class (type 4) with `n` students, students sorted by user id. */
async function largeClass(server: TestServer, n: number) {
  const teacher = await signIn(server);
  // A big-class package: 20 seats.
  await server.banshu.platform.services.billingRepo.grant(teacher.userId, {
    vip_big_room_people_number: 20,
    vip_big_room_time: new Date(server.clock.now().getTime() + 3600_000),
  });
  const created = await call(server.url, 'createRoom', { roomType: 4 }, { token: teacher.token });
  expect(created.code).toBe('0');
  const roomNumber = created.data.roomInfo.roomNumber;
  const t = { ...teacher, ...(await seat(server, teacher, roomNumber)) };
  const students = [];
  for (const who of await Promise.all(Array.from({ length: n }, () => signIn(server)))) {
    students.push({ ...who, ...(await seat(server, who, roomNumber)) });
  }
  students.sort((a, b) => Number(BigInt(a.userId) - BigInt(b.userId)));
  return { roomNumber, teacher: t, students };
}

type Person = { socket: RoomSocket; userId: string };

/** Invites `s` and has them agree; answers the event that put them up. */
async function bringUp(teacher: Person, s: Person): Promise<StageEvent> {
  const up = waitFor(teacher.socket, 'stage', (m) => m.outcome === 'agreed' && m.userIds.includes(s.userId));
  expect((await ask(teacher.socket, 'inviteStage', { userId: s.userId })).code).toBe('0');
  expect((await ask(s.socket, 'answerStage', { agree: true })).code).toBe('0');
  return up;
}

eachEngine(
  'stage and hands',
  (server) => {
    it('hands: raised in order with server times, seen by the teacher and in a late snapshot; lowered by oneself or the teacher; bringing up lowers it', async () => {
      const { roomNumber, teacher, students } = await largeClass(server(), 3);
      const [a, b, c] = students as [(typeof students)[0], (typeof students)[0], (typeof students)[0]];
      expect(teacher.snapshot.stage).toMatchObject({ seats: 6, onStage: [], invited: [], hands: [], carousel: { seconds: 0, nextAt: 0 } });
      const t0 = server().clock.now().getTime();
      for (const [who, step] of [
        [b, 0],
        [a, 5_000],
        [c, 7_000],
      ] as const) {
        server().clock.advance(step);
        const seen = waitFor(teacher.socket, 'stage', (m) => m.outcome === 'hand' && m.userIds.includes(who.userId));
        expect((await ask(who.socket, 'raiseHand')).code).toBe('0');
        await seen;
      }
      const queue = (await ask(teacher.socket, 'lowerHand', { userId: teacher.userId })).data.hands;
      expect(queue.map((h) => h.userId)).toEqual([b.userId, a.userId, c.userId]);
      expect(queue.map((h) => h.raisedAt - t0)).toEqual([0, 5_000, 12_000]);
      // Raising again changes nothing (the place in the queue is kept).
      expect((await ask(b.socket, 'raiseHand')).data.hands[0]).toMatchObject({ userId: b.userId, raisedAt: t0 });
      // A late joiner (a reload) sees the same queue.
      const again = await seat(server(), teacher, roomNumber);
      expect(again.snapshot.stage.hands.map((h) => h.userId)).toEqual([b.userId, a.userId, c.userId]);
      // A lowers their own; the teacher lowers C's.
      expect((await ask(a.socket, 'lowerHand', {})).data.hands.map((h) => h.userId)).toEqual([b.userId, c.userId]);
      const lowered = waitFor(c.socket, 'stage', (m) => m.outcome === 'hand' && !m.hands.some((h) => h.userId === c.userId));
      expect((await ask(teacher.socket, 'lowerHand', { userId: c.userId })).code).toBe('0');
      await lowered;
      // Bringing B up takes B's hand down; on stage, B raises no hand.
      const up = await bringUp(teacher, b);
      expect(up.hands).toEqual([]);
      expect(up.onStage.map((s) => s.userId)).toEqual([b.userId]);
      expect((await ask(b.socket, 'raiseHand')).code).toBe('5');
    });

    it('hands are rate limited per person (31031), not per room', async () => {
      const { students } = await largeClass(server(), 2);
      const [a, b] = students as [(typeof students)[0], (typeof students)[0]];
      const codes: string[] = [];
      for (let i = 0; i < 7; i++) {
        codes.push((await ask(a.socket, 'raiseHand')).code);
        await ask(a.socket, 'lowerHand', {});
      }
      expect(codes).toEqual(['0', '0', '0', '0', '0', '0', '31031']);
      expect((await ask(b.socket, 'raiseHand')).code).toBe('0');
      server().clock.advance(10_001);
      expect((await ask(a.socket, 'raiseHand')).code).toBe('0');
    });

    it('a large class: six seats besides the teacher; the seventh is 31030; stepping down, leaving, a kick and everyone down free seats', async () => {
      const { roomNumber, teacher, students } = await largeClass(server(), 8);
      for (const s of students.slice(0, 6)) await bringUp(teacher, s);
      const full = await ask(teacher.socket, 'inviteStage', { userId: students[6]!.userId });
      expect(full).toMatchObject({ code: '31030', msg: '台上座位已满，请先请一位学生下台' });
      // An unanswered invitation holds a seat too.
      const [s0, s1, s2] = students as [(typeof students)[0], (typeof students)[0], (typeof students)[0]];
      const stepped = waitFor(teacher.socket, 'stage', (m) => m.outcome === 'down' && m.off.includes(s0.userId));
      expect((await ask(s0.socket, 'stageDown', { userId: s0.userId })).code).toBe('0');
      expect((await stepped).onStage).toHaveLength(5);
      expect((await ask(teacher.socket, 'inviteStage', { userId: students[6]!.userId })).code).toBe('0');
      expect((await ask(teacher.socket, 'inviteStage', { userId: students[7]!.userId })).code).toBe('31030');
      // S1 leaves the class: the seat is free.
      const left = waitFor(teacher.socket, 'stage', (m) => m.outcome === 'down' && m.off.includes(s1.userId));
      expect((await ask(s1.socket, 'leaveRoom')).code).toBe('0');
      await left;
      // S2 is kicked: the seat is free.
      const kicked = waitFor(teacher.socket, 'stage', (m) => m.outcome === 'down' && m.off.includes(s2.userId));
      expect((await ask(teacher.socket, 'kickout', { userId: s2.userId })).code).toBe('0');
      await kicked;
      expect((await ask(teacher.socket, 'inviteStage', { userId: students[7]!.userId })).code).toBe('0');
      // The state is in the database: a reload sees three on stage and two invited.
      const reload = await seat(server(), teacher, roomNumber);
      expect(reload.snapshot.stage.onStage.map((s) => s.userId)).toEqual(students.slice(3, 6).map((s) => s.userId));
      expect(reload.snapshot.stage.invited.map((s) => s.userId)).toEqual([students[6]!.userId, students[7]!.userId]);
      // Everyone down: the stage is empty and everyone who was on it is named.
      const all = waitFor(students[7]!.socket, 'stage', (m) => m.outcome === 'down' && m.onStage.length === 0);
      expect((await ask(teacher.socket, 'stageAllDown')).code).toBe('0');
      const ev = await all;
      expect(ev.invited).toEqual([]);
      expect([...ev.off].sort()).toEqual(
        students
          .slice(3, 6)
          .map((s) => s.userId)
          .sort(),
      );
    });

    it('invitations sent all at once never give more seats than the stage has', async () => {
      const { teacher, students } = await largeClass(server(), 9);
      const codes = await Promise.all(students.map((s) => ask(teacher.socket, 'inviteStage', { userId: s.userId }).then((a) => a.code)));
      expect(codes.filter((c) => c === '0')).toHaveLength(6);
      expect(codes.filter((c) => c === '31030')).toHaveLength(3);
      const stage = (await ask(teacher.socket, 'lowerHand', { userId: teacher.userId })).data;
      expect(stage.invited).toHaveLength(6);
    });

    it('forged and out-of-order commands are refused with a code, change nothing and broadcast nothing', async () => {
      const { teacher, students } = await largeClass(server(), 3);
      const [a, b, c] = students as [(typeof students)[0], (typeof students)[0], (typeof students)[0]];
      await bringUp(teacher, a);
      expect((await ask(c.socket, 'raiseHand')).code).toBe('0');
      expect((await ask(teacher.socket, 'inviteStage', { userId: b.userId })).code).toBe('0');
      const before = (await ask(teacher.socket, 'lowerHand', { userId: teacher.userId })).data;
      const heard = [teacher, ...students].map((p) => record(p.socket, 'stage'));
      const table: Array<[string, Person, string, object, string]> = [
        ['a student invites', c, 'inviteStage', { userId: c.userId }, '31004'],
        ['a student takes another down', c, 'stageDown', { userId: a.userId }, '31004'],
        ['a student withdraws another’s invitation', c, 'stageDown', { userId: b.userId }, '31004'],
        ['a student takes everyone down', a, 'stageAllDown', {}, '31004'],
        ['a student lowers another’s hand', a, 'lowerHand', { userId: c.userId }, '31004'],
        ['a student starts the carousel', a, 'setCarousel', { seconds: 30 }, '31004'],
        ['a student answers another’s invitation', c, 'answerStage', { agree: true }, '31004'],
        ['someone on stage answers again', a, 'answerStage', { agree: false }, '31004'],
        ['the teacher answers an invitation', teacher, 'answerStage', { agree: true }, '31004'],
        ['the teacher raises a hand', teacher, 'raiseHand', {}, '31004'],
        ['the teacher invites themself', teacher, 'inviteStage', { userId: teacher.userId }, '5'],
        ['the teacher invites someone on stage', teacher, 'inviteStage', { userId: a.userId }, '5'],
        ['the teacher invites someone invited', teacher, 'inviteStage', { userId: b.userId }, '5'],
        ['the teacher invites a stranger', teacher, 'inviteStage', { userId: '999999' }, '5'],
        ['a carousel of 5 s', teacher, 'setCarousel', { seconds: 5 }, '5'],
        ['a malformed user id', teacher, 'stageDown', { userId: 'x' }, '5'],
        ['an unknown field', c, 'raiseHand', { userId: a.userId }, '5'],
      ];
      const codes = [];
      for (const [what, who, request, payload] of table) codes.push([what, (await rawAsk(who.socket, request, payload)).code]);
      expect(codes).toEqual(table.map(([what, , , , code]) => [what, code]));
      // Nothing changed...
      expect((await ask(teacher.socket, 'lowerHand', { userId: teacher.userId })).data).toEqual(before);
      // ... and nothing was told: the next real change is the first event everyone hears.
      const sentinel = waitFor(teacher.socket, 'stage', (m) => m.outcome === 'rejected');
      expect((await ask(b.socket, 'answerStage', { agree: false })).code).toBe('0');
      await sentinel;
      await until('everyone heard the refusal', () => heard.every((h) => h.length > 0), 5000);
      for (const h of heard) expect(h.map((e) => e.outcome)).toEqual(['rejected']);
    });
  },
  { env: { HANDS_PER_MINUTE: '6' } },
);

eachEngine(
  'the stage carousel',
  (server) => {
    it('every N seconds the next students go up, computed from stored times (no timer needed); turning it off stops it', async () => {
      const { teacher, students } = await largeClass(server(), 5);
      const ids = students.map((s) => s.userId);
      const on = await ask(teacher.socket, 'setCarousel', { seconds: 30 });
      expect(on.code).toBe('0');
      expect(on.data.carousel).toEqual({ seconds: 30, nextAt: server().clock.now().getTime() + 30_000 });
      const turns: string[][] = [];
      for (let i = 0; i < 3; i++) {
        const turn = waitFor(teacher.socket, 'stage', (m) => m.outcome === 'carousel');
        // The test's clock moves; the timers (real time, 30 s) never fire in this test: a read settles the turn.
        server().clock.advance(30_001);
        expect((await ask(teacher.socket, 'lowerHand', { userId: teacher.userId })).code).toBe('0');
        const ev = await turn;
        turns.push(ev.onStage.map((s) => s.userId).sort());
        expect(ev.userIds.every((u) => ev.onStage.some((s) => s.userId === u))).toBe(true);
      }
      expect(turns).toEqual([[ids[0], ids[1]], [ids[2], ids[3]], [ids[0], ids[4]].sort()]);
      const off = await ask(teacher.socket, 'setCarousel', { seconds: 0 });
      expect(off.data.carousel).toEqual({ seconds: 0, nextAt: 0 });
      server().clock.advance(60_000);
      const still = await ask(teacher.socket, 'lowerHand', { userId: teacher.userId });
      expect(still.data.onStage.map((s) => s.userId).sort()).toEqual(turns[2]);
    });
  },
  { env: { STAGE_SEATS_LARGE_CLASS: '2' } },
);
