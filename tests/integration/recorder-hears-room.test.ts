/**
 * The recorder hears the room (ADR 109): a hidden participant (role 'recorder') of the room and
 * board channels, through the product's own client half (openChannel) and the real contracts. It
 * is never listed, never seated, refused every write; it follows the room from the join snapshot
 * and the events after, and a reconnect resyncs it from a fresh snapshot and fresh layer loads.
 * A real server on PGlite; a student's room-channel socket as the browser's.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { BoardOp } from '#core/contracts/board.ts';
import { BACKGROUND_COLOURS } from '#core/contracts/board.ts';
import { CSS_COLOURS } from '#core/board/draw/renderer.ts';
import { createLogger } from '#core/platform/logger.ts';
import { boardRoom, type Person } from '#tests/support/board-client.ts';
import { ask, connectRoom, record } from '#tests/support/room-client.ts';
import { startTestServer, type TestServer } from '#tests/support/server.ts';
import { RoomLink } from '../../workers/record/room-link.ts';
import { openRoomScene, rgbaToYuv420p, type RoomScene } from '../../workers/record/scene.ts';

const W = 960;
const H = 720;
let server: TestServer;
let room: { roomNumber: string; teacher: Person; students: Person[] };
const closing: Array<{ close(): void }> = [];

beforeAll(async () => {
  server = await startTestServer();
  room = await boardRoom(server, 3, 1);
});
afterAll(async () => {
  for (const c of closing) c.close();
  await server?.close();
});

const creator = () => ({ room: room.roomNumber, uid: room.teacher.userId, role: 'creator' as const });
const services = () => server.banshu.platform.services;
const linkOptions = () => ({
  webUrl: server.url,
  roomNumber: room.roomNumber,
  tokens: () => services().rooms.recorderTokens(room.roomNumber),
  logger: createLogger('silent'),
});

function near(main: Buffer | null, x: number, y: number, hex: string): boolean {
  if (!main) return false;
  const n = parseInt(hex.slice(1), 16);
  const block = new Uint8Array(16);
  for (let i = 0; i < 4; i++) block.set([(n >> 16) & 255, (n >> 8) & 255, n & 255, 255], i * 4);
  const want = rgbaToYuv420p(block, 2, 2);
  const c = (y >> 1) * (W / 2) + (x >> 1);
  const got = [main[y * W + x]!, main[W * H + c]!, main[W * H + (W / 2) * (H / 2) + c]!];
  return [want[0]!, want[4]!, want[5]!].every((v, i) => Math.abs(v - got[i]!) <= 4);
}
const px = (b: number) => Math.round(b * (W / 1024));
const line = (opId: string, page: string, y: number): BoardOp => ({
  opId,
  type: 'create',
  btype: 'brush',
  id: opId,
  page,
  data: { kind: 'stroke', points: Array.from({ length: 41 }, (_, i) => [100 + i * 10, y]).flat(), color: 'red', width: 24 },
});

it('joins as a hidden participant: its snapshot says recorder, nobody sees it listed, every write is refused', async () => {
  const student = await connectRoom(server.url, room.students[0]!.imToken);
  closing.push({ close: () => student.close() });
  expect((await ask(student, 'joinRoom', {})).code).toBe('0');
  const membersSeen = record(student, 'members');

  const link = await RoomLink.open(linkOptions());
  closing.push(link);
  expect(link.snapshot?.you).toMatchObject({ role: 'recorder', userId: 'recorder' });
  expect(link.snapshot?.roomInfo.roomNumber).toBe(room.roomNumber);
  expect(link.snapshot?.members.map((m) => m.userId)).not.toContain('recorder');

  // The student hears the members list again after the recorder joined (its join publishes it): no recorder in it.
  await expect.poll(() => membersSeen.length, { timeout: 5000 }).toBeGreaterThan(0);
  for (const m of membersSeen) expect(m.members.map((x) => x.role)).not.toContain('recorder');
  const joined = await ask(student, 'joinRoom', {});
  expect(joined.data.members.map((m) => m.role)).not.toContain('recorder');

  // Chat, patches, the creator's requests, and the board: all refused.
  expect((await link.room.request('chat', { text: 'hello' })).code).not.toBe('0');
  expect((await link.room.request('customRoomEvent', { showState: 'wb' })).code).not.toBe('0');
  expect((await link.room.request('endRoom', {})).code).not.toBe('0');
  expect((await link.board.request('sync', line('r1', 'wb:0', 100))).code).not.toBe('0');
  expect((await link.board.request('clear', { opId: 'r2', page: 'wb:0' })).code).not.toBe('0');
  // It reads the board as anyone in the room does.
  const board = await link.board.request('getBoard', { page: 'wb:0' });
  expect(board.code).toBe('0');
  expect(board.data!.ops.map((o) => o.opId)).not.toContain('r1');
  const info = await services().rooms.roomInfoNow(room.roomNumber);
  expect(info.showState).not.toBe('wb');
  link.close();
});

it('resyncs after a reconnect: what changed while it was away is on the picture (room from a fresh snapshot, board from fresh loads)', async () => {
  await services().live.patch(creator(), { showState: 'wb', roomExtend: JSON.stringify({ pageIndex: 0, color: 0 }) });
  const p = server.banshu.platform;
  const scene: RoomScene = await openRoomScene({
    db: p.database.db,
    objects: p.objects,
    roomNumber: room.roomNumber,
    logger: createLogger('silent'),
    width: W,
    height: H,
    webUrl: server.url,
    tokens: () => services().rooms.recorderTokens(room.roomNumber),
  });
  closing.push(scene);
  expect(near(scene.current().main, px(300), px(300), BACKGROUND_COLOURS[0])).toBe(true);

  // The web node drops the recorder's transports (as a restart would); the room changes before it is back.
  const io = server.banshu.web!.io;
  const recorderSockets = async () =>
    [...(await io.of('/room').fetchSockets()), ...(await io.of('/board').fetchSockets())].filter(
      (s) => (s.data as { actor?: { role?: string } }).actor?.role === 'recorder',
    );
  // The scene's two connections (the first test's link has gone).
  await expect.poll(async () => (await recorderSockets()).length, { timeout: 5000 }).toBe(2);
  const before = await recorderSockets();
  for (const nsp of ['/room', '/board']) for (const s of before) io.of(nsp).sockets.get(s.id)?.conn.close();
  await services().live.patch(creator(), { roomExtend: JSON.stringify({ pageIndex: 0, color: 3 }) });
  await services().board.submit(creator(), line('away1', 'wb:0', 300));

  await expect
    .poll(
      () =>
        near(scene.current().main, px(300), px(300), CSS_COLOURS.red) &&
        near(scene.current().main, px(300), px(500), BACKGROUND_COLOURS[3]),
      {
        timeout: 15_000,
      },
    )
    .toBe(true);
  // Back as the same hidden participant: a new room join and a new board connection.
  await expect.poll(async () => (await recorderSockets()).length, { timeout: 5000 }).toBe(2);
  expect((await recorderSockets()).map((s) => s.id).some((id) => before.some((b) => b.id === id))).toBe(false);
});
