/**
 * The server side of bench/board, run as a child process so clients and server do not share an
 * event loop. `node bench/lib/board-server.ts <pglite|postgres>`, IPC only.
 *
 * The whole product via tests/support/server.ts (its own fresh database; postgres needs
 * BENCH_POSTGRES_ADMIN_URL), plus a bare socket.io echo server on another port as the fan-out
 * reference (joins a room, relays `msg` to everyone in it: no token, no checks, no database).
 *
 * Messages: the child sends {type:'ready', url, echoUrl}. The parent may send
 * - {type:'room', id, people}: a whiteboard class (type 2) with its creator and people-1 tourists,
 *   wbPower on; answered {type:'room', id, room, tokens} (board tokens, creator first).
 * - {type:'load', id, n, shape, after, repeat}: a room whose wb:0 holds `n` stroke operations
 *   (bench/lib/board-seed.ts), then the time to produce getBoard's payload (BoardService.load plus
 *   the server's socket.io encoder on the ack packet), warm (layer in memory) and cold (from the database:
 *   snapshot + operations after it), beside a plain JSON.stringify of the same items; medians of
 *   `repeat` runs. Answered {type:'loaded', id, ...}.
 * - {type:'close'}.
 */
import { createServer } from 'node:http';
import { Server as SocketServer } from 'socket.io';
import type { TestServer } from '../../tests/support/server.ts';
import { PacketType } from 'socket.io-parser';
import { JsonText } from '../../core/board/json-text.ts';
import { socketParser } from '../../server/web/socket-parser.ts';
import { buildBoard } from './board-seed.ts';

export type BoardServerToParent =
  | { type: 'ready'; url: string; echoUrl: string }
  | { type: 'room'; id: number; room: string; tokens: string[] }
  | { type: 'loaded'; id: number; result: LoadResult }
  | { type: 'error'; id: number; message: string };

export type ParentToBoardServer =
  | { type: 'room'; id: number; people: number }
  | { type: 'load'; id: number; n: number; shape: 'fresh' | 'cleared'; after: number; repeat: number }
  | { type: 'close' };

export interface LoadResult {
  ops: number;
  items: number;
  bytes: number;
  seedMs: number;
  warmMs: number;
  coldMs: number;
  referenceMs: number;
  rowsStored: number;
  snapshots: number;
}

export const BOARD_SERVER_ENV: Record<string, string> = {
  LOG_LEVEL: 'silent',
  SMS_HOURLY_PER_ADDRESS: '10000000',
  SMS_HOURLY_PER_MOBILE: '1000',
  SMS_DAILY_PER_MOBILE: '1000',
  TOURIST_JOINS_PER_MINUTE: '10000000',
  WHITEBOARD_CAP: '1000',
};

const send = (m: BoardServerToParent) => process.send?.(m);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

let seq = 0;
async function makeRoom(product: TestServer, people: number): Promise<{ room: string; creator: string; tokens: string[] }> {
  const { account, rooms, live, board } = product.banshu.platform.services;
  const outbox = product.banshu.platform.services.devOutbox!;
  const mobile = String(13_800_000_000 + (process.pid % 10_000) * 10_000 + ++seq);
  const ip = `127.2.${String(seq >> 8)}.${String(seq & 255)}`;
  await account.sendPhoneCode({ mobile, area: '86', ip });
  const code = outbox.list().find((e) => e.mobile === mobile)!.code;
  const { user } = await account.login({ mobile, code, ip });
  const viewer = { userId: user.id, name: user.name, mobile, type: '1' as const };
  const info = await rooms.createRoom(viewer, { roomType: 2, consumption: 'off' });
  await rooms.join(viewer, { roomNumber: info.roomNumber });
  await live.patch({ room: info.roomNumber, uid: user.id, role: 'creator' }, { wbPower: '1' });
  const tokens = [(await board.createToken(viewer, { userId: user.id, channelId: info.roomNumber })).token];
  for (let k = 1; k < people; k++) {
    const joined = await rooms.touristJoin({ roomNumber: info.roomNumber, userName: `s${String(k)}`, ip });
    const uid = joined.userIdForNumber;
    tokens.push((await board.createToken({ userId: uid }, { userId: uid, channelId: info.roomNumber })).token);
  }
  return { room: info.roomNumber, creator: user.id, tokens };
}

