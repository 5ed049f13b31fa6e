/**
 * Cloud recording of a real class end to end (issue 13): three Chromium clients on fake devices in
 * a paid mini class, the recorder inside the server (ROLE=all, RECORDER_SLOTS 2). The teacher's
 * camera and microphone are the files of tests/support/av-fixtures.ts (a flash and a click at the
 * same instants, a time code); the two students run in their own Chromium with a quiet tone and no
 * flashes or clicks, so every click in the mix is the teacher's. The teacher records 60 s from the
 * top bar, drawing on the board, opening a slide deck, turning a page and sharing the screen, with
 * a log of when each happened (ms since the button showed '1'). Then the proof, from the real file:
 * listed in the library within 15 s of the stop, H.264 1280x720 + AAC 48 kHz lasting as long as the
 * recording (60 s, more when the loaded machine ran the driver behind its plan) +- 1 s,
 * frames at the logged times showing the ink, the slides and the screen, audio not silent, and the
 * teacher tile's flashes against the clicks (measured and printed; the recorder's own drift is
 * bounded by recorder-engine.test.ts).
 * Tests run in order and share the class.
 */
import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { presentationFodp, sofficeConvert, writeFixture } from '#tests/fixtures/courseware.ts';
import { avFixtures, type AvFixture } from '#tests/support/av-fixtures.ts';
import { CREATOR_TILE, frameAt, grayFrame, measureDrift, measureVolume, readTimecode, type Region } from '#tests/support/av-analysis.ts';
import { probeMedia, type MediaProbe } from '../../workers/record/join.ts';
import { autoPassPreJoin, CHROMIUM_ARGS, chromiumPath, open, signIn, startWorld, watchCsp, type World } from './helpers.ts';

/** Set to a directory to keep frames of the recording (a person's check of the composition). */
const SHOTS = process.env['SHOTS'];
/** The composed frame's main area (RECORDING-CONTRACT: x 0..959, y 0..719). */
const MAIN: Region = { x: 0, y: 0, width: 960, height: 720 };
const RECORD_MS = 60_000;
/** How long after the students saw an action the next one may begin (a picture of it is taken 0.3 s before). */
const GAP_MS = 2_500;
const SLIDES = 3;
/**
 * The three browsers run at a lower priority: the class's computers are not the server's, and
 * sharing two cores at equal priority starved the server's event loop (up to 1.7 s late) and with it
 * the SFU and the recorder, which then lost packets and connections no real server would. The
 * wrapper sets it on the browser's scheduling group as well as on its processes: on the processes
 * alone it did nothing, and the server's event loop waited for a core 80 % of the time (ADR 082).
 */
const CLIENT_NICE = 10;

interface Person {
  page: Page;
  context: BrowserContext;
  id: string;
  name: string;
}

type BoardHook = Window & {
  __banshuBoard?: { store: { snapshot(page: string): { items: unknown[]; pending: number } }; page(): string };
};

let world: World;
let studentBrowser: Browser;
let dir = '';
let pptx = '';
let teacherAv: AvFixture;
let teacher: Person;
const students: Person[] = [];
let room = '';
/** What the teacher did, in ms since the recording started (record_tasks.started_at). */
const log: Record<string, number> = {};
let stroke = { x0: 0, x1: 0, y0: 0, y1: 0 };
let fileId = '';
/** When getRecordList first listed the MP4 (ms epoch). */
let listedAt = 0;
let mp4 = '';
let probe: MediaProbe;
/** What Ann saw of the shared screen (its mean grey tells a real picture from a black one). */
let seen = { width: 0, height: 0, meanGrey: 0 };

async function me(page: Page): Promise<string> {
  const res = await page.request.post('/api/queryUserInfoByToken', { data: {} });
  return ((await res.json()) as { data: { userInfo: { userId: string } } }).data.userInfo.userId;
}

/** The room's latest recording task as the server holds it: its first frame and the stop it received. */
function recordTask(): Promise<{ started_at: Date | null; stop_requested_at: Date | null }> {
  return world.server.banshu.platform.database.db
    .selectFrom('record_tasks')
    .select(['started_at', 'stop_requested_at'])
    .where('room_number', '=', room)
    .orderBy('id', 'desc')
    .executeTakeFirstOrThrow();
}

