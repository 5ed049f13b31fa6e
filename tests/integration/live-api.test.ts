/**
 * The live streaming calls over /api with a real server (PGlite), and the task store the recorders
 * use (ADR 085): creator-only start and end; the key's rule, the platforms and the custom address;
 * refusals that write nothing; liveState on room info and roomLive to the room; the key sealed at
 * rest and in no answer or event; the creator leaving and the class ending end the push; the start
 * timeout; one compositor per room in the claims. The push itself runs in live-recorder.test.ts.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { BusMessage } from '#core/platform/events.ts';
import { unseal } from '#core/streaming/sealed.ts';
import { call, signIn } from '#tests/support/api.ts';
import { busLog, recordingClass } from '#tests/support/recording.ts';
import { until } from '#tests/support/until.ts';
import { ask, connectRoom, record, waitFor, type RoomSocket } from '#tests/support/room-client.ts';
import { startTestServer, type TestServer } from '#tests/support/server.ts';

const KEY = 'ab12-cd34-ef56-gh78';
const INGEST = 'rtmp://127.0.0.1:1935/live';
const SECRET = 'x'.repeat(64);

const sockets: RoomSocket[] = [];
afterEach(() => {
  for (const s of sockets.splice(0)) s.close();
});

async function liveRows(server: TestServer) {
  return server.banshu.platform.database.db.selectFrom('live_tasks').selectAll().orderBy('id').execute();
}

async function roomLiveState(server: TestServer, roomNumber: string): Promise<string> {
  const r = await server.banshu.platform.database.db
    .selectFrom('rooms')
    .select('live_state')
    .where('room_number', '=', roomNumber)
    .executeTakeFirstOrThrow();
  return r.live_state;
}

async function joinSocket(server: TestServer, roomNumber: string, token: string): Promise<RoomSocket> {
  const joined = await call(server.url, 'userJoinAgoraRoom', { roomNumber }, { token });
  expect(joined.code).toBe('0');
  const socket = await connectRoom(server.url, joined.data.imToken);
  sockets.push(socket);
  expect((await ask(socket, 'joinRoom')).code).toBe('0');
  return socket;
}

/** Claims live tasks until `owner` holds `taskId` (others left by earlier tests are failed). */
async function claimLive(server: TestServer, taskId: string, owner: string) {
  const tasks = server.banshu.platform.services.liveTasks;
  for (;;) {
    const c = await tasks.claim(owner);
    if (!c) throw new Error(`live task ${taskId} was not claimable`);
    if (c.taskId === taskId) return c;
    await tasks.fail(c.taskId, owner, 'failed', 'left over by another test');
  }
}

const everyText = (bus: BusMessage[]) => JSON.stringify(bus);

