/**
 * The distributed realtime layer (ADR 053): two ROLE=web nodes and one ROLE=worker process, each
 * with its own event bus and socket.io server, share one PostgreSQL database, one S3 store and one
 * Redis (REDIS_URL). Broadcasts, members and presence span the nodes; the worker's conversion
 * events reach browsers on any node; nothing arrives twice; a change of a room on one node drops
 * the other nodes' caches of it at once (ADR 062); a Redis outage is survived, and a board
 * operation stored during it reaches the other node's clients, in order, after it (ADR 096).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '#core/platform/db/database.ts';
import { createLogger } from '#core/platform/logger.ts';
import type { RoomChange } from '#core/rooms/room-state.ts';
import { startBanshu, type Banshu } from '#server/app.ts';
import { call, nextMobile } from '#tests/support/api.ts';
import { makePdf, uploadCourseware } from '#tests/support/courseware.ts';
import { postgresAdminUrl } from '#tests/support/database.ts';
import { createTestDatabase, type TestDatabase } from '#tests/support/postgres.ts';
import { capturingLogger } from '#tests/support/log-capture.ts';
import { startRedis, type TestRedis } from '#tests/support/redis.ts';
import {
  ask,
  connectRoom,
  connectUser,
  record,
  waitFor,
  type AnswerData,
  type EventPayload,
  type RoomSocket,
} from '#tests/support/room-client.ts';
import type { SequencedOp } from '#core/contracts/board.ts';
import { connectBoard, createOp } from '#tests/support/board-client.ts';
import { startS3, type TestS3 } from '#tests/support/s3.ts';
import { until } from '#tests/support/until.ts';

const sockets: RoomSocket[] = [];
afterEach(() => {
  for (const s of sockets.splice(0)) s.close();
});

async function signIn(node: Banshu): Promise<{ token: string; userId: string }> {
  const mobile = nextMobile();
  expect((await call(node.url, 'sendPhoneCode', { mobile, area: '86' })).code).toBe('0');
  const code = node.platform.services.devOutbox!.list().find((m) => m.mobile === mobile)!.code;
  const login = await call(node.url, 'loginUser', { mobile, code });
  return { token: login.data.userInfo.userToken, userId: login.data.userInfo.userId };
}

/** Joins the room through `node` (/api on that node, the room socket on that node). */
async function join(
  node: Banshu,
  who: { token: string },
  roomNumber: string,
): Promise<{ socket: RoomSocket; snapshot: AnswerData<'joinRoom'> }> {
  const joined = await call(node.url, 'userJoinAgoraRoom', { roomNumber }, { token: who.token });
  expect(joined.code).toBe('0');
  const socket = await connectRoom(node.url, joined.data.imToken);
  sockets.push(socket);
  const snap = await ask(socket, 'joinRoom', {});
  expect(snap.code).toBe('0');
  return { socket, snapshot: snap.data };
}

/**
 * Before checking that nothing arrived twice: one message sent from each node and awaited on
 * every listed socket. Each path (a node's own sockets, Redis from the other node) delivers in
 * order, so a second copy of anything either node emitted earlier would be in before its fence.
 * A creator's patch is node A's fence (`showState` 'wb', which the checks ignore); a network
 * quality report, answered by a members broadcast, is node B's.
 */
async function fenceBothNodes(creatorOnA: RoomSocket, onB: RoomSocket, userOnB: string, listeners: RoomSocket[]): Promise<void> {
  const fromA = listeners.map((s) => waitFor(s, 'customRoomEvent', (p) => p.showState === 'wb'));
  expect((await ask(creatorOnA, 'customRoomEvent', { showState: 'wb' })).code).toBe('0');
  await Promise.all(fromA);
  const reported = (p: EventPayload<'members'>) => p.members.some((m) => m.userId === userOnB && m.networkQuality === 4);
  const fromB = listeners.map((s) => waitFor(s, 'members', reported));
  expect((await ask(onB, 'customRoomEvent', { networkQuality: 4 })).code).toBe('0');
  await Promise.all(fromB);
}

async function userSocket(node: Banshu, token: string): Promise<RoomSocket> {
  const s = await connectUser(node.url, token);
  sockets.push(s);
  return s;
}

/** The pub client of a web node's Redis adapter (to see when it noticed an outage). */
function pubStatus(node: Banshu): string {
  return (node.web!.io.of('/room').adapter as unknown as { pubClient: { status: string } }).pubClient.status;
}

