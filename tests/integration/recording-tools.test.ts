/**
 * The class tools in the cloud recording (issue 30, ADR 115), the whole product in one process
 * (web, media, recorder on PGlite and the disk store). The teacher shows the board, starts a
 * recording, sets and starts a one-minute countdown, runs a quiz three students answer (B, B, A;
 * B is right), collects and publishes it, and stops. Frames of the finished MP4 decoded by ffmpeg
 * at known times (the recording's media 0 is the wall instant the API answers as its start):
 * - before the countdown starts, no timer where it goes; 1.5 s and 5.5 s into it, the digits
 *   read (matched against the overlay's own drawing of each second) 59 and 55, one apart at most;
 * - before the publish, nothing where the result goes; after it, the result's bars at their known
 *   places: B's green (the right answer), A's in the accent, C's empty, the panel's dark surface.
 * One recording: the heavy media path is proven once. SHOTS=dir keeps the frames as PNGs.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createCanvas } from '@napi-rs/canvas';
import sharp from 'sharp';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BACKGROUND_COLOURS } from '#core/contracts/board.ts';
import { emptyClassTools, type ClassTools } from '#core/contracts/class-tools.ts';
import type { ApiName } from '#core/contracts/api.ts';
import { call, signIn } from '#tests/support/api.ts';
import { frameAt } from '#tests/support/av-analysis.ts';
import { ask, connectRoom, type RoomSocket } from '#tests/support/room-client.ts';
import { startTestServer, type TestServer } from '#tests/support/server.ts';
import { until } from '#tests/support/until.ts';
import { probeMedia } from '../../workers/record/join.ts';
import { registerSceneFonts } from '../../workers/record/scene-pixels.ts';
import { OVERLAY_COLOURS, TIMER_DIGITS, drawPanel, layoutOverlay, quizBarBox, type Panel } from '../../workers/record/tools-overlay.ts';

const SHOTS = process.env['SHOTS'];
const COUNTDOWN_MS = 60_000;

let server: TestServer;
let dir = '';
let teacher: { token: string; userId: string };
let roomNumber = '';
let teacherRoom: RoomSocket;
const students: RoomSocket[] = [];

const api = <N extends ApiName>(name: N, body: Record<string, unknown>) => call(server.url, name, body, { token: teacher.token });
const sleepUntil = (t: number) => new Promise((r) => setTimeout(r, Math.max(0, t - Date.now())));

beforeAll(async () => {
  registerSceneFonts();
  dir = await mkdtemp(path.join(tmpdir(), 'banshu-rec-tools-'));
  server = await startTestServer({ realTime: true, env: { RECORDER_SLOTS: '1', SESSION_SECRET: 's'.repeat(64) } });
  teacher = await signIn(server);
  await server.banshu.platform.services.billingRepo.grant(teacher.userId, { vip_room_time: new Date(Date.now() + 86400_000) });
  const created = await api('createAgoraRoom', { roomType: 1, consumption: 'on' });
  expect(created.code).toBe('0');
  roomNumber = created.data.roomInfo.roomNumber;
  for (let i = 0; i < 4; i++) {
    const who = i === 0 ? teacher : await signIn(server);
    const joined = await call(server.url, 'userJoinAgoraRoom', { roomNumber }, { token: who.token });
    expect(joined.code).toBe('0');
    const socket = await connectRoom(server.url, joined.data.imToken);
    expect((await ask(socket, 'joinRoom')).code).toBe('0');
    if (i === 0) teacherRoom = socket;
    else students.push(socket);
  }
  expect((await ask(teacherRoom, 'customRoomEvent', { showState: 'wb' })).code).toBe('0');
}, 60_000);

afterAll(async () => {
  for (const s of [teacherRoom, ...students]) s?.close();
  await server?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** The overlay's panel of `kind` for these tools (its place in the frame: the main area is at 0, 0). */
function panelOf(tools: ClassTools, kind: Panel['kind'], now = 0): Panel {
  const p = layoutOverlay(tools, now, null).find((x) => x.kind === kind);
  if (!p) throw new Error(`no ${kind} panel`);
  return p;
}

/** RGB of a rectangle of a PNG frame. */
async function region(png: Buffer, x: number, y: number, w: number, h: number): Promise<Buffer> {
  return (await sharp(png).extract({ left: x, top: y, width: w, height: h }).removeAlpha().raw().toBuffer({ resolveWithObject: true }))
    .data;
}
const mean = (rgb: Buffer) =>
  [0, 1, 2].map((c) => {
    let sum = 0;
    for (let i = c; i < rgb.length; i += 3) sum += rgb[i]!;
    return sum / (rgb.length / 3);
  });
