/**
 * The stop-to-MP4 join on real segments: two encoder runs made by ffmpeg with the recording's
 * settings (H.264 1280x720 veryfast, AAC 48 kHz, 4 s MPEG-TS segments), the second run's
 * timestamps starting again as after a recorder crash.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { joinSegments, moovBeforeMdat, probeMedia, scanSegment, MediaFileError } from './join.ts';

const exec = promisify(execFile);
const FRAME = 1 / 30;
const AAC_FRAME = 1024 / 48000;

let dir = '';
let runA: string[] = [];
let runB: string[] = [];

/** One encoder run of `seconds` cut into 4 s MPEG-TS segments, as the recorder's encoder writes them. */
async function encoderRun(name: string, seconds: number, pitch: number): Promise<string[]> {
  await exec('ffmpeg', [
    ...['-hide_banner', '-nostdin', '-v', 'error', '-y'],
    ...['-f', 'lavfi', '-i', 'testsrc2=size=1280x720:rate=30', '-f', 'lavfi', '-i', `sine=frequency=${String(pitch)}:sample_rate=48000`],
    ...['-t', String(seconds), '-c:v', 'libx264', '-preset', 'veryfast', '-b:v', '3M', '-maxrate', '3M', '-bufsize', '6M'],
    ...['-g', '60', '-keyint_min', '60', '-sc_threshold', '0', '-pix_fmt', 'yuv420p'],
    ...['-c:a', 'aac', '-b:a', '128k', '-ar', '48000', '-ac', '2'],
    ...['-f', 'segment', '-segment_time', '4', '-segment_format', 'mpegts', path.join(dir, `${name}-%03d.ts`)],
  ]);
  return Array.from({ length: Math.ceil(seconds / 4) }, (_, i) => path.join(dir, `${name}-${String(i).padStart(3, '0')}.ts`));
}

/** Decode timestamps and durations of one stream's packets ('v' or 'a'), in file order. */
async function packets(file: string, stream: 'v' | 'a'): Promise<Array<{ dts: number; duration: number }>> {
  const { stdout } = await exec(
    'ffprobe',
    ['-v', 'error', '-select_streams', stream, '-show_entries', 'packet=dts_time,duration_time', '-of', 'csv=p=0', file],
    { maxBuffer: 64 * 1024 * 1024 },
  );
  return stdout
    .trim()
    .split('\n')
    .map((line) => {
      const [dts, duration] = line.split(',').map(Number);
      return { dts: dts!, duration: duration! };
    });
}

/** The largest step between consecutive decode timestamps; NaN when they ever stand still or go back. */
function largestStep(list: Array<{ dts: number }>): number {
  let largest = 0;
  for (let i = 1; i < list.length; i++) {
    const step = list[i]!.dts - list[i - 1]!.dts;
    if (!(step > 0)) return NaN;
    largest = Math.max(largest, step);
  }
  return largest;
}