describe('distributed realtime: two web nodes and a worker over Redis', () => {
  let redis: TestRedis;
  let s3: TestS3;
  let created: TestDatabase;
  let a: Banshu;
  let b: Banshu;
  let worker: Banshu;
  /** Node A's log lines (its Redis outage is read here). */
  const { logger: loggerA, lines: logA } = capturingLogger();

  beforeAll(async () => {
    [redis, s3, created] = await Promise.all([startRedis(), startS3(), createTestDatabase(postgresAdminUrl())]);
    const env = {
      NODE_ENV: 'test',
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      SESSION_SECRET: 'd'.repeat(64),
      DATA_DIR: '/tmp/banshu-distributed-test',
      DATABASE_URL: created.url,
      MEDIA_PUBLIC_URL: 'http://127.0.0.1:9',
      REDIS_URL: redis.url,
      // Room info is shared for a minute here: only the room-change relay can make a change show sooner.
      ROOM_INFO_CACHE_MS: '60000',
      ...s3.env,
    };
    // One database handle per process, as in production.
    a = await startBanshu(
      { ...env, ROLE: 'web' },
      { database: await openDatabase({ url: created.url, dataDir: null }), logger: loggerA, web: { mode: 'none' } },
    );
    b = await startBanshu(
      { ...env, ROLE: 'web' },
      { database: await openDatabase({ url: created.url, dataDir: null }), logger: createLogger('silent'), web: { mode: 'none' } },
    );
    worker = await startBanshu(
      { ...env, ROLE: 'worker' },
      { database: await openDatabase({ url: created.url, dataDir: null }), logger: createLogger('silent') },
    );
  }, 60_000);

  afterAll(async () => {
    await a?.close();
    await b?.close();
    await worker?.close();
    await created?.drop();
    await s3?.close();
    await redis?.close();
  });

  it('a teacher on node A and students on A and B: patches, chat, members and presence span the nodes, once each', async () => {
    expect(worker.web).toBeNull();
    const teacher = await signIn(a);
    const roomNumber = (await call(a.url, 'createRoom', { roomType: 2 }, { token: teacher.token })).data.roomInfo.roomNumber;
    const t = await join(a, teacher, roomNumber);
    const studentB = await signIn(b);
    const membersSeenByTeacher = waitFor(t.socket, 'members', (p) => p.members.length === 2);
    const sb = await join(b, studentB, roomNumber);
    // Node B's join snapshot counts the teacher's socket on node A (presence through the adapter).
    expect(sb.snapshot.members.map((m) => m.userId).sort()).toEqual([teacher.userId, studentB.userId].sort());
    // Node B's members broadcast reaches the teacher on node A.
    expect((await membersSeenByTeacher).teacherOnline).toBe(true);
    const studentA = await signIn(a);
    const sa = await join(a, studentA, roomNumber);
    expect(sa.snapshot.members).toHaveLength(3);

    const patchesB = record(sb.socket, 'customRoomEvent');
    const patchesA = record(sa.socket, 'customRoomEvent');
    const chatsB = record(sb.socket, 'messageevent');
    const chatsA = record(sa.socket, 'messageevent');
    const gotPatch = waitFor(sb.socket, 'customRoomEvent', (p) => p.showState === 'ppt');
    expect((await ask(t.socket, 'customRoomEvent', { showState: 'ppt', pptCurrentPage: 2 })).code).toBe('0');
    expect(await gotPatch).toMatchObject({ showState: 'ppt', pptCurrentPage: 2, by: teacher.userId });
    const gotChat = waitFor(sb.socket, 'messageevent', (p) => p.text === '跨节点');
    expect((await ask(t.socket, 'chat', { text: '跨节点' })).code).toBe('0');
    expect(await gotChat).toMatchObject({ text: '跨节点' });
    // A reply from B back to A is the fence: everything before it has arrived, nothing twice.
    const fence = waitFor(t.socket, 'messageevent', (p) => p.text === 'fence');
    expect((await ask(sb.socket, 'chat', { text: 'fence' })).code).toBe('0');
    await fence;
    await fenceBothNodes(t.socket, sb.socket, studentB.userId, [sa.socket, sb.socket]);
    expect(patchesB.filter((p) => p.showState === 'ppt')).toHaveLength(1);
    expect(patchesA.filter((p) => p.showState === 'ppt')).toHaveLength(1);
    expect(chatsB.map((c) => c.text)).toEqual(['跨节点', 'fence']);
    expect(chatsA.map((c) => c.text)).toEqual(['跨节点', 'fence']);

    // Presence with a network quality set on node B (by the fence) is read on node A (kick needs "online").
    const online = await a.platform.presence.online(roomNumber);
    expect(online).toEqual(expect.arrayContaining([{ userId: studentB.userId, networkQuality: 4 }]));
    expect(online).toHaveLength(3);

    // A kick-out asked on node A disconnects the student's socket on node B.
    const gone = new Promise((resolve) => sb.socket.once('disconnect', resolve));
    expect((await ask(t.socket, 'kickout', { userId: studentB.userId })).code).toBe('0');
    await gone;
  });

  it('a PDF registered through node A and converted by the worker: progress and done reach node B and the uploader on B, once', async () => {
    const teacher = await signIn(a);
    const roomNumber = (await call(a.url, 'createRoom', { roomType: 2 }, { token: teacher.token })).data.roomInfo.roomNumber;
    const t = await join(a, teacher, roomNumber);
    const student = await signIn(b);
    const s = await join(b, student, roomNumber);
    const library = await userSocket(b, teacher.token);
    const onB = record(s.socket, 'documentConvert');
    const onA = record(t.socket, 'documentConvert');
    const finishedB = waitFor(s.socket, 'documentConvert', (p) => p.phase !== 'progress', 30_000);
    const finishedA = waitFor(t.socket, 'documentConvert', (p) => p.phase !== 'progress', 30_000);
    const added = waitFor(library, 'addDocumentConvertEvent');
    const libraryDone = waitFor(library, 'documentStatus', (p) => p.document.status === 3, 30_000);

    const up = await uploadCourseware(a.url, teacher.token, makePdf(3, { label: 'Distributed' }), 'nodes.pdf', { roomNumber });
    expect(up.put).toBe(200);
    expect(up.add.code).toBe('0');
    const documentId = up.add.data.documentId;
    // Registered on node A (its bus), delivered to the uploader's page on node B.
    expect((await added).document).toMatchObject({ documentId, status: 1 });
    // Converted in the worker process (its bus, the Redis emitter), delivered on both nodes.
    expect(await finishedB).toMatchObject({ status: '200', phase: 'done', documentId, userId: teacher.userId, done: 3, total: 3 });
    await finishedA;
    expect((await libraryDone).document).toMatchObject({ documentId, status: 3, pageCount: 3 });
    await fenceBothNodes(t.socket, s.socket, student.userId, [t.socket, s.socket]);
    for (const seen of [onB, onA]) {
      expect(seen.filter((p) => p.phase === 'progress').map((p) => p.done)).toEqual([1, 2, 3]);
      expect(seen.filter((p) => p.phase === 'done')).toHaveLength(1);
    }
  });

  it("a change of the room through node A drops node B's caches of it at once: room info and the board's rules", async () => {
    const teacher = await signIn(a);
    const roomNumber = (await call(a.url, 'createRoom', { roomType: 2 }, { token: teacher.token })).data.roomInfo.roomNumber;
    const t = await join(a, teacher, roomNumber);
    const studentB = await signIn(b);
    await join(b, studentB, roomNumber);
    const student = { room: roomNumber, uid: studentB.userId, role: 'member' as const };
    const onB = b.platform.services;
    // Node B's caches hold the room as it is.
    expect(await onB.rooms.getRoomInfo(roomNumber)).toMatchObject({ showState: '', wbPower: '0' });
    expect(await onB.board.mayDraw(student)).toBe(false);
    const heard = new Promise<RoomChange>((resolve) => {
      const stop = onB.roomState.onChange((c) => {
        if (c.roomNumber !== roomNumber || !c.fields.includes('wb_power')) return;
        stop();
        resolve(c);
      });
    });
    expect((await ask(t.socket, 'customRoomEvent', { showState: 'ppt', wbPower: '1' })).code).toBe('0');
    expect((await heard).fields).toEqual(expect.arrayContaining(['show_state', 'wb_power']));
    // Read on node B right after it heard: the new values, well within the caches' time to live.
    expect(await onB.rooms.getRoomInfo(roomNumber)).toMatchObject({ showState: 'ppt', wbPower: '1' });
    expect(await onB.board.mayDraw(student)).toBe(true);
    expect((await call(b.url, 'getRoomInfoByRoomNumber', { roomNumber }, { token: studentB.token })).data.roomInfo).toMatchObject({
      showState: 'ppt',
      wbPower: '1',
    });
  });

  it('a Redis outage: each node keeps serving its own sockets and logs; cross-node delivery resumes when Redis is back', async () => {
    const teacher = await signIn(a);
    const roomNumber = (await call(a.url, 'createRoom', { roomType: 2 }, { token: teacher.token })).data.roomInfo.roomNumber;
    const t = await join(a, teacher, roomNumber);
    const studentA = await signIn(a);
    const sa = await join(a, studentA, roomNumber);
    const studentB = await signIn(b);
    const sb = await join(b, studentB, roomNumber);
    // Board sockets: the teacher's on node A, the student's on node B (ADR 096).
    const boardOf = async (node: Banshu, who: { token: string; userId: string }) => {
      const wb = await call(node.url, 'createWbToken', { userId: who.userId, channelId: roomNumber }, { token: who.token });
      const s = await connectBoard(node.url, wb.data.token);
      sockets.push(s);
      expect((await ask(s, 'getBoard', { page: 'wb:0' })).code).toBe('0');
      return s;
    };
    const boardA = await boardOf(a, teacher);
    const boardB = await boardOf(b, studentB);
    const heardB = record(boardB, 'sync');

    await redis.stop();
    await until('node A to notice the outage', () => pubStatus(a) !== 'ready', 10_000);
    const localChat = waitFor(sa.socket, 'messageevent', (p) => p.text === '断线');
    expect((await ask(t.socket, 'chat', { text: '断线' })).code).toBe('0');
    await localChat;
    // A board operation stored during the outage: node B does not hear of it yet.
    expect((await ask(boardA, 'sync', createOp('op-outage', 'outage'))).code).toBe('0');
    // Presence answers this node's sockets instead of failing.
    const online = await a.platform.presence.online(roomNumber);
    expect(online.map((o) => o.userId).sort()).toEqual([teacher.userId, studentA.userId].sort());

    // Logged once as an error (not once per reconnect attempt), with the presence fallback.
    const errors = logA.filter((l) => l.level >= 50).map((l) => l.msg);
    expect(errors.filter((m) => m.startsWith('redis unreachable')).length).toBeGreaterThanOrEqual(1);
    expect(errors.filter((m) => m.startsWith('redis unreachable')).length).toBeLessThanOrEqual(2); // pub and sub
    expect(errors).toContain('presence across nodes failed; answering this node only');

    await redis.start();
    await until('node A to reconnect', () => pubStatus(a) === 'ready', 10_000);
    await until('node B to reconnect', () => pubStatus(b) === 'ready', 10_000);
    // Subscriptions are renewed on reconnect: retry until node B's subscriber is back, too.
    const back = waitFor(sb.socket, 'messageevent', (p) => p.text === '恢复', 15_000);
    const retry = setInterval(() => void ask(t.socket, 'chat', { text: '恢复' }).catch(() => undefined), 300);
    try {
      expect((await back).text).toBe('恢复');
    } finally {
      clearInterval(retry);
    }
    expect(logA.some((l) => l.msg === 'redis reachable again')).toBe(true);
    // The next board operation after the outage: node B sees the gap, catches up from the
    // database, and its client hears both, in order, once.
    let n = 0;
    const afterOutage = waitFor(boardB, 'sync', (op: SequencedOp) => op.opId.startsWith('op-back'), 15_000);
    const drawing = setInterval(
      () => void ask(boardA, 'sync', createOp(`op-back-${String(n++)}`, `back-${String(n)}`)).catch(() => undefined),
      300,
    );
    try {
      await afterOutage;
    } finally {
      clearInterval(drawing);
    }
    const seqs = heardB.map((op) => op.seq);
    expect(heardB[0]?.opId).toBe('op-outage');
    expect(seqs).toEqual(seqs.map((_, i) => seqs[0]! + i));
    // Both processes are still up and answering.
    expect((await call(a.url, 'getRoomInfoByRoomNumber', { roomNumber }, { token: teacher.token })).code).toBe('0');
    expect((await call(b.url, 'getRoomInfoByRoomNumber', { roomNumber }, { token: studentB.token })).code).toBe('0');
  });
});
