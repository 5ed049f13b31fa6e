/**
 * The recording analysis proven on files with a known answer: the fake camera and microphone
 * (tests/support/av-fixtures.ts) laid out by ffmpeg as the recorder lays out the creator's tile
 * (320x180 at x 960, y 0 of a 1280x720 frame, with a name strip), encoded as the recorder encodes
 * (x264 veryfast 3 Mbit/s, AAC 48 kHz), with the audio moved by a known offset.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  clickOnsets,
  decodeTimecode,
  flashOnsets,
  frameAt,
  measureDrift,
  measureVolume,
  pairEvents,
  readTimecode,
  CREATOR_TILE,
} from '#tests/support/av-analysis.ts';
import { avFixtures, fixtureEvents, type AvFixture } from '#tests/support/av-fixtures.ts';

const exec = promisify(execFile);
const SECONDS = 20; // longer than the 16 s cycle: the loop is in it too

let dir = '';
let av: AvFixture;

/**
 * A 1280x720 30 fps recording of the fixtures, the camera in the creator's tile, its audio
 * `audioOffsetSec` late (negative: early) against the picture.
 */
async function recording(name: string, audioOffsetSec: number, audio: 'fixture' | 'silence' = 'fixture'): Promise<string> {
  const out = path.join(dir, `${name}.mp4`);
  const video = ['-stream_loop', '-1', '-i', av.video];
  const sound =
    audio === 'silence'
      ? ['-f', 'lavfi', '-i', 'anullsrc=r=48000:cl=stereo']
      : ['-itsoffset', audioOffsetSec.toFixed(3), '-stream_loop', '-1', '-i', av.audio];
  const { x, y, width, height } = CREATOR_TILE;
  const graph = [
    `color=c=0x202020:s=1280x720:r=30[bg]`,
    `[0:v]scale=${String(width)}:${String(height)}[cam]`,
    `[bg][cam]overlay=${String(x)}:${String(y)}:shortest=1,` +
      `drawbox=x=${String(x)}:y=${String(y + height - 24)}:w=${String(width)}:h=24:color=0x303850:t=fill,format=yuv420p[v]`,
  ].join(';');
  await exec('ffmpeg', [
    ...['-hide_banner', '-nostdin', '-v', 'error', '-y', ...video, ...sound],
    ...['-filter_complex', graph, '-map', '[v]', '-map', '1:a', '-t', String(SECONDS)],
    ...['-c:v', 'libx264', '-preset', 'veryfast', '-b:v', '3M', '-g', '60', '-r', '30'],
    ...['-c:a', 'aac', '-b:a', '128k', '-ar', '48000', '-ac', '2', '-movflags', '+faststart', out],
  ]);
  return out;
}

let aligned = '';
let late = '';
let early = '';
let silent = '';

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'banshu-av-'));
  av = await avFixtures();
  [aligned, late, early, silent] = await Promise.all([
    recording('aligned', 0),
    recording('late', 0.12),
    recording('early', -0.08),
    recording('silent', 0, 'silence'),
  ]);
}, 240_000);
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Flash instants of the recording: the fixture's events, and again after the loop. */
function expectedEvents(): number[] {
  const cycle = fixtureEvents(av.seconds);
  return [...cycle, ...cycle.map((t) => t + av.seconds)].filter((t) => t < SECONDS);
}