async function person(context: BrowserContext, name: string): Promise<Person> {
  const page = await context.newPage();
  await signIn(page, world.server);
  await page.request.post('/api/updateUserName', { data: { userName: name } });
  return { page, context, id: await me(page), name };
}

interface Stat {
  userId: string;
  source: string;
  framesDecoded: number;
  totalSamplesReceived: number;
}

/** Polls the page's receive statistics until `check` holds. */
async function untilStats(page: Page, check: (s: Stat[]) => boolean, what: string, timeoutMs = 60_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  let last: Stat[] = [];
  while (Date.now() < end) {
    last = await page.evaluate(async () => (window.banshuMedia ? ((await window.banshuMedia.stats()) as Stat[]) : []));
    if (check(last)) return;
    await page.waitForTimeout(250);
  }
  throw new Error(`${what}: not within ${String(timeoutMs)} ms; last stats ${JSON.stringify(last)}`);
}
const of = (s: Stat[], userId: string, source: string) => s.find((x) => x.userId === userId && x.source === source);

async function slideShown(page: Page, slide: number, timeout = 30_000): Promise<void> {
  await page.locator(`[data-testid="courseware-loaded"][data-page="${String(slide)}"][data-slide-ready="1"]`).waitFor({ timeout });
}

/** Waits until `ms` after the recording began (the class's schedule, not a wait for a condition). */
async function until(t0: number, ms: number): Promise<void> {
  const left = t0 + ms - Date.now();
  if (left > 0) await new Promise((r) => setTimeout(r, left));
}

/** Share of the region's pixels whose grey level differs by more than `by` between two frames. */
function changed(a: Buffer, b: Buffer, by = 40): number {
  let n = 0;
  for (let i = 0; i < a.length; i++) if (Math.abs(a[i]! - b[i]!) > by) n++;
  return n / a.length;
}

function mean(gray: Buffer, width: number, y0: number, y1: number): number {
  let sum = 0;
  for (let i = y0 * width; i < y1 * width; i++) sum += gray[i]!;
  return sum / ((y1 - y0) * width);
}

