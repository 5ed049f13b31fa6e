/**
 * Every client -> server message of every socket channel (room, board, media signaling; the user
 * channel has none, so any request there is bad) against payloads that break its contract: wrong
 * types, missing fields, extra keys, `__proto__` keys, deep nesting, near-megabyte strings. Each
 * gets an answer with an error code, nothing reaches the database, nothing reaches another
 * connected client, and the server keeps serving. Clients of an older protocol are told to
 * reload ('10').
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { boardRequests } from '#core/contracts/board.ts';
import { mediaEnvelope, MEDIA_REQUEST_EVENT, type mediaRequests } from '#core/contracts/media-signaling.ts';
import { ROOM_PROTOCOL_VERSION, type roomRequests } from '#core/contracts/room-events.ts';
import { call } from '#tests/support/api.ts';
import { boardRoom, connectBoard, createOp, type Person } from '#tests/support/board-client.ts';
import { MediaTestPeer } from '#tests/support/media-client.ts';
import { ask, connectRoom, connectUser, rawAsk, rawEmit, waitFor, type RoomSocket } from '#tests/support/room-client.ts';
import { startTestServer, type TestServer } from '#tests/support/server.ts';

type Payload = Record<string, unknown>;
/** A valid payload (required fields only), its optional fields, and which of them may be null. */
type Message = { valid: Payload; optional?: Payload; nullable?: string[] };

/** A valid payload per message (required fields only) and its optional fields, to break both. */
const SDP = `v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\na=sendonly\r\n`;
const ROOM: Record<keyof typeof roomRequests, Message> = {
  joinRoom: { valid: {}, optional: { version: 1 } },
  leaveRoom: { valid: {} },
  customRoomEvent: {
    valid: { networkQuality: 2 },
    optional: { showState: 'wb', pptId: 'a', pptCurrentPage: 1, wbPower: '1', roomExtend: '{}' },
  },
  chat: { valid: { text: 'hi' } },
  raiseHand: { valid: {} },
  lowerHand: { valid: {}, optional: { userId: '1' } },
  inviteStage: { valid: { userId: '1' } },
  answerStage: { valid: { agree: true } },
  stageDown: { valid: { userId: '1' } },
  stageAllDown: { valid: {} },
  setCarousel: { valid: { seconds: 30 } },
  kickout: { valid: { userId: '1' } },
  endRoom: { valid: {} },
  startTrial: { valid: {} },
  setMode: { valid: { mode: 'lecture' } },
  setCoursewarePage: { valid: { page: 1 }, optional: { scroll: 0.1 }, nullable: ['scroll'] },
  videoControl: { valid: { type: 'play', currentTime: 1 } },
  quizStart: { valid: { options: 4, multiple: false, correct: ['A'], limitSeconds: 0, showOwn: true } },
  quizAnswer: { valid: { id: 'q1', choice: ['A'] } },
  quizCollect: { valid: { id: 'q1' } },
  quizPublish: { valid: { id: 'q1' } },
  quizClose: { valid: { id: 'q1' } },
  pollStart: { valid: { anonymous: false, questions: [{ text: 'Q', options: ['a', 'b'], multiple: false }] } },
  pollVote: { valid: { id: 'p1', answers: [[0]] } },
  pollClose: { valid: { id: 'p1' } },
  pollPublish: { valid: { id: 'p1' } },
  pollDismiss: { valid: { id: 'p1' } },
  timerSet: { valid: { kind: 'countdown', durationMs: 60_000 } },
  timerStart: { valid: {} },
  timerPause: { valid: {} },
  timerReset: { valid: {} },
  timerClear: { valid: {} },
  buzzerOpen: { valid: {} },
  buzzerPress: { valid: { round: 1 } },
  buzzerClose: { valid: {} },
  pickRandom: { valid: {} },
  reward: { valid: { userIds: ['1'] } },
  groupsStart: {
    valid: { count: 2, method: 'random', minutes: 0, allowChoose: false, lateJoiners: 'auto', board: 'blank' },
    optional: { groups: [{ userIds: [] }, { userIds: [] }] },
  },
  groupsMove: { valid: { userId: '1', group: 1 } },
  groupsChoose: { valid: { group: 1 } },
  groupsVisit: { valid: { group: 1 } },
  groupsLeader: { valid: { userId: '1', group: 1 }, nullable: ['userId'] },
  groupsBroadcast: { valid: { text: 'hi' } },
  groupsHelp: { valid: {}, optional: { cancel: true } },
  groupsEnd: { valid: { afterSeconds: 0 } },
  groupsState: { valid: {} },
};
const withoutBtype = ({ btype: _b, ...op }: ReturnType<typeof createOp>): Payload => op;
const BOARD: Record<keyof typeof boardRequests | 'stroke', Message> = {
  getBoard: { valid: { page: 'wb:0' }, optional: { since: 0 }, nullable: ['since'] },
  sync: { valid: withoutBtype(createOp('fz', 'fz')), optional: { btype: 'brush' } },
  clear: { valid: { opId: 'fz', page: 'wb:0' } },
  delItem: { valid: { opId: 'fz', page: 'wb:0', ids: ['x'] } },
  turnPage: { valid: { page: 1 } },
  stroke: { valid: { strokeId: 's', page: 'wb:0', points: [1, 2], color: 'red', width: 4 }, optional: { start: true } },
};
const MEDIA: Record<keyof typeof mediaRequests, Message> = {
  join: { valid: { token: 'x' } },
  refresh: { valid: { token: 'x' } },
  publish: { valid: { source: 'mic', sdp: SDP } },
  unpublish: { valid: { trackId: 't' } },
  pause: { valid: { trackId: 't', paused: true } },
  subscribe: { valid: { trackId: 't' }, optional: { layer: 'h' } },
  answer: { valid: { subscriptionId: 's', sdp: SDP } },
  unsubscribe: { valid: { subscriptionId: 's' } },
  setLayer: { valid: { subscriptionId: 's', layer: 'l' } },
  restartIce: { valid: { subscriptionId: 's' }, optional: { trackId: 't', sdp: SDP } },
  leave: { valid: {} },
  probe: { valid: { kind: 'ping' }, optional: { bytes: 1, data: 'x', sdp: SDP } },
};

