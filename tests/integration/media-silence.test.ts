/**
 * A microphone agreed to but sending nothing (ADR 101): in a large class the invited student's
 * publication reaches the node with no packet for 10 s, and the node tells the student and the
 * teacher (`trackSilent`), nobody else; when packets come it takes the report back. A microphone
 * that sends is never reported. Real web server, room channel, media node; werift peers stand in
 * for the browsers.
 */
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { SILENT_AFTER_MS, type MediaNote } from '#core/contracts/media-signaling.ts';
import { call, signIn } from '#tests/support/api.ts';
import { MediaTestPeer } from '#tests/support/media-client.ts';
import { until } from '#tests/support/until.ts';
import { ask, connectRoom, type RoomSocket } from '#tests/support/room-client.ts';
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

/** A free large class (teacher + 1): the teacher, the student invited to the stage who agreed (microphone and camera in a large class, ADR 112), and an observer; all joined in media. */
async function invitedClass() {
  const teacher = await signIn(server);
  const created = await call(server.url, 'createRoom', { roomType: 4 }, { token: teacher.token });
  expect(created.code).toBe('0');
  const roomNumber = created.data.roomInfo.roomNumber;
  const people = [];
  for (const who of [teacher, await signIn(server)]) {
    const joined = await call(server.url, 'userJoinAgoraRoom', { roomNumber }, { token: who.token });
    expect(joined.code).toBe('0');
    const peer = await MediaTestPeer.connect(joined.data.mediaUrl!);
    const sock = await connectRoom(server.url, joined.data.imToken);
    open.push(peer, sock);
    expect((await ask(sock, 'joinRoom')).code).toBe('0');
    await peer.ok('join', { token: joined.data.mediaToken! });
    people.push({ ...who, peer, sock });
  }
  const [t, invited] = people as [(typeof people)[0], (typeof people)[0]];
  // Someone else in the room: an observer (the creator's link), who has no business with it.
  const link = await call(server.url, 'createObserverLink', { roomNumber }, { token: teacher.token });
  const ot = new URL(link.data.url).searchParams.get('ot')!;
  const observerJoin = await call(server.url, 'userJoinAgoraRoom', { roomNumber, userType: '3', ot });
  expect(observerJoin.code).toBe('0');
  const observer = await MediaTestPeer.connect(observerJoin.data.mediaUrl!);
  open.push(observer);
  await observer.ok('join', { token: observerJoin.data.mediaToken! });

  expect((await ask(t.sock, 'inviteStage', { userId: invited.userId })).code).toBe('0');
  expect((await ask(invited.sock, 'answerStage', { agree: true })).code).toBe('0');
  const fresh = await call(server.url, 'createAgoraToken', { roomNumber }, { token: invited.token });
  expect(fresh.code).toBe('0');
  expect((await invited.peer.ok('refresh', { token: fresh.data.mediaToken })).rights).toEqual(['mic', 'camera']);
  return { teacher: t, invited, other: { peer: observer } };
}

const silentNotes = (peer: MediaTestPeer, trackId: string) =>
  peer.notes.filter((n): n is Extract<MediaNote, { type: 'trackSilent' }> => n.type === 'trackSilent' && n.trackId === trackId);

it('reports a microphone that sends no packet within 10 s to the student and the teacher, and takes it back when sound comes; a microphone that sends is never reported', async () => {
  const [quiet, loud] = await Promise.all([invitedClass(), invitedClass()]);
  const mic = await quiet.invited.peer.publish('mic', { silent: true });
  const published = Date.now();
  // The node counts a publication's 10 s from the moment it took it, before publish() returned here.
  const heardFrom = Date.now();
  const heard = await loud.invited.peer.publish('mic');

  const [toStudent, toTeacher] = await Promise.all([
    quiet.invited.peer.waitNote('trackSilent', (n) => n.trackId === mic.trackId && n.silent, SILENT_AFTER_MS + 8000),
    quiet.teacher.peer.waitNote('trackSilent', (n) => n.trackId === mic.trackId && n.silent, SILENT_AFTER_MS + 8000),
  ]);
  // Not before the 10 s are over.
  expect(Date.now() - published).toBeGreaterThanOrEqual(SILENT_AFTER_MS - 1000);
  for (const note of [toStudent, toTeacher]) expect(note).toMatchObject({ userId: quiet.invited.userId, source: 'mic', silent: true });
  // The observer has no business with it.
  expect(silentNotes(quiet.other.peer, mic.trackId)).toEqual([]);

  // The microphone that sent from the start was never reported, to anyone, once its own 10 s are
  // surely over (a report would have come by then: the silent one's came within them).
  await until('the sending microphone’s 10 s over', () => Date.now() - heardFrom > SILENT_AFTER_MS + 2000, SILENT_AFTER_MS + 5000);
  const subscribed = await loud.teacher.peer.subscribe(heard.trackId);
  await until('the sending microphone heard', () => subscribed.packets > 10, 10_000);
  for (const p of [loud.teacher, loud.invited, loud.other]) expect(silentNotes(p.peer, heard.trackId)).toEqual([]);

  // Sound comes: the report is taken back for both.
  mic.start();
  await Promise.all([
    quiet.invited.peer.waitNote('trackSilent', (n) => n.trackId === mic.trackId && !n.silent, 8000),
    quiet.teacher.peer.waitNote('trackSilent', (n) => n.trackId === mic.trackId && !n.silent, 8000),
  ]);
}, 90_000);

it('does not report a microphone muted on purpose (paused sends nothing by design), and gives it a fresh 10 s after the unmute', async () => {
  const room = await invitedClass();
  const mic = await room.invited.peer.publish('mic', { silent: true });
  await room.invited.peer.ok('pause', { trackId: mic.trackId, paused: true });
  // The teacher's own silent microphone, published after it, is the clock: once it is reported,
  // the paused one has been quiet for longer than 10 s.
  const teacherMic = await room.teacher.peer.publish('mic', { silent: true });
  await room.teacher.peer.waitNote('trackSilent', (n) => n.trackId === teacherMic.trackId && n.silent, SILENT_AFTER_MS + 8000);
  expect(silentNotes(room.invited.peer, mic.trackId)).toEqual([]);
  expect(silentNotes(room.teacher.peer, mic.trackId)).toEqual([]);
  // Unmuted and still nothing: reported 10 s after the unmute, not at once.
  const unmuted = Date.now();
  await room.invited.peer.ok('pause', { trackId: mic.trackId, paused: false });
  await room.teacher.peer.waitNote('trackSilent', (n) => n.trackId === mic.trackId && n.silent, SILENT_AFTER_MS + 8000);
  expect(Date.now() - unmuted).toBeGreaterThanOrEqual(SILENT_AFTER_MS - 1000);
}, 90_000);
