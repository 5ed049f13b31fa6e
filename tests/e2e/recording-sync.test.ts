/**
 * Picture and sound of a cloud recording stay together (issue 13's drift figure, with a real
 * browser): one teacher in Chromium whose fake camera and microphone are the files of
 * tests/support/av-fixtures.ts (a one-frame white flash and a 10 ms click made at the same
 * instants, every 2 s), recorded by the recorder inside the server (ROLE=all) for 30 s from the
 * top bar. In the MP4 each flash of the teacher's camera is paired with its click: the drift is
 * click - flash. One browser leaves the machine's cores to the camera, the SFU and the recorder,
 * as on a class's computers and a server of their own; the class of three on two shared cores is
 * recording-class.test.ts, which prints the same measure.
 */
import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { avFixtures, type AvFixture } from '#tests/support/av-fixtures.ts';
import { measureDrift, pairEvents, type Region } from '#tests/support/av-analysis.ts';
import { open, signIn, startWorld, type World } from './helpers.ts';

const RECORD_MS = 30_000;
/**
 * Picture and sound of the same instant at most this far apart, median over the events, as the
 * recording added it: the issue's 40 ms. With the sound placed by its RTP time and both held
 * 200 ms (ADR 083) the runs here read +7, -18 ms (single events -70..+14 ms: a picture is shown
 * on the file's 33 ms frames). Earlier builds read -29..+10 ms and twice -95 ms; those figures
 * came from a wrong tie of the page's microphone clock (ADR 083) and were up to 100 ms off.
 */
const MAX_DRIFT_MS = 40;
/** Alone in the room, the teacher's camera is the whole picture (the room's view is the camera gallery). */
const CAMERA: Region = { x: 0, y: 0, width: 1280, height: 720 };

/** Set to a directory to keep the recording (a person's check of picture and sound). */
const SHOTS = process.env['SHOTS'];

/** When the page saw each flash (capture time) and click (ms epoch). */
interface SourceTimes {
  flashes: number[];
  clicks: number[];
  captureTimes: boolean;
  offset: number;
}

let world: World;
let dir = '';
let av: AvFixture;
let page: Page;
let room = '';

/**
 * Starts timing, in the teacher's page, each flash of the camera (the frame's capture time) and each
 * click of the microphone (the moment its first sample reached the page's audio graph), in ms epoch.
 */