async function shot(name: string, tSec: number): Promise<void> {
  if (SHOTS) await writeFile(path.join(SHOTS, `recording-class-${name}.png`), await frameAt(mp4, tSec));
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'banshu-rec-class-'));
  // The students send 320x180: their two cameras cost the shared cores less and still fill a tile.
  const [av, quiet] = await Promise.all([
    avFixtures(),
    avFixtures({ width: 320, height: 180, flashes: false, clicks: false, toneHz: 500 }),
  ]);
  teacherAv = av;
  pptx = await sofficeConvert(
    await writeFixture(dir, 'deck.fodp', presentationFodp(SLIDES)),
    'pptx',
    dir,
    '录制课件.pptx',
    path.join(dir, 'profile'),
  );
  // 15 fps: on a 2-core machine the three Chromium clients (each encoding its camera, one its
  // 1080p screen), the SFU and the recorder share the cores, and at 30 fps the encoder fell behind
  // real time (bench/recorder measures 30 fps with the publishers outside the recorder's cores).
  world = await startWorld({
    realTime: true,
    jobs: true,
    env: { RECORDER_SLOTS: '2', RECORDING_FPS: process.env['RECORDING_FPS'] ?? '15' },
    chromiumArgs: av.chromiumArgs,
    clientNice: CLIENT_NICE,
  });
  // The students' own browser: their fake camera and microphone carry no flash and no click.
  studentBrowser = await chromium.launch({ executablePath: chromiumPath(CLIENT_NICE), args: [...CHROMIUM_ARGS, ...quiet.chromiumArgs] });

  const { context } = await world.person();
  context.setDefaultTimeout(30_000);
  // The teacher's screen is 1280x720 (the classroom asks for up to 1080p, and Chromium's fake screen
  // is 1920x1080): a 1080p share costs the shared cores more than both students' cameras together.
  await context.addInitScript(() => {
    const devices = navigator.mediaDevices;
    const share = devices.getDisplayMedia.bind(devices);
    devices.getDisplayMedia = (c?: DisplayMediaStreamOptions) =>
      share({ ...c, video: { ...(typeof c?.video === 'object' ? c.video : {}), width: { max: 1280 }, height: { max: 720 } } });
  });
  // The teacher's peer connections, to read at the stop what its encoders made of the keyframe
  // requests (an empty camera tile in the recording: asked, but no keyframe came).
  await context.addInitScript(() => {
    const Native = window.RTCPeerConnection;
    const kept: RTCPeerConnection[] = [];
    (window as unknown as { __pcs: RTCPeerConnection[] }).__pcs = kept;
    window.RTCPeerConnection = class extends Native {
      constructor(config?: RTCConfiguration) {
        super(config);
        kept.push(this);
      }
    };
  });
  teacher = await person(context, 'Teacher');
  // A paid class: free teachers cannot record (ADR 072).
  await world.server.banshu.platform.services.billingRepo.grant(teacher.id, { vip_room_time: new Date(Date.now() + 86400_000) });
  const created = await teacher.page.request.post('/api/createAgoraRoom', { data: { roomType: 1, consumption: 'on' } });
  room = ((await created.json()) as { data: { roomInfo: { roomNumber: string } } }).data.roomInfo.roomNumber;
  await open(teacher.page, `/${room}`);
  await teacher.page.getByTestId('media-controls').and(teacher.page.locator('[data-status="live"]')).waitFor({ timeout: 60_000 });
  for (const name of ['Ann', 'Ben']) {
    const ctx = await studentBrowser.newContext({ baseURL: world.server.url, viewport: { width: 1280, height: 720 }, locale: 'zh-CN' });
    // Three browsers, the SFU and the recorder share 2 cores: a click can take seconds to land.
    ctx.setDefaultTimeout(30_000);
    await watchCsp(ctx, world.cspViolations);
    // Made outside world.person, so it passes the pre-join (ADR 089) as world.person's do.
    await autoPassPreJoin(ctx);
    const p = await person(ctx, name);
    await open(p.page, `/${room}`);
    students.push(p);
  }
  // Everyone publishes. Whether the browsers receive each other fully is the media tests' business
  // (on a loaded machine a browser sometimes misses a track here): it is only reported, and the
  // recording's own tiles are checked below.
  for (const s of students)
    await s.page.getByTestId('media-controls').and(s.page.locator('[data-status="live"]')).waitFor({ timeout: 60_000 });
  const people = [teacher, ...students];
  for (const p of people) {
    const others = people.filter((o) => o !== p);
    await untilStats(
      p.page,
      (s) => others.every((o) => (of(s, o.id, 'camera')?.framesDecoded ?? 0) > 0 && (of(s, o.id, 'mic')?.totalSamplesReceived ?? 0) > 0),
      `${p.name} receives everyone`,
      15_000,
    ).catch((err: unknown) => console.warn(`before recording: ${String(err)}`));
  }

  // The deck is converted before the lesson (LibreOffice takes longer than a minute on a busy
  // machine); the lesson opens it from the recent list. Then the board is shown.
  const t = teacher.page;
  await t.getByTestId('view-ppt').click();
  await t.getByTestId('courseware-upload').waitFor();
  await t.getByTestId('courseware-file').setInputFiles(pptx);
  await t.locator(`[data-testid="courseware-loaded"][data-total="${String(SLIDES)}"]`).waitFor({ timeout: 240_000 });
  await slideShown(t, 1, 60_000);
  await t.getByTestId('cw-close').click();
  await t.getByRole('dialog').getByRole('button', { name: '确定' }).click();
  await t.locator('[data-testid="courseware"][data-view="default"]').waitFor();
  await t.getByTestId('view-wb').click();
  await t.getByTestId('board-overlay').waitFor();
  for (const s of students) await s.page.getByTestId('board-overlay').waitFor();
}, 600_000);

