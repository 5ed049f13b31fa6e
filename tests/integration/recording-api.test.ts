/**
 * The recording calls over /api with a real server (PGlite): creator-only start and stop, the
 * room's state, stops by the room's rules, the library (paging, signed links with ranges, delete,
 * share links) and refusals that change nothing. S3 range requests run against s3rver.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { segmentKey, mp4Key } from '#core/recording/record-tasks.ts';
import { call, signIn } from '#tests/support/api.ts';
import { busLog, count, grantMembership, recordingClass, roomRecordState, taskRow } from '#tests/support/recording.ts';
import { until } from '#tests/support/until.ts';
import { ask, connectRoom, waitFor, type RoomSocket } from '#tests/support/room-client.ts';
import { startS3, type TestS3 } from '#tests/support/s3.ts';
import { startTestServer, type TestServer } from '#tests/support/server.ts';

const sockets: RoomSocket[] = [];
afterEach(() => {
  for (const s of sockets.splice(0)) s.close();
});

/** A finished class recording of `userId` with its MP4 and two segments in the store. */
async function finishedRecord(server: TestServer, userId: string, bytes = Buffer.from('0123456789abcdefghij')) {
  const { db } = server.banshu.platform.database;
  const room = await db.selectFrom('rooms').select(['id', 'room_number']).orderBy('id', 'desc').executeTakeFirstOrThrow();
  const task = await db
    .insertInto('record_tasks')
    .values({ room_id: room.id, room_number: room.room_number, user_id: userId, state: 'done', created_at: server.clock.now() })
    .returning('id')
    .executeTakeFirstOrThrow();
  const rec = await db
    .insertInto('records')
    .values({
      user_id: userId,
      type: 2,
      task_id: task.id,
      room_number: room.room_number,
      file_name: '课堂 1.mp4',
      created_at: server.clock.now(),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const key = mp4Key(userId, task.id, rec.id);
  const objects = server.banshu.platform.objects;
  await objects.put(key, bytes, 'video/mp4');
  const segs = [0, 1].map((seq) => segmentKey(userId, task.id, seq));
  for (const [seq, k] of segs.entries()) {
    await objects.put(k, Buffer.from(`segment ${seq}`), 'video/mp2t');
    await db
      .insertInto('record_segments')
      .values({ task_id: task.id, seq, object_key: k, duration_ms: 4000, bytes: 9, created_at: server.clock.now() })
      .execute();
  }
  await db.updateTable('records').set({ object_key: key, file_size: bytes.length, duration_ms: 8000 }).where('id', '=', rec.id).execute();
  await db.updateTable('record_tasks').set({ record_id: rec.id }).where('id', '=', task.id).execute();
  return { fileId: rec.id, taskId: task.id, key, segs };
}

/** Claims until `owner` holds `taskId` (tasks other tests left waiting on this shared server are held by someone else). */
async function claimFor(server: TestServer, taskId: string, owner: string): Promise<void> {
  const tasks = server.banshu.platform.services.recordTasks;
  for (;;) {
    const c = await tasks.claim(owner);
    if (!c) throw new Error(`task ${taskId} was not claimable`);
    if (c.taskId === taskId) return;
    await tasks.fail(c.taskId, owner, 'left over by another test');
  }
}

describe('recording api [pglite]', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  it('the creator starts: recordState 2 for everyone; students, observers and visitors can neither start nor stop', async () => {
    const { roomNumber, teacher, students } = await recordingClass(server, 1);
    // Refused before anything runs: nothing is written.
    const tourist = await call(server.url, 'touristJoinRoom', { roomNumber, userName: 'Guest' });
    expect(tourist.code).toBe('0');
    const link = await call(server.url, 'createObserverLink', { roomNumber }, { token: teacher.token });
    const ot = new URL(link.data.url).searchParams.get('ot');
    const observerJoin = await call(server.url, 'userJoinAgoraRoom', { roomNumber, userType: '3', ot });
    expect(observerJoin.code).toBe('0');
    const observerCookie = observerJoin.setCookie!.split(';')[0]!;
    const outsiders = [
      { token: students[0]!.token },
      { token: tourist.data.userInfo!.userToken },
      { cookie: observerCookie },
      { token: (await signIn(server)).token },
    ];
    for (const who of outsiders) {
      expect((await call(server.url, 'startTask', { roomNumber }, who)).code).toBe('31004');
    }
    expect(await count(server, 'record_tasks')).toBe(0);

    const started = await call(server.url, 'startTask', { roomNumber }, { token: teacher.token });
    expect(started.code).toBe('0');
    const taskId = started.data.taskId;
    expect(taskId).toMatch(/^\d+$/);
    expect(await roomRecordState(server, roomNumber)).toBe('2');
    const seen = await call(server.url, 'getRoomMemberRecordState', { roomNumber }, { token: students[0]!.token });
    expect(seen.data).toEqual({ recordState: '2', taskId });
    expect((await call(server.url, 'getRoomInfoByRoomNumber', { roomNumber }, { token: teacher.token })).data.roomInfo.recordState).toBe(
      '2',
    );
    // Someone outside the room does not learn it.
    expect((await call(server.url, 'getRoomMemberRecordState', { roomNumber }, outsiders[3])).code).toBe('31004');

    for (const who of outsiders.slice(0, 3)) {
      expect((await call(server.url, 'stopTask', { roomNumber, taskId }, who)).code).toBe('31004');
    }
    expect((await taskRow(server, taskId)).state).toBe('starting');
    expect(await roomRecordState(server, roomNumber)).toBe('2');

    // A second start while one runs.
    expect((await call(server.url, 'startTask', { roomNumber }, { token: teacher.token })).code).toBe('37002');
    expect(await count(server, 'record_tasks')).toBe(1);

    // The creator stops before any recorder took it: no record, state 0.
    expect((await call(server.url, 'stopTask', { roomNumber, taskId: '999999' }, { token: teacher.token })).code).toBe('37003');
    expect((await call(server.url, 'stopTask', { roomNumber, taskId }, { token: teacher.token })).code).toBe('0');
    expect(await roomRecordState(server, roomNumber)).toBe('0');
    expect((await taskRow(server, taskId)).state).toBe('failed');
    expect(await count(server, 'records')).toBe(0);
    expect((await call(server.url, 'stopTask', { roomNumber, taskId }, { token: teacher.token })).code).toBe('37003');
  });

  it('a teacher without a paid entitlement is refused (ADR 072)', async () => {
    const teacher = await signIn(server);
    const created = await call(server.url, 'createRoom', { roomType: 2 }, { token: teacher.token });
    const roomNumber = created.data.roomInfo.roomNumber;
    const before = await count(server, 'record_tasks');
    const refused = await call(server.url, 'startTask', { roomNumber }, { token: teacher.token, lang: 'en' });
    expect(refused.code).toBe('37004');
    expect(refused.msg).toMatch(/membership/);
    expect(await count(server, 'record_tasks')).toBe(before);
    expect(await roomRecordState(server, roomNumber)).toBe('0');
    // An expired membership is no entitlement either.
    await grantMembership(server, teacher.userId, -1000);
    expect((await call(server.url, 'startTask', { roomNumber }, { token: teacher.token })).code).toBe('37004');
    await grantMembership(server, teacher.userId, 3600_000);
    expect((await call(server.url, 'startTask', { roomNumber }, { token: teacher.token })).code).toBe('0');
  });

  it('the creator leaving a recording room stops it; the class ending stops it too', async () => {
    const tasks = server.banshu.platform.services.recordTasks;
    const { roomNumber, teacher } = await recordingClass(server, 0);
    const joined = await call(server.url, 'userJoinAgoraRoom', { roomNumber }, { token: teacher.token });
    const socket = await connectRoom(server.url, joined.data.imToken);
    sockets.push(socket);
    expect((await ask(socket, 'joinRoom')).code).toBe('0');
    const { taskId } = (await call(server.url, 'startTask', { roomNumber }, { token: teacher.token })).data;
    await claimFor(server, taskId, 'rec-leave');
    await tasks.started(taskId, 'rec-leave');
    expect(await roomRecordState(server, roomNumber)).toBe('1');
    expect((await ask(socket, 'leaveRoom')).code).toBe('0');
    expect((await taskRow(server, taskId)).state).toBe('stopping');
    expect(await tasks.renew(taskId, 'rec-leave')).toBe('stopping');
    expect(await roomRecordState(server, roomNumber)).toBe('0');

    // The class ends while recording.
    const second = await recordingClass(server, 0);
    const t2 = (await call(server.url, 'startTask', { roomNumber: second.roomNumber }, { token: second.teacher.token })).data.taskId;
    await claimFor(server, t2, 'rec-end');
    await tasks.started(t2, 'rec-end');
    const j2 = await call(server.url, 'userJoinAgoraRoom', { roomNumber: second.roomNumber }, { token: second.teacher.token });
    const s2 = await connectRoom(server.url, j2.data.imToken);
    sockets.push(s2);
    expect((await ask(s2, 'joinRoom')).code).toBe('0');
    expect((await ask(s2, 'endRoom')).code).toBe('0');
    await until('the stop at the end of the class', async () => (await taskRow(server, t2)).state === 'stopping', 5000);
    expect(await tasks.renew(t2, 'rec-end')).toBe('stopping');
  });

  it('the package allowance ending stops a running recording (the scheduled stop)', async () => {
    const tasks = server.banshu.platform.services.recordTasks;
    const { roomNumber, teacher } = await recordingClass(server, 0);
    // Only a short membership left: the recording may run 1.5 s.
    await grantMembership(server, teacher.userId, 1500);
    const { taskId } = (await call(server.url, 'startTask', { roomNumber }, { token: teacher.token })).data;
    await claimFor(server, taskId, 'rec-allowance');
    await tasks.started(taskId, 'rec-allowance');
    expect(await roomRecordState(server, roomNumber)).toBe('1');
    await until('the stop at the end of the allowance', async () => (await taskRow(server, taskId)).state === 'stopping', 10_000);
    expect(await roomRecordState(server, roomNumber)).toBe('0');
    expect(
      (await call(server.url, 'getRecordList', { recordType: 2, pageSize: 10 }, { token: teacher.token })).data.recordList[0],
    ).toMatchObject({
      taskId,
      fileSize: '',
    });
  });

  it('a start timer lost with its process is caught up when the state is read', async () => {
    const { roomNumber, teacher, students } = await recordingClass(server, 1);
    const bus = busLog(server);
    const { taskId } = (await call(server.url, 'startTask', { roomNumber }, { token: teacher.token })).data;
    // The manual clock passes the timeout; the real timer (12 s) has not fired.
    server.clock.advance(15_001);
    const state = await call(server.url, 'getRoomMemberRecordState', { roomNumber }, { token: students[0]!.token });
    expect(state.data).toEqual({ recordState: '0', taskId: '' });
    expect((await taskRow(server, taskId)).state).toBe('failed');
    expect(bus).toContainEqual({ target: { room: roomNumber }, event: 'roomRecordFailed', payload: { taskId, reason: 'timeout' } });
  });

  it('while recording, the state answers when it began (its first frame, kept across a resume) and roomRecord carries the same time', async () => {
    const tasks = server.banshu.platform.services.recordTasks;
    const { roomNumber, teacher, students } = await recordingClass(server, 1);
    const bus = busLog(server);
    const { taskId } = (await call(server.url, 'startTask', { roomNumber }, { token: teacher.token })).data;
    await claimFor(server, taskId, 'rec-time');
    const claimedAt = server.clock.now().getTime();
    expect((await taskRow(server, taskId)).started_at?.getTime()).toBe(claimedAt);
    // Claimed, no media yet: still starting, no start time to show.
    const starting = await call(server.url, 'getRoomMemberRecordState', { roomNumber }, { token: teacher.token });
    expect(starting.data).toEqual({ recordState: '2', taskId });

    server.clock.advance(2_000);
    const startedAt = server.clock.now().getTime();
    await tasks.started(taskId, 'rec-time');
    expect(bus).toContainEqual({
      target: { room: roomNumber },
      event: 'roomRecord',
      payload: { code: '0', taskId, recordState: '1', startedAt },
    });
    // A page loaded a minute later (the creator's reload, a student) learns the same start.
    server.clock.advance(60_000);
    for (const token of [teacher.token, students[0]!.token]) {
      const state = await call(server.url, 'getRoomMemberRecordState', { roomNumber }, { token });
      expect(state.data).toEqual({ recordState: '1', taskId, startedAt });
    }
    // The recorder dies; the next one resumes: the recording began when it began.
    server.clock.advance(6_001);
    await claimFor(server, taskId, 'rec-time-2');
    const resumed = await call(server.url, 'getRoomMemberRecordState', { roomNumber }, { token: teacher.token });
    expect(resumed.data).toEqual({ recordState: '1', taskId, startedAt });
    expect((await call(server.url, 'stopTask', { roomNumber, taskId }, { token: teacher.token })).code).toBe('0');
    const stopped = await call(server.url, 'getRoomMemberRecordState', { roomNumber }, { token: teacher.token });
    expect(stopped.data).toEqual({ recordState: '0', taskId: '' });
  });

  it('lists 10 a page with a cursor and the total; size is empty while transcoding', async () => {
    const teacher = await signIn(server);
    const { db } = server.banshu.platform.database;
    const t0 = server.clock.now().getTime();
    for (let i = 0; i < 12; i++) {
      await db
        .insertInto('records')
        .values({
          user_id: teacher.userId,
          type: 2,
          file_name: `r${i}.mp4`,
          object_key: i === 11 ? null : `records/${teacher.userId}/0/${i}.mp4`,
          file_size: i === 11 ? null : 1000 + i,
          duration_ms: i === 11 ? null : 60_000,
          room_number: '123456',
          created_at: new Date(t0 - (12 - i) * 1000),
        })
        .execute();
    }
    // A studio recording of theirs is on the other tab.
    await db
      .insertInto('records')
      .values({ user_id: teacher.userId, type: 1, file_name: 'studio.mp4', created_at: new Date(t0) })
      .execute();
    const first = await call(server.url, 'getRecordList', { recordType: 2, pageSize: 10 }, { token: teacher.token });
    expect(first.code).toBe('0');
    expect(first.data.total).toBe(12);
    expect(first.data.recordList).toHaveLength(10);
    expect(first.data.recordList.map((r: { fileName: string }) => r.fileName)).toEqual([
      'r11.mp4',
      'r10.mp4',
      'r9.mp4',
      'r8.mp4',
      'r7.mp4',
      'r6.mp4',
      'r5.mp4',
      'r4.mp4',
      'r3.mp4',
      'r2.mp4',
    ]);
    expect(first.data.recordList[0]).toMatchObject({ fileSize: '', durationMs: null, type: 2, roomNumber: '123456', taskId: '' });
    expect(first.data.recordList[1]).toMatchObject({ fileSize: '1010', durationMs: 60_000 });
    const last = first.data.recordList[9];
    const second = await call(
      server.url,
      'getRecordList',
      { recordType: 2, pageSize: 10, pageTime: String(last!.createTime) },
      { token: teacher.token },
    );
    expect(second.data.recordList.map((r: { fileName: string }) => r.fileName)).toEqual(['r1.mp4', 'r0.mp4']);
    expect(second.data.total).toBe(12);
    const studio = await call(server.url, 'getRecordList', { recordType: 1, pageSize: 10 }, { token: teacher.token });
    expect(studio.data.recordList.map((r: { fileName: string }) => r.fileName)).toEqual(['studio.mp4']);
    // Someone else sees none of them.
    const other = await signIn(server);
    expect((await call(server.url, 'getRecordList', { recordType: 2, pageSize: 10 }, { token: other.token })).data).toEqual({
      recordList: [],
      total: 0,
    });
    // A transcoding record has no link yet.
    const transcoding = first.data.recordList[0]!.fileId;
    expect((await call(server.url, 'getRecordFileUrl', { fileId: transcoding }, { token: teacher.token })).code).toBe('37005');
  });

  it('the file link answers ranges (206) and downloads as an attachment; another user is refused as if it did not exist', async () => {
    const owner = await recordingClass(server, 0);
    const bytes = Buffer.from('0123456789abcdefghij');
    const { fileId, taskId, key, segs } = await finishedRecord(server, owner.teacher.userId, bytes);
    const got = await call(server.url, 'getRecordFileUrl', { fileId, taskId }, { token: owner.teacher.token });
    expect(got.code).toBe('0');
    const url = got.data.fileUrl;
    const whole = await fetch(url);
    expect(whole.status).toBe(200);
    expect(whole.headers.get('accept-ranges')).toBe('bytes');
    expect(Buffer.from(await whole.arrayBuffer())).toEqual(bytes);
    const part = await fetch(url, { headers: { range: 'bytes=5-9' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 5-9/${bytes.length}`);
    expect(await part.text()).toBe('56789');
    const tail = await fetch(url, { headers: { range: 'bytes=-3' } });
    expect(tail.status).toBe(206);
    expect(await tail.text()).toBe('hij');
    expect((await fetch(url, { headers: { range: 'bytes=50-' } })).status).toBe(416);
    const dl = await call(server.url, 'getRecordFileUrl', { fileId, download: true }, { token: owner.teacher.token });
    const attached = await fetch(dl.data.fileUrl);
    expect(attached.status).toBe(200);
    expect(attached.headers.get('content-disposition')).toBe(
      `attachment; filename="__ 1.mp4"; filename*=UTF-8''${encodeURIComponent('课堂 1.mp4')}`,
    );
    // A name typed without the extension (a studio video's, say) still downloads as .mp4.
    await server.banshu.platform.database.db.updateTable('records').set({ file_name: '第三课 复习' }).where('id', '=', fileId).execute();
    const named = await call(server.url, 'getRecordFileUrl', { fileId, download: true }, { token: owner.teacher.token });
    expect((await fetch(named.data.fileUrl)).headers.get('content-disposition')).toContain(
      `filename*=UTF-8''${encodeURIComponent('第三课 复习.mp4')}`,
    );
    // The signed name cannot be changed, nor the plain link turned into another name.
    expect((await fetch(dl.data.fileUrl.replace('dl=', 'dl=x'))).status).toBe(403);
    expect((await fetch(`${url}&dl=other.mp4`)).status).toBe(403);
    // A wrong task id with the right file is refused too.
    expect((await call(server.url, 'getRecordFileUrl', { fileId, taskId: '999999' }, { token: owner.teacher.token })).code).toBe('37001');

    // Another user: the same answer as a missing id, for play, download, share and delete; nothing goes.
    const other = await signIn(server);
    for (const [name, body] of [
      ['getRecordFileUrl', { fileId }],
      ['getRecordFileUrl', { fileId, download: true }],
      ['createRecordShareLink', { fileId }],
      ['delRecord', { fileId }],
    ] as const) {
      const theirs = await call(server.url, name, body, { token: other.token, lang: 'en' });
      const missing = await call(server.url, name, { ...body, fileId: '987654321' }, { token: other.token, lang: 'en' });
      expect(theirs.code, name).toBe('37001');
      expect({ code: theirs.code, msg: theirs.msg, data: theirs.data }).toEqual({
        code: missing.code,
        msg: missing.msg,
        data: missing.data,
      });
    }
    const objects = server.banshu.platform.objects;
    expect(await objects.head(key)).not.toBeNull();
    for (const k of segs) expect(await objects.head(k)).not.toBeNull();
    expect((await call(server.url, 'getRecordList', { recordType: 2, pageSize: 10 }, { token: owner.teacher.token })).data.total).toBe(1);

    // The owner deletes: the row and every object go.
    expect((await call(server.url, 'delRecord', { fileId }, { token: owner.teacher.token })).code).toBe('0');
    expect(await objects.head(key)).toBeNull();
    for (const k of segs) expect(await objects.head(k)).toBeNull();
    expect((await call(server.url, 'getRecordList', { recordType: 2, pageSize: 10 }, { token: owner.teacher.token })).data.total).toBe(0);
    expect(
      await server.banshu.platform.database.db.selectFrom('record_segments').select('seq').where('task_id', '=', taskId).execute(),
    ).toEqual([]);
    expect((await call(server.url, 'delRecord', { fileId }, { token: owner.teacher.token })).code).toBe('37001');
  });

  it('share links: a watch link without a session; forged, expired and deleted ones are refused', async () => {
    const owner = await recordingClass(server, 0);
    const { fileId } = await finishedRecord(server, owner.teacher.userId);
    const link = await call(server.url, 'createRecordShareLink', { fileId }, { token: owner.teacher.token });
    expect(link.code).toBe('0');
    const { url, expiresAt } = link.data;
    expect(url.startsWith(`${server.url}/watch/`)).toBe(true);
    expect(expiresAt - server.clock.now().getTime()).toBeGreaterThan(7 * 86_400_000 - 2000);
    expect(expiresAt - server.clock.now().getTime()).toBeLessThanOrEqual(7 * 86_400_000);
    const token = url.slice(url.lastIndexOf('/') + 1);
    const shared = await call(server.url, 'getSharedRecord', { token });
    expect(shared.code).toBe('0');
    expect(shared.data).toMatchObject({ fileName: '课堂 1.mp4', fileSize: '20', durationMs: 8000 });
    const video = await fetch(shared.data.fileUrl, { headers: { range: 'bytes=0-3' } });
    expect(video.status).toBe(206);
    expect(await video.text()).toBe('0123');

    // Forged: another body with the old signature, a made-up token, a room token of the same signer.
    const [body, sig] = token.split('.');
    const claims = JSON.parse(Buffer.from(body!, 'base64url').toString()) as Record<string, unknown>;
    const altered = Buffer.from(JSON.stringify({ ...claims, fileId: '1' })).toString('base64url');
    const joined = await call(server.url, 'userJoinAgoraRoom', { roomNumber: owner.roomNumber }, { token: owner.teacher.token });
    for (const forged of [`${altered}.${sig}`, 'abc.def', 'nonsense', joined.data.imToken]) {
      expect((await call(server.url, 'getSharedRecord', { token: forged })).code, forged).toBe('37006');
    }
    // Expired after 7 days.
    server.clock.advance(7 * 86_400_000 + 1000);
    expect((await call(server.url, 'getSharedRecord', { token })).code).toBe('37007');
    server.clock.advance(-(7 * 86_400_000 + 1000));
    // Deleted: the link dies with the record.
    expect((await call(server.url, 'delRecord', { fileId }, { token: owner.teacher.token })).code).toBe('0');
    expect((await call(server.url, 'getSharedRecord', { token })).code).toBe('37001');
  });

  it('shared-record look-ups are counted per address', async () => {
    const limited = await startTestServer({ env: { ROOM_LOOKUPS_PER_MINUTE: '3' } });
    try {
      for (let i = 0; i < 3; i++) expect((await call(limited.url, 'getSharedRecord', { token: 'a.b' })).code).toBe('37006');
      expect((await call(limited.url, 'getSharedRecord', { token: 'a.b' })).code).toBe('37009');
    } finally {
      await limited.close();
    }
  });
});

describe('recording start timeout [pglite]', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { RECORDING_START_TIMEOUT_SECONDS: '1' } });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('no recorder within the timeout: roomRecordFailed to the room, recordState 0, and no recorder may claim it after', async () => {
    const { roomNumber, teacher, students } = await recordingClass(server, 1);
    const joined = await call(server.url, 'userJoinAgoraRoom', { roomNumber }, { token: students[0]!.token });
    const socket = await connectRoom(server.url, joined.data.imToken);
    sockets.push(socket);
    expect((await ask(socket, 'joinRoom')).code).toBe('0');
    const failed = waitFor(socket, 'roomRecordFailed', () => true, 10_000);
    const patched = waitFor(socket, 'customRoomEvent', (p) => p.recordState === '0', 10_000);
    const bus = busLog(server);
    const { taskId } = (await call(server.url, 'startTask', { roomNumber }, { token: teacher.token })).data;
    // The claim query refuses it once it is older than the timeout (the manual clock moves; the timer is real).
    server.clock.advance(1001);
    expect(await server.banshu.platform.services.recordTasks.claim('late-recorder')).toBeNull();
    expect(await failed).toEqual({ taskId, reason: 'timeout' });
    await patched;
    expect(await roomRecordState(server, roomNumber)).toBe('0');
    expect(await taskRow(server, taskId)).toMatchObject({ state: 'failed', owner: null });
    expect(bus.filter((m) => m.event === 'roomRecordFailed')).toHaveLength(1);
    // The room may start again.
    expect((await call(server.url, 'startTask', { roomNumber }, { token: teacher.token })).code).toBe('0');
  });
});

describe('recording file links on S3 [pglite + s3rver]', () => {
  let s3: TestS3;
  let server: TestServer;
  beforeAll(async () => {
    s3 = await startS3();
    server = await startTestServer({ env: s3.env });
  });
  afterAll(async () => {
    await server?.close();
    await s3?.close();
  });

  it('the signed GET answers ranges, and delete removes the objects', async () => {
    const owner = await recordingClass(server, 0);
    const bytes = Buffer.from('0123456789abcdefghij');
    const { fileId, key, segs } = await finishedRecord(server, owner.teacher.userId, bytes);
    const got = await call(server.url, 'getRecordFileUrl', { fileId }, { token: owner.teacher.token });
    expect(got.data.fileUrl).toContain(s3.endpoint);
    const part = await fetch(got.data.fileUrl, { headers: { range: 'bytes=10-14' } });
    expect(part.status).toBe(206);
    expect(await part.text()).toBe('abcde');
    const dl = await call(server.url, 'getRecordFileUrl', { fileId, download: true }, { token: owner.teacher.token });
    expect(new URL(dl.data.fileUrl).searchParams.get('response-content-disposition')).toMatch(/^attachment; /);
    expect((await call(server.url, 'delRecord', { fileId }, { token: owner.teacher.token })).code).toBe('0');
    const objects = server.banshu.platform.objects;
    expect(await objects.head(key)).toBeNull();
    for (const k of segs) expect(await objects.head(k)).toBeNull();
  });
});
