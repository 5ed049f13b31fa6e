import { afterEach, expect, it } from 'vitest';
import { call, signIn } from '#tests/support/api.ts';
import { eachEngine } from '#tests/support/engines-matrix.ts';
import { ask, connectRoom, rawAsk, record, waitFor, type RoomSocket } from '#tests/support/room-client.ts';
import type { TestServer } from '#tests/support/server.ts';

const sockets: RoomSocket[] = [];
afterEach(() => {
  for (const s of sockets.splice(0)) s.close();
});

async function classroom(server: TestServer, roomType = 2, students = 2) {
  const teacher = await signIn(server);
  const created = await call(server.url, roomType === 1 ? 'createAgoraRoom' : 'createRoom', { roomType }, { token: teacher.token });
  const roomNumber = created.data.roomInfo.roomNumber;
  const people = [];
  for (const who of [teacher, ...(await Promise.all(Array.from({ length: students }, () => signIn(server))))]) {
    const joined = await call(server.url, 'userJoinAgoraRoom', { roomNumber }, { token: who.token });
    expect(joined.code).toBe('0');
    const socket = await connectRoom(server.url, joined.data.imToken);
    sockets.push(socket);
    const snap = await ask(socket, 'joinRoom', {});
    expect(snap.code).toBe('0');
    people.push({ ...who, socket, imToken: joined.data.imToken, snapshot: snap.data });
  }
  const [t, ...s] = people;
  return { roomNumber, teacher: t!, students: s };
}

