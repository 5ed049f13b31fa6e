/**
 * Revocations reach a media node in another process (ADR 032): a web role on PostgreSQL with the
 * registry, and one `ROLE=media` Node process. A kicked student's publication goes, a large-class
 * student taken off the stage loses publish, and an ended class closes the room, all on
 * the remote node; the control endpoint refuses forged, stale and replayed calls.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { MEDIA_CONTROL_PATH, MEDIA_CONTROL_SIGNATURE_HEADER, signControl } from '#core/contracts/media-control.ts';
import { call, signIn } from '#tests/support/api.ts';
import { postgresAdminUrl } from '#tests/support/database.ts';
import { MediaTestPeer } from '#tests/support/media-client.ts';
import { until } from '#tests/support/until.ts';
import { ask, connectRoom, type RoomSocket } from '#tests/support/room-client.ts';
import { startTestServer, type TestServer } from '#tests/support/server.ts';

const SECRET = 'c'.repeat(48);
let web: TestServer;
let node: { child: ChildProcess; dir: string; url: string } | null = null;
const open: Array<MediaTestPeer | RoomSocket> = [];

beforeAll(async () => {
  web = await startTestServer({
    engine: 'postgres',
    postgresAdminUrl: postgresAdminUrl(),
    env: { ROLE: 'web', SESSION_SECRET: SECRET, MEDIA_PLACEMENT: 'registry', MEDIA_REPORT_SECONDS: '1' },
  });
  // The web role runs no SFU of its own: whatever reaches the node came over the wire.
  expect(web.banshu.media).toBeNull();
  const dir = await mkdtemp(path.join(tmpdir(), 'banshu-media-'));
  const child = spawn(process.execPath, ['server/main.ts'], {
    env: {
      ...process.env,
      NODE_ENV: 'test',
      ROLE: 'media',
      DATABASE_URL: web.banshu.platform.database.url!,
      SESSION_SECRET: SECRET,
      DATA_DIR: dir,
      LOG_LEVEL: 'silent',
      MEDIA_PORT: '0',
      MEDIA_PLACEMENT: 'registry',
      MEDIA_REPORT_SECONDS: '1',
      MEDIA_NODE_ID: 'node-remote',
      MEDIA_RTC_MIN_PORT: '42000',
      MEDIA_RTC_MAX_PORT: '42499',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  node = { child, dir, url: '' };
  const end = Date.now() + 30_000;
  for (;;) {
    const row = await web.banshu.platform.database.db
      .selectFrom('media_nodes')
      .select('url')
      .where('id', '=', 'node-remote')
      .executeTakeFirst();
    if (row) {
      node.url = row.url;
      break;
    }
    if (Date.now() > end) throw new Error('the media node did not report');
    await new Promise((r) => setTimeout(r, 100));
  }
});

afterEach(() => {
  for (const p of open.splice(0)) p.close();
});

afterAll(async () => {
  if (node) {
    node.child.kill('SIGTERM');
    if (node.child.exitCode === null) await new Promise((r) => node!.child.once('exit', r));
    await rm(node.dir, { recursive: true, force: true });
  }
  await web?.close();
});

async function classWith(roomType: 1 | 2 | 4, students: number) {
  const teacher = await signIn(web);
  if (roomType === 1)
    await web.banshu.platform.services.billingRepo.grant(teacher.userId, { vip_room_time: new Date(Date.now() + 86400_000) });
  const created =
    roomType === 1
      ? await call(web.url, 'createAgoraRoom', { roomType: 1, consumption: 'on' }, { token: teacher.token })
      : await call(web.url, 'createRoom', { roomType }, { token: teacher.token });
  expect(created.code).toBe('0');
  const roomNumber = created.data.roomInfo.roomNumber;
  const people = [];
  for (const who of [teacher, ...(await Promise.all(Array.from({ length: students }, () => signIn(web))))]) {
    const joined = await call(web.url, 'userJoinAgoraRoom', { roomNumber }, { token: who.token });
    expect(joined.code).toBe('0');
    expect(joined.data.mediaUrl).toBe(node!.url);
    const peer = await MediaTestPeer.connect(joined.data.mediaUrl!);
    const sock = await connectRoom(web.url, joined.data.imToken);
    open.push(peer, sock);
    expect((await ask(sock, 'joinRoom')).code).toBe('0');
    await peer.ok('join', { token: joined.data.mediaToken! });
    people.push({ ...who, peer, sock, mediaToken: joined.data.mediaToken as string });
  }
  const [t, ...s] = people;
  return { roomNumber, teacher: t!, students: s };
}

it('a kicked student is removed from the remote node with their camera', async () => {
  const { teacher, students } = await classWith(1, 2);
  const [kicked, stays] = [students[0]!, students[1]!];
  const cam = await kicked.peer.publish('camera');
  const other = await stays.peer.publish('mic');
  const seen = await teacher.peer.subscribe(cam.trackId);
  await until('the camera through the remote node', () => seen.packets > 10, 10_000);

  const closed = kicked.peer.waitNote('closed', (n) => n.reason === 'kicked');
  const gone = teacher.peer.waitNote('trackRemoved', (n) => n.trackId === cam.trackId);
  expect((await ask(teacher.sock, 'kickout', { userId: kicked.userId })).code).toBe('0');
  await closed;
  await gone;
  // Their media token is still within its lifetime, yet it does not bring them back.
  const again = await MediaTestPeer.connect(node!.url);
  open.push(again);
  expect((await again.req('join', { token: kicked.mediaToken })).code).toBe('33001');
  // Only that person: the other student's microphone is still forwarded.
  const heard = await teacher.peer.subscribe(other.trackId);
  await until('the other student still heard', () => heard.packets > 10, 10_000);
});

it('a large-class student taken off the stage loses publish on the remote node', async () => {
  const { roomNumber, teacher, students } = await classWith(4, 1);
  const student = students[0]!;
  expect((await ask(teacher.sock, 'inviteStage', { userId: student.userId })).code).toBe('0');
  expect((await ask(student.sock, 'answerStage', { agree: true })).code).toBe('0');
  const fresh = await call(web.url, 'createAgoraToken', { roomNumber }, { token: student.token });
  expect(fresh.code).toBe('0');
  expect((await student.peer.ok('refresh', { token: fresh.data.mediaToken })).rights).toEqual(['mic', 'camera']);
  const mic = await student.peer.publish('mic');
  const heard = await teacher.peer.subscribe(mic.trackId);
  await until('the invited student heard', () => heard.packets > 10, 10_000);
  const teacherMic = await teacher.peer.publish('mic');

  const revoked = student.peer.waitNote('rightsChanged', (n) => n.rights.length === 0);
  const gone = teacher.peer.waitNote('trackRemoved', (n) => n.trackId === mic.trackId);
  expect((await ask(teacher.sock, 'stageDown', { userId: student.userId })).code).toBe('0');
  await revoked;
  await gone;
  expect((await student.peer.req('publish', { source: 'mic', sdp: 'v=0\r\nm=audio 9 x 111\r\n' })).code).toBe('33002');
  // The teacher's own microphone is not touched.
  const back = await student.peer.subscribe(teacherMic.trackId);
  await until('the teacher still heard', () => back.packets > 10, 10_000);
});

it('lecture mode closes a student’s microphone on the remote node; an invitation and discuss open it (ADR 099)', async () => {
  const { teacher, students } = await classWith(1, 1);
  const student = students[0]!;
  const mic = await student.peer.publish('mic');
  const gone = teacher.peer.waitNote('trackRemoved', (n) => n.trackId === mic.trackId);
  const closed = student.peer.waitNote('rightsChanged', (n) => !n.rights.includes('mic'));
  expect((await ask(teacher.sock, 'setMode', { mode: 'lecture' })).code).toBe('0');
  await Promise.all([gone, closed]);
  expect((await student.peer.req('publish', { source: 'mic', sdp: 'v=0\r\nm=audio 9 x 111\r\n' })).code).toBe('33002');

  // Each wait below looks at the notes from here on only (waitNote also reads the notes already seen).
  student.peer.notes.length = 0;
  expect((await ask(teacher.sock, 'inviteStage', { userId: student.userId })).code).toBe('0');
  expect((await ask(student.sock, 'answerStage', { agree: true })).code).toBe('0');
  await student.peer.waitNote('rightsChanged', (n) => n.rights.includes('mic'));
  student.peer.notes.length = 0;
  expect((await ask(teacher.sock, 'stageAllDown')).code).toBe('0');
  await student.peer.waitNote('rightsChanged', (n) => !n.rights.includes('mic'));
  student.peer.notes.length = 0;
  expect((await ask(teacher.sock, 'setMode', { mode: 'discuss' })).code).toBe('0');
  await student.peer.waitNote('rightsChanged', (n) => n.rights.includes('mic'));
  const spoke = await student.peer.publish('mic');
  const heard = await teacher.peer.subscribe(spoke.trackId);
  await until('the student heard again in discuss', () => heard.packets > 10, 10_000);
});

it('an ended class closes the room on the remote node', async () => {
  const { teacher, students } = await classWith(2, 1);
  const mic = await teacher.peer.publish('mic');
  const heard = await students[0]!.peer.subscribe(mic.trackId);
  await until('the teacher heard', () => heard.packets > 10, 10_000);
  const tClosed = teacher.peer.waitNote('closed', (n) => n.reason === 'roomClosed');
  const sClosed = students[0]!.peer.waitNote('closed', (n) => n.reason === 'roomClosed');
  expect((await ask(teacher.sock, 'endRoom')).code).toBe('0');
  await tClosed;
  await sClosed;
  // The node lets go of everyone's signaling.
  await until('the remote room closed', () => !teacher.peer.socket.connected && !students[0]!.peer.socket.connected, 5000);
});

it('breakout groups reach the remote node (ADR 117): a student stops seeing the other group’s microphone, and sees it again when the groups end', async () => {
  const { teacher, students } = await classWith(2, 2);
  const [a, b] = [students[0]!, students[1]!];
  const mic = await a.peer.publish('mic');
  await b.peer.waitNote('trackAdded', (n) => n.track.trackId === mic.trackId);
  const start = { count: 2, method: 'even', minutes: 0, allowChoose: false, lateJoiners: 'auto', board: 'blank' } as const;
  const started = await ask(teacher.sock, 'groupsStart', start);
  expect(started.code).toBe('0');
  expect(started.data.groups.map((g) => g.members.length)).toEqual([1, 1]);
  await b.peer.waitNote('trackRemoved', (n) => n.trackId === mic.trackId);
  expect((await b.peer.req('subscribe', { trackId: mic.trackId })).code).toBe('33003');
  // The teacher, in the main room, neither.
  expect((await teacher.peer.req('subscribe', { trackId: mic.trackId })).code).toBe('33003');

  b.peer.notes.length = 0;
  expect((await ask(teacher.sock, 'groupsEnd', { afterSeconds: 0 })).code).toBe('0');
  await b.peer.waitNote('trackAdded', (n) => n.track.trackId === mic.trackId);
  const heard = await b.peer.subscribe(mic.trackId);
  await until('the other student heard again', () => heard.packets > 10, 10_000);
});

it('the control endpoint refuses forged, stale, malformed and replayed calls', async () => {
  const { roomNumber, teacher } = await classWith(2, 0);
  await teacher.peer.publish('mic');
  const post = (body: string, sig: string) =>
    fetch(new URL(MEDIA_CONTROL_PATH, node!.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json', [MEDIA_CONTROL_SIGNATURE_HEADER]: sig },
      body,
    });
  const cmd = (over: Record<string, unknown> = {}) =>
    JSON.stringify({ v: 1, id: randomUUID(), at: Date.now(), op: 'closeRoom', room: roomNumber, ...over });

  const forged = cmd();
  expect((await post(forged, signControl('x'.repeat(48), forged))).status).toBe(401);
  const stale = cmd({ at: Date.now() - 10 * 60_000 });
  expect((await post(stale, signControl(SECRET, stale))).status).toBe(401);
  const odd = cmd({ op: 'dropTable', userId: '1' });
  expect((await post(odd, signControl(SECRET, odd))).status).toBe(401);
  const huge = cmd({ pad: 'x'.repeat(40_000) });
  expect((await post(huge, signControl(SECRET, huge))).status).toBe(413);
  expect((await fetch(new URL(MEDIA_CONTROL_PATH, node!.url))).status).toBe(405);
  // None of them touched the room.
  expect(teacher.peer.notes.some((n) => n.type === 'closed')).toBe(false);

  // A genuine call works once; the same call again is refused.
  const real = cmd({ op: 'removeUser', userId: '999999999' });
  const first = await post(real, signControl(SECRET, real));
  expect(first.status).toBe(200);
  expect(await first.json()).toEqual({ applied: true });
  expect((await post(real, signControl(SECRET, real))).status).toBe(409);
  const elsewhere = cmd({ room: 'ZZZZ9999' });
  expect(await (await post(elsewhere, signControl(SECRET, elsewhere))).json()).toEqual({ applied: false });
});