async function videoSeconds(file: string): Promise<number> {
  const { stdout } = await exec('ffprobe', [
    '-v',
    'error',
    '-select_streams',
    'v',
    '-show_entries',
    'stream=duration',
    '-of',
    'csv=p=0',
    file,
  ]);
  // MPEG-TS lists the stream twice (under its program and on its own).
  return Number(stdout.trim().split('\n')[0]);
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'banshu-join-'));
  [runA, runB] = await Promise.all([encoderRun('run-a', 8, 440), encoderRun('run-b', 8, 660)]);
}, 180_000);
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('joinSegments', () => {
  it('joins two encoder runs whose timestamps restart into one continuous fast-start MP4', { timeout: 60_000 }, async () => {
    const files = [...runA, ...runB];
    // The second run starts its clock again, as a resumed recording does.
    const spans = await Promise.all(files.map((f) => scanSegment(f)));
    expect(spans[2]!.startSec).toBeLessThan(spans[1]!.startSec);

    const out = path.join(dir, 'joined.mp4');
    const joined = await joinSegments(files, out);
    const partsSec = (await Promise.all(files.map(videoSeconds))).reduce((a, b) => a + b, 0);
    expect(partsSec).toBeCloseTo(16, 1);
    expect(Math.abs(joined.durationMs / 1000 - partsSec)).toBeLessThanOrEqual(0.1);

    const probe = await probeMedia(out);
    expect(probe).toMatchObject({ videoCodec: 'h264', width: 1280, height: 720, audioCodec: 'aac', sampleRate: 48000, channels: 2 });
    expect(probe.fps).toBeGreaterThan(29.8);
    expect(probe.fps).toBeLessThanOrEqual(30);
    expect(probe.moovFirst).toBe(true);
    expect(probe.bytes).toBe(joined.bytes);
    expect(Math.abs(probe.durationSec - partsSec)).toBeLessThanOrEqual(0.1);

    // Every frame and every audio frame is there once, in order, with no hole worth a frame.
    const video = await packets(out, 'v');
    const audio = await packets(out, 'a');
    expect(video).toHaveLength(16 * 30);
    expect(largestStep(video)).toBeLessThan(2 * FRAME);
    expect(largestStep(audio)).toBeLessThan(2 * AAC_FRAME);
    expect(audio.length * AAC_FRAME).toBeGreaterThan(partsSec - 0.1);
  });

  it('keeps one run exactly on its own timeline', { timeout: 60_000 }, async () => {
    const out = path.join(dir, 'one-run.mp4');
    const joined = await joinSegments(runA, out);
    expect(Math.abs(joined.durationMs - 8000)).toBeLessThanOrEqual(60);
    const video = await packets(out, 'v');
    expect(video).toHaveLength(8 * 30);
    // Inside one run the segments meet exactly: every step is one frame.
    expect(largestStep(video)).toBeCloseTo(FRAME, 3);
    expect(largestStep(await packets(out, 'a'))).toBeCloseTo(AAC_FRAME, 3);
  });

  it('keeps the media seconds up to the stop and cuts the rest (keepSec)', { timeout: 60_000 }, async () => {
    const out = path.join(dir, 'trimmed.mp4');
    const joined = await joinSegments(runA, out, { keepSec: 5.5 });
    expect(Math.abs(joined.durationMs - 5500)).toBeLessThanOrEqual(150); // cut at packets: a few AAC frames
    expect((await probeMedia(out)).moovFirst).toBe(true);
    expect((await packets(out, 'v')).length).toBeLessThanOrEqual(5.5 * 30 + 2);
    // A stop after the file's end keeps all of it (no cut).
    const all = await joinSegments(runA, path.join(dir, 'kept.mp4'), { keepSec: 60 });
    expect(Math.abs(all.durationMs - 8000)).toBeLessThanOrEqual(60);
  });

  it('joins a segment cut off by a killed encoder up to where it ends', { timeout: 60_000 }, async () => {
    // The crashed run's last segment stops mid-packet; the resumed run follows it.
    const cut = path.join(dir, 'cut.ts');
    await writeFile(cut, (await readFile(runA[1]!)).subarray(0, 1_000_001));
    const files = [runA[0]!, cut, ...runB];
    const partsSec = (await Promise.all(files.map(videoSeconds))).reduce((a, b) => a + b, 0);
    expect(partsSec).toBeLessThan(15);
    const out = path.join(dir, 'after-crash.mp4');
    const joined = await joinSegments(files, out);
    expect(Math.abs(joined.durationMs / 1000 - partsSec)).toBeLessThanOrEqual(0.1);
    // In order throughout; at the cut only what the killed encoder never wrote is missing: a frame
    // held back for reordering, and the audio it had not yet interleaved (up to a quarter second).
    expect(largestStep(await packets(out, 'v'))).toBeLessThan(4 * FRAME);
    expect(largestStep(await packets(out, 'a'))).toBeLessThan(0.3);
  });

  it('names a missing segment and leaves no output', async () => {
    const out = path.join(dir, 'missing.mp4');
    const gone = path.join(dir, 'run-a-009.ts');
    const err = await joinSegments([runA[0]!, gone, runA[1]!], out).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MediaFileError);
    expect((err as MediaFileError).message).toMatch(/segment .*run-a-009\.ts is missing/);
    expect((err as MediaFileError).file).toBe(gone);
    expect(existsSync(out)).toBe(false);
  });

  it('names a corrupt segment: random bytes, a cut-off header, audio only', async () => {
    const garbage = path.join(dir, 'garbage.ts');
    await writeFile(garbage, Buffer.from(Array.from({ length: 200_000 }, (_, i) => (i * 7919) % 251)));
    await expect(joinSegments([runA[0]!, garbage], path.join(dir, 'x.mp4'))).rejects.toThrow(/garbage\.ts is not MPEG-TS/);

    const stub = path.join(dir, 'stub.ts');
    await writeFile(stub, (await readFile(runA[0]!)).subarray(0, 300));
    await expect(joinSegments([stub], path.join(dir, 'y.mp4'))).rejects.toThrow(/stub\.ts is empty or cut short/);

    const audioOnly = path.join(dir, 'audio-only.ts');
    await exec('ffmpeg', ['-v', 'error', '-y', '-i', runA[0]!, '-map', '0:a', '-c', 'copy', '-f', 'mpegts', audioOnly]);
    await expect(joinSegments([runA[0]!, audioOnly], path.join(dir, 'z.mp4'))).rejects.toThrow(/audio-only\.ts has no video/);
    await expect(joinSegments([], path.join(dir, 'none.mp4'))).rejects.toThrow(/no segments/);
  });

  it('names a segment whose middle is noise, and leaves no output', { timeout: 60_000 }, async () => {
    // It passes the header check (it starts and ends as a segment) but ffmpeg loses sync inside it.
    const broken = path.join(dir, 'broken.ts');
    const whole = await readFile(runB[0]!);
    await writeFile(broken, Buffer.concat([whole.subarray(0, 188 * 2000), Buffer.alloc(188 * 20_000, 0x5a), whole.subarray(-188 * 2000)]));
    const out = path.join(dir, 'broken.mp4');
    const err = await joinSegments([runA[0]!, broken, runA[1]!], out).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MediaFileError);
    expect((err as MediaFileError).file).toBe(broken);
    expect((err as MediaFileError).message).toMatch(/segment .*broken\.ts could not be read: .*sync/);
    expect(existsSync(out)).toBe(false);
    expect(existsSync(`${out}.partial`)).toBe(false);
  });
});

