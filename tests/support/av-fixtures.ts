/**
 * A fake camera and a fake microphone for Chromium, made by ffmpeg, that make a recording
 * measurable (tests/support/av-analysis.ts reads them back):
 * - video (y4m, 640x360, 15 fps): dark grey, with a white full-frame flash of one frame at each
 *   event, and along the top a time code: a row of 8 black/white blocks giving the frame's index in
 *   the file (most significant bit on the left), so a frame of a recording maps back to source time;
 * - audio (wav, 48 kHz mono): a quiet 300 Hz tone (the microphone is never silent) and a 10 ms
 *   1 kHz click at each event, starting on the flash frame's first instant.
 * Events come every 2 s from 1 s on, except that the last beat of each cycle is left out, so the
 * 4 s gap marks where the file loops (Chromium loops both files).
 *
 *   const av = await avFixtures();
 *   chromium.launch({ args: [...CHROMIUM_ARGS, ...av.chromiumArgs] });
 *
 * Files are cached in the temp dir under a key made of their parameters, so test files share them.
 */
import { execFile } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const exec = promisify(execFile);

/** Bumped when the drawing changes, so stale cached files are not reused. */
const FIXTURE_VERSION = 1;

/** The time code: 8 blocks across the full width, in the top sixth of the picture. */
export const TIMECODE_BITS = 8;
export const TIMECODE_HEIGHT_FRACTION = 1 / 6;

export interface AvFixtureOptions {
  width?: number;
  height?: number;
  fps?: number;
  /** One cycle; the files loop. At most 256 frames (the time code's range), a whole number of seconds. */
  seconds?: number;
  sampleRate?: number;
  /** Draw the flashes (default true); off for a second participant whose flashes would confuse the count. */
  flashes?: boolean;
  /** Put the clicks in the audio (default true). */
  clicks?: boolean;
  /** The quiet background tone in Hz (default 300; null for none, a silent microphone apart from the clicks). */
  toneHz?: number | null;
}

export interface AvFixture {
  /** y4m for --use-file-for-fake-video-capture. */
  video: string;
  /** wav for --use-file-for-fake-audio-capture. */
  audio: string;
  width: number;
  height: number;
  fps: number;
  seconds: number;
  sampleRate: number;
  /** Seconds into a cycle of each flash and click (flash frame index = event x fps). */
  events: number[];
  /** Chromium flags that use these files as the fake camera and microphone. */
  chromiumArgs: string[];
}

/** Every 2 s from 1 s, leaving out the last beat of the cycle (1, 3, ..., seconds - 3). */
export function fixtureEvents(seconds: number): number[] {
  const events: number[] = [];
  for (let t = 1; t <= seconds - 3; t += 2) events.push(t);
  return events;
}

/** Source time (s into the cycle) of a frame index read from the time code. */
export function sourceSeconds(frame: number, fps = 15): number {
  return frame / fps;
}