describe('live streaming api [pglite]', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      env: { SESSION_SECRET: SECRET, LIVE_PLATFORMS: `Test=${INGEST},Other=rtmps://live.example.com/app`, LIVE_CUSTOM_URL: 'false' },
    });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('refuses a student, an observer-less stranger, a malformed or empty key, an unknown platform and a custom address: nothing is written', async () => {
    const { roomNumber, teacher, students } = await recordingClass(server, 1);
    const stranger = await signIn(server);
    const before = (await liveRows(server)).length;
    const bus = busLog(server);
    const start = (token: string, pushPlatform: string, pushStreamUrl: string) =>
      call(server.url, 'startLive', { roomNumber, pushPlatform, pushStreamUrl }, { token });

    expect((await start(students[0]!.token, 'Test', KEY)).code).toBe('31004');
    expect((await call(server.url, 'endLive', { roomNumber }, { token: students[0]!.token })).code).toBe('31004');
    expect((await call(server.url, 'getLivePlatforms', { roomNumber }, { token: students[0]!.token })).code).toBe('31004');
    expect((await start(stranger.token, 'Test', KEY)).code).not.toBe('0');
    expect((await start(teacher.token, 'Test', 'abc-defg')).code).toBe('38001');
    expect((await start(teacher.token, 'Test', 'abcd-efgh-ijk!')).code).toBe('38001');
    expect((await start(teacher.token, 'Test', 'abcd')).code).toBe('38001');
    expect((await start(teacher.token, 'Test', '   ')).code).toBe('38006');
    expect((await start(teacher.token, 'Nope', KEY)).code).toBe('38002');
    expect((await start(teacher.token, 'custom', `${INGEST}/${KEY}`)).code).toBe('38002');
    // Wrong types and huge bodies never reach the rule.
    expect((await call(server.url, 'startLive', { roomNumber, pushPlatform: 7, pushStreamUrl: KEY }, { token: teacher.token })).code).toBe(
      '5',
    );
    expect(
      (await call(server.url, 'startLive', { roomNumber, pushPlatform: 'Test', pushStreamUrl: 'k'.repeat(5000) }, { token: teacher.token }))
        .code,
    ).toBe('5');
    const refusal = await start(teacher.token, 'Test', 'abcd');
    expect(refusal.msg).toMatch(/secret key was filled out incorrectly|秘钥填写错误/);
    expect((await call(server.url, 'endLive', { roomNumber }, { token: teacher.token })).code).toBe('38004');

    expect(await liveRows(server)).toHaveLength(before);
    expect(await roomLiveState(server, roomNumber)).toBe('0');
    expect(bus.filter((m) => m.event === 'roomLive')).toHaveLength(0);
  });

  it('the creator starts: liveState 2 on room info and to the room, the key sealed at rest and in no answer or event; a second start is refused', async () => {
    const { roomNumber, teacher, students } = await recordingClass(server, 1);
    const student = await joinSocket(server, roomNumber, students[0]!.token);
    const seen = record(student, 'roomLive');
    const bus = busLog(server);
    const platforms = await call(server.url, 'getLivePlatforms', { roomNumber }, { token: teacher.token });
    expect(platforms.data).toEqual({ platforms: ['Test', 'Other'], custom: false });

    const started = await call(
      server.url,
      'startLive',
      { roomNumber, pushPlatform: 'Test', pushStreamUrl: `  ${KEY} ` },
      { token: teacher.token },
    );
    expect(started.code).toBe('0');
    const taskId = started.data.taskId;
    expect(taskId).toMatch(/^\d+$/);
    await until('roomLive to the student', () => seen.length > 0, 5000);
    expect(seen[0]).toEqual({ taskId, liveState: '2', platform: 'Test', startedAt: null, kbps: 0, reconnecting: false });
    expect(await roomLiveState(server, roomNumber)).toBe('2');
    const info = await call(server.url, 'getRoomInfoByRoomNumber', { roomNumber }, { token: students[0]!.token });
    expect(info.data.roomInfo.liveState).toBe('2');
    const state = await call(server.url, 'getLiveState', { roomNumber }, { token: students[0]!.token });
    expect(state.data).toMatchObject({ taskId, liveState: '2', platform: 'Test' });

    // At rest: sealed with the server's secret, the trimmed key in the push address only.
    const row = (await liveRows(server)).find((r) => r.id === taskId)!;
    expect(row.push_secret).not.toContain(KEY);
    expect(row.push_secret).not.toContain('127.0.0.1');
    expect(unseal(SECRET, row.push_secret)).toBe(`${INGEST}/${KEY}`);
    expect(() => unseal('y'.repeat(64), row.push_secret)).toThrow();

    expect(
      (await call(server.url, 'startLive', { roomNumber, pushPlatform: 'Test', pushStreamUrl: KEY }, { token: teacher.token })).code,
    ).toBe('38003');

    // A recorder: claims with the address, goes live, reports its bitrate, loses the platform, fails.
    const claimed = await claimLive(server, taskId, 'rec-a');
    expect(claimed.pushUrl).toBe(`${INGEST}/${KEY}`);
    const tasks = server.banshu.platform.services.liveTasks;
    await tasks.live(taskId, 'rec-a');
    await until('live', () => seen.some((s) => s.liveState === '1'), 5000);
    const live = seen.find((s) => s.liveState === '1')!;
    expect(live.startedAt).toBeGreaterThan(0);
    expect(await roomLiveState(server, roomNumber)).toBe('1');
    expect(await tasks.renew(taskId, 'rec-a', 2934)).toBe('active');
    await until('the bitrate', () => seen.some((s) => s.kbps === 2934), 5000);
    await tasks.reconnecting(taskId, 'rec-a');
    await until('reconnecting', () => seen.some((s) => s.reconnecting), 5000);
    // Another owner can neither renew nor fail it.
    expect(await tasks.renew(taskId, 'rec-b', 1)).toBe('ended');
    await tasks.fail(taskId, 'rec-b', 'refused', 'not mine');
    expect(await roomLiveState(server, roomNumber)).toBe('1');
    await tasks.live(taskId, 'rec-a');
    await until('live again', () => seen.filter((s) => s.liveState === '1' && !s.reconnecting).length >= 2, 5000);
    expect(seen.at(-1)!.startedAt).toBe(live.startedAt);
    await tasks.fail(taskId, 'rec-a', 'refused', 'the platform refused the stream');
    await until('the failure', () => seen.some((s) => s.failure === 'refused'), 5000);
    expect(seen.at(-1)).toMatchObject({ taskId, liveState: '0', failure: 'refused' });
    expect(await roomLiveState(server, roomNumber)).toBe('0');
    expect(await tasks.renew(taskId, 'rec-a', 1)).toBe('ended');

    // Nowhere to be seen: not in any event, answer or room info.
    expect(everyText(bus)).not.toContain(KEY);
    expect(JSON.stringify([started, state, info, platforms, seen])).not.toContain(KEY);
    // Started again after the failure.
    expect(
      (await call(server.url, 'startLive', { roomNumber, pushPlatform: 'Test', pushStreamUrl: KEY }, { token: teacher.token })).code,
    ).toBe('0');
    expect((await call(server.url, 'endLive', { roomNumber }, { token: teacher.token })).code).toBe('0');
  });

  it('the teacher ends it; the creator leaving and the class ending end it too', async () => {
    const tasks = server.banshu.platform.services.liveTasks;
    const { roomNumber, teacher } = await recordingClass(server, 0);
    const socket = await joinSocket(server, roomNumber, teacher.token);
    const start = () => call(server.url, 'startLive', { roomNumber, pushPlatform: 'Other', pushStreamUrl: KEY }, { token: teacher.token });

    const t1 = (await start()).data.taskId;
    await claimLive(server, t1, 'rec-end');
    await tasks.live(t1, 'rec-end');
    const ended = waitFor(
      socket,
      'roomLive',
      (p: { liveState: string; taskId: string; failure?: string }) => p.taskId === t1 && p.liveState === '0',
    );
    expect((await call(server.url, 'endLive', { roomNumber }, { token: teacher.token })).code).toBe('0');
    expect(await ended).toMatchObject({ taskId: t1, liveState: '0' });
    expect((await ended).failure).toBeUndefined();
    // The recorder notices at its next read.
    expect(await tasks.peek(t1, 'rec-end')).toBe('ended');
    expect((await liveRows(server)).find((r) => r.id === t1)).toMatchObject({ state: 'done', lease_until: null });

    const t2 = (await start()).data.taskId;
    expect((await ask(socket, 'leaveRoom')).code).toBe('0');
    await until('the end when the creator left', async () => (await liveRows(server)).find((r) => r.id === t2)?.state === 'done', 5000);
    expect(await roomLiveState(server, roomNumber)).toBe('0');

    const s2 = await joinSocket(server, roomNumber, teacher.token);
    const t3 = (await start()).data.taskId;
    expect((await ask(s2, 'endRoom')).code).toBe('0');
    await until('the end with the class', async () => (await liveRows(server)).find((r) => r.id === t3)?.state === 'done', 5000);
  });

  it('one compositor per room: a room recorded by one recorder is pushed by that recorder only, and the reverse', async () => {
    const { roomNumber, teacher } = await recordingClass(server, 0);
    const db = server.banshu.platform.database.db;
    const rec = await call(server.url, 'startTask', { roomNumber }, { token: teacher.token });
    expect(rec.code).toBe('0');
    const recTasks = server.banshu.platform.services.recordTasks;
    for (;;) {
      const c = await recTasks.claim('rec-one');
      if (!c) throw new Error('recording not claimable');
      if (c.taskId === rec.data.taskId) break;
      await recTasks.fail(c.taskId, 'rec-one', 'left over by another test');
    }
    const live = await call(server.url, 'startLive', { roomNumber, pushPlatform: 'Test', pushStreamUrl: KEY }, { token: teacher.token });
    const liveTasks = server.banshu.platform.services.liveTasks;
    // Another recorder sees no claimable push of that room.
    for (;;) {
      const c = await liveTasks.claim('rec-two');
      if (!c) break;
      expect(c.taskId).not.toBe(live.data.taskId);
      await liveTasks.fail(c.taskId, 'rec-two', 'failed', 'left over by another test');
    }
    // A full recorder asks only for the rooms it composes.
    expect(await liveTasks.claim('rec-one', ['999999999'])).toBeNull();
    expect((await liveTasks.claim('rec-one', [roomNumber]))?.taskId).toBe(live.data.taskId);
    // The reverse: the room pushed by rec-one; its next recording is left to rec-one.
    expect((await call(server.url, 'stopTask', { roomNumber, taskId: rec.data.taskId }, { token: teacher.token })).code).toBe('0');
    const rec2 = await call(server.url, 'startTask', { roomNumber }, { token: teacher.token });
    expect(rec2.code).toBe('0');
    const other = await recTasks.claim('rec-two', [roomNumber]);
    expect(other).toBeNull();
    expect((await recTasks.claim('rec-one', [roomNumber]))?.taskId).toBe(rec2.data.taskId);
    await db.updateTable('record_tasks').set({ state: 'failed' }).where('room_number', '=', roomNumber).execute();
    await liveTasks.fail(live.data.taskId, 'rec-one', 'failed', 'test over');
  });
});

