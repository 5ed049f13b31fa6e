/**
 * The recording's scene (ADR 075): the main area follows the room as the students see it, heard
 * as the room's hidden recorder on its room and board channels (ADR 109), and drawn by the board's
 * own renderer on @napi-rs/canvas. A real server on PGlite holds the room; strokes are stored by
 * the board service (as a browser's are) and by the seeding helper; the scene is checked on the
 * pixels of its yuv420p buffer.
 * SHOTS=1 writes the main area and a name strip to /tmp/scene-*.png.
 */
import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import sharp from 'sharp';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { boardImagePrefix } from '#core/board/board.service.ts';
import { BACKGROUND_COLOURS, type BoardOp } from '#core/contracts/board.ts';
import { pageKey, videoKey } from '#core/courseware/courseware-room.ts';
import { slideLayer } from '#core/contracts/courseware.ts';
import { createLogger } from '#core/platform/logger.ts';
import { CSS_COLOURS } from '#core/board/draw/renderer.ts';
import { seedBoard } from '#tests/support/board-seed.ts';
import { boardRoom, type Person } from '#tests/support/board-client.ts';
import { postgresAdminUrl } from '#tests/support/database.ts';
import { startTestServer, type TestServer } from '#tests/support/server.ts';
import { openRoomScene, rgbaToYuv420p, SCENE_MIN_GAP_MS, type RoomScene } from '../../workers/record/scene.ts';
import { until } from '#tests/support/until.ts';

const W = 960;
const H = 720;
let server: TestServer;
let room: { roomNumber: string; teacher: Person; students: Person[] };
const scenes: RoomScene[] = [];

beforeAll(async () => {
  server = await startTestServer();
  room = await boardRoom(server, 3, 1);
});
afterAll(async () => {
  for (const s of scenes) s.close();
  await server?.close();
});

const creator = () => ({ room: room.roomNumber, uid: room.teacher.userId, role: 'creator' as const });
const services = () => server.banshu.platform.services;

async function open(): Promise<RoomScene> {
  const p = server.banshu.platform;
  const scene = await openRoomScene({
    db: p.database.db,
    objects: p.objects,
    roomNumber: room.roomNumber,
    logger: createLogger('silent'),
    width: W,
    height: H,
    webUrl: server.url,
    tokens: () => p.services.rooms.recorderTokens(room.roomNumber),
  });
  scenes.push(scene);
  return scene;
}

/** Y, U, V of a CSS colour as the scene converts it. */
function yuvOf(hex: string): [number, number, number] {
  const n = parseInt(hex.slice(1), 16);
  const px = new Uint8Array([(n >> 16) & 255, (n >> 8) & 255, n & 255, 255]);
  const block = new Uint8Array(16);
  for (let i = 0; i < 4; i++) block.set(px, i * 4);
  const yuv = rgbaToYuv420p(block, 2, 2);
  return [yuv[0]!, yuv[4]!, yuv[5]!];
}

function pixel(main: Buffer, x: number, y: number): [number, number, number] {
  const c = (y >> 1) * (W / 2) + (x >> 1);
  return [main[y * W + x]!, main[W * H + c]!, main[W * H + (W / 2) * (H / 2) + c]!];
}

function near(main: Buffer | null, x: number, y: number, hex: string, tolerance = 4): boolean {
  if (!main) return false;
  const got = pixel(main, x, y);
  const want = yuvOf(hex);
  return got.every((v, i) => Math.abs(v - want[i]!) <= tolerance);
}

/** The luma plane as a grey PNG (what the file will show, without colour) or the scene's RGBA picture. */
async function shot(name: string, scene: RoomScene | null, yuv?: { buf: Buffer; w: number; h: number }): Promise<void> {
  if (!process.env['SHOTS']) return;
  if (scene) await writeFile(`/tmp/scene-${name}.png`, scene.snapshotPng());
  if (yuv)
    await writeFile(
      `/tmp/scene-${name}.png`,
      await sharp(yuv.buf.subarray(0, yuv.w * yuv.h), { raw: { width: yuv.w, height: yuv.h, channels: 1 } })
        .png()
        .toBuffer(),
    );
}