async function watchSource(p: Page): Promise<void> {
  await p.evaluate(async () => {
    const w = window as unknown as { __streams: MediaStream[]; __source: SourceTimes };
    const live = (kind: 'audio' | 'video') =>
      w.__streams
        .flatMap((s) => s.getTracks())
        .filter((t) => t.kind === kind && t.readyState === 'live')
        .at(-1);
    const [videoTrack, audioTrack] = [live('video'), live('audio')];
    if (!videoTrack || !audioTrack)
      throw new Error(
        `no live camera and microphone in the page: ${JSON.stringify(w.__streams.map((s) => s.getTracks().map((t) => `${t.kind}:${t.readyState}`)))}`,
      );
    const source: SourceTimes = { flashes: [], clicks: [], captureTimes: true, offset: -Infinity };
    w.__source = source;
    const epoch = (t: number) => performance.timeOrigin + t;

    const video = document.createElement('video');
    video.muted = true;
    video.srcObject = new MediaStream([videoTrack]);
    await video.play();
    const canvas = document.createElement('canvas');
    canvas.width = 32;
    canvas.height = 18;
    const g = canvas.getContext('2d', { willReadFrequently: true })!;
    let bright = false;
    const onFrame = (_now: number, meta: VideoFrameCallbackMetadata) => {
      g.drawImage(video, 0, 0, 32, 18);
      // Below the time code, above the bottom: the fixture's grey, or its white flash.
      const d = g.getImageData(0, 6, 32, 10).data;
      let sum = 0;
      for (let i = 0; i < d.length; i += 4) sum += d[i]!;
      const now = sum / (d.length / 4) > 150;
      if (now && !bright) {
        if (meta.captureTime === undefined) source.captureTimes = false;
        source.flashes.push(epoch(meta.captureTime ?? meta.expectedDisplayTime));
      }
      bright = now;
      video.requestVideoFrameCallback(onFrame);
    };
    video.requestVideoFrameCallback(onFrame);

    // The microphone's samples with their capture times (Chromium: microseconds; measured here on the
    // page's own clock, but not promised to be). The clocks are tied by the chunk that arrived
    // soonest after its capture: the largest (capture - arrival). The smallest, used before, tied
    // them by the slowest chunk and put every click up to 100 ms late (ADR 083).
    type AudioChunk = {
      timestamp: number;
      numberOfFrames: number;
      sampleRate: number;
      copyTo(d: Float32Array, o: { planeIndex: number; format: 'f32-planar' }): void;
      close(): void;
    };
    const Processor = (
      window as unknown as { MediaStreamTrackProcessor: new (o: { track: MediaStreamTrack }) => { readable: ReadableStream<AudioChunk> } }
    ).MediaStreamTrackProcessor;
    const reader = new Processor({ track: audioTrack.clone() }).readable.getReader();
    let quiet = 0;
    const rawClicks: number[] = [];
    void (async () => {
      for (;;) {
        const { value, done } = await reader.read();
        if (done || !value) return;
        const arrived = performance.now();
        const gap = value.timestamp / 1000 - arrived;
        source.offset = Math.max(source.offset, gap);
        const data = new Float32Array(value.numberOfFrames);
        value.copyTo(data, { planeIndex: 0, format: 'f32-planar' });
        for (let i = 0; i < data.length; i++) {
          if (Math.abs(data[i]!) > 0.3) {
            if (quiet > value.sampleRate / 10) rawClicks.push(value.timestamp / 1000 + (i * 1000) / value.sampleRate);
            quiet = 0;
          } else quiet++;
        }
        source.clicks = rawClicks.map((t) => epoch(t - source.offset));
        value.close();
      }
    })();
  });
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'banshu-rec-sync-'));
  av = await avFixtures();
  world = await startWorld({ realTime: true, jobs: true, env: { RECORDER_SLOTS: '1' }, chromiumArgs: av.chromiumArgs });
  const { context } = await world.person();
  // The streams the classroom gets from the camera and microphone, so the page can time the flashes
  // and clicks where they are made (the fake devices' own offset is not the recorder's drift).
  await context.addInitScript(() => {
    const devices = navigator.mediaDevices;
    const gum = devices.getUserMedia.bind(devices);
    const w = window as unknown as { __streams: MediaStream[] };
    w.__streams = [];
    devices.getUserMedia = async (c?: MediaStreamConstraints) => {
      const stream = await gum(c);
      w.__streams.push(stream);
      return stream;
    };
  });
  page = await context.newPage();
  await signIn(page, world.server);
  const me = await page.request.post('/api/queryUserInfoByToken', { data: {} });
  const userId = ((await me.json()) as { data: { userInfo: { userId: string } } }).data.userInfo.userId;
  // A paid class: free teachers cannot record (ADR 072).
  await world.server.banshu.platform.services.billingRepo.grant(userId, { vip_room_time: new Date(Date.now() + 86400_000) });
  const created = await page.request.post('/api/createAgoraRoom', { data: { roomType: 1, consumption: 'on' } });
  room = ((await created.json()) as { data: { roomInfo: { roomNumber: string } } }).data.roomInfo.roomNumber;
  await open(page, `/${room}`);
  await page.getByTestId('media-controls').and(page.locator('[data-status="live"]')).waitFor({ timeout: 60_000 });
}, 300_000);

