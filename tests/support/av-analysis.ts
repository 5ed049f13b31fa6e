/**
 * Reads a recording back against the fake devices of tests/support/av-fixtures.ts: where the
 * flashes of a camera tile and the clicks of the audio fall, how far apart they are (audio/video
 * drift), which source frame a moment of the recording shows (the time code), a frame as PNG, and
 * whether the audio is silent. Everything is measured by ffmpeg/ffprobe decoding the real file.
 *
 * Times are seconds of the file's own timeline (its first packet is 0), the same for video and
 * audio: the audio is decoded with its start padded, so sample i is at i / rate.
 */
import { run } from '../../workers/convert/process.ts';
import { TIMECODE_BITS, TIMECODE_HEIGHT_FRACTION, sourceSeconds } from './av-fixtures.ts';

/** A rectangle of the recorded frame, in pixels. */
export interface Region {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Where the recording puts the creator's camera (RECORDING-CONTRACT: the first tile, 320x180). */
export const CREATOR_TILE: Region = { x: 960, y: 0, width: 320, height: 180 };
/** The bottom of a tile is the scene's name strip (24 of 180 px): left out when looking for flashes. */
const NAME_STRIP_FRACTION = 24 / 180;

const TIMEOUT_MS = 5 * 60_000;

async function ffmpeg(args: string[], maxStdout = 1024 * 1024): Promise<{ stdout: Buffer; stderr: string }> {
  const r = await run('ffmpeg', ['-hide_banner', '-nostdin', '-nostats', ...args], { timeoutMs: TIMEOUT_MS, maxStdout });
  if (r.code !== 0 || r.killed)
    throw new Error(`ffmpeg ${args.join(' ')} failed (${String(r.code ?? r.killed)}): ${r.stderr.trim().slice(-800)}`);
  return { stdout: r.stdout, stderr: r.stderr };
}

function crop(region: Region, top = 0, bottom = 1): string {
  const y = region.y + Math.round(region.height * top);
  const h = Math.round(region.height * (bottom - top));
  return `crop=${String(region.width)}:${String(h)}:${String(region.x)}:${String(y)}`;
}

/** Mean luma of the region's picture (between its time code row and its name strip), per frame. */
export async function regionLuma(file: string, region: Region = CREATOR_TILE): Promise<Array<{ t: number; luma: number }>> {
  const vf = `${crop(region, TIMECODE_HEIGHT_FRACTION, 1 - NAME_STRIP_FRACTION)},signalstats,metadata=mode=print:key=lavfi.signalstats.YAVG:file=-`;
  const { stdout } = await ffmpeg(['-v', 'error', '-i', file, '-map', '0:v:0', '-vf', vf, '-f', 'null', '-'], 64 * 1024 * 1024);
  const frames: Array<{ t: number; luma: number }> = [];
  let t = NaN;
  for (const line of stdout.toString('utf8').split('\n')) {
    const time = /pts_time:([-\d.e]+)/.exec(line);
    if (time) t = Number(time[1]);
    const value = /lavfi\.signalstats\.YAVG=([\d.]+)/.exec(line);
    if (value && Number.isFinite(t)) frames.push({ t, luma: Number(value[1]) });
  }
  if (frames.length === 0) throw new Error(`no video frames measured in ${file}`);
  return frames;
}

/**
 * When the region flashes: the first frame of each run of frames far brighter than the region's
 * usual (median) brightness. Flashes closer than `minGapSec` to the previous one are the same.
 */
export function flashOnsets(frames: Array<{ t: number; luma: number }>, minGapSec = 0.5): number[] {
  const sorted = frames.map((f) => f.luma).sort((a, b) => a - b);
  const usual = sorted[Math.floor(sorted.length / 2)] ?? 0;
  const brightest = sorted.at(-1) ?? 0;
  // No flash at all when nothing is much brighter than usual (a white flash is ~170 levels above grey).
  if (brightest - usual < 60) return [];
  const threshold = usual + (brightest - usual) / 2;
  const onsets: number[] = [];
  let above = false;
  for (const f of frames) {
    const now = f.luma > threshold;
    if (now && !above && (onsets.length === 0 || f.t - onsets.at(-1)! >= minGapSec)) onsets.push(f.t);
    above = now;
  }
  return onsets;
}

export async function flashTimes(file: string, region: Region = CREATOR_TILE): Promise<number[]> {
  return flashOnsets(await regionLuma(file, region));
}

/** The first audio stream as mono 16-bit samples, padded at the start so sample i is at i / rate. */
export async function decodeAudio(file: string, rate = 48000): Promise<Int16Array> {
  const { stdout } = await ffmpeg(
    [
      '-v',
      'error',
      '-i',
      file,
      '-map',
      '0:a:0',
      '-af',
      'aresample=async=1:first_pts=0',
      '-ac',
      '1',
      '-ar',
      String(rate),
      '-f',
      's16le',
      '-',
    ],
    1024 * 1024 * 1024,
  );
  return new Int16Array(stdout.buffer, stdout.byteOffset, Math.floor(stdout.length / 2));
}

/**
 * Click onsets: the first sample louder than the threshold after at least `quietSec` below it. The
 * threshold sits between the usual level (the median 1 ms peak, the background tone) and the
 * loudest peak, so codec noise and the tone do not count and a click is timed at its first edge.
 */
export function clickOnsets(samples: Int16Array, rate = 48000, quietSec = 0.3): number[] {
  const win = Math.max(1, Math.round(rate / 1000));
  const peaks: number[] = [];
  for (let i = 0; i < samples.length; i += win) {
    let peak = 0;
    for (let j = i; j < Math.min(samples.length, i + win); j++) peak = Math.max(peak, Math.abs(samples[j]!));
    peaks.push(peak);
  }
  const sorted = [...peaks].sort((a, b) => a - b);
  const usual = sorted[Math.floor(sorted.length / 2)] ?? 0;
  const loudest = sorted.at(-1) ?? 0;
  // No click when nothing stands well above the usual level (a click is ~30 dB above the tone).
  if (loudest < 1000 || loudest < usual * 4) return [];
  const threshold = Math.max(usual * 3, loudest * 0.25);
  const onsets: number[] = [];
  let lastLoud = -Infinity;
  for (let i = 0; i < samples.length; i++) {
    if (Math.abs(samples[i]!) <= threshold) continue;
    if (i - lastLoud > quietSec * rate) onsets.push(i / rate);
    lastLoud = i;
  }
  return onsets;
}

export async function clickTimes(file: string): Promise<number[]> {
  return clickOnsets(await decodeAudio(file));
}

export interface DriftPair {
  flashSec: number;
  clickSec: number;
  /** click - flash in ms: positive when the sound comes late. */
  driftMs: number;
}

export interface DriftReport {
  pairs: DriftPair[];
  /** The largest |drift| (NaN with no pair). */
  maxAbsDriftMs: number;
  meanDriftMs: number;
  unpairedFlashes: number[];
  unpairedClicks: number[];
}

/** Pairs each flash with the nearest click within `maxPairMs` (nearest pairs first, each event used once). */
export function pairEvents(flashes: number[], clicks: number[], maxPairMs = 500): DriftReport {
  const candidates: Array<{ f: number; c: number; d: number }> = [];
  flashes.forEach((flash, f) =>
    clicks.forEach((click, c) => {
      const d = (click - flash) * 1000;
      if (Math.abs(d) <= maxPairMs) candidates.push({ f, c, d });
    }),
  );
  candidates.sort((a, b) => Math.abs(a.d) - Math.abs(b.d));
  const usedF = new Set<number>();
  const usedC = new Set<number>();
  const pairs: DriftPair[] = [];
  for (const { f, c, d } of candidates) {
    if (usedF.has(f) || usedC.has(c)) continue;
    usedF.add(f);
    usedC.add(c);
    pairs.push({ flashSec: flashes[f]!, clickSec: clicks[c]!, driftMs: d });
  }
  pairs.sort((a, b) => a.flashSec - b.flashSec);
  const drifts = pairs.map((p) => p.driftMs);
  return {
    pairs,
    maxAbsDriftMs: drifts.length ? Math.max(...drifts.map(Math.abs)) : NaN,
    meanDriftMs: drifts.length ? drifts.reduce((a, b) => a + b, 0) / drifts.length : NaN,
    unpairedFlashes: flashes.filter((_, i) => !usedF.has(i)),
    unpairedClicks: clicks.filter((_, i) => !usedC.has(i)),
  };
}

/** Flashes of the region against clicks of the audio: the audio/video drift of a recording. */
export async function measureDrift(file: string, region: Region = CREATOR_TILE, maxPairMs = 500): Promise<DriftReport> {
  const [flashes, clicks] = await Promise.all([flashTimes(file, region), clickTimes(file)]);
  return pairEvents(flashes, clicks, maxPairMs);
}

/** One frame, cropped to `region`, as 8-bit grey pixels (the first frame at or after `tSec`). */
export async function grayFrame(file: string, tSec: number, region: Region): Promise<Buffer> {
  const { stdout } = await ffmpeg(
    [
      '-v',
      'error',
      '-ss',
      tSec.toFixed(3),
      '-i',
      file,
      '-map',
      '0:v:0',
      '-frames:v',
      '1',
      '-vf',
      crop(region),
      '-pix_fmt',
      'gray',
      '-f',
      'rawvideo',
      '-',
    ],
    16 * 1024 * 1024,
  );
  if (stdout.length < region.width * region.height) throw new Error(`no frame at ${String(tSec)} s in ${file}`);
  return stdout;
}

/**
 * The time code of a camera picture (grey pixels, `width` x `height`, the whole camera tile): the
 * frame index, or null when a block is neither clearly black nor clearly white.
 */
export function decodeTimecode(gray: Buffer, width: number, height: number): number | null {
  const rowHeight = height * TIMECODE_HEIGHT_FRACTION;
  const blockWidth = width / TIMECODE_BITS;
  let value = 0;
  for (let bit = 0; bit < TIMECODE_BITS; bit++) {
    // The middle half of the block in both directions: edges blur when the tile is scaled and encoded.
    let sum = 0;
    let n = 0;
    for (let y = Math.floor(rowHeight * 0.25); y < Math.ceil(rowHeight * 0.75); y++) {
      for (let x = Math.floor(blockWidth * (bit + 0.25)); x < Math.ceil(blockWidth * (bit + 0.75)); x++) {
        sum += gray[y * width + x]!;
        n++;
      }
    }
    const mean = sum / n;
    if (mean > 80 && mean < 170) return null;
    value = value * 2 + (mean >= 170 ? 1 : 0);
  }
  return value;
}

/** Which source frame of the fake camera the recording shows at `tSec` (null when unreadable). */
export async function readTimecode(
  file: string,
  tSec: number,
  region: Region = CREATOR_TILE,
  fps = 15,
): Promise<{ frame: number; sourceSec: number } | null> {
  const frame = decodeTimecode(await grayFrame(file, tSec, region), region.width, region.height);
  return frame === null ? null : { frame, sourceSec: sourceSeconds(frame, fps) };
}

/** The whole frame at `tSec` (the first at or after it) as PNG. */
export async function frameAt(file: string, tSec: number): Promise<Buffer> {
  const { stdout } = await ffmpeg(
    ['-v', 'error', '-ss', tSec.toFixed(3), '-i', file, '-map', '0:v:0', '-frames:v', '1', '-c:v', 'png', '-f', 'image2pipe', '-'],
    64 * 1024 * 1024,
  );
  if (stdout.length === 0) throw new Error(`no frame at ${String(tSec)} s in ${file}`);
  return stdout;
}

export interface Volume {
  meanDb: number;
  maxDb: number;
  /** Nothing louder than -50 dBFS. */
  silent: boolean;
}

/** ffmpeg's volumedetect over the first audio stream (optionally from `fromSec` for `durationSec`). */
export async function measureVolume(file: string, window: { fromSec?: number; durationSec?: number } = {}): Promise<Volume> {
  const args = ['-v', 'info'];
  if (window.fromSec !== undefined) args.push('-ss', window.fromSec.toFixed(3));
  args.push('-i', file);
  if (window.durationSec !== undefined) args.push('-t', window.durationSec.toFixed(3));
  args.push('-map', '0:a:0', '-af', 'volumedetect', '-f', 'null', '-');
  const { stderr } = await ffmpeg(args);
  const mean = /mean_volume:\s*(-?[\d.]+|-inf) dB/.exec(stderr)?.[1];
  const max = /max_volume:\s*(-?[\d.]+|-inf) dB/.exec(stderr)?.[1];
  if (mean === undefined || max === undefined) throw new Error(`volumedetect gave no figures for ${file}`);
  const db = (v: string) => (v === '-inf' ? -Infinity : Number(v));
  return { meanDb: db(mean), maxDb: db(max), silent: db(max) < -50 };
}