/** A horizontal red line across board x 100..500 at board y, 24 board units wide. */
const line = (opId: string, page: string, y: number, color: 'red' | 'blue' = 'red'): BoardOp => ({
  opId,
  type: 'create',
  btype: 'brush',
  id: opId,
  page,
  data: { kind: 'stroke', points: Array.from({ length: 41 }, (_, i) => [100 + i * 10, y]).flat(), color, width: 24 },
});
/** Board units to main-area pixels (the 1024 x 768 board fills 960 x 720). */
const px = (b: number) => Math.round(b * (W / 1024));

it('draws the board page: background colour and the ink, the ink of a stored stroke within ~300 ms, a page turn and a colour change', async () => {
  await services().live.patch(creator(), { showState: 'wb' });
  await seedBoard(services().board, creator(), [line('a1', 'wb:0', 200), line('b1', 'wb:1', 500, 'blue')]);
  const scene = await open();
  const first = scene.current();
  expect(first.showState).toBe('wb');
  expect(first.creatorId).toBe(room.teacher.userId);
  expect(first.main).toHaveLength(W * H * 1.5);
  expect(near(first.main, px(300), px(200), CSS_COLOURS.red)).toBe(true);
  expect(near(first.main, px(300), px(400), BACKGROUND_COLOURS[0])).toBe(true);
  // Page 2's stroke is not on page 1.
  expect(near(first.main, px(300), px(500), BACKGROUND_COLOURS[0])).toBe(true);
  await shot('wb', scene);

  // A stroke stored now, as the board channel stores a browser's: on the recording within ~300 ms.
  const stored = Date.now();
  await services().board.submit(creator(), line('a2', 'wb:0', 300));
  const after = await until(
    'the new stroke',
    () => scene.current(),
    (v) => near(v.main, px(300), px(300), CSS_COLOURS.red),
  );
  const latency = Date.now() - stored;
  console.log(
    `ink latency: ${latency} ms (heard, updates at most every ${SCENE_MIN_GAP_MS} ms); last update ${scene.lastUpdateMs.toFixed(1)} ms`,
  );
  expect(latency).toBeLessThan(1000);
  expect(after.version).toBeGreaterThan(first.version);
  expect(near(after.main, px(300), px(200), CSS_COLOURS.red)).toBe(true);

  // Nothing changed: same view, no repaint.
  const updates = scene.updates;
  await scene.refresh();
  await scene.refresh();
  expect(scene.current()).toBe(after);
  expect(scene.updates).toBe(updates);

  // The creator turns to page 2 and changes the colour: the scene follows.
  await services().live.patch(creator(), { roomExtend: JSON.stringify({ pageIndex: 1, color: 2 }) });
  const turned = await until(
    'page 2',
    () => scene.current(),
    (v) => v.version > after.version && near(v.main, px(300), px(500), CSS_COLOURS.blue),
  );
  expect(near(turned.main, px(300), px(200), BACKGROUND_COLOURS[2])).toBe(true);
  expect(near(turned.main, px(300), px(400), BACKGROUND_COLOURS[2])).toBe(true);

  // An undo under the page: the ink goes (a full repaint).
  await services().board.submit(creator(), { opId: 'u1', type: 'delete', ids: ['b1'], page: 'wb:1' });
  const erased = await until(
    'the deletion',
    () => scene.current(),
    (v) => near(v.main, px(300), px(500), BACKGROUND_COLOURS[2]),
  );
  expect(erased.version).toBeGreaterThan(turned.version);

  // Screen share: no main picture; back to the board: the page as it is.
  await services().live.patch(creator(), { showState: 'screen' });
  const screen = await until(
    'screen',
    () => scene.current(),
    (v) => v.showState === 'screen',
  );
  expect(screen.main).toBeNull();
  await services().live.patch(creator(), { showState: 'wb', roomExtend: JSON.stringify({ pageIndex: 0, color: 0 }) });
  const back = await until(
    'back to the board',
    () => scene.current(),
    (v) => v.showState === 'wb',
  );
  expect(near(back.main, px(300), px(300), CSS_COLOURS.red)).toBe(true);
  expect(back.version).toBeGreaterThan(screen.version);
  // A clear compacts the page into an empty snapshot and deletes its operations. A second scene hears
  // the clear; once the log holds no operation of the page any more, its picture is the empty page.
  const manual = await open();
  expect(near(manual.current().main, px(300), px(300), CSS_COLOURS.red)).toBe(true);
  await services().board.submit(creator(), { opId: 'c1', type: 'clear', page: 'wb:0' });
  const db = server.banshu.platform.database.db;
  const roomId = (await db.selectFrom('rooms').select('id').where('room_number', '=', room.roomNumber).executeTakeFirstOrThrow()).id;
  const compacted = () => db.selectFrom('board_ops').select('seq').where('room_id', '=', roomId).where('page', '=', 'wb:0').execute();
  await until('the compaction', compacted, (rows) => rows.length === 0);
  await until(
    'the clear heard',
    () => manual.current(),
    (v) => near(v.main, px(300), px(300), BACKGROUND_COLOURS[0]),
  );
  expect(near(manual.current().main, px(300), px(300), BACKGROUND_COLOURS[0])).toBe(true);
  expect(near(manual.current().main, px(300), px(200), BACKGROUND_COLOURS[0])).toBe(true);
  manual.close();
  await until(
    'the clear',
    () => scene.current(),
    (v) => near(v.main, px(300), px(300), BACKGROUND_COLOURS[0]),
  );
  // The room's video view (any other showState) shows the cameras.
  await services().live.patch(creator(), { showState: '' });
  expect(
    (
      await until(
        'cameras',
        () => scene.current(),
        (v) => v.showState === 'cameras',
      )
    ).main,
  ).toBeNull();
  scene.close();
});

