/**
 * The web tier across nodes (ADR 096): two ROLE=web nodes and a worker over one PostgreSQL and one
 * Redis, each with its own board log, caches and socket.io server. A room's board is written on
 * both nodes at once: every client, whichever node it is on, hears every operation once and in
 * the room's order, and both nodes answer the same board. A room closed by another process
 * disconnects its sockets on every web node. Rate limits count the hits of every node.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Socket } from 'socket.io-client';
import type { SequencedOp } from '#core/contracts/board.ts';
import { openDatabase } from '#core/platform/db/database.ts';
import { createLogger } from '#core/platform/logger.ts';
import { startBanshu, type Banshu } from '#server/app.ts';
import { call, nextMobile } from '#tests/support/api.ts';
import { connectBoard, createOp, stateOf, strokeData, LayerMirror } from '#tests/support/board-client.ts';
import { postgresAdminUrl } from '#tests/support/database.ts';
import { createTestDatabase, type TestDatabase } from '#tests/support/postgres.ts';
import { startRedis, type TestRedis } from '#tests/support/redis.ts';
import { ask, connectRoom, record, waitFor } from '#tests/support/room-client.ts';
import { startS3, type TestS3 } from '#tests/support/s3.ts';
import { until } from '#tests/support/until.ts';

const sockets: Socket[] = [];
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

interface Seat {
  room: Socket;
  board: Socket;
}

/** Joins through `node`: its API, its room socket and its board socket. */
async function seat(node: Banshu, who: { token: string; userId: string }, roomNumber: string): Promise<Seat> {
  const joined = await call(node.url, 'userJoinAgoraRoom', { roomNumber }, { token: who.token });
  expect(joined.code).toBe('0');
  const room = await connectRoom(node.url, joined.data.imToken);
  sockets.push(room);
  expect((await ask(room, 'joinRoom', {})).code).toBe('0');
  const wb = await call(node.url, 'createWbToken', { userId: who.userId, channelId: roomNumber }, { token: who.token });
  expect(wb.code).toBe('0');
  const board = await connectBoard(node.url, wb.data.token);
  sockets.push(board);
  return { room, board };
}