const hexRgb = (hex: string) => [1, 3, 5].map((o) => parseInt(hex.slice(o, o + 2), 16));
const near = (got: number[], hex: string, tolerance: number) => got.every((v, i) => Math.abs(v - hexRgb(hex)[i]!) <= tolerance);
const meanDiff = (a: Buffer, b: Buffer) => {
  let d = 0;
  for (let i = 0; i < a.length; i++) d += Math.abs(a[i]! - b[i]!);
  return d / a.length;
};

/** The countdown's digits as the overlay draws them for `seconds` left (RGB of TIMER_DIGITS). */
function digitsOf(seconds: number): Buffer {
  const timer = {
    kind: 'countdown' as const,
    running: true,
    durationMs: COUNTDOWN_MS,
    elapsedMs: COUNTDOWN_MS - seconds * 1000,
    startedAt: 0,
  };
  const panel = panelOf({ ...emptyClassTools(), timer }, 'timer');
  const canvas = createCanvas(panel.w, panel.h);
  drawPanel(canvas.getContext('2d') as unknown as CanvasRenderingContext2D, panel);
  const d = TIMER_DIGITS;
  const rgba = canvas.getContext('2d').getImageData(d.x, d.y, d.w, d.h).data;
  const rgb = Buffer.alloc(d.w * d.h * 3);
  for (let i = 0, o = 0; i < rgba.length; i += 4) {
    rgb[o++] = rgba[i]!;
    rgb[o++] = rgba[i + 1]!;
    rgb[o++] = rgba[i + 2]!;
  }
  return rgb;
}