it('shows the slide image fitted as the browser fits it, with that slide’s ink on top; a page turn shows the next slide and its own ink', async () => {
  const p = server.banshu.platform;
  const prefix = `docs/test-${Date.now()}`;
  const slide = (r: number, g: number, b: number) =>
    sharp({ create: { width: 1280, height: 720, channels: 3, background: { r, g, b } } })
      .jpeg({ quality: 95 })
      .toBuffer();
  await p.objects.put(pageKey(prefix, 1), await slide(20, 160, 80), 'image/jpeg');
  await p.objects.put(pageKey(prefix, 2), await slide(200, 120, 20), 'image/jpeg');
  const now = new Date();
  const doc = await p.database.db
    .insertInto('documents')
    .values({
      user_id: room.teacher.userId,
      name: 'deck.pdf',
      source_key: `${prefix}/source.pdf`,
      pages_prefix: prefix,
      file_hash: 'f'.repeat(32),
      task_id: `task-${Date.now()}`,
      document_type: 1,
      status: 3,
      size: 1000,
      page_count: 2,
      page_sizes: '[[1280,720],[1280,720]]',
      created_at: now,
      updated_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await services().courseware.openExisting({ userId: room.teacher.userId }, doc.id, room.roomNumber);
  await seedBoard(services().board, creator(), [line('s1', slideLayer(doc.id, 1), 400)]);

  const scene = await open();
  const shown = await until(
    'the slide',
    () => scene.current(),
    (v) => v.showState === 'ppt' && near(v.main, px(512), px(300), '#14a050', 8),
  );
  // 16:9 into the 4:3 board: letterboxed with the board's background above and below.
  expect(near(shown.main, px(512), px(40), BACKGROUND_COLOURS[0])).toBe(true);
  expect(near(shown.main, px(512), px(730), BACKGROUND_COLOURS[0])).toBe(true);
  expect(near(shown.main, px(300), px(400), CSS_COLOURS.red)).toBe(true);
  await shot('ppt', scene);

  await services().courseware.setPage(creator(), 2);
  const turned = await until(
    'slide 2',
    () => scene.current(),
    (v) => near(v.main, px(512), px(300), '#c87814', 8),
  );
  // Slide 1's ink stays on slide 1.
  expect(near(turned.main, px(300), px(400), '#c87814', 8)).toBe(true);
  expect(turned.version).toBeGreaterThan(shown.version);

  // A video document: no picture; its link and the creator's player state instead.
  await p.objects.put(videoKey(prefix + 'v'), new Uint8Array([0, 0, 0, 24]), 'video/mp4');
  const video = await p.database.db
    .insertInto('documents')
    .values({
      user_id: room.teacher.userId,
      name: 'clip.mp4',
      source_key: `${prefix}v/source.mp4`,
      pages_prefix: `${prefix}v`,
      file_hash: 'e'.repeat(32),
      task_id: `task-v-${Date.now()}`,
      document_type: 3,
      status: 3,
      size: 4,
      page_count: 1,
      page_sizes: '[[1280,720]]',
      created_at: now,
      updated_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await services().courseware.openExisting({ userId: room.teacher.userId }, video.id, room.roomNumber);
  const paused = await until(
    'the video',
    () => scene.current(),
    (v) => v.showState === 'video',
  );
  expect(paused.main).toBeNull();
  // No control yet: an update again changes nothing.
  await scene.refresh();
  expect(scene.current()).toBe(paused);
  expect(paused.video).toMatchObject({ playing: false, positionSec: 0 });
  expect(paused.video?.url).toContain(videoKey(`${prefix}v`).split('/').pop());
  await services().courseware.videoControl(creator(), 'play', 12.5);
  const playing = await until(
    'playing',
    () => scene.current(),
    (v) => v.video?.playing === true,
  );
  expect(playing.video).toMatchObject({ playing: true, positionSec: 12.5 });
  expect(playing.video!.atMs).toBe(server.clock.now().getTime());
  // Nothing new: the same view, updated again.
  await scene.refresh();
  expect(scene.current()).toBe(playing);
  // The heartbeat 5 s later says what the view already says: kept (the compositor's reader goes on).
  server.clock.advance(5000);
  const heard = scene.heard;
  await services().courseware.videoControl(creator(), 'heartbeat', 17.6);
  await until(
    'the heartbeat heard',
    () => scene.heard,
    (n) => n > heard,
  );
  await scene.refresh();
  expect(scene.current()).toBe(playing);
  // A seek (or a heartbeat more than 1 s off): a new state from there, still playing.
  await services().courseware.videoControl(creator(), 'seek', 60);
  const sought = await until(
    'the seek',
    () => scene.current(),
    (v) => v.video?.positionSec === 60,
  );
  expect(sought.video).toMatchObject({ playing: true, atMs: server.clock.now().getTime() });
  expect(sought.version).toBeGreaterThan(playing.version);
  await services().courseware.videoControl(creator(), 'pause', 61);
  await until(
    'the pause',
    () => scene.current(),
    (v) => v.video?.playing === false && v.video.positionSec === 61,
  );
  scene.close();
});

it('draws name strips: a CJK name in white on a dark strip, cached, a name read on first use', async () => {
  const db = server.banshu.platform.database.db;
  const student = room.students[0]!;
  await db.updateTable('users').set({ name: '张老师的学生' }).where('id', '=', student.userId).execute();
  const scene = await open();
  const strip = scene.label(student.userId, 320, 24);
  expect(strip).toHaveLength(320 * 24 * 1.5);
  const bright = strip.subarray(0, 320 * 24).filter((y) => y > 180).length;
  expect(bright).toBeGreaterThan(60);
  // The strip is dark where there is no text.
  expect(strip[320 * 12 + 310]).toBeLessThan(50);
  expect(scene.label(student.userId, 320, 24)).toBe(strip);
  await shot('label', null, { buf: strip, w: 320, h: 24 });

  // Someone not seated when the scene opened: blank at first, named once read (the version moves).
  const late = await db
    .insertInto('users')
    .values({
      name: '李四 Li',
      kind: 'tourist',
      mobile: null,
      promo_code: null,
      vip_room_time: null,
      vip_big_room_time: null,
      record_room_time: null,
      credit_window_until: null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const before = scene.current().version;
  const blank = scene.label(late.id, 320, 24);
  expect(blank.subarray(0, 320 * 24).filter((y) => y > 180).length).toBe(0);
  // The same blank strip until then (the compositor does not copy it again).
  expect(scene.label(late.id, 320, 24)).toBe(blank);
  await until(
    'the name',
    () => scene.current().version,
    (v) => v > before,
  );
  expect(
    scene
      .label(late.id, 320, 24)
      .subarray(0, 320 * 24)
      .filter((y) => y > 180).length,
  ).toBeGreaterThan(30);
  scene.close();
});

it('draws the board’s pictures (an uploaded image from the object store, a stencil) and CJK text', async () => {
  const p = server.banshu.platform;
  const row = await p.database.db.selectFrom('rooms').select('id').where('room_number', '=', room.roomNumber).executeTakeFirstOrThrow();
  const key = `${boardImagePrefix(row.id)}${randomUUID()}.png`;
  await p.objects.put(
    key,
    await sharp({ create: { width: 64, height: 64, channels: 3, background: { r: 30, g: 60, b: 200 } } })
      .png()
      .toBuffer(),
    'image/png',
  );
  await services().live.patch(creator(), { showState: 'wb', roomExtend: JSON.stringify({ pageIndex: 3, color: 0 }) });
  await seedBoard(services().board, creator(), [
    {
      opId: 'img',
      type: 'create',
      btype: 'uploadImg',
      id: 'img',
      page: 'wb:3',
      data: { kind: 'image', src: key, x: 600, y: 100, w: 200, h: 200 },
    },
    {
      opId: 'st',
      type: 'create',
      btype: 'graph',
      id: 'st',
      page: 'wb:3',
      data: { kind: 'stencil', stencilId: 'math-grid', x: 100, y: 400, w: 300, h: 300 },
    },
    {
      opId: 'tx',
      type: 'create',
      btype: 'kbText',
      id: 'tx',
      page: 'wb:3',
      data: { kind: 'text', text: '勾股定理 a²+b²=c²', x: 100, y: 100, width: 400, fontSize: 40, color: 'black' },
    },
  ]);
  const scene = await open();
  // The pictures load after the first paint; the scene repaints when they arrive.
  const shown = await until(
    'the image',
    () => scene.current(),
    (v) => near(v.main, px(700), px(200), '#1e3cc8', 6),
  );
  const darkIn = (x0: number, y0: number, x1: number, y1: number) => {
    let n = 0;
    for (let y = px(y0); y < px(y1); y++) for (let x = px(x0); x < px(x1); x++) if (shown.main![y * W + x]! < 100) n++;
    return n;
  };
  expect(darkIn(100, 100, 500, 160)).toBeGreaterThan(300); // the text's glyphs
  await until(
    'the stencil',
    () => scene.current(),
    (v) => {
      let n = 0;
      for (let y = px(400); y < px(700); y++) for (let x = px(100); x < px(400); x++) if (v.main![y * W + x]! < 200) n++;
      return n > 500;
    },
  );
  await shot('pictures', scene);
  scene.close();
});

it('follows the presenter’s viewport while “follow me” is on, as members see it', async () => {
  await services().live.patch(creator(), { showState: 'wb', roomExtend: JSON.stringify({ pageIndex: 4, color: 0 }) });
  await seedBoard(services().board, creator(), [line('f1', 'wb:4', 200)]);
  const scene = await open();
  // The whole page: board (300, 200) at (281, 188).
  expect(near(scene.current().main, 281, 188, CSS_COLOURS.red)).toBe(true);
  // The creator zooms into the top-left 768 x 576 of the page and turns 'follow me' on.
  await services().board.submit(creator(), {
    opId: 'v1',
    type: 'move_by_presenter',
    page: 'wb:4',
    data: { x: 0, y: 0, width: 768, height: 576 },
  });
  await services().live.patch(creator(), { roomExtend: JSON.stringify({ pageIndex: 4, color: 0, follow: 1 }) });
  // 1.25 pixels a board unit from the page's corner: board (300, 200) at (375, 250).
  const zoomed = await until(
    'the viewport',
    () => scene.current(),
    (v) => near(v.main, 375, 250, CSS_COLOURS.red),
  );
  expect(near(zoomed.main, 281, 188, BACKGROUND_COLOURS[0])).toBe(true);
  // Following an unchanged viewport costs no repaint.
  const updates = scene.updates;
  await scene.refresh();
  await scene.refresh();
  expect(scene.updates).toBe(updates);
  // 'Follow me' off: the whole page again.
  await services().live.patch(creator(), { roomExtend: JSON.stringify({ pageIndex: 4, color: 0, follow: 0 }) });
  await until(
    'the whole page',
    () => scene.current(),
    (v) => near(v.main, 281, 188, CSS_COLOURS.red),
  );
  scene.close();
});

it('scrolls a portrait page with its ink as the browser does', async () => {
  const p = server.banshu.platform;
  const prefix = `docs/portrait-${Date.now()}`;
  // 1280 x 2560: green top half, orange bottom half (drawn 1024 x 2048 board units).
  const halves = await sharp({ create: { width: 1280, height: 2560, channels: 3, background: { r: 20, g: 160, b: 80 } } })
    .composite([
      { input: { create: { width: 1280, height: 1280, channels: 3, background: { r: 200, g: 120, b: 20 } } }, top: 1280, left: 0 },
    ])
    .jpeg({ quality: 95 })
    .toBuffer();
  await p.objects.put(pageKey(prefix, 1), halves, 'image/jpeg');
  const now = new Date();
  const doc = await p.database.db
    .insertInto('documents')
    .values({
      user_id: room.teacher.userId,
      name: 'a4.pdf',
      source_key: `${prefix}/source.pdf`,
      pages_prefix: prefix,
      file_hash: 'd'.repeat(32),
      task_id: `task-p-${Date.now()}`,
      document_type: 1,
      status: 3,
      size: 1000,
      page_count: 1,
      page_sizes: '[[1280,2560]]',
      created_at: now,
      updated_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await services().courseware.openExisting({ userId: room.teacher.userId }, doc.id, room.roomNumber);
  // Ink far down the page (board y 1300): out of the window at the top.
  await seedBoard(services().board, creator(), [line('pp1', slideLayer(doc.id, 1), 1300)]);
  const scene = await open();
  const top = await until(
    'the page top',
    () => scene.current(),
    (v) => near(v.main, px(512), px(400), '#14a050', 8),
  );
  expect(top.showState).toBe('ppt');
  // Scrolled by 1.5 board heights: the window shows board y 1152..1920, the ink at 1300 with it.
  await services().courseware.setPage(creator(), 1, 1.5);
  const down = await until(
    'scrolled',
    () => scene.current(),
    (v) => near(v.main, px(800), px(400), '#c87814', 8),
  );
  expect(near(down.main, px(300), px(1300 - 1152), CSS_COLOURS.red)).toBe(true);
  await shot('portrait', scene);
  scene.close();
});

/**
 * Numbers for ADR 075 (SCENE_BENCH=1, under `flock /tmp/banshu-bench.lock`): one full update
 * (repaint of a page of 1,000 strokes + conversion), one stroke added, the conversion alone, and
 * the process's CPU while strokes are stored 5 times a second, with and without a scene following.
 */
it.runIf(process.env['SCENE_BENCH'])(
  'bench: update cost and CPU at 5 updates/s',
  async () => {
    const strokes = (page: string, n: number, prefix: string): BoardOp[] =>
      Array.from({ length: n }, (_, i) => ({
        opId: `${prefix}${i}`,
        type: 'create' as const,
        btype: 'brush' as const,
        id: `${prefix}${i}`,
        page,
        data: {
          kind: 'stroke' as const,
          points: Array.from({ length: 24 }, (_, k) => (k % 2 === 0 ? 40 + ((i * 37 + k * 13) % 940) : 40 + ((i * 53 + k * 7) % 690))),
          color: (['red', 'blue', 'green', 'black'] as const)[i % 4]!,
          width: 4,
        },
      }));
    await services().live.patch(creator(), { showState: 'wb', roomExtend: JSON.stringify({ pageIndex: 10, color: 0 }) });
    await seedBoard(services().board, creator(), [...strokes('wb:10', 1000, 'p'), ...strokes('wb:11', 1000, 'q')]);
    const scene = await open();

    // Full updates: turn between two pages of 1,000 strokes (each turn repaints the page and converts it).
    const full: number[] = [];
    for (let i = 0; i < 10; i++) {
      await services().live.patch(creator(), { roomExtend: JSON.stringify({ pageIndex: 11 - (i % 2), color: 0 }) });
      const n = scene.updates;
      await until(
        'the turn',
        () => scene.updates,
        (u) => u > n,
      );
      full.push(scene.lastUpdateMs);
    }
    // One stroke added on top (painted over the page, converted).
    const append: number[] = [];
    for (let i = 0; i < 10; i++) {
      await services().board.submit(creator(), strokes('wb:10', 1, `x${i}-`)[0]!);
      const n = scene.updates;
      await until(
        'the stroke',
        () => scene.updates,
        (u) => u > n,
      );
      append.push(scene.lastUpdateMs);
    }
    scene.close();
    // Ink latency: from the board service’s acknowledgement to a new picture, 20 strokes, heard.
    const follower = await open();
    const latency: number[] = [];
    for (let i = 0; i < 20; i++) {
      const before = follower.current().version;
      const stored = performance.now();
      await services().board.submit(creator(), strokes('wb:10', 1, `l${i}-`)[0]!);
      await until(
        'a new picture',
        () => follower.current().version,
        (v) => v > before,
      );
      latency.push(performance.now() - stored);
      await new Promise((r) => setTimeout(r, 50 + ((i * 37) % 150)));
    }
    follower.close();
    const rgba = new Uint8Array(W * H * 4).fill(200);
    const t0 = performance.now();
    for (let i = 0; i < 50; i++) rgbaToYuv420p(rgba, W, H);
    const convert = (performance.now() - t0) / 50;

    // CPU of this process (server on PGlite included) while strokes are stored 5 times a second for 10 s.
    const run = async (withScene: boolean, tag: string) => {
      const s = withScene ? await open() : null;
      const before = s?.updates ?? 0;
      const cpu = process.cpuUsage();
      const started = performance.now();
      for (let i = 0; i < 50; i++) {
        const due = started + i * 200;
        await new Promise((r) => setTimeout(r, Math.max(0, due - performance.now())));
        await services().board.submit(creator(), strokes('wb:10', 1, `${tag}${i}-`)[0]!);
      }
      await new Promise((r) => setTimeout(r, 200));
      const used = process.cpuUsage(cpu);
      const wall = performance.now() - started;
      const updates = (s?.updates ?? 0) - before;
      s?.close();
      return { cpuPct: ((used.user + used.system) / 1000 / wall) * 100, updates, wallS: wall / 1000 };
    };
    const without = await run(false, 'n');
    const withScene = await run(true, 'w');
    // Idle: the server alone, then a scene following a room where nothing changes, 10 s each.
    const idle = async (withScene: boolean) => {
      const s = withScene ? await open() : null;
      const cpu = process.cpuUsage();
      const started = performance.now();
      await new Promise((r) => setTimeout(r, 10_000));
      const used = process.cpuUsage(cpu);
      s?.close();
      return ((used.user + used.system) / 1000 / (performance.now() - started)) * 100;
    };
    const idleBase = await idle(false);
    const idlePct = await idle(true);

    const stats = (xs: number[]) => {
      const s = [...xs].sort((a, b) => a - b);
      return `median ${s[Math.floor(s.length / 2)]!.toFixed(1)} ms, max ${s[s.length - 1]!.toFixed(1)} ms`;
    };
    console.log(
      [
        `full update (1,000 strokes repaint + convert): ${stats(full)}`,
        `append update (one stroke + convert): ${stats(append)}`,
        `rgba -> yuv420p 960x720: ${convert.toFixed(2)} ms`,
        `ink latency (stored -> new picture, heard, updates at most every ${SCENE_MIN_GAP_MS} ms): ${stats(latency)}`,
        `5 strokes/s for ${without.wallS.toFixed(1)} s without a scene: ${without.cpuPct.toFixed(1)} % of a core`,
        `5 strokes/s for ${withScene.wallS.toFixed(1)} s with a scene: ${withScene.cpuPct.toFixed(1)} % of a core, ${withScene.updates} updates`,
        `idle: server alone ${idleBase.toFixed(1)} %, with a scene following ${idlePct.toFixed(1)} % of a core`,
      ].join('\n'),
    );
    expect(withScene.updates).toBeGreaterThan(20);
  },
  120_000,
);

it('follows the room the same way on PostgreSQL (the recorder on its own machine)', async () => {
  const pg = await startTestServer({ engine: 'postgres', postgresAdminUrl: postgresAdminUrl() });
  try {
    const r = await boardRoom(pg, 3, 0);
    const actor = { room: r.roomNumber, uid: r.teacher.userId, role: 'creator' as const };
    const s = pg.banshu.platform.services;
    await s.live.patch(actor, { showState: 'wb' });
    await seedBoard(s.board, actor, [line('g1', 'wb:0', 200)]);
    const scene = await openRoomScene({
      db: pg.banshu.platform.database.db,
      objects: pg.banshu.platform.objects,
      roomNumber: r.roomNumber,
      logger: createLogger('silent'),
      width: W,
      height: H,
      webUrl: pg.url,
      tokens: () => s.rooms.recorderTokens(r.roomNumber),
    });
    scenes.push(scene);
    expect(near(scene.current().main, px(300), px(200), CSS_COLOURS.red)).toBe(true);
    await s.board.submit(actor, line('g2', 'wb:0', 300, 'blue'));
    await until(
      'the new stroke',
      () => scene.current(),
      (v) => near(v.main, px(300), px(300), CSS_COLOURS.blue),
    );
    await s.live.patch(actor, { roomExtend: JSON.stringify({ pageIndex: 0, color: 1 }) });
    await until(
      'the colour',
      () => scene.current(),
      (v) => near(v.main, px(300), px(400), BACKGROUND_COLOURS[1]),
    );
    scene.close();
  } finally {
    await pg.close();
  }
});