describe('the web tier across two web nodes (PostgreSQL, Redis)', () => {
  let redis: TestRedis;
  let s3: TestS3;
  let created: TestDatabase;
  let a: Banshu;
  let b: Banshu;
  let worker: Banshu;
  /** Another web node on the same database and Redis (a test that kills one). */
  let startWeb: () => Promise<Banshu>;

  beforeAll(async () => {
    [redis, s3, created] = await Promise.all([startRedis(), startS3(), createTestDatabase(postgresAdminUrl())]);
    const env = {
      NODE_ENV: 'test',
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      SESSION_SECRET: 'e'.repeat(64),
      DATA_DIR: '/tmp/banshu-cluster-web-test',
      DATABASE_URL: created.url,
      MEDIA_PUBLIC_URL: 'http://127.0.0.1:9',
      REDIS_URL: redis.url,
      // Snapshots (which compact the log) come often: a node catching up must still hear every operation.
      BOARD_SNAPSHOT_EVERY: '10',
      BOARD_OPS_PER_SECOND: '1000',
      // One seat on stage: a second invitation is refused as a full stage, whichever node asks.
      STAGE_SEATS_OTHER: '1',
      ...s3.env,
    };
    const open = () => openDatabase({ url: created.url, dataDir: null });
    a = await startBanshu({ ...env, ROLE: 'web' }, { database: await open(), logger: createLogger('silent'), web: { mode: 'none' } });
    b = await startBanshu({ ...env, ROLE: 'web' }, { database: await open(), logger: createLogger('silent'), web: { mode: 'none' } });
    worker = await startBanshu({ ...env, ROLE: 'worker' }, { database: await open(), logger: createLogger('silent') });
    startWeb = async () =>
      startBanshu({ ...env, ROLE: 'web' }, { database: await open(), logger: createLogger('silent'), web: { mode: 'none' } });
  }, 60_000);

  afterAll(async () => {
    await a?.close();
    await b?.close();
    await worker?.close();
    await created?.drop();
    await s3?.close();
    await redis?.close();
  });

  it('board operations written on both nodes at once: every client hears each once, in the room order; both nodes answer the same board', async () => {
    const teacher = await signIn(a);
    const roomNumber = (await call(a.url, 'createRoom', { roomType: 2 }, { token: teacher.token })).data.roomInfo.roomNumber;
    const onA = await seat(a, teacher, roomNumber);
    // Students may draw: each node has a writer and a listener.
    expect((await ask(onA.room, 'customRoomEvent', { wbPower: '1' })).code).toBe('0');
    const writerB = await seat(b, await signIn(b), roomNumber);
    const listenerA = await seat(a, await signIn(a), roomNumber);
    const listenerB = await seat(b, await signIn(b), roomNumber);
    const clients = [onA.board, writerB.board, listenerA.board, listenerB.board];
    const heard = clients.map((s) => record(s, 'sync'));
    // Both nodes hold the layer in memory before the writes (a warm cache that must not go stale).
    for (const s of clients) expect((await ask(s, 'getBoard', { page: 'wb:0' })).code).toBe('0');

    const N = 60;
    const acks: Promise<{ code: string; data: { seq: number } }>[] = [];
    for (let i = 0; i < N; i++) {
      const writer = i % 2 === 0 ? onA.board : writerB.board;
      const op = createOp(`op-${roomNumber}-${i}`, `item-${i}`, 'wb:0', strokeData(10 + i, 10 + i));
      acks.push(ask(writer, 'sync', op));
      // Some deletes and undos too, from both nodes, so the layers' histories must agree.
      if (i % 10 === 9) acks.push(ask(writer, 'sync', { opId: `undo-${roomNumber}-${i}`, type: 'undo', page: 'wb:0' }));
    }
    const answers = await Promise.all(acks);
    for (const x of answers) expect(x.code).toBe('0');
    const seqs = answers.map((x) => x.data.seq).sort((p, q) => p - q);
    const total = answers.length;
    // One number each, no gaps: the room's log.
    expect(seqs).toEqual(Array.from({ length: total }, (_, i) => i + 1));
    await until('every client to hear every operation', () => heard.every((h) => h.length >= total), 10_000);
    // A fence: one more operation heard by all, so a late copy of anything would be in by now.
    const fence = clients.map((s) => waitFor(s, 'sync', (op: SequencedOp) => op.opId === `fence-${roomNumber}`));
    expect((await ask(onA.board, 'sync', createOp(`fence-${roomNumber}`, 'fence'))).code).toBe('0');
    await Promise.all(fence);
    for (const h of heard) {
      // Once each, in the room's order.
      expect(h.map((op) => op.seq)).toEqual(Array.from({ length: total + 1 }, (_, i) => i + 1));
    }
    // The clients' boards (applying what they heard) and both nodes' answers (warm, then cold) agree.
    const mirrors = heard.map((h) => {
      const m = new LayerMirror('wb:0');
      for (const op of h) m.apply(op);
      return m.items();
    });
    for (const m of mirrors) expect(m).toEqual(mirrors[0]);
    const warmA = stateOf('wb:0', (await ask(listenerA.board, 'getBoard', { page: 'wb:0' })).data);
    const warmB = stateOf('wb:0', (await ask(listenerB.board, 'getBoard', { page: 'wb:0' })).data);
    expect(warmA.items).toEqual(mirrors[0]);
    expect(warmB).toEqual(warmA);
    // An undo on node B undoes node B's writer's own last item (its history heard node A's operations).
    const before = warmA.items.length;
    const undo = await ask(writerB.board, 'sync', { opId: `undo-last-${roomNumber}`, type: 'undo', page: 'wb:0' });
    expect(undo.code).toBe('0');
    const after = stateOf('wb:0', (await ask(listenerA.board, 'getBoard', { page: 'wb:0' })).data);
    expect(after.items.length).toBe(before - 1);
    expect(after.items.map((x) => x.id)).not.toContain('item-57');
    b.platform.services.board.forget(roomNumber);
    const coldB = stateOf('wb:0', (await ask(listenerB.board, 'getBoard', { page: 'wb:0' })).data);
    expect(coldB).toEqual(after);
  });

  it('stage invitations and presence across nodes: a teacher on A invites a student on B, who agrees and is then taken down', async () => {
    const teacher = await signIn(a);
    const roomNumber = (await call(a.url, 'createRoom', { roomType: 2 }, { token: teacher.token })).data.roomInfo.roomNumber;
    const t = await seat(a, teacher, roomNumber);
    const student = await signIn(b);
    const s = await seat(b, student, roomNumber);
    const other = await seat(a, await signIn(a), roomNumber);
    // Presence counts both nodes' sockets, read on either node.
    for (const node of [a, b]) expect((await node.platform.presence.online(roomNumber)).map((o) => o.userId)).toContain(student.userId);
    const invited = waitFor(s.room, 'stage', (m) => m.outcome === 'invited' && m.userIds.includes(student.userId));
    const seenByOther = waitFor(other.room, 'stage', (m) => m.outcome === 'invited');
    expect((await ask(t.room, 'inviteStage', { userId: student.userId })).code).toBe('0');
    await Promise.all([invited, seenByOther]);
    const connected = waitFor(t.room, 'stage', (m) => m.outcome === 'agreed');
    expect((await ask(s.room, 'answerStage', { agree: true })).code).toBe('0');
    expect(await connected).toMatchObject({ userIds: [student.userId], onStage: [{ userId: student.userId }] });
    const stopped = waitFor(s.room, 'stage', (m) => m.outcome === 'down');
    expect((await ask(t.room, 'stageDown', { userId: student.userId })).code).toBe('0');
    await stopped;
    // The one seat is free again for everyone: a new invitation to someone on node B, while
    // another is pending, is refused as a full stage whichever node asks.
    const late = await signIn(b);
    await seat(b, late, roomNumber);
    expect((await ask(t.room, 'inviteStage', { userId: late.userId })).code).toBe('0');
    expect((await ask(t.room, 'inviteStage', { userId: student.userId })).code).toBe('31030');
  });

  it('the stage lives in the database: the web node the teacher used dies, and the other tells the same seats, hands and carousel (ADR 112)', async () => {
    const c = await startWeb();
    let cClosed = false;
    try {
      const teacher = await signIn(c);
      const roomNumber = (await call(c.url, 'createRoom', { roomType: 2 }, { token: teacher.token })).data.roomInfo.roomNumber;
      const t = await seat(c, teacher, roomNumber);
      const up = await signIn(b);
      const u = await seat(b, up, roomNumber);
      const waiting = await signIn(b);
      const w = await seat(b, waiting, roomNumber);
      expect((await ask(t.room, 'inviteStage', { userId: up.userId })).code).toBe('0');
      expect((await ask(u.room, 'answerStage', { agree: true })).code).toBe('0');
      expect((await ask(w.room, 'raiseHand', {})).code).toBe('0');
      expect((await ask(t.room, 'setCarousel', { seconds: 600 })).code).toBe('0');
      await c.close();
      cClosed = true;
      // The teacher comes back through node B: the same stage.
      const joined = await call(b.url, 'userJoinAgoraRoom', { roomNumber }, { token: teacher.token });
      const again = await connectRoom(b.url, joined.data.imToken);
      sockets.push(again);
      const snap = await ask(again, 'joinRoom', {});
      expect(snap.code).toBe('0');
      expect(snap.data.stage.onStage.map((x) => x.userId)).toEqual([up.userId]);
      expect(snap.data.stage.hands.map((x) => x.userId)).toEqual([waiting.userId]);
      expect(snap.data.stage.carousel.seconds).toBe(600);
      // And acts on it.
      const down = waitFor(u.room, 'stage', (m) => m.outcome === 'down' && m.off.includes(up.userId));
      expect((await ask(again, 'stageDown', { userId: up.userId })).code).toBe('0');
      await down;
    } finally {
      if (!cClosed) await c.close();
    }
  });

  it('a room closed by another process (the worker) disconnects its room and board sockets on every web node', async () => {
    const teacher = await signIn(a);
    const roomNumber = (await call(a.url, 'createRoom', { roomType: 2 }, { token: teacher.token })).data.roomInfo.roomNumber;
    const t = await seat(a, teacher, roomNumber);
    const s = await seat(b, await signIn(b), roomNumber);
    const closed = waitFor(s.room, 'roomClosed');
    const gone = [t.room, t.board, s.room, s.board].map((x) => new Promise((resolve) => x.once('disconnect', resolve)));
    await worker.platform.services.live.end({ room: roomNumber, uid: teacher.userId, role: 'creator' } as never);
    await closed;
    await Promise.all(gone);
  });

  it('rate limits count the hits of both nodes: sign-in codes for one number, chat and hands of one person with a socket on each', async () => {
    // The code limit per mobile (SMS_RESEND_SECONDS): a second code through the other node is refused.
    const mobile = nextMobile();
    expect((await call(a.url, 'sendPhoneCode', { mobile, area: '86' })).code).toBe('0');
    expect((await call(b.url, 'sendPhoneCode', { mobile, area: '86' })).code).not.toBe('0');

    // Chat: CHAT_MESSAGES_PER_10S (10) for one person, whichever node their lines go through.
    const teacher = await signIn(a);
    const roomNumber = (await call(a.url, 'createRoom', { roomType: 2 }, { token: teacher.token })).data.roomInfo.roomNumber;
    const onA = await seat(a, teacher, roomNumber);
    const joinedB = await call(b.url, 'userJoinAgoraRoom', { roomNumber }, { token: teacher.token });
    const onB = await connectRoom(b.url, joinedB.data.imToken);
    sockets.push(onB);
    expect((await ask(onB, 'joinRoom', {})).code).toBe('0');
    const codes: string[] = [];
    for (let i = 0; i < 14; i++) codes.push((await ask(i % 2 ? onB : onA.room, 'chat', { text: `line ${i}` })).code);
    expect(codes.filter((c) => c === '0')).toHaveLength(10);
    expect(codes.slice(10)).toEqual(['31008', '31008', '31008', '31008']);

    // Hands: HANDS_PER_MINUTE (6) raises for one student, whichever node they go through (ADR 112).
    const student = await signIn(a);
    const sA = await seat(a, student, roomNumber);
    const sJoinedB = await call(b.url, 'userJoinAgoraRoom', { roomNumber }, { token: student.token });
    const sOnB = await connectRoom(b.url, sJoinedB.data.imToken);
    sockets.push(sOnB);
    expect((await ask(sOnB, 'joinRoom', {})).code).toBe('0');
    const hands: string[] = [];
    for (let i = 0; i < 8; i++) {
      const socket = i % 2 ? sOnB : sA.room;
      hands.push((await ask(socket, 'raiseHand', {})).code);
      await ask(socket, 'lowerHand', {});
    }
    expect(hands).toEqual(['0', '0', '0', '0', '0', '0', '31031', '31031']);
  });
});