const kindOf = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);
const WRONG: unknown[] = [null, true, 12345, -1e300, 'str', [], {}, [1, 'a'], { $ne: 1 }];

function deep(levels: number): unknown {
  let v: unknown = 'x';
  for (let i = 0; i < levels; i++) v = { a: v };
  return v;
}

/** Payloads that break the contract of a message whose valid form is `m`. */
function badPayloads(m: Message): Array<{ why: string; payload: unknown }> {
  const out: Array<{ why: string; payload: unknown }> = [];
  for (const p of [null, 42, 'text', [], [m.valid]]) out.push({ why: `not an object: ${JSON.stringify(p)}`, payload: p });
  const fields = { ...m.valid, ...m.optional };
  for (const [k, v] of Object.entries(fields)) {
    for (const w of WRONG)
      if (kindOf(w) !== kindOf(v) && !(w === null && m.nullable?.includes(k)))
        out.push({ why: `${k} as ${JSON.stringify(w)}`, payload: { ...m.valid, [k]: w } });
    out.push({ why: `${k} nested deep`, payload: { ...m.valid, [k]: deep(2000) } });
    out.push({ why: `${k} as a 900 kB string`, payload: { ...m.valid, [k]: 'x'.repeat(900_000) } });
  }
  for (const k of Object.keys(m.valid)) {
    const { [k]: _gone, ...rest } = m.valid;
    out.push({ why: `without ${k}`, payload: rest });
  }
  out.push({ why: 'an extra key', payload: { ...m.valid, extra: 1 } });
  out.push({ why: 'a __proto__ key', payload: { ...(JSON.parse('{"__proto__": {"polluted": true}}') as Payload), ...m.valid } });
  out.push({ why: 'a constructor key', payload: { ...m.valid, constructor: { prototype: { polluted: true } } } });
  out.push({ why: 'an extra key nested deep', payload: { ...m.valid, extra: deep(2000) } });
  return out;
}

let server: TestServer;
let teacher: Person;
let student: Person;
let roomNumber: string;
const closeLater: Array<{ close(): void }> = [];
let tRoom: RoomSocket;
let sRoom: RoomSocket;
let tBoard: RoomSocket;
let sBoard: RoomSocket;
let tMedia: MediaTestPeer;
let sMedia: MediaTestPeer;
/** Whatever reached the student's connections while the teacher sent bad payloads. */
const heard: string[] = [];