describe('audio/video drift', () => {
  it('finds every flash and click of an aligned recording, with no drift', async () => {
    const report = await measureDrift(aligned);
    expect(report.pairs.map((p) => Math.round(p.flashSec))).toEqual(expectedEvents());
    for (const p of report.pairs) expect(Math.abs(p.flashSec - Math.round(p.flashSec))).toBeLessThan(0.04);
    expect(report.unpairedFlashes).toEqual([]);
    expect(report.unpairedClicks).toEqual([]);
    expect(report.maxAbsDriftMs).toBeLessThanOrEqual(10);
  });

  it('measures audio 120 ms late as +120 ms', async () => {
    const report = await measureDrift(late);
    expect(report.pairs).toHaveLength(expectedEvents().length);
    for (const p of report.pairs) expect(Math.abs(p.driftMs - 120)).toBeLessThanOrEqual(10);
    expect(Math.abs(report.meanDriftMs - 120)).toBeLessThanOrEqual(10);
  });

  it('measures audio 80 ms early as -80 ms', async () => {
    const report = await measureDrift(early);
    // The first click would come before the file starts; the rest pair up.
    expect(report.pairs.length).toBeGreaterThanOrEqual(expectedEvents().length - 1);
    for (const p of report.pairs) expect(Math.abs(p.driftMs + 80)).toBeLessThanOrEqual(10);
  });

  it('pairs nearest events and leaves the rest unpaired', () => {
    const r = pairEvents([1, 3, 5, 9], [1.02, 3.3, 4.99, 7], 200);
    expect(r.pairs.map((p) => [p.flashSec, Math.round(p.driftMs)])).toEqual([
      [1, 20],
      [5, -10],
    ]);
    expect(r.unpairedFlashes).toEqual([3, 9]);
    expect(r.unpairedClicks).toEqual([3.3, 7]);
    expect(r.maxAbsDriftMs).toBeCloseTo(20, 6);
  });

  it('finds no flash in a steady picture and no click in a steady tone', () => {
    expect(flashOnsets([0, 1, 2, 3].map((t) => ({ t, luma: 64 + t })))).toEqual([]);
    const tone = Int16Array.from({ length: 48000 }, (_, i) => Math.round(600 * Math.sin((2 * Math.PI * 300 * i) / 48000)));
    expect(clickOnsets(tone)).toEqual([]);
    tone.fill(20000, 24000, 24480);
    expect(clickOnsets(tone)).toEqual([0.5]);
  });
});

describe('time code', () => {
  it('maps moments of the recording back to source frames', async () => {
    // The fixture starts with the file, so output time t shows source frame floor(t * 15) (mod the cycle).
    for (const t of [0.5, 2.2, 7.03, 15.9, 17.5]) {
      const code = await readTimecode(aligned, t);
      expect(code, `time code at ${String(t)} s`).not.toBeNull();
      const expected = (t % av.seconds) * av.fps;
      expect(Math.abs(code!.frame - expected)).toBeLessThanOrEqual(1);
      expect(Math.abs(code!.sourceSec - (t % av.seconds))).toBeLessThanOrEqual(1 / av.fps);
    }
  });

  it('reads nothing where there is no time code', () => {
    const grey = Buffer.alloc(320 * 180, 110);
    expect(decodeTimecode(grey, 320, 180)).toBeNull();
    const allWhite = Buffer.alloc(320 * 180, 235);
    expect(decodeTimecode(allWhite, 320, 180)).toBe(255);
  });
});

describe('frames and sound', () => {
  it('extracts a frame as PNG, showing the flash at a flash instant', async () => {
    const png = await frameAt(aligned, 3.0);
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
    const meta = await sharp(png).metadata();
    expect([meta.width, meta.height]).toEqual([1280, 720]);
    // The tile's picture, below its time code (sharp's stats() reads its input, so crop to a buffer first).
    const tile = async (buf: Buffer) => {
      const { data } = await sharp(buf)
        .extract({ left: 980, top: 60, width: 280, height: 60 })
        .greyscale()
        .raw()
        .toBuffer({ resolveWithObject: true });
      return data.reduce((a, b) => a + b, 0) / data.length;
    };
    expect(await tile(png)).toBeGreaterThan(200);
    expect(await tile(await frameAt(aligned, 3.5))).toBeLessThan(100);
  });

  it('tells a silent recording from one with sound', async () => {
    const quiet = await measureVolume(silent);
    expect(quiet.silent).toBe(true);
    const loud = await measureVolume(aligned);
    expect(loud.silent).toBe(false);
    expect(loud.maxDb).toBeGreaterThan(-10);
    // Between clicks only the quiet tone is left (about -34 dBFS).
    const between = await measureVolume(aligned, { fromSec: 1.5, durationSec: 1 });
    expect(between.maxDb).toBeLessThan(-25);
    expect(between.silent).toBe(false);
  });
});