export async function avFixtures(options: AvFixtureOptions = {}): Promise<AvFixture> {
  const p = {
    width: options.width ?? 640,
    height: options.height ?? 360,
    fps: options.fps ?? 15,
    seconds: options.seconds ?? 16,
    sampleRate: options.sampleRate ?? 48000,
    flashes: options.flashes ?? true,
    clicks: options.clicks ?? true,
    toneHz: options.toneHz === undefined ? 300 : options.toneHz,
  };
  if (!Number.isInteger(p.seconds) || p.seconds < 4) throw new Error('seconds: a whole number of at least 4');
  if (p.seconds * p.fps > 2 ** TIMECODE_BITS) throw new Error(`${String(p.seconds * p.fps)} frames do not fit an 8-bit time code`);
  if (p.width % (2 * TIMECODE_BITS) || p.height % 12) throw new Error('width: a multiple of 16; height: a multiple of 12');

  const key = createHash('sha256')
    .update(JSON.stringify({ v: FIXTURE_VERSION, ...p }))
    .digest('hex')
    .slice(0, 16);
  const root = path.join(tmpdir(), 'banshu-av-fixtures');
  const dir = path.join(root, key);
  const events = fixtureEvents(p.seconds);
  const fixture: AvFixture = {
    video: path.join(dir, 'camera.y4m'),
    audio: path.join(dir, 'microphone.wav'),
    width: p.width,
    height: p.height,
    fps: p.fps,
    seconds: p.seconds,
    sampleRate: p.sampleRate,
    events,
    chromiumArgs: [],
  };
  fixture.chromiumArgs = [
    '--use-fake-device-for-media-stream',
    `--use-file-for-fake-video-capture=${fixture.video}`,
    `--use-file-for-fake-audio-capture=${fixture.audio}`,
  ];
  if (existsSync(fixture.video) && existsSync(fixture.audio)) return fixture;

  // Made beside the cache entry and renamed into place: test files in parallel never see half a file.
  await mkdir(root, { recursive: true });
  const work = path.join(root, `${key}.tmp-${randomUUID()}`);
  await mkdir(work);
  try {
    await exec('ffmpeg', [
      ...['-hide_banner', '-nostdin', '-v', 'error', '-y'],
      ...['-f', 'lavfi', '-i', `color=c=0x404040:s=${String(p.width)}x${String(p.height)}:r=${String(p.fps)}:d=${String(p.seconds)}`],
      ...['-vf', videoFilter(p.width, p.height, p.fps, p.flashes ? events : []), '-pix_fmt', 'yuv420p', '-f', 'yuv4mpegpipe'],
      path.join(work, 'camera.y4m'),
    ]);
    await exec('ffmpeg', [
      ...['-hide_banner', '-nostdin', '-v', 'error', '-y'],
      ...[
        '-f',
        'lavfi',
        '-i',
        `aevalsrc=exprs='${audioExpression(p.clicks ? events : [], p.toneHz)}':s=${String(p.sampleRate)}:d=${String(p.seconds)}`,
      ],
      ...['-ac', '1', '-c:a', 'pcm_s16le', path.join(work, 'microphone.wav')],
    ]);
    try {
      await rename(work, dir);
    } catch (err) {
      // Another process made the same files meanwhile: theirs are as good as ours.
      if (!(existsSync(fixture.video) && existsSync(fixture.audio))) throw err;
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  return fixture;
}

/** drawbox filters: the flash frames, then the time code row on top of everything (flashes included). */
function videoFilter(width: number, height: number, fps: number, events: number[]): string {
  const filters: string[] = [];
  if (events.length) {
    const frames = events.map((t) => `eq(n,${String(Math.round(t * fps))})`).join('+');
    filters.push(`drawbox=x=0:y=0:w=iw:h=ih:color=white:t=fill:enable='${frames}'`);
  }
  const rowHeight = height * TIMECODE_HEIGHT_FRACTION;
  const blockWidth = width / TIMECODE_BITS;
  filters.push(`drawbox=x=0:y=0:w=iw:h=${String(rowHeight)}:color=black:t=fill`);
  for (let bit = 0; bit < TIMECODE_BITS; bit++) {
    const weight = 2 ** (TIMECODE_BITS - 1 - bit);
    filters.push(
      `drawbox=x=${String(bit * blockWidth)}:y=0:w=${String(blockWidth)}:h=${String(rowHeight)}:color=white:t=fill:` +
        `enable='eq(mod(floor(n/${String(weight)}),2),1)'`,
    );
  }
  return filters.join(',');
}

/** aevalsrc: the tone at -34 dBFS plus the 1 kHz clicks at -3 dBFS, each 10 ms from its event. */
function audioExpression(events: number[], toneHz: number | null): string {
  const parts: string[] = [];
  if (toneHz) parts.push(`0.02*sin(2*PI*${String(toneHz)}*t)`);
  if (events.length) {
    const gates = events.map((e) => `gte(t,${String(e)})*lt(t,${String(e + 0.01)})`).join('+');
    parts.push(`0.7*sin(2*PI*1000*t)*(${gates})`);
  }
  return parts.length ? parts.join('+') : '0';
}