async function database(): Promise<string> {
  const db = server.banshu.platform.database.db;
  const tables = ['rooms', 'room_members', 'chat_messages', 'board_ops', 'board_snapshots', 'documents'] as const;
  const rows = await Promise.all(tables.map((t) => db.selectFrom(t).selectAll().execute()));
  return JSON.stringify(rows);
}

beforeAll(async () => {
  server = await startTestServer();
  const room = await boardRoom(server, 2, 1);
  ({ teacher, roomNumber } = room);
  student = room.students[0]!;
  tRoom = await connectRoom(server.url, teacher.imToken);
  sRoom = await connectRoom(server.url, student.imToken);
  closeLater.push(tRoom, sRoom);
  expect((await ask(tRoom, 'joinRoom', { version: ROOM_PROTOCOL_VERSION })).code).toBe('0');
  expect((await ask(sRoom, 'joinRoom', { version: ROOM_PROTOCOL_VERSION })).code).toBe('0');
  tBoard = await connectBoard(server.url, teacher.wbToken);
  sBoard = await connectBoard(server.url, student.wbToken);
  closeLater.push(tBoard, sBoard);
  const mediaToken = async (token: string) =>
    (await call(server.url, 'userJoinAgoraRoom', { roomNumber }, { token })).data.mediaToken as string;
  tMedia = await MediaTestPeer.connect(server.url);
  sMedia = await MediaTestPeer.connect(server.url);
  closeLater.push(tMedia, sMedia);
  await tMedia.ok('join', { token: await mediaToken(teacher.token) });
  await sMedia.ok('join', { token: await mediaToken(student.token) });
  sRoom.onAny((event: string) => heard.push(`room ${event}`));
  sBoard.onAny((event: string) => heard.push(`board ${event}`));
  sMedia.socket.onAny((event: string, n: { type?: string }) => {
    // Speaking levels and network quality are sent on a timer, whatever anyone asks.
    if (n?.type !== 'audioLevels' && n?.type !== 'quality') heard.push(`media ${event} ${String(n?.type)}`);
  });
}, 180_000);

afterAll(async () => {
  for (const c of closeLater.splice(0)) c.close();
  await server?.close();
});

/** One request past the per-second flood guards: the test clock moves a second between requests. */
function paced<T>(send: () => Promise<T>): Promise<T> {
  server.clock.advance(1001);
  return send();
}

