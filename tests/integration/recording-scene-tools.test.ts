/**
 * The recording's scene hears the class tools (ADR 115) as the room's hidden recorder: a real server
 * on PGlite, the teacher and two students on real room sockets, the scene opened as the recorder
 * opens it. No media: the overlay is checked on the scene's own panels (their yuv420p pixels).
 * - the buzzer: its card when opened, the winner's name (drawn in gold) once a student presses;
 * - the random pick's card; a countdown's card;
 * - trophies given: the banner for a few seconds, and the student's name strip carrying the count;
 * - an open quiz: a card with how many answered, and nothing of who answered what anywhere in what
 *   the scene heard.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createLogger } from '#core/platform/logger.ts';
import { boardRoom, type Person } from '#tests/support/board-client.ts';
import { ask, connectRoom, type KnownRequest, type RequestPayload, type RoomSocket } from '#tests/support/room-client.ts';
import { startTestServer, type TestServer } from '#tests/support/server.ts';
import { until } from '#tests/support/until.ts';
import { RoomLink } from '../../workers/record/room-link.ts';
import { openRoomScene, type RoomScene } from '../../workers/record/scene.ts';
import { REWARD_BANNER_MS } from '../../workers/record/tools-overlay.ts';
import type { OverlayPanel } from '../../workers/record/types.ts';

let server: TestServer;
let room: { roomNumber: string; teacher: Person; students: Person[] };
let scene: RoomScene;
let teacher: RoomSocket;
const students: RoomSocket[] = [];

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
  const p = server.banshu.platform;
  scene = await openRoomScene({
    db: p.database.db,
    objects: p.objects,
    roomNumber: room.roomNumber,
    logger: createLogger('silent'),
    width: 960,
    height: 720,
    webUrl: server.url,
    tokens: () => p.services.rooms.recorderTokens(room.roomNumber),
  });
}, 60_000);

afterAll(async () => {
  scene?.close();
  for (const s of [teacher, ...students]) s?.close();
  await server?.close();
});

const panels = () => scene.current().overlay ?? [];
const panel = (kind: string) => panels().find((p) => p.kind === kind);
/** Chroma samples of a panel far towards yellow (the gold of a winner's name, a trophy). */
function gold(p: OverlayPanel): number {
  const u = p.w * p.h;
  let n = 0;
  for (let i = 0; i < (p.w * p.h) / 4; i++) if (p.yuv[u + i]! < 100) n++;
  return n;
}
const answer = <K extends KnownRequest>(socket: RoomSocket, name: K, payload: RequestPayload<K> = {} as RequestPayload<K>) =>
  ask(socket, name, payload).then((a) => {
    expect(a.code, `${name}: ${a.msg}`).toBe('0');
    return a.data;
  });

it('shows the buzzer, its winner, the random pick and a countdown as they happen', async () => {
  expect(panels()).toEqual([]);
  const open = await answer(teacher, 'buzzerOpen');
  await until('the buzzer card', () => panel('buzzer') !== undefined, 5000);
  const waiting = panel('buzzer')!;
  expect(gold(waiting)).toBe(0);
  await answer(students[1]!, 'buzzerPress', { round: (open as { round: number }).round });
  await until('the winner', () => scene.tools.tools?.buzzer?.winner !== null && panel('buzzer') !== waiting, 5000);
  expect(scene.tools.tools?.buzzer?.winner?.userId).toBe(room.students[1]!.userId);
  expect(gold(panel('buzzer')!)).toBeGreaterThan(20);

  const picked = (await answer(teacher, 'pickRandom')) as { userId: string };
  await until('the pick card', () => panel('pick') !== undefined, 5000);
  expect(room.students.map((s) => s.userId)).toContain(picked.userId);

  await answer(teacher, 'timerSet', { kind: 'countdown', durationMs: 90_000 });
  await answer(teacher, 'timerStart');
  await until('the timer card', () => panel('timer') !== undefined, 5000);
  // Cards down the left, in the overlay's order.
  expect(panels().map((p) => p.kind)).toEqual(['timer', 'buzzer', 'pick']);
});

it('gives trophies: the banner for a few seconds, the name strip with the count', async () => {
  const who = room.students[0]!.userId;
  expect(
    scene
      .label(who, 320, 24)
      .subarray(320 * 24)
      .filter((c) => c < 100).length,
  ).toBe(0);
  const givenAt = Date.now();
  await answer(teacher, 'reward', { userIds: [who] });
  await until('the banner', () => panel('reward') !== undefined, 5000);
  expect(gold(panel('reward')!)).toBeGreaterThan(50);
  await until(
    'the strip with a trophy',
    () =>
      scene
        .label(who, 320, 24)
        .subarray(320 * 24)
        .filter((c) => c < 100).length > 5,
    5000,
  );
  await until('the banner gone', () => panel('reward') === undefined, REWARD_BANNER_MS + 3000);
  expect(Date.now() - givenAt).toBeGreaterThanOrEqual(REWARD_BANNER_MS - 500);
});

it('an open quiz shows how many answered, and the recorder never hears who answered what', async () => {
  // A second recorder link, as the scene's: everything the room tells the recorder from now on.
  const p = server.banshu.platform;
  const link = await RoomLink.open({
    webUrl: server.url,
    roomNumber: room.roomNumber,
    tokens: () => p.services.rooms.recorderTokens(room.roomNumber),
    logger: createLogger('silent'),
  });
  const tallies: unknown[] = [];
  const states: unknown[] = [];
  link.room.on('quizTally', (t) => tallies.push(t));
  link.room.on('tools', (t) => states.push(t));
  try {
    const quiz = (await answer(teacher, 'quizStart', { options: 3, multiple: false, correct: ['C'], limitSeconds: 0, showOwn: true })) as {
      id: string;
    };
    await until('the quiz card', () => panel('quizOpen') !== undefined, 5000);
    await answer(students[0]!, 'quizAnswer', { id: quiz.id, choice: ['C'] });
    await answer(students[1]!, 'quizAnswer', { id: quiz.id, choice: ['A'] });
    await until('two answered', () => scene.tools.tools?.quiz?.answered === 2, 5000);
    await until('the link heard it too', () => states.some((t) => (t as { quiz: { answered: number } | null }).quiz?.answered === 2), 5000);
    expect(tallies).toEqual([]);
    // No choice, no right answer in anything the recorder was told before the publish.
    for (const t of states) expect((t as { quiz: { result: unknown } | null }).quiz?.result ?? null).toBeNull();
    expect(panel('quizResult')).toBeUndefined();
    expect(panel('quizOpen')).toBeDefined();
  } finally {
    link.close();
  }
});
