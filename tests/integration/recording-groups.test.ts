/**
 * The recording says breakout groups are running (issue 31, ADR 117): the scene, opened as the
 * room's hidden recorder opens it, hears the room's `groups` events (and the join snapshot's groups)
 * and shows the banner in the class tools' overlay (ADR 115): how many groups, the time left of a
 * limit, the return countdown in amber, gone when the groups end. A real server on PGlite, the
 * teacher and two students on real room sockets, the groups started and ended by the teacher's
 * real requests. No media: the banner is checked on the scene's own panels (their yuv420p pixels).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createLogger } from '#core/platform/logger.ts';
import { boardRoom, type Person } from '#tests/support/board-client.ts';
import { ask, connectRoom, type KnownRequest, type RequestPayload, type RoomSocket } from '#tests/support/room-client.ts';
import { startTestServer, type TestServer } from '#tests/support/server.ts';
import { until } from '#tests/support/until.ts';
import { openRoomScene, type RoomScene } from '../../workers/record/scene.ts';
import type { OverlayPanel } from '../../workers/record/types.ts';

let server: TestServer;
let room: { roomNumber: string; teacher: Person; students: Person[] };
const scenes: RoomScene[] = [];
let teacher: RoomSocket;
const students: RoomSocket[] = [];

const open = async () => {
  const p = server.banshu.platform;
  const scene = await openRoomScene({
    db: p.database.db,
    objects: p.objects,
    roomNumber: room.roomNumber,
    logger: createLogger('silent'),
    width: 960,
    height: 720,
    webUrl: server.url,
    tokens: () => p.services.rooms.recorderTokens(room.roomNumber),
  });
  scenes.push(scene);
  return scene;
};

beforeAll(async () => {
  server = await startTestServer({ realTime: true });
  room = await boardRoom(server, 2, 2);
  teacher = await connectRoom(server.url, room.teacher.imToken);
  expect((await ask(teacher, 'joinRoom')).code).toBe('0');
  for (const s of room.students) {
    const socket = await connectRoom(server.url, s.imToken);
    expect((await ask(socket, 'joinRoom')).code).toBe('0');
    students.push(socket);
  }
}, 60_000);

afterAll(async () => {
  for (const s of scenes) s.close();
  for (const s of [teacher, ...students]) s?.close();
  await server?.close();
});

const banner = (scene: RoomScene) => (scene.current().overlay ?? []).find((p) => p.kind === 'groups');
/** Chroma samples of a panel far towards yellow: the amber of the return countdown. */
function amber(p: OverlayPanel): number {
  const u = p.w * p.h;
  let n = 0;
  for (let i = 0; i < (p.w * p.h) / 4; i++) if (p.yuv[u + i]! < 100) n++;
  return n;
}
/** Bright luma in the banner's right part, where the time left is drawn. */
function timeInk(p: OverlayPanel): number {
  let n = 0;
  for (let y = 20; y < 58; y++) for (let x = p.w - 80; x < p.w - 8; x++) if (p.yuv[y * p.w + x]! > 180) n++;
  return n;
}
const answer = <K extends KnownRequest>(socket: RoomSocket, name: K, payload: RequestPayload<K>) =>
  ask(socket, name, payload).then((a) => {
    expect(a.code, `${name}: ${a.msg}`).toBe('0');
    return a.data;
  });

it('shows the groups banner while groups run, their time left, the return countdown in amber, and nothing once they end', async () => {
  const scene = await open();
  expect(banner(scene)).toBeUndefined();
  await answer(teacher, 'groupsStart', { count: 2, method: 'even', minutes: 10, allowChoose: false, lateJoiners: 'auto', board: 'blank' });
  await until('the groups banner', () => banner(scene) !== undefined, 5000);
  expect(scene.tools.groups).toMatchObject({ status: 'running' });
  expect(scene.tools.groups?.groups).toHaveLength(2);
  const running = banner(scene)!;
  // At the top, between the columns; the time left of the 10-minute limit drawn on its right.
  expect(running).toMatchObject({ x: 264, y: 16, w: 312, h: 64 });
  expect(timeInk(running)).toBeGreaterThan(60);
  expect(amber(running)).toBe(0);
  // The time left turns each second: the banner is drawn again.
  await until('the next second', () => banner(scene) !== running, 3000);

  // "Return all" in 30 s: the return countdown, in amber.
  await answer(teacher, 'groupsEnd', { afterSeconds: 30 });
  await until('the return countdown', () => scene.tools.groups?.status === 'closing' && amber(banner(scene)!) > 40, 5000);

  // A recorder that (re)joins now hears it from the join snapshot.
  const late = await open();
  expect(late.tools.groups?.status).toBe('closing');
  expect(amber(banner(late)!)).toBeGreaterThan(40);

  // Everyone back now: the banner goes.
  await answer(teacher, 'groupsEnd', { afterSeconds: 0 });
  await until('the banner gone', () => banner(scene) === undefined && banner(late) === undefined, 5000);
  expect(scene.tools.groups?.status).toBe('off');
});