describe('every socket message refuses what breaks its contract', () => {
  it('room channel', async () => {
    const before = await database();
    for (const [event, m] of Object.entries(ROOM)) {
      for (const bad of badPayloads(m)) {
        const answer = await paced(() => rawAsk(tRoom, event, bad.payload));
        expect(answer.code, `${event}: ${bad.why}`).toBe('5');
        expect(answer.data, `${event}: ${bad.why}`).toBeUndefined();
      }
    }
    // Whatever was sent before this round trip has arrived at the student.
    await paced(() => rawAsk(sRoom, 'flush'));
    expect(heard).toEqual([]);
    expect(await database()).toBe(before);
    expect(({} as Payload)['polluted']).toBeUndefined();
    // Still serving: a valid request works.
    const seen = waitFor(sRoom, 'messageevent');
    expect((await paced(() => ask(tRoom, 'chat', { text: 'still here' }))).code).toBe('0');
    expect(await seen).toMatchObject({ text: 'still here' });
    heard.splice(0);
  });

  it('board channel', async () => {
    const before = await database();
    for (const [event, m] of Object.entries(BOARD)) {
      for (const bad of badPayloads(m)) {
        if (event === 'stroke') {
          // Volatile and unanswered: a bad batch is dropped, never relayed.
          rawEmit(tBoard, 'stroke', bad.payload);
          continue;
        }
        const answer = await paced(() => rawAsk(tBoard, event, bad.payload));
        expect(answer.code, `${event}: ${bad.why}`).toBe('5');
      }
    }
    await paced(() => rawAsk(tBoard, 'flush'));
    await paced(() => rawAsk(sBoard, 'flush'));
    expect(heard).toEqual([]);
    expect(await database()).toBe(before);
    const seen = waitFor(sBoard, 'sync');
    expect((await paced(() => ask(tBoard, 'sync', createOp('after', 'after')))).code).toBe('0');
    expect(await seen).toMatchObject({ opId: 'after' });
    heard.splice(0);
  });

  it('media signaling', async () => {
    const before = await database();
    for (const [type, m] of Object.entries(MEDIA)) {
      for (const bad of badPayloads(m)) {
        // The envelope (v, type) stays; what follows it breaks the request's contract.
        const body =
          typeof bad.payload === 'object' && bad.payload !== null && !Array.isArray(bad.payload) ? bad.payload : { data: bad.payload };
        const answer = await paced(() => tMedia.rawReq(type, body));
        expect(answer.code, `${type}: ${bad.why}`).toBe('5');
      }
    }
    for (const envelope of [
      null,
      42,
      [],
      {},
      { v: 1 },
      { type: 'probe', kind: 'ping' },
      { v: '1', type: 'probe', kind: 'ping' },
      { v: 1, type: 'nope' },
    ]) {
      const answer = await paced(() => tMedia.rawEmit(envelope));
      expect(answer.code, JSON.stringify(envelope)).toBe('5');
    }
    expect((await paced(() => sMedia.req('probe', { kind: 'ping' }))).code).toBe('0');
    expect(heard).toEqual([]);
    expect(await database()).toBe(before);
    expect((await paced(() => tMedia.req('probe', { kind: 'ping' }))).code).toBe('0');
  });

  it('user channel: clients ask nothing there, so any request is answered 5', async () => {
    const socket = await connectUser(server.url, teacher.token);
    closeLater.push(socket);
    for (const event of ['paymentSuccess', 'anything', '__proto__']) {
      expect((await paced(() => rawAsk(socket, event, { orderId: '1' }))).code).toBe('5');
    }
  });

  it('a payload past the transport limit (2 MB) closes that connection only; the server keeps serving', async () => {
    const before = await database();
    const room = await connectRoom(server.url, student.imToken);
    const board = await connectBoard(server.url, student.wbToken);
    const media = await MediaTestPeer.connect(server.url);
    closeLater.push(room, board, media);
    const big = 'x'.repeat(2 * 1024 * 1024);
    for (const [socket, event, payload] of [
      [room, 'chat', { text: big }],
      [board, 'sync', { ...createOp('big', 'big'), id: big }],
      [media.socket, MEDIA_REQUEST_EVENT, mediaEnvelope('probe', { kind: 'upload', data: big })],
    ] as const) {
      const closed = new Promise((r) => socket.once('disconnect', r));
      rawEmit(socket, event, payload, () => undefined);
      await closed;
    }
    expect(await database()).toBe(before);
    expect((await paced(() => ask(tRoom, 'chat', { text: 'after 2 MB' }))).code).toBe('0');
    expect((await paced(() => ask(tBoard, 'getBoard', { page: 'wb:0' }))).code).toBe('0');
    expect((await paced(() => tMedia.req('probe', { kind: 'ping' }))).code).toBe('0');
  });
});

describe("a client of an older protocol is told to refresh the page ('10')", () => {
  it('room channel: joinRoom with an older version', async () => {
    const socket = await connectRoom(server.url, student.imToken, { lang: 'en' });
    closeLater.push(socket);
    const answer = await paced(() => ask(socket, 'joinRoom', { version: 0 }));
    expect(answer).toEqual({ code: '10', msg: 'A new version is available, please refresh the page' });
    // Version 1 had the single microphone slot; the stage replaced it (ADR 112).
    expect(await paced(() => ask(socket, 'joinRoom', { version: 1 }))).toMatchObject({ code: '10' });
    // Not joined: it may not do anything else.
    expect((await paced(() => ask(socket, 'chat', { text: 'hi' }))).code).toBe('31004');
  });

  it('board channel: a handshake with an older version', async () => {
    await expect(connectBoard(server.url, student.wbToken, { auth: { version: 0 } })).rejects.toMatchObject({
      code: '10',
      msg: '版本已更新，请刷新页面',
    });
    // The current version connects.
    closeLater.push(await connectBoard(server.url, student.wbToken, { auth: { version: 1 } }));
  });

  it('media signaling: a request with an older `v`', async () => {
    const peer = await MediaTestPeer.connect(server.url);
    closeLater.push(peer);
    expect((await paced(() => peer.rawReq('probe', { kind: 'ping' }, 0))).code).toBe('10');
    expect((await paced(() => peer.rawReq('join', { token: 'x' }, 0))).code).toBe('10');
    expect((await paced(() => peer.req('probe', { kind: 'ping' }))).code).toBe('0');
  });
});