eachEngine(
  'room channel',
  (server) => {
    it('refuses connections without a valid token', async () => {
      await expect(connectRoom(server().url, 'nope')).rejects.toMatchObject({ code: '21001' });
      const { teacher } = await classroom(server(), 2, 0);
      await expect(connectRoom(server().url, `${teacher.imToken.slice(0, -3)}abc`)).rejects.toMatchObject({ code: '21001' });
    });

    it('joins with the whole state and tells everyone who is here', async () => {
      const { teacher, students, roomNumber } = await classroom(server(), 2, 1);
      const snap = students[0]!.snapshot;
      expect(snap.roomInfo.roomNumber).toBe(roomNumber);
      expect(snap.you.role).toBe('member');
      expect(snap.teacherOnline).toBe(true);
      expect(snap.members.map((m) => m.role).sort()).toEqual(['creator', 'member']);
      const grown = waitFor(teacher.socket, 'members', (p) => p.members.length === 3);
      const late = await signIn(server());
      const joined = await call(server().url, 'userJoinAgoraRoom', { roomNumber }, { token: late.token });
      const socket = await connectRoom(server().url, joined.data.imToken);
      sockets.push(socket);
      expect((await ask(socket, 'joinRoom')).code).toBe('0');
      const members = await grown;
      expect(members.participants).toBe(3);
      expect(members.members.find((m) => m.userId === late.userId)).toMatchObject({ role: 'member', online: true });
      const shrunk = waitFor(teacher.socket, 'members', (p) => p.members.length === 2);
      socket.close();
      await shrunk;
    });

    it('the creator switches the view: saved, then broadcast; a student may not', async () => {
      const { teacher, students, roomNumber } = await classroom(server());
      const seenByTeacher = record(teacher.socket, 'customRoomEvent');
      for (const field of [
        { showState: 'wb' },
        { pptId: 'abc' },
        { pptCurrentPage: 3 },
        { wbPower: '1' },
        { roomExtend: '{"colour":2}' },
      ] as const) {
        const refused = await ask(students[0]!.socket, 'customRoomEvent', field);
        expect(refused.code, JSON.stringify(field)).toBe('31004');
      }
      const got = Promise.all(students.map((s) => waitFor(s.socket, 'customRoomEvent', (p) => p.showState === 'ppt')));
      const echo = waitFor(teacher.socket, 'customRoomEvent', (p) => p.showState === 'ppt');
      const ok = await ask(teacher.socket, 'customRoomEvent', { showState: 'ppt', pptCurrentPage: 2 });
      expect(ok.code).toBe('0');
      const patches = await got;
      // Broadcasts arrive in order: nothing of the refused patches came before this one.
      await echo;
      expect(seenByTeacher.filter((p) => p.showState !== 'ppt')).toEqual([]);
      expect(patches[0]).toMatchObject({ showState: 'ppt', pptCurrentPage: 2, by: teacher.userId });
      const info = await call(server().url, 'getRoomInfoByRoomNumber', { roomNumber });
      expect(info.data.roomInfo).toMatchObject({ showState: 'ppt', pptCurrentPage: 2 });
      // Bad values are refused whoever sends them.
      for (const bad of [{ showState: 'hack' }, { pptCurrentPage: -1 }, { roomExtend: 'not json' }, { wbPower: 'yes' }, { nope: 1 }, {}]) {
        expect((await rawAsk(teacher.socket, 'customRoomEvent', bad)).code, JSON.stringify(bad)).toBe('5');
      }
      // Anyone reports their own network quality.
      const q = waitFor(teacher.socket, 'members', (p) =>
        p.members.some((m) => m.userId === students[0]!.userId && m.networkQuality === 3),
      );
      expect((await ask(students[0]!.socket, 'customRoomEvent', { networkQuality: 3 })).code).toBe('0');
      await q;
    });

    it('a refused network quality is never stored nor shown to others', async () => {
      const { teacher, students } = await classroom(server(), 2, 2);
      const [a, b] = [students[0]!, students[1]!];
      expect((await ask(a.socket, 'customRoomEvent', { networkQuality: 1e300 })).code).toBe('5');
      // Valid on its own, but the patch as a whole is refused: nothing of it is kept either.
      expect((await ask(a.socket, 'customRoomEvent', { networkQuality: 3, showState: 'wb' })).code).toBe('31004');
      const next = waitFor(teacher.socket, 'members', (p) => p.members.some((m) => m.userId === b.userId && m.networkQuality === 2));
      expect((await ask(b.socket, 'customRoomEvent', { networkQuality: 2 })).code).toBe('0');
      const shown = (await next).members.find((m) => m.userId === a.userId);
      expect(shown?.networkQuality).toBe(0);
    });

    it('chat at a steady line a second never loses a line; a flood is still cut', async () => {
      const { teacher } = await classroom(server(), 2, 0);
      // One line a second on average, each up to 0.2 s early or late (a person typing, a network).
      const times = Array.from({ length: 60 }, (_, i) => i * 1000 + (((i * 7919) % 401) - 200));
      const codes: string[] = [];
      let at = times[0]!;
      for (const t of times) {
        server().clock.advance(t - at);
        at = t;
        codes.push((await ask(teacher.socket, 'chat', { text: `t${t}` })).code);
      }
      expect(codes.filter((c) => c !== '0')).toEqual([]);
      server().clock.advance(10_000);
      const flood: string[] = [];
      for (let i = 0; i < 15; i++) flood.push((await ask(teacher.socket, 'chat', { text: `f${i}` })).code);
      expect(flood.filter((c) => c === '0')).toHaveLength(10);
      expect(flood.slice(10)).toEqual(Array<string>(5).fill('31008'));
    });

    it('the /api room-info save goes through the same checks', async () => {
      const { teacher, students, roomNumber } = await classroom(server(), 2, 1);
      const seen = waitFor(students[0]!.socket, 'customRoomEvent', (p) => p.showState === 'wb');
      const ok = await call(
        server().url,
        'updateRoomInfoByRoomNumber',
        { roomNumber, showState: 'wb' },
        { token: teacher.token, form: true },
      );
      expect(ok.data.roomInfo.showState).toBe('wb');
      await seen;
      const refused = await call(server().url, 'updateRoomInfoByRoomNumber', { roomNumber, showState: '' }, { token: students[0]!.token });
      expect(refused.code).toBe('31004');
      const stranger = await signIn(server());
      expect((await call(server().url, 'updateRoomInfoByRoomNumber', { roomNumber, showState: '' }, { token: stranger.token })).code).toBe(
        '31004',
      );
    });

    it('chat: both ways, history on join, length and rate rules', async () => {
      const { teacher, students, roomNumber } = await classroom(server(), 2, 1);
      const s = students[0]!;
      const toStudent = waitFor(s.socket, 'messageevent', (m) => m.text === '大家好');
      expect((await ask(teacher.socket, 'chat', { text: '  大家好  ' })).code).toBe('0');
      expect((await toStudent).uid).toBe(teacher.userId);
      const toTeacher = waitFor(teacher.socket, 'messageevent', (m) => m.text.includes('line'));
      expect((await ask(s.socket, 'chat', { text: 'line1\nline2<b>' })).code).toBe('0');
      expect((await toTeacher).text).toBe('line1\nline2<b>');
      expect((await ask(s.socket, 'chat', { text: '   ' })).code).toBe('5');
      expect((await ask(s.socket, 'chat', { text: 'x'.repeat(31) })).code).toBe('5');
      expect((await ask(s.socket, 'chat', { text: '字'.repeat(30) })).code).toBe('0');
      expect((await rawAsk(s.socket, 'chat', { text: 42 })).code).toBe('5');
      // Ten lines in ten seconds, then '31008' until the window slides.
      const codes: string[] = [];
      for (let i = 0; i < 9; i++) codes.push((await ask(teacher.socket, 'chat', { text: `n${i}` })).code);
      expect(codes).toEqual([...Array<string>(9).fill('0')]);
      expect((await ask(teacher.socket, 'chat', { text: 'one too many' })).code).toBe('31008');
      server().clock.advance(10_001);
      expect((await ask(teacher.socket, 'chat', { text: 'again' })).code).toBe('0');
      // A newcomer gets the history.
      const late = await signIn(server());
      const joined = await call(server().url, 'userJoinAgoraRoom', { roomNumber }, { token: late.token });
      const socket = await connectRoom(server().url, joined.data.imToken);
      sockets.push(socket);
      const snap = await ask(socket, 'joinRoom');
      expect(snap.data.messages.map((m) => m.text)).toEqual([
        '大家好',
        'line1\nline2<b>',
        '字'.repeat(30),
        ...Array.from({ length: 9 }, (_, i) => `n${i}`),
        'again',
      ]);
    });

    it('a one-seat stage (the old microphone): one invitation at a time; agree, decline, take down and time out', async () => {
      const { teacher, students } = await classroom(server());
      const [a, b] = students as [(typeof students)[0], (typeof students)[0]];
      expect((await ask(a.socket, 'inviteStage', { userId: b.userId })).code).toBe('31004');
      const invited = waitFor(a.socket, 'stage', (m) => m.outcome === 'invited');
      const first = await ask(teacher.socket, 'inviteStage', { userId: a.userId });
      expect(first.code).toBe('0');
      expect((await invited).invited.map((i) => i.userId)).toEqual([a.userId]);
      const busy = await ask(teacher.socket, 'inviteStage', { userId: b.userId });
      expect(busy).toMatchObject({ code: '31030', msg: '台上座位已满，请先请一位学生下台' });
      expect((await ask(b.socket, 'answerStage', { agree: true })).code).toBe('31004');
      const connected = waitFor(teacher.socket, 'stage', (m) => m.outcome === 'agreed');
      expect((await ask(a.socket, 'answerStage', { agree: true })).code).toBe('0');
      expect(await connected).toMatchObject({ userIds: [a.userId], onStage: [{ userId: a.userId }], invited: [] });
      const stopped = waitFor(a.socket, 'stage', (m) => m.outcome === 'down');
      expect((await ask(teacher.socket, 'stageDown', { userId: a.userId })).code).toBe('0');
      expect(await stopped).toMatchObject({ onStage: [], off: [a.userId] });

      const rejected = waitFor(teacher.socket, 'stage', (m) => m.outcome === 'rejected');
      expect((await ask(teacher.socket, 'inviteStage', { userId: b.userId })).code).toBe('0');
      expect((await ask(b.socket, 'answerStage', { agree: false })).code).toBe('0');
      expect((await rejected).userIds).toEqual([b.userId]);

      const failed = waitFor(teacher.socket, 'stage', (m) => m.outcome === 'failed', 5000);
      expect((await ask(teacher.socket, 'inviteStage', { userId: a.userId })).code).toBe('0');
      // The test's clock stands still: the invitation's stored deadline passes when it is moved on.
      server().clock.advance(1_001);
      expect(await failed).toMatchObject({ invited: [], onStage: [], userIds: [a.userId] });
      expect((await ask(a.socket, 'answerStage', { agree: true })).code).toBe('31004');
    });

    it('kick-out: the student is told, disconnected, and cannot come back', async () => {
      const { teacher, students, roomNumber } = await classroom(server(), 2, 1);
      const s = students[0]!;
      expect((await ask(s.socket, 'kickout', { userId: teacher.userId })).code).toBe('31004');
      const told = waitFor(s.socket, 'kickout');
      const gone = new Promise<void>((resolve) => s.socket.once('disconnect', () => resolve()));
      expect((await ask(teacher.socket, 'kickout', { userId: s.userId })).code).toBe('0');
      expect(await told).toEqual({ userId: s.userId });
      await gone;
      // The refusal names the case, so the page can say 'removed' on every reopen (ADR 091).
      const again = await call(server().url, 'userJoinAgoraRoom', { roomNumber }, { token: s.token });
      expect(again).toMatchObject({ code: '31004', reason: 'removed', data: null });
      await expect(connectRoom(server().url, s.imToken)).rejects.toMatchObject({ code: '31004' });
      // Other 31004 refusals carry no reason: a student may not share a screen.
      const other = await signIn(server());
      const screen = await call(server().url, 'userJoinAgoraRoom', { roomNumber, userType: '2' }, { token: other.token });
      expect(screen.code).toBe('31004');
      expect(screen).not.toHaveProperty('reason');
      expect((await ask(teacher.socket, 'kickout', { userId: s.userId })).code).toBe('31005');
    });

    it('the cap holds on the channel: a freed seat taken by someone else stays taken', async () => {
      const { teacher, students, roomNumber } = await classroom(server(), 1, 1); // free mini class: teacher + 1
      const first = students[0]!;
      // The seat is free once the server handled the disconnect (the members broadcast follows it).
      const freed = waitFor(teacher.socket, 'members', (p) => !p.members.some((m) => m.userId === first.userId));
      first.socket.close();
      await freed;
      const other = await signIn(server());
      expect((await call(server().url, 'userJoinAgoraRoom', { roomNumber }, { token: other.token })).code).toBe('0');
      const again = await connectRoom(server().url, first.imToken);
      sockets.push(again);
      expect((await ask(again, 'joinRoom')).code).toBe('31003');
      expect((await ask(again, 'chat', { text: 'hi' })).code).toBe('31004');
    });

    it('rooms are sealed from each other', async () => {
      const a = await classroom(server(), 2, 1);
      const b = await classroom(server(), 2, 1);
      const leaked = record(a.students[0]!.socket, 'messageevent');
      const leakedPatch = record(a.students[0]!.socket, 'customRoomEvent');
      expect((await ask(b.teacher.socket, 'chat', { text: 'room B only' })).code).toBe('0');
      expect((await ask(b.teacher.socket, 'customRoomEvent', { showState: 'wb' })).code).toBe('0');
      // A token of room A speaks for room A only: a payload cannot even name another room (the
      // contract refuses extra keys), and a line said in A stays in A.
      expect((await rawAsk(a.students[0]!.socket, 'chat', { text: 'hello', room: b.roomNumber })).code).toBe('5');
      const own = waitFor(a.students[0]!.socket, 'messageevent', (m) => m.text === 'hello A');
      expect((await ask(a.students[0]!.socket, 'chat', { text: 'hello A' })).code).toBe('0');
      await own;
      expect(leaked.map((m) => m.text)).toEqual(['hello A']);
      expect(leakedPatch).toEqual([]);
      const bHistory = (await ask(b.students[0]!.socket, 'joinRoom')).data.messages.map((m) => m.text);
      expect(bHistory).toEqual(['room B only']);
    });

    it('observers come by the creator link, take no seat and cannot speak', async () => {
      const { teacher, roomNumber } = await classroom(server(), 1, 1); // full free mini class
      const link = await call(server().url, 'createObserverLink', { roomNumber }, { token: teacher.token });
      expect(link.data.url).toMatch(new RegExp(`/${roomNumber}\\?userType=3&ot=`));
      const ot = new URL(link.data.url).searchParams.get('ot');
      expect((await call(server().url, 'userJoinAgoraRoom', { roomNumber, userType: '3' })).code).toBe('31004');
      expect((await call(server().url, 'userJoinAgoraRoom', { roomNumber, userType: '3', ot: `${ot}x` })).code).toBe('31004');
      const joined = await call(server().url, 'userJoinAgoraRoom', { roomNumber, userType: '3', ot });
      expect(joined.data).toMatchObject({ role: 'observer', userType: '3' });
      expect(joined.setCookie).toMatch(/banshu_session=/);
      const socket = await connectRoom(server().url, joined.data.imToken);
      sockets.push(socket);
      const snap = await ask(socket, 'joinRoom');
      expect(snap.code).toBe('0');
      expect(snap.data.members.map((m) => m.role)).not.toContain('observer');
      expect((await ask(socket, 'chat', { text: 'hi' })).code).toBe('31004');
      expect((await ask(socket, 'customRoomEvent', { showState: 'wb' })).code).toBe('31004');
      const student = await signIn(server());
      expect((await call(server().url, 'createObserverLink', { roomNumber }, { token: student.token })).code).toBe('31004');
    });

    it('the creator ends the class for everyone', async () => {
      const { teacher, students, roomNumber } = await classroom(server(), 2, 1);
      expect((await ask(students[0]!.socket, 'endRoom')).code).toBe('31004');
      const closed = waitFor(students[0]!.socket, 'roomClosed');
      expect((await ask(teacher.socket, 'endRoom')).code).toBe('0');
      expect(await closed).toEqual({ reason: 'ended' });
      expect((await call(server().url, 'getRoomInfoByRoomNumber', { roomNumber })).code).toBe('31002');
      await expect(connectRoom(server().url, students[0]!.imToken)).rejects.toMatchObject({ code: '31009' });
    });

    it('the trial lifts a free mini class to the paid cap once, for its minutes', async () => {
      const { teacher, students, roomNumber } = await classroom(server(), 1, 1);
      const extra = await signIn(server());
      expect((await call(server().url, 'userJoinAgoraRoom', { roomNumber }, { token: extra.token })).code).toBe('31003');
      expect((await ask(students[0]!.socket, 'startTrial')).code).toBe('31004');
      const lifted = waitFor(students[0]!.socket, 'customRoomEvent', (p) => p.maxMember === 4);
      expect((await ask(teacher.socket, 'startTrial')).code).toBe('0');
      await lifted;
      expect((await call(server().url, 'userJoinAgoraRoom', { roomNumber }, { token: extra.token })).code).toBe('0');
      expect((await ask(teacher.socket, 'startTrial')).code).toBe('31004');
      server().clock.advance(11 * 60_000);
      const late = await signIn(server());
      expect((await call(server().url, 'userJoinAgoraRoom', { roomNumber }, { token: late.token })).code).toBe('31003');
    });

    it('audio classes end after their hour; idle rooms close after a day', async () => {
      const audio = await classroom(server(), 3, 1);
      const idle = await signIn(server());
      const quiet = await call(server().url, 'createRoom', { roomType: 2 }, { token: idle.token });
      const closed = waitFor(audio.students[0]!.socket, 'roomClosed');
      server().clock.advance(61 * 60_000);
      expect(await server().banshu.platform.services.live.closeExpired()).toBe(1);
      expect(await closed).toEqual({ reason: 'expired' });
      server().clock.advance(24 * 3600_000);
      expect(await server().banshu.platform.services.live.closeExpired()).toBe(1);
      expect((await call(server().url, 'getRoomInfoByRoomNumber', { roomNumber: quiet.data.roomInfo.roomNumber })).code).toBe('31002');
    });

    it('a student who leaves frees the seat; the teacher leaving resets the view', async () => {
      const { teacher, students, roomNumber } = await classroom(server(), 2, 1);
      expect((await ask(teacher.socket, 'customRoomEvent', { showState: 'wb' })).code).toBe('0');
      const reset = waitFor(students[0]!.socket, 'customRoomEvent', (p) => p.showState === '');
      const members = waitFor(students[0]!.socket, 'members', (p) => p.teacherOnline === false);
      expect((await ask(teacher.socket, 'leaveRoom')).code).toBe('0');
      await reset;
      await members;
      teacher.socket.close();
      expect((await call(server().url, 'getRoomInfoByRoomNumber', { roomNumber })).data.roomInfo.showState).toBe('');
    });
  },
  { env: { MIC_TIMEOUT_SECONDS: '1', STAGE_SEATS_OTHER: '1' } },
);