async function measureLoad(product: TestServer, m: Extract<ParentToBoardServer, { type: 'load' }>): Promise<LoadResult> {
  const { board } = product.banshu.platform.services;
  const { room, creator } = await makeRoom(product, 1);
  const actor = { room, uid: creator, role: 'creator' as const };
  const t0 = performance.now();
  await buildBoard(board, actor, 'wb:0', m.n, { shape: m.shape, after: m.after });
  const seedMs = performance.now() - t0;
  // The snapshot written behind the last batch, if any, has landed before we time anything.
  await board.load(actor, 'wb:0');

  // What the channel does for getBoard: the service's answer in the ack envelope, through the
  // server's socket.io encoder (which writes a cold answer's snapshot text as it is stored).
  const encoder = new socketParser.Encoder();
  const payload = async () => {
    const s = performance.now();
    const answer = await board.load(actor, 'wb:0');
    const packets = encoder.encode({ type: PacketType.ACK, nsp: '/board', id: 1, data: [{ code: '0', msg: '成功', data: answer }] });
    const bytes = packets.reduce((n, p) => n + (typeof p === 'string' ? Buffer.byteLength(p) : p.byteLength), 0);
    return { ms: performance.now() - s, answer, bytes };
  };
  const warm: number[] = [];
  const cold: number[] = [];
  const ref: number[] = [];
  let last = await payload();
  const warmAnswer = last.answer;
  for (let i = 0; i < m.repeat; i++) {
    last = await payload();
    warm.push(last.ms);
  }
  for (let i = 0; i < m.repeat; i++) {
    board.forget(room);
    last = await payload();
    cold.push(last.ms);
  }
  const warmState = warmAnswer.state;
  const items = warmState && !(warmState instanceof JsonText) ? warmState.items : [];
  for (let i = 0; i < m.repeat; i++) {
    const s = performance.now();
    JSON.stringify(items);
    ref.push(performance.now() - s);
  }
  const db = product.banshu.platform.database.db;
  const rid = (await db.selectFrom('rooms').select('id').where('room_number', '=', room).executeTakeFirstOrThrow()).id;
  const count = async (table: 'board_ops' | 'board_snapshots') =>
    Number(
      (
        await db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<string>().as('n'))
          .where('room_id', '=', rid)
          .executeTakeFirstOrThrow()
      ).n,
    );
  const [rowsStored, snapshots] = [await count('board_ops'), await count('board_snapshots')];
  return {
    ops: m.shape === 'cleared' ? m.n + 1 + m.after : m.n,
    items: items.length,
    bytes: last.bytes,
    seedMs,
    warmMs: median(warm),
    coldMs: median(cold),
    referenceMs: median(ref),
    rowsStored,
    snapshots,
  };
}

function startEcho(): Promise<{ url: string; close(): void }> {
  const http = createServer();
  const io = new SocketServer(http, { serveClient: false, maxHttpBufferSize: 1_000_000 });
  io.on('connection', (socket) => {
    const room = String(socket.handshake.auth['room'] ?? 'r');
    void socket.join(room);
    socket.on('msg', (p: unknown) => io.to(room).emit('msg', p));
    socket.on('stroke', (p: unknown) => socket.to(room).volatile.emit('stroke', p));
  });
  return new Promise((resolve) => {
    http.listen(0, '127.0.0.1', () => {
      const a = http.address();
      const port = typeof a === 'object' && a ? a.port : 0;
      resolve({ url: `http://127.0.0.1:${String(port)}`, close: () => void io.close() });
    });
  });
}

async function main(): Promise<void> {
  const kind = process.argv[2];
  if (kind !== 'pglite' && kind !== 'postgres') throw new Error('usage: board-server.ts <pglite|postgres>');
  const { startTestServer } = await import('../../tests/support/server.ts');
  const product = await startTestServer({ engine: kind, postgresAdminUrl: process.env['BENCH_POSTGRES_ADMIN_URL'], env: BOARD_SERVER_ENV });
  const clockTimer = setInterval(() => product.clock.set(Date.now()), 20);
  clockTimer.unref();
  const echo = await startEcho();
  let closing = false;
  const close = async () => {
    if (closing) return;
    closing = true;
    echo.close();
    await Promise.race([product.close(), new Promise((r) => setTimeout(r, 5000))]);
    process.exit(0);
  };
  process.on('disconnect', () => void close());
  process.on('message', (raw) => {
    const m = raw as ParentToBoardServer;
    const fail = (id: number) => (err: unknown) =>
      send({ type: 'error', id, message: err instanceof Error ? (err.stack ?? err.message) : String(err) });
    if (m.type === 'close') void close();
    else if (m.type === 'room')
      makeRoom(product, m.people).then((r) => send({ type: 'room', id: m.id, room: r.room, tokens: r.tokens }), fail(m.id));
    else if (m.type === 'load') measureLoad(product, m).then((result) => send({ type: 'loaded', id: m.id, result }), fail(m.id));
  });
  send({ type: 'ready', url: product.url, echoUrl: echo.url });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
