/**
 * Class modes on the wire (issue 27, ADR 099): the room channel refuses a mode switch from anyone
 * but the creator, and the media node refuses a student's microphone in lecture mode (publish and
 * unmute) until the teacher switches back to discuss or invites them; the trial follows the same
 * rule as the button (types 1 and 4). Real server, real room sockets, werift peers for browsers.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { call, signIn } from '#tests/support/api.ts';
import { MediaTestPeer } from '#tests/support/media-client.ts';
import { ask, connectRoom, rawAsk, waitFor, type RoomSocket } from '#tests/support/room-client.ts';
import { startTestServer, type TestServer } from '#tests/support/server.ts';

let server: TestServer;
const open: Array<MediaTestPeer | RoomSocket> = [];
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.close();
});
afterEach(() => {
  for (const p of open.splice(0)) p.close();
});

interface Person {
  userId: string;
  token: string;
  socket: RoomSocket;
  peer: MediaTestPeer;
  mediaToken: string;
}

/** A paid mini class (type 1) or another type, its teacher and `students`, each on the room channel and joined on the media node. */
async function classroom(roomType: 1 | 3 | 4, students: number) {
  const teacher = await signIn(server);
  if (roomType === 1)
    await server.banshu.platform.services.billingRepo.grant(teacher.userId, { vip_room_time: new Date(Date.now() + 86400_000) });
  const created =
    roomType === 1
      ? await call(server.url, 'createAgoraRoom', { roomType: 1, consumption: 'on' }, { token: teacher.token })
      : await call(server.url, 'createRoom', { roomType }, { token: teacher.token });
  expect(created.code).toBe('0');
  const roomNumber = created.data.roomInfo.roomNumber;
  expect(created.data.roomInfo.mode).toBe('discuss');
  const people: Person[] = [];
  for (const who of [teacher, ...(await Promise.all(Array.from({ length: students }, () => signIn(server))))]) {
    people.push(await enter(roomNumber, who));
  }
  const [t, ...s] = people;
  return { roomNumber, teacher: t!, students: s };
}

async function enter(roomNumber: string, who: { userId: string; token: string }): Promise<Person> {
  const joined = await call(server.url, 'userJoinAgoraRoom', { roomNumber }, { token: who.token });
  expect(joined.code).toBe('0');
  const socket = await connectRoom(server.url, joined.data.imToken);
  open.push(socket);
  expect((await ask(socket, 'joinRoom', {})).code).toBe('0');
  const peer = await MediaTestPeer.connect(joined.data.mediaUrl!);
  open.push(peer);
  await peer.ok('join', { token: joined.data.mediaToken! });
  return { ...who, socket, peer, mediaToken: joined.data.mediaToken as string };
}