it('frames of the MP4 at known times show the countdown running and the published quiz result', async () => {
  const started = await api('startTask', { roomNumber });
  expect(started.code).toBe('0');
  const taskId = started.data.taskId;
  const state = await until(
    'recordState 1',
    async () => (await api('getRoomMemberRecordState', { roomNumber })).data,
    (d: { recordState: string; startedAt?: number }) => d.recordState === '1',
    { timeoutMs: 20_000, everyMs: 100 },
  );
  /** The wall instant of the recording's media 0. */
  const origin = state.startedAt!;
  const media = (wallMs: number) => (wallMs - origin) / 1000;

  await sleepUntil(origin + 2500);
  expect((await ask(teacherRoom, 'timerSet', { kind: 'countdown', durationMs: COUNTDOWN_MS })).code).toBe('0');
  const run = await ask(teacherRoom, 'timerStart', {});
  expect(run.code).toBe('0');
  const timerStartedAt = (run.data as { startedAt: number }).startedAt;

  const quiz = await ask(teacherRoom, 'quizStart', { options: 4, multiple: false, correct: ['B'], limitSeconds: 0, showOwn: false });
  expect(quiz.code).toBe('0');
  const quizId = (quiz.data as { id: string }).id;
  for (const [i, choice] of (['B', 'B', 'A'] as const).entries())
    expect((await ask(students[i]!, 'quizAnswer', { id: quizId, choice: [choice] })).code).toBe('0');
  await sleepUntil(origin + 8000);
  expect((await ask(teacherRoom, 'quizCollect', { id: quizId })).code).toBe('0');
  const published = await ask(teacherRoom, 'quizPublish', { id: quizId });
  expect(published.code).toBe('0');
  const publishedAt = Date.now();
  const shownQuiz = published.data;
  expect(shownQuiz.result).toEqual({ tally: [1, 2, 0, 0], correct: ['B'], answered: 3, right: 2 });
  await sleepUntil(publishedAt + 4000);

  expect((await api('stopTask', { roomNumber, taskId })).code).toBe('0');
  const listed = await until(
    'the listed MP4',
    async () => (await api('getRecordList', { recordType: 2, pageSize: 10 })).data,
    (d: { recordList: Array<{ taskId: string; fileSize: string }> }) => d.recordList.some((r) => r.taskId === taskId && r.fileSize !== ''),
    { timeoutMs: 60_000, everyMs: 200 },
  );
  const row = listed.recordList.find((r) => r.taskId === taskId) as unknown as { fileId: string };
  const rec = await server.banshu.platform.database.db
    .selectFrom('records')
    .selectAll()
    .where('id', '=', row.fileId)
    .executeTakeFirstOrThrow();
  const file = path.join(dir, 'class.mp4');
  await server.banshu.platform.objects.download(rec.object_key!, file);
  const probe = await probeMedia(file);
  expect(probe).toMatchObject({ videoCodec: 'h264', width: 1280, height: 720 });

  const frame = async (name: string, t: number) => {
    const png = await frameAt(file, t);
    if (SHOTS) await writeFile(path.join(SHOTS, `recording-tools-${name}.png`), png);
    return png;
  };
  const board = BACKGROUND_COLOURS[0];

  // The countdown: nothing before it starts, then its digits read against the overlay's own drawing of each second.
  const timer = panelOf(
    { ...emptyClassTools(), timer: { kind: 'countdown', running: true, durationMs: COUNTDOWN_MS, elapsedMs: 0, startedAt: 0 } },
    'timer',
  );
  const d = TIMER_DIGITS;
  const candidates = Array.from({ length: 61 }, (_, s) => digitsOf(s));
  const readTimer = async (png: Buffer) => {
    const got = await region(png, timer.x + d.x, timer.y + d.y, d.w, d.h);
    const scores = candidates.map((c) => meanDiff(got, c));
    const best = scores.indexOf(Math.min(...scores));
    return { seconds: best, score: scores[best]!, next: Math.min(...scores.filter((_, i) => i !== best)) };
  };
  const before = await frame('before-timer', media(timerStartedAt) - 1.2);
  expect(near(mean(await region(before, timer.x + 4, timer.y + 4, timer.w - 8, timer.h - 8)), board, 12)).toBe(true);
  const t1 = media(timerStartedAt) + 1.5;
  const first = await readTimer(await frame('timer-59', t1));
  const second = await readTimer(await frame('timer-55', t1 + 4));
  console.log(`timer read at ${t1.toFixed(2)} s: ${JSON.stringify(first)}; at ${(t1 + 4).toFixed(2)} s: ${JSON.stringify(second)}`);
  // A clear match: far nearer its own second than any other.
  for (const r of [first, second]) expect(r.score).toBeLessThan(r.next * 0.7);
  expect(Math.abs(first.seconds - 59)).toBeLessThanOrEqual(1);
  expect(Math.abs(second.seconds - 55)).toBeLessThanOrEqual(1);
  expect(first.seconds - second.seconds).toBeGreaterThanOrEqual(3);
  expect(first.seconds - second.seconds).toBeLessThanOrEqual(5);

  // The published result: nothing in its place before, the bars in their colours after.
  const result = panelOf({ ...emptyClassTools(), quiz: shownQuiz }, 'quizResult');
  if (result.kind !== 'quizResult') throw new Error('no result panel');
  const unpublished = await frame('before-publish', media(publishedAt) - 1.5);
  const shown = await frame('published', media(publishedAt) + 2);
  const area = [result.x + 4, result.y + 4, result.w - 8, result.h - 8] as const;
  expect(near(mean(await region(unpublished, ...area)), board, 12)).toBe(true);
  expect(meanDiff(await region(unpublished, ...area), await region(shown, ...area))).toBeGreaterThan(60);
  const barColour = async (i: number) => {
    const b = quizBarBox(result, i);
    // The bar's first pixels (every bar but an empty one starts there), clear of its edges.
    return mean(await region(shown, result.x + b.x + 2, result.y + b.y + 3, 8, b.h - 6));
  };
  expect(near(await barColour(1), OVERLAY_COLOURS.correct, 24)).toBe(true);
  expect(near(await barColour(0), OVERLAY_COLOURS.bar, 24)).toBe(true);
  expect(near(await barColour(2), OVERLAY_COLOURS.track, 24)).toBe(true);
  expect(near(mean(await region(shown, result.x + result.w / 2, result.y + 4, 8, 4)), OVERLAY_COLOURS.surface, 16)).toBe(true);
  // B's bar (2 of 3) twice as long as A's (1 of 3): the end of A's is the track, B's still green there.
  const a = quizBarBox(result, 0);
  const endA = mean(await region(shown, result.x + a.x + a.w + 6, result.y + quizBarBox(result, 1).y + 3, 6, 6));
  expect(near(endA, OVERLAY_COLOURS.correct, 24)).toBe(true);
  expect(near(mean(await region(shown, result.x + a.x + a.w + 6, result.y + a.y + 3, 6, 6)), OVERLAY_COLOURS.track, 24)).toBe(true);
}, 180_000);