afterAll(async () => {
  await world?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('a recording of a real browser', () => {
  it(`keeps the teacher's flashes and clicks within ${String(MAX_DRIFT_MS)} ms of each other`, async () => {
    const button = page.getByTestId('record-button');
    await expect.poll(() => button.getAttribute('data-record-state')).toBe('0');
    // The classroom opens the camera and the microphone once it is live.
    await page.waitForFunction(
      () => {
        const tracks = (window as unknown as { __streams: MediaStream[] }).__streams.flatMap((s) => s.getTracks());
        return ['audio', 'video'].every((kind) => tracks.some((t) => t.kind === kind && t.readyState === 'live'));
      },
      undefined,
      { timeout: 60_000 },
    );
    await watchSource(page);
    await button.click();
    await page.locator('[data-testid="record-button"][data-record-state="1"]').waitFor({ timeout: 30_000 });
    const started = Date.now();
    // The recording's length is the class's schedule, not a wait for a condition.
    await new Promise((r) => setTimeout(r, RECORD_MS - 1500));
    await button.click();
    const confirm = page.getByRole('dialog', { name: '结束录制？' }).getByRole('button', { name: '结束录制' });
    await confirm.waitFor();
    await new Promise((r) => setTimeout(r, Math.max(0, started + RECORD_MS - Date.now())));
    await confirm.click();
    await expect.poll(() => button.getAttribute('data-record-state'), { timeout: 10_000 }).toBe('0');

    const source = await page.evaluate(() => (window as unknown as { __source: SourceTimes }).__source);
    // The file's time 0 is the recording's first frame, which the recorder stamps on the task.
    const task = await world.server.banshu.platform.database.db
      .selectFrom('record_tasks')
      .select('started_at')
      .where('room_number', '=', room)
      .executeTakeFirstOrThrow();
    const fileZero = task.started_at!.getTime();
    expect(source.captureTimes, "Chromium gives the camera frames' capture times").toBe(true);
    let fileId = '';
    await expect
      .poll(
        async () => {
          const res = await page.request.post('/api/getRecordList', { data: { recordType: 2, pageSize: 10 } });
          const body = (await res.json()) as { data: { recordList: Array<{ fileId: string; fileSize: string; roomNumber: string }> } };
          fileId = body.data.recordList.find((r) => r.roomNumber === room && r.fileSize !== '')?.fileId ?? '';
          return fileId;
        },
        { timeout: 60_000, interval: 250 },
      )
      .not.toBe('');
    const res = await page.request.post('/api/getRecordFileUrl', { data: { fileId } });
    const { data } = (await res.json()) as { data: { fileUrl: string } };
    const got = await fetch(new URL(data.fileUrl, world.server.url));
    expect(got.status).toBe(200);
    const mp4 = path.join(dir, 'sync.mp4');
    await writeFile(mp4, new Uint8Array(await got.arrayBuffer()));

    if (SHOTS) await copyFile(mp4, path.join(SHOTS, 'recording-sync.mp4'));
    const drift = await measureDrift(mp4, CAMERA);
    // Each pair against the same event where it was made: the page's own click - flash there (the
    // fake camera's loop runs about 65 ms a cycle behind the fake microphone's), found by when the
    // click was made. What is left is what the way through the SFU and the recorder did. The two
    // loops start up to a few hundred ms apart (events are 2 s apart): pairs up to 500 ms.
    const made = pairEvents(
      source.flashes.map((t) => t / 1000),
      source.clicks.map((t) => t / 1000),
      500,
    ).pairs;
    const added: number[] = [];
    for (const p of drift.pairs) {
      const inFile = fileZero + p.clickSec * 1000;
      const src = made.find((s) => Math.abs(s.clickSec * 1000 - inFile) < 1000);
      if (src) added.push(p.driftMs - src.driftMs);
      console.info(
        `at ${p.flashSec.toFixed(2)} s in the file: click - flash ${p.driftMs.toFixed(0)} ms; made ${src ? src.driftMs.toFixed(0) : '?'} ms; added ${src ? (p.driftMs - src.driftMs).toFixed(0) : '?'} ms`,
      );
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
    console.info(
      `drift added by the recording: ${String(added.length)} pairs, median ${median(added).toFixed(1)} ms, spread ${Math.min(...added).toFixed(0)}..${Math.max(...added).toFixed(0)} ms; in the file alone: median ${median(drift.pairs.map((p) => p.driftMs)).toFixed(1)} ms; unpaired flashes ${JSON.stringify(drift.unpairedFlashes)}, clicks ${JSON.stringify(drift.unpairedClicks)}`,
    );
    // The fixture makes 7 events in each 16 s cycle: about 13 in 30 s. Each flash is one camera
    // frame, and a loaded machine drops frames on the way (the browser's encoder sheds frames
    // under load by design): a CI run saw 7 of 13, median -25.7 ms. The median needs enough pairs
    // to mean something, not all of them: at least 5 and 40 % of the events.
    const expected = Math.floor(((RECORD_MS / 1000) * av.events.length) / av.seconds);
    expect(added.length).toBeGreaterThanOrEqual(Math.max(5, Math.ceil(expected * 0.4)));
    expect(Math.abs(median(added))).toBeLessThanOrEqual(MAX_DRIFT_MS);
  }, 300_000);
});