describe('probeMedia', () => {
  it('tells a fast-start MP4 from one with its index at the end', { timeout: 30_000 }, async () => {
    const plain = path.join(dir, 'plain.mp4');
    await exec('ffmpeg', ['-v', 'error', '-y', '-i', runA[0]!, '-c', 'copy', '-bsf:a', 'aac_adtstoasc', plain]);
    expect(await moovBeforeMdat(plain)).toBe(false);
    const fast = path.join(dir, 'fast.mp4');
    await exec('ffmpeg', ['-v', 'error', '-y', '-i', plain, '-c', 'copy', '-movflags', '+faststart', fast]);
    expect(await moovBeforeMdat(fast)).toBe(true);
    const probe = await probeMedia(plain);
    expect(probe).toMatchObject({ videoCodec: 'h264', width: 1280, height: 720, moovFirst: false });
    expect(probe.durationSec).toBeGreaterThan(3.9);
  });

  it('refuses what is not media', async () => {
    const text = path.join(dir, 'note.txt');
    await writeFile(text, 'not a video');
    await expect(probeMedia(text)).rejects.toBeInstanceOf(MediaFileError);
    await expect(probeMedia(path.join(dir, 'absent.mp4'))).rejects.toThrow(/does not exist/);
    // A copy under another name is still the same media.
    const copy = path.join(dir, 'copy.ts');
    await copyFile(runA[0]!, copy);
    expect((await probeMedia(copy)).moovFirst).toBe(false);
  });
});