describe('class modes', () => {
  it('refuses a forged mode switch from a student; the creator switches and everyone hears it', async () => {
    const { roomNumber, teacher, students } = await classroom(1, 1);
    const student = students[0]!;
    const forged = await ask(student.socket, 'setMode', { mode: 'lecture' });
    expect(forged.code).toBe('31004');
    // A mode that is not one is refused by the contract's schema.
    expect((await rawAsk(student.socket, 'setMode', { mode: 'silent' })).code).toBe('5');
    expect((await rawAsk(teacher.socket, 'setMode', { mode: 'silent' })).code).toBe('5');
    const info = await call(server.url, 'getRoomInfoByRoomNumber', { roomNumber }, { token: teacher.token });
    expect(info.data.roomInfo.mode).toBe('discuss');

    const heard = waitFor(student.socket, 'customRoomEvent', (p: { mode?: string }) => p.mode === 'lecture');
    expect(await ask(teacher.socket, 'setMode', { mode: 'lecture' })).toMatchObject({ code: '0', data: { mode: 'lecture' } });
    expect(await heard).toMatchObject({ mode: 'lecture', by: teacher.userId });
    const after = await call(server.url, 'getRoomInfoByRoomNumber', { roomNumber }, { token: student.token });
    expect(after.data.roomInfo.mode).toBe('lecture');
  });

  it('lecture mode: the node closes a student’s microphone for everyone and refuses their publish and unmute until discuss or an invitation', async () => {
    const { roomNumber, teacher, students } = await classroom(1, 2);
    const [a, b] = students as [Person, Person];
    const micA = await a.peer.publish('mic');
    await teacher.peer.waitNote('trackAdded', (n) => n.track.trackId === micA.trackId);

    const removedForTeacher = teacher.peer.waitNote('trackRemoved', (n) => n.trackId === micA.trackId);
    const removedForB = b.peer.waitNote('trackRemoved', (n) => n.trackId === micA.trackId);
    const rightsA = a.peer.waitNote('rightsChanged', (n) => !n.rights.includes('mic'));
    const t0 = Date.now();
    expect((await ask(teacher.socket, 'setMode', { mode: 'lecture' })).code).toBe('0');
    await Promise.all([removedForTeacher, removedForB, rightsA]);
    expect(Date.now() - t0).toBeLessThan(1000);
    expect((await rightsA).rights).toEqual(['camera']);

    // Unmute (the old track) and a new publication are both refused on the node.
    expect((await a.peer.req('pause', { trackId: micA.trackId, paused: false })).code).toBe('33003');
    await expect(a.peer.publish('mic')).rejects.toMatchObject({ code: '33002' });
    // The teacher and the camera are untouched.
    await teacher.peer.publish('mic');
    await a.peer.publish('camera');
    // A fresh token in lecture mode carries no voice either (a reload, a reconnect).
    const again = await call(server.url, 'createAgoraToken', { roomNumber }, { token: b.token });
    expect((await b.peer.ok('refresh', { token: again.data.mediaToken })).rights).toEqual(['camera']);

    // The teacher brings A on stage: once A agrees, A may speak; B still may not.
    expect((await ask(teacher.socket, 'inviteStage', { userId: a.userId })).code).toBe('0');
    const micBack = a.peer.waitNote('rightsChanged', (n) => n.rights.includes('mic'));
    expect((await ask(a.socket, 'answerStage', { agree: true })).code).toBe('0');
    await micBack;
    const spoke = await a.peer.publish('mic');
    expect((await a.peer.req('pause', { trackId: spoke.trackId, paused: false })).code).toBe('0');
    await expect(b.peer.publish('mic')).rejects.toMatchObject({ code: '33002' });

    // A steps down: A's microphone closes again.
    const closedAgain = a.peer.waitNote('rightsChanged', (n) => !n.rights.includes('mic'));
    expect((await ask(a.socket, 'stageDown', { userId: a.userId })).code).toBe('0');
    await closedAgain;
    await expect(a.peer.publish('mic')).rejects.toMatchObject({ code: '33002' });

    // Discuss opens every student's microphone again.
    const openB = b.peer.waitNote('rightsChanged', (n) => n.rights.includes('mic'));
    expect((await ask(teacher.socket, 'setMode', { mode: 'discuss' })).code).toBe('0');
    await openB;
    const micB = await b.peer.publish('mic');
    expect((await b.peer.req('pause', { trackId: micB.trackId, paused: true })).code).toBe('0');
    expect((await b.peer.req('pause', { trackId: micB.trackId, paused: false })).code).toBe('0');
  });

  it('a large class in lecture mode: the teacher speaks, the audience never publishes', async () => {
    const { teacher, students } = await classroom(4, 1);
    const s = students[0]!;
    expect((await ask(teacher.socket, 'setMode', { mode: 'lecture' })).code).toBe('0');
    await teacher.peer.publish('mic');
    await expect(s.peer.publish('mic')).rejects.toMatchObject({ code: '33002' });
  });

  it('the trial: offered and granted in a free large class (type 4), refused in an audio class (type 3)', async () => {
    const large = await classroom(4, 1);
    // Free: the teacher and one student; the trial lifts it to the paid cap for its minutes.
    const third = await signIn(server);
    expect((await call(server.url, 'userJoinAgoraRoom', { roomNumber: large.roomNumber }, { token: third.token })).code).toBe('31003');
    const trial = await ask(large.teacher.socket, 'startTrial', {});
    expect(trial.code).toBe('0');
    expect((await call(server.url, 'userJoinAgoraRoom', { roomNumber: large.roomNumber }, { token: third.token })).code).toBe('0');
    const info = await call(server.url, 'getRoomInfoByRoomNumber', { roomNumber: large.roomNumber }, { token: third.token });
    expect(info.data.roomInfo.trialEndsAt).toBe(trial.data.trialEndsAt);
    expect((await ask(large.teacher.socket, 'startTrial', {})).code).toBe('31004');
    const audio = await classroom(3, 0);
    expect((await ask(audio.teacher.socket, 'startTrial', {})).code).toBe('31004');
    // The audio class has no screen share on the node either (the tab is not offered, ADR 099).
    await expect(audio.teacher.peer.publish('screen')).rejects.toMatchObject({ code: '33002' });
  });
});