describe('live streaming start timeout and custom addresses [pglite]', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      env: { SESSION_SECRET: SECRET, LIVE_PLATFORMS: `Test=${INGEST}`, LIVE_CUSTOM_URL: 'true', RECORDING_START_TIMEOUT_SECONDS: '1' },
    });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('a custom address when allowed (checked: rtmp(s), a host, an application and a key); no recorder in time: failure timeout to the room', async () => {
    const { roomNumber, teacher } = await recordingClass(server, 0);
    const socket = await joinSocket(server, roomNumber, teacher.token);
    const start = (url: string) =>
      call(server.url, 'startLive', { roomNumber, pushPlatform: 'custom', pushStreamUrl: url }, { token: teacher.token });
    expect((await call(server.url, 'getLivePlatforms', { roomNumber }, { token: teacher.token })).data).toEqual({
      platforms: ['Test'],
      custom: true,
    });
    for (const bad of [
      '',
      'http://example.com/live/key',
      'rtmp://example.com/live',
      'rtmp://user:pw@example.com/live/k',
      'rtmp://example.com/live/k?x=1',
      'not a url',
    ])
      expect((await start(bad)).code, bad).toBe('38005');
    expect(await liveRows(server)).toHaveLength(0);

    const failed = waitFor(socket, 'roomLive', (p: { failure?: string }) => p.failure === 'timeout', 10_000);
    const started = await start('rtmps://live.example.com:443/app/some_key-123');
    expect(started.code).toBe('0');
    expect(unseal(SECRET, (await liveRows(server))[0]!.push_secret)).toBe('rtmps://live.example.com:443/app/some_key-123');
    // Past the timeout no recorder may claim it; the timer fails it.
    server.clock.advance(1001);
    expect(await server.banshu.platform.services.liveTasks.claim('late')).toBeNull();
    expect(await failed).toMatchObject({ taskId: started.data.taskId, liveState: '0', failure: 'timeout' });
    expect(await roomLiveState(server, roomNumber)).toBe('0');
  });
});