afterAll(async () => {
  await Promise.allSettled(students.map((s) => s.context.close()));
  await studentBrowser?.close();
  await world?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('a recorded class of three in real Chromium', () => {
  it('records 60 s while the teacher draws, opens a deck, turns a page and shares the screen; listed within 15 s of the stop', async () => {
    const t = teacher.page;
    // The library, open in a second tab of the teacher's, lists the MP4 live.
    const library = await teacher.context.newPage();
    await open(library, '/profile/record');
    await library.getByTestId('records-tab-class').click();
    await library.waitForURL((u) => u.searchParams.get('type') === 'class');

    const button = t.getByTestId('record-button');
    await expect.poll(() => button.getAttribute('data-record-state')).toBe('0');
    // The server (SFU and recorder) runs in this process: how late its event loop ran while recording.
    const loop = monitorEventLoopDelay({ resolution: 10 });
    loop.enable();
    await button.click();
    await t.locator('[data-testid="record-button"][data-record-state="1"]').waitFor({ timeout: 30_000 });
    const seenAt = Date.now();
    // The recording's own start (the recorder's claim, a few ms before its first frame) is the
    // schedule's zero: the button shows '1' later, by as much as the loaded page lags.
    const task = await recordTask();
    const t0 = task.started_at!.getTime();
    console.info(`the recorder started ${String(seenAt - t0)} ms before the button showed '1'`);
    const mark = (what: string) => (log[what] = Date.now() - t0);
    for (const s of students) await s.page.getByTestId('rec-dot').waitFor();

    // The board, then a stroke across it.
    await until(t0, 2_000);
    await t.getByTestId('tool-brush').click();
    const box = (await t.getByTestId('board-overlay').boundingBox())!;
    stroke = { x0: 0.3, x1: 0.6, y0: 0.45, y1: 0.55 };
    mark('inkStart');
    await t.mouse.move(box.x + box.width * stroke.x0, box.y + box.height * stroke.y0);
    await t.mouse.down();
    for (let i = 1; i <= 6; i++)
      await t.mouse.move(
        box.x + box.width * (stroke.x0 + ((stroke.x1 - stroke.x0) * i) / 6),
        box.y + box.height * (i % 2 ? stroke.y1 : stroke.y0),
      );
    await t.mouse.up();
    mark('inkEnd');
    await students[0]!.page.waitForFunction(() => {
      const hook = (window as BoardHook).__banshuBoard;
      return !!hook && hook.store.snapshot(hook.page()).items.length === 1;
    });
    mark('inkSeen');

    // The deck from the recent list. Each action waits for its plan, and also until the students
    // saw the previous one GAP_MS ago: the picture of each is taken just before the next begins, so
    // a loaded machine that runs behind the plan records longer instead of failing its checks.
    await until(t0, Math.max(13_000, log['inkSeen']! + GAP_MS));
    mark('deckClick');
    await t.getByTestId('view-ppt').click();
    await t.getByTestId('cw-recent').click();
    const picker = t.getByRole('dialog', { name: '最近的课件' });
    await picker.getByTestId('cw-recent-item').filter({ hasText: '录制课件.pptx' }).click();
    await picker.getByTestId('cw-recent-open').click();
    await Promise.all([t, ...students.map((s) => s.page)].map((p) => slideShown(p, 1)));
    mark('slide1');

    await until(t0, Math.max(28_000, log['slide1']! + GAP_MS));
    mark('nextClick');
    await t.getByTestId('cw-next').click();
    await Promise.all([t, ...students.map((s) => s.page)].map((p) => slideShown(p, 2)));
    mark('slide2');

    // The screen.
    // The screen comes early: a loaded teacher's browser takes up to ~20 s for its first 1080p frame.
    await until(t0, Math.max(36_000, log['slide2']! + GAP_MS));
    mark('shareClick');
    await t.getByTestId('view-screen').click();
    await t.getByTestId('start-share').click();
    // Its first picture takes a loaded machine up to ~30 s to bring (every receiver's leg is made then).
    await untilStats(students[0]!.page, (s) => (of(s, teacher.id, 'screen')?.framesDecoded ?? 0) > 0, 'the screen decoded at Ann', 60_000);
    mark('screen');
    // What the students see of the shared screen (mean grey of the picture), to tell a black source from a black recording.
    seen = await students[0]!.page
      .getByTestId('screen-view')
      .locator('video')
      .evaluate((v: HTMLVideoElement) => {
        const c = document.createElement('canvas');
        c.width = 160;
        c.height = 90;
        const g = c.getContext('2d')!;
        g.drawImage(v, 0, 0, c.width, c.height);
        const d = g.getImageData(0, 0, c.width, c.height).data;
        let sum = 0;
        for (let i = 0; i < d.length; i += 4) sum += (d[i]! + d[i + 1]! + d[i + 2]!) / 3;
        return { width: v.videoWidth, height: v.videoHeight, meanGrey: sum / (d.length / 4) };
      });
    console.info(`the shared screen at Ann: ${JSON.stringify(seen)}`);

    // The stop: the button (its confirm opens a little before), confirmed at 60 s (later when the
    // screen came late: its picture is taken 2 s before the stop).
    const stopAt = Math.max(RECORD_MS, log['screen']! + 2 * GAP_MS);
    await until(t0, stopAt - 3000);
    await button.click();
    const confirm = t.getByRole('dialog', { name: '结束录制？' }).getByRole('button', { name: '结束录制' });
    await confirm.waitFor();
    await until(t0, stopAt);
    mark('stop');
    // What the node has of each publication at the stop (an empty tile is told apart: nothing
    // arriving from the browser, paused, or not forwarded to the recorder).
    const node = world.server.banshu.media?.server.rooms.get(room);
    const names = new Map([teacher, ...students].map((p) => [p.id, p.name]));
    console.info(
      `publications at the stop: ${JSON.stringify(
        [...(node?.publications.values() ?? [])].map((p) => ({
          who: names.get(p.userId) ?? p.userId,
          source: p.source,
          paused: p.paused,
          layers: p.layers,
          packets: p.packets,
          subscribers: p.subscriberCount,
          connection: p.pc.connectionState,
          ice: p.pc.iceConnectionState,
          keyframesAsked: p.keyframesAsked,
          asks: p.kind === 'video' ? p.keyframeAsks() : undefined,
        })),
      )}`,
    );
    const senders = await t
      .evaluate(async () => {
        const out: Array<Record<string, unknown>> = [];
        for (const pc of (window as unknown as { __pcs: RTCPeerConnection[] }).__pcs) {
          if (pc.connectionState === 'closed') continue;
          (await pc.getStats()).forEach((r: Record<string, unknown>) => {
            if (r['type'] === 'outbound-rtp' && r['kind'] === 'video')
              out.push({
                rid: r['rid'],
                ssrc: r['ssrc'],
                size: `${String(r['frameWidth'])}x${String(r['frameHeight'])}`,
                fps: r['framesPerSecond'],
                framesEncoded: r['framesEncoded'],
                keyFramesEncoded: r['keyFramesEncoded'],
                pliCount: r['pliCount'],
                firCount: r['firCount'],
                nackCount: r['nackCount'],
                limitation: r['qualityLimitationReason'],
                encoder: r['encoderImplementation'],
                active: r['active'],
              });
          });
        }
        return out;
      })
      .catch((err: unknown) => String(err));
    console.info(`the teacher's video senders at the stop: ${JSON.stringify(senders)}`);
    // Every leg of the node: what it asked for, forwards, waits for, and whether it had its keyframe.
    console.info(
      `legs at the stop: ${JSON.stringify(
        world.server.banshu.media?.server
          .serialize()
          .rooms.flatMap((r) => r.peers.flatMap((p) => p.subscriptions.map((x) => ({ to: names.get(p.userId) ?? p.userId, ...x })))),
      )}`,
    );
    const stoppedAt = Date.now();
    await confirm.click();
    await expect.poll(() => button.getAttribute('data-record-state'), { timeout: 10_000 }).toBe('0');
    console.info(`recording log (ms since the recording started): ${JSON.stringify(log)}`);
    loop.disable();
    console.info(
      `event loop delay while recording (ms): p50 ${(loop.percentile(50) / 1e6).toFixed(0)}, p99 ${(loop.percentile(99) / 1e6).toFixed(0)}, max ${(loop.max / 1e6).toFixed(0)}`,
    );

    // The file's id from the API, so what follows can look at the file even if the page lags.
    const deadline = Date.now() + 60_000;
    for (;;) {
      const res = await t.request.post('/api/getRecordList', { data: { recordType: 2, pageSize: 10 } });
      const body = (await res.json()) as { data: { recordList: Array<{ fileId: string; fileSize: string; roomNumber: string }> } };
      const row = body.data.recordList.find((r) => r.roomNumber === room && r.fileSize !== '');
      if (row) {
        fileId = row.fileId;
        listedAt = Date.now();
        console.info(`stop click -> listed by getRecordList: ${String(listedAt - stoppedAt)} ms`);
        break;
      }
      if (Date.now() > deadline) throw new Error(`no listed recording 60 s after the stop: ${JSON.stringify(body)}`);
      await new Promise((r) => setTimeout(r, 100));
    }

    // The library page, open since before the stop, shows it ready (with its size) within 15 s.
    const row = library.locator(`[data-testid="record-row"][data-file-id="${fileId}"][data-ready="true"]`);
    await row.waitFor({ timeout: Math.max(1000, stoppedAt + 60_000 - Date.now()) });
    console.info(`stop click -> ready in the library (class tab): ${String(Date.now() - stoppedAt)} ms`);
    expect(await row.locator('.rec-row__size').innerText()).toMatch(/\d(\.\d)? (KB|MB)/);
    if (SHOTS) await library.screenshot({ path: path.join(SHOTS, 'recording-class-library.png') });
    // Within 15 s of the stop: from the moment the server had the teacher's stop (a loaded
    // Chromium takes 0-3 s to deliver a click here, which no recorder can shorten) to the list.
    const stop = await recordTask();
    const listedMs = listedAt - stop.stop_requested_at!.getTime();
    console.info(`stop (server) -> listed: ${String(listedMs)} ms`);
    expect(listedMs).toBeLessThanOrEqual(15_000);
  }, 600_000);

  it('is an H.264 1280x720 + AAC 48 kHz MP4 as long as the recording (a minute or more) +- 1 s, fetched through getRecordFileUrl', async () => {
    expect(fileId, 'a listed recording').not.toBe('');
    const res = await teacher.page.request.post('/api/getRecordFileUrl', { data: { fileId } });
    const body = (await res.json()) as { code: string; data: { fileUrl: string } };
    expect(body.code).toBe('0');
    const got = await fetch(new URL(body.data.fileUrl, world.server.url));
    expect(got.status).toBe(200);
    mp4 = path.join(dir, 'class.mp4');
    await writeFile(mp4, new Uint8Array(await got.arrayBuffer()));
    if (SHOTS) await copyFile(mp4, path.join(SHOTS, 'recording-class.mp4'));
    probe = await probeMedia(mp4);
    console.info(`probe: ${JSON.stringify(probe)}; recorded for ${String(log['stop'])} ms`);
    expect(probe).toMatchObject({ videoCodec: 'h264', width: 1280, height: 720, audioCodec: 'aac', sampleRate: 48000, moovFirst: true });
    // The class was recorded for a minute (longer when the driver ran behind its plan), and the
    // file is as long as the recording the server ran: from its first frame to the stop it received. On this 2-core machine the
    // teacher's click reaches the server 0-2 s after it is made (three Chromium clients share the
    // cores), which the recorder cannot know of; both figures are printed.
    const task = await recordTask();
    const serverSec = (task.stop_requested_at!.getTime() - task.started_at!.getTime()) / 1000;
    console.info(
      `the server recorded ${serverSec.toFixed(2)} s (first frame to the stop it received); the file lasts ${probe.durationSec.toFixed(2)} s`,
    );
    // At least the minute was recorded (more when the driver ran behind its plan), and the file
    // is as long as the recording the server ran.
    expect(serverSec).toBeGreaterThanOrEqual(RECORD_MS / 1000 - 1);
    expect(Math.abs(probe.durationSec - serverSec)).toBeLessThanOrEqual(1);
  }, 120_000);

  it('shows the ink, the slides and the screen share at the logged times', async () => {
    expect(mp4, 'the fetched MP4').not.toBe('');
    const at = (ms: number) => ms / 1000;
    // Each picture is taken just before the next action began (the file's time 0 is a little before
    // the button showed '1', so these moments come slightly earlier in the room: still after the
    // previous action was seen by the students).
    const times = {
      board: Math.max(0.5, at(log['inkStart']!) - 2),
      ink: at(log['deckClick']!) - 0.3,
      slide1: at(log['nextClick']!) - 0.3,
      slide2: at(log['shareClick']!) - 0.3,
      screen: at(log['stop']!) - 2,
    };
    console.info(`the log: ${JSON.stringify(log)}`);
    const frames: Record<string, Buffer> = {};
    for (const [name, sec] of Object.entries(times)) {
      frames[name] = await grayFrame(mp4, Math.min(sec, probe.durationSec - 0.5), MAIN);
      await shot(name, Math.min(sec, probe.durationSec - 0.5));
    }
    // Each action was seen by the students at least 1.5 s before the picture of it is taken.
    expect(at(log['inkSeen']!)).toBeLessThan(times.ink - 1.5);
    expect(at(log['slide1']!)).toBeLessThan(times.slide1 - 1.5);
    expect(at(log['slide2']!)).toBeLessThan(times.slide2 - 1.5);
    expect(at(log['screen']!)).toBeLessThan(times.screen - 1.5);
    const d = {
      ink: changed(frames['board']!, frames['ink']!),
      // The board's light grey and the slide's white are only ~13 levels apart: a finer step here.
      slide1: changed(frames['ink']!, frames['slide1']!, 8),
      slide2: changed(frames['slide1']!, frames['slide2']!),
      screen: changed(frames['slide2']!, frames['screen']!),
    };
    console.info(`frames at ${JSON.stringify(times)}; share of main-area pixels changed: ${JSON.stringify(d)}`);

    // The ink: a thin stroke changes a little of the board, where it was drawn.
    expect(d.ink).toBeGreaterThan(0.001);
    expect(d.ink).toBeLessThan(0.05);
    let sx = 0;
    let sy = 0;
    let n = 0;
    for (let i = 0; i < frames['board']!.length; i++) {
      if (Math.abs(frames['board']![i]! - frames['ink']![i]!) <= 40) continue;
      sx += i % MAIN.width;
      sy += Math.floor(i / MAIN.width);
      n++;
    }
    const centre = { x: sx / n / MAIN.width, y: sy / n / MAIN.height };
    console.info(`ink centre in the main area (fractions): ${JSON.stringify(centre)}`);
    expect(centre.x).toBeGreaterThan(stroke.x0 - 0.1);
    expect(centre.x).toBeLessThan(stroke.x1 + 0.1);
    expect(centre.y).toBeGreaterThan(stroke.y0 - 0.15);
    expect(centre.y).toBeLessThan(stroke.y1 + 0.15);
    // The slide replaces the board, the next page replaces the slide, the screen replaces the page.
    expect(d.slide1).toBeGreaterThan(0.05);
    expect(d.slide2).toBeGreaterThan(0.02);
    expect(d.screen).toBeGreaterThan(0.05);
    // The screen is letterboxed 16:9 on black (960x540 at y 90).
    const screen = frames['screen']!;
    console.info(
      `screen frame mean grey: top band ${mean(screen, MAIN.width, 0, 90).toFixed(1)}, picture ${mean(screen, MAIN.width, 90, 630).toFixed(1)}, bottom band ${mean(screen, MAIN.width, 630, 720).toFixed(1)}`,
    );
    expect(mean(screen, MAIN.width, 0, 90)).toBeLessThan(24);
    expect(mean(screen, MAIN.width, 630, 720)).toBeLessThan(24);
    // The picture between the bands is the shared screen, not a black box where it failed to come:
    // the compositor fills the area black (0, as the bands) until the screen's first picture. What
    // Ann saw was about 50; the recording's picture read 6-26 in these runs (the fake screen moves
    // and is dark in places, and the recorder shows the last whole picture it decoded).
    expect(seen.meanGrey).toBeGreaterThan(12);
    expect(mean(screen, MAIN.width, 90, 630)).toBeGreaterThan(3);

    // Three cameras: the teacher's tile, then both students' (each fake camera carries a time code).
    // A live camera shows a readable code that moves on between the two moments; a missing one
    // (an empty tile reads as all black blocks) or a frozen one does not.
    const codes: Array<Array<{ frame: number } | null>> = [];
    for (const sec of [times.slide1, times.screen]) {
      const at = [];
      for (let slot = 0; slot < 3; slot++) at.push(await readTimecode(mp4, sec, { ...CREATOR_TILE, y: slot * 180 }));
      console.info(`tiles at ${sec.toFixed(1)} s, camera time codes: ${JSON.stringify(at)}`);
      codes.push(at);
    }
    const live = [0, 1, 2].filter((slot) => {
      const [a, b] = [codes[0]![slot], codes[1]![slot]];
      return !!a && !!b && !(a.frame === 0 && b.frame === 0) && a.frame !== b.frame;
    });
    console.info(`live camera tiles (0 = the teacher): ${JSON.stringify(live)}`);
    // Every tile shows a readable code (a tile is laid out for each camera in the room).
    for (const at of codes) for (const code of at) expect(code).not.toBeNull();
    // All three cameras are live in the file. The bound was two while the teacher's tile stayed
    // empty in some runs (ADR 081) and the decoders fell behind a starved event loop (ADR 082);
    // with both fixed, the six runs since showed all three.
    expect(live).toEqual([0, 1, 2]);
  }, 300_000);

  it('has the class audible; the teacher tile against the clicks is measured and printed', async () => {
    expect(mp4, 'the fetched MP4').not.toBe('');
    const volume = await measureVolume(mp4);
    console.info(`volume: ${JSON.stringify(volume)}`);
    expect(volume.silent).toBe(false);
    const drift = await measureDrift(mp4, CREATOR_TILE);
    for (const p of drift.pairs)
      console.info(`flash ${p.flashSec.toFixed(3)} s  click ${p.clickSec.toFixed(3)} s  drift ${p.driftMs.toFixed(1)} ms`);
    console.info(
      `drift: ${String(drift.pairs.length)} pairs, max |drift| ${drift.maxAbsDriftMs.toFixed(1)} ms, mean ${drift.meanDriftMs.toFixed(1)} ms; unpaired flashes ${JSON.stringify(drift.unpairedFlashes)}, clicks ${JSON.stringify(drift.unpairedClicks)}`,
    );
    // The drift is printed, not bounded here. On this 2-core machine three Chromium clients, the
    // SFU and the recorder share the cores; the teacher's browser then sends its camera at a few
    // frames a second (the students decoded 215 of ~900 in one run), so most one-frame flashes never
    // leave it, and Chromium's file camera falls behind its file microphone (the picture 150-370 ms
    // late, growing over the minute, in the runs that paired). Neither is the recorder's doing:
    // tests/integration/recorder-engine.test.ts (media phase) bounds the recorder's own drift with
    // real-time publishers (median within 40 ms, the figure).
    const expected = Math.floor((probe.durationSec / teacherAv.seconds) * teacherAv.events.length);
    const clicks = drift.pairs.length + drift.unpairedClicks.length;
    console.info(`drift pairs: ${String(drift.pairs.length)} of ~${String(expected)} events; clicks heard: ${String(clicks)}`);
    // The teacher's microphone is in the mix: its clicks are heard (only the teacher's fake
    // microphone clicks; the students' carry a tone). A lost microphone leaves none; the loaded
    // teacher's browser, Opus and the recorder lost many of the 10 ms clicks here (8-17 of 36-43).
    expect(clicks).toBeGreaterThanOrEqual(3);
  }, 300_000);
});
