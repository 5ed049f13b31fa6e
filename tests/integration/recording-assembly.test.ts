/**
 * The recording's MP4 built as the class goes (workers/record/assembly.ts, ADR 106), on real
 * MPEG-TS segments from x264 + AAC (two encoder runs: the second's clock starts again, as after a
 * recorder's restart) and the disk object store with its multipart rules:
 * - the listed object is one fragmented MP4: ftyp, moov (the real duration), sidx over every
 *   fragment, then the fragments with continuous decode times and sequence numbers; parts were
 *   sent before the stop; ffprobe sees H.264 + AAC, the duration, moov first, and decodes it all;
 * - Chromium plays it from a plain page: the duration, and a seek to 80 % lands with a frame;
 * - the cut (`keepSec`) shortens the last segment; a cut into what was sent, a segment missing
 *   from the assembly or a broken segment make `finish` refuse, and nothing is left in the store;
 * - picture and sound stay together as in the join (a flash and a click at the same instants,
 *   across two encoder runs and a cut): the video's composition offset once placed the sound
 *   46 ms late (ADR 106).
 */
import { execFile } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '#core/platform/logger.ts';
import { measureDrift, type DriftReport } from '#tests/support/av-analysis.ts';
import { avFixtures } from '#tests/support/av-fixtures.ts';
import { DiskObjectStore, MULTIPART_MIN_PART } from '#core/platform/objects.ts';
import { Assembly } from '../../workers/record/assembly.ts';
import { joinSegments, probeMedia } from '../../workers/record/join.ts';
import { readBoxes, readFragmented } from '../../workers/record/mp4-boxes.ts';

const run = promisify(execFile);
const KEY = 'records/u1/t1/recording.mp4';
let dir = '';
/** Two runs of 8 s each, 4 s segments: seq 0-1 from the first, 2-3 from the second. */
let segments: Array<{ seq: number; file: string }> = [];

/** A run of the recorder's encoder (x264 veryfast, keyframe every 2 s, AAC 48 kHz, 4 s TS segments), not at real time. */
async function encode(out: string, seconds: number, firstSeq: number, tone: number): Promise<void> {
  await mkdir(out, { recursive: true });
  await run('ffmpeg', [
    ...['-hide_banner', '-nostdin', '-v', 'error', '-y'],
    // Noise makes the video cost its bitrate, so 16 s are enough bytes for parts of 5 MiB.
    ...['-f', 'lavfi', '-i', 'testsrc2=size=640x360:rate=30,noise=alls=30:allf=t'],
    ...['-f', 'lavfi', '-i', `sine=frequency=${String(tone)}:sample_rate=48000`],
    ...['-t', String(seconds), '-map', '0:v', '-map', '1:a'],
    ...['-c:v', 'libx264', '-preset', 'veryfast', '-b:v', '8000k', '-maxrate', '8000k', '-bufsize', '16000k'],
    ...['-g', '60', '-keyint_min', '60', '-sc_threshold', '0', '-pix_fmt', 'yuv420p'],
    ...['-c:a', 'aac', '-b:a', '128k', '-ar', '48000', '-ac', '2'],
    ...['-f', 'segment', '-segment_time', '4', '-segment_format', 'mpegts', '-segment_start_number', String(firstSeq)],
    path.join(out, 'seg-%06d.ts'),
  ]);
}

function store(name: string): DiskObjectStore {
  return new DiskObjectStore(path.join(dir, name), 'secret', () => 'http://127.0.0.1');
}

function assembly(objects: DiskObjectStore, work: string, o: { holdSec?: number; mode?: 'adopt' | 'parts' } = {}): Assembly {
  return new Assembly({
    objects,
    key: KEY,
    dir: work,
    logger: createLogger('silent'),
    partBytes: MULTIPART_MIN_PART,
    holdSec: o.holdSec ?? 4,
    mode: o.mode ?? 'parts',
  });
}

async function workDir(name: string): Promise<string> {
  const d = path.join(dir, name);
  await mkdir(d, { recursive: true });
  return d;
}

interface SidxRef {
  size: number;
  duration: number;
}

function readSidx(buf: Buffer): { end: number; timescale: number; refs: SidxRef[] } {
  const sidx = readBoxes(buf).find((b) => b.type === 'sidx')!;
  const at = sidx.start + 8;
  const timescale = buf.readUInt32BE(at + 8);
  const count = buf.readUInt16BE(at + 30);
  const refs: SidxRef[] = [];
  for (let i = 0; i < count; i++)
    refs.push({ size: buf.readUInt32BE(at + 32 + i * 12) & 0x7fffffff, duration: buf.readUInt32BE(at + 36 + i * 12) });
  return { end: sidx.start + sidx.size, timescale, refs };
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'assembly-it-'));
  await encode(path.join(dir, 'run1'), 8, 0, 440);
  await encode(path.join(dir, 'run2'), 8, 2, 880);
  const all = path.join(dir, 'segments');
  await mkdir(all);
  for (const run of ['run1', 'run2']) {
    for (const f of await readdir(path.join(dir, run))) await copyFile(path.join(dir, run, f), path.join(all, f));
  }
  segments = (await readdir(all)).sort().map((f) => ({ seq: Number(/(\d+)/.exec(f)![1]), file: path.join(all, f) }));
}, 120_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the recording assembly', () => {
  let whole = '';

  it('builds one fragmented MP4 with its index first, sending parts before the stop', async () => {
    expect(segments.map((s) => s.seq)).toEqual([0, 1, 2, 3]);
    const objects = store('whole');
    const work = await workDir('work-whole');
    const a = assembly(objects, work);
    for (const s of segments) a.feed(s);
    await a.settled();
    expect(a.whole).toBe(true);
    // Part 1 waits for the stop; parts of 5 MiB after it went while the "class" ran; the last 4 s stay local.
    const sentBefore = a.partsSent;
    expect(sentBefore).toBeGreaterThanOrEqual(1);
    const r = await a.finish([0, 1, 2, 3], null);
    await a.close();
    expect(r).toMatchObject({ segments: 4, partsBefore: sentBefore });
    expect(r.bytesAtStop).toBe(r.bytes - sentBefore * MULTIPART_MIN_PART);
    whole = path.join(dir, 'whole.mp4');
    expect(await objects.download(KEY, whole)).toMatchObject({ size: r.bytes, contentType: 'video/mp4' });
    // The assembly's own files are gone; no upload is left open.
    expect((await readdir(work)).filter((f) => f.startsWith('assembly'))).toEqual([]);
    expect(await readdir(path.join(dir, 'whole', 'multipart')).catch(() => [])).toEqual([]);

    const buf = await readFile(whole);
    const top = readBoxes(buf).map((b) => b.type);
    // The index sits in the room kept for it at the file's start: ftyp, moov, free (the rest of that room), sidx.
    expect(top.slice(0, 5)).toEqual(['ftyp', 'moov', 'free', 'sidx', 'moof']);
    expect(top.filter((t) => t === 'moof').length).toBe(top.filter((t) => t === 'mdat').length);

    const { init, fragments } = readFragmented(buf);
    // Two fragments (a keyframe every 2 s) per 4 s segment, numbered 1..n.
    expect(fragments.length).toBe(8);
    expect(fragments.map((f) => buf.readUInt32BE(f.mfhdAt))).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    // Decode times run on without a hole inside a run (the fragments of separate ffmpeg runs, one per
    // segment); where the second encoder run begins, its clock restarting, the gap is under a quarter second.
    for (const track of init.tracks) {
      const runs = fragments.map((f) => f.runs.find((x) => x.trackId === track.id)!);
      for (let i = 1; i < runs.length; i++) {
        const gap = (runs[i]!.decodeTime - (runs[i - 1]!.decodeTime + runs[i - 1]!.duration)) / track.timescale;
        if (i === 4) {
          expect(gap, `${track.handler} at the new run`).toBeGreaterThanOrEqual(0);
          expect(gap, `${track.handler} at the new run`).toBeLessThan(0.25);
        } else {
          expect(gap, `${track.handler} fragment ${String(i)}`).toBe(0);
        }
      }
    }
    // The sidx lists every fragment, its bytes and its time.
    const sidx = readSidx(buf);
    expect(sidx.refs.map((x) => x.size)).toEqual(fragments.map((f) => f.end - f.start));
    expect(sidx.end + sidx.refs.reduce((n, x) => n + x.size, 0)).toBe(buf.length);
    const video = init.tracks.find((t) => t.handler === 'vide')!;
    const lastVideo = fragments.at(-1)!.runs.find((x) => x.trackId === video.id)!;
    expect(sidx.timescale).toBe(video.timescale);
    expect(
      Math.abs(
        sidx.refs.reduce((n, x) => n + x.duration, 0) / video.timescale - (lastVideo.decodeTime + lastVideo.duration) / video.timescale,
      ),
    ).toBeLessThan(0.1);

    const p = await probeMedia(whole);
    expect(p).toMatchObject({ videoCodec: 'h264', width: 640, height: 360, audioCodec: 'aac', sampleRate: 48000, moovFirst: true });
    expect(Math.abs(p.durationSec - 16)).toBeLessThan(0.5);
    expect(Math.abs(r.durationMs / 1000 - 16)).toBeLessThan(0.5);
    // Every frame decodes, and there are 16 s of them.
    const decoded = await run('ffprobe', [
      '-v',
      'error',
      '-count_frames',
      '-select_streams',
      'v',
      '-show_entries',
      'stream=nb_read_frames',
      '-of',
      'csv=p=0',
      whole,
    ]);
    expect(Number(decoded.stdout.trim())).toBe(480);
  });

  it('plays in Chromium from a plain page: the whole duration, and a seek to 80 % shows a frame there', async () => {
    expect(whole).not.toBe('');
    const size = (await stat(whole)).size;
    // A file server with ranges, as the store's signed links answer.
    const server: Server = createServer((req, res) => {
      if (req.url === '/') {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<!doctype html><video id="v" src="/r.mp4" muted preload="auto"></video>');
        return;
      }
      const m = /bytes=(\d+)-(\d*)/.exec(req.headers.range ?? '');
      const start = m ? Number(m[1]) : 0;
      const end = m?.[2] ? Math.min(Number(m[2]), size - 1) : size - 1;
      res.writeHead(m ? 206 : 200, {
        'content-type': 'video/mp4',
        'accept-ranges': 'bytes',
        'content-length': String(end - start + 1),
        ...(m ? { 'content-range': `bytes ${String(start)}-${String(end)}/${String(size)}` } : {}),
      });
      createReadStream(whole, { start, end }).pipe(res);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
    try {
      const page = await browser.newPage();
      await page.goto(`http://127.0.0.1:${String((server.address() as AddressInfo).port)}/`);
      await page.waitForFunction(() => {
        const v = document.querySelector('video')!;
        return v.readyState >= 1 && v.duration > 0;
      });
      const duration = await page.evaluate(() => document.querySelector('video')!.duration);
      expect(Math.abs(duration - 16)).toBeLessThan(0.5);
      const seeked = await page.evaluate(
        (to) =>
          new Promise<{ at: number; ready: number; width: number }>((resolve) => {
            const v = document.querySelector('video')!;
            v.addEventListener('seeked', () => resolve({ at: v.currentTime, ready: v.readyState, width: v.videoWidth }), { once: true });
            v.currentTime = to;
          }),
        duration * 0.8,
      );
      expect(Math.abs(seeked.at - duration * 0.8)).toBeLessThan(0.5);
      expect(seeked.width).toBe(640);
      // A frame is there: the element has the current picture (HAVE_CURRENT_DATA or more).
      await page.waitForFunction(() => document.querySelector('video')!.readyState >= 2);
      const error = await page.evaluate(() => document.querySelector('video')!.error?.message ?? null);
      expect(error).toBeNull();
    } finally {
      await browser.close();
      server.close();
    }
  });

  it('cuts at keepSec: the last segment remuxed shorter, later ones dropped', async () => {
    const objects = store('cut');
    const a = assembly(objects, await workDir('work-cut'), { holdSec: 9 });
    for (const s of segments) a.feed(s);
    const r = await a.finish([0, 1, 2, 3], 10.5);
    await a.close();
    expect(Math.abs(r.durationMs / 1000 - 10.5)).toBeLessThan(0.2);
    const file = path.join(dir, 'cut.mp4');
    await objects.download(KEY, file);
    const p = await probeMedia(file);
    expect(p.moovFirst).toBe(true);
    expect(Math.abs(p.durationSec - 10.5)).toBeLessThan(0.5);
    const buf = await readFile(file);
    const { fragments } = readFragmented(buf);
    expect(readSidx(buf).refs.length).toBe(fragments.length);
    expect(fragments.map((f) => buf.readUInt32BE(f.mfhdAt))).toEqual(fragments.map((_, i) => i + 1));
  });

  it('on a store on this disk, the finished file becomes the object by a rename: nothing is sent or copied', async () => {
    const objects = store('adopt');
    const work = await workDir('work-adopt');
    // No mode given: a store with adoptFile is adopted into.
    const a = new Assembly({ objects, key: KEY, dir: work, logger: createLogger('silent'), partBytes: MULTIPART_MIN_PART, holdSec: 4 });
    for (const s of segments) a.feed(s);
    await a.settled();
    expect(a.partsSent).toBe(0);
    const r = await a.finish([0, 1, 2, 3], null);
    await a.close();
    expect(r).toMatchObject({ segments: 4, partsBefore: 0 });
    expect(r.bytesAtStop).toBeLessThan(300 * 1024);
    expect(await readdir(work)).toEqual([]);
    const file = path.join(dir, 'adopted.mp4');
    expect(await objects.download(KEY, file)).toEqual({ size: r.bytes, contentType: 'video/mp4' });
    // The same file as the one sent in parts.
    expect((await readFile(file)).equals(await readFile(whole))).toBe(true);
  });

  it('refuses, leaving nothing in the store, what it cannot make whole', async () => {
    // A cut into bytes already sent.
    const sentObjects = store('sent');
    const sent = assembly(sentObjects, await workDir('work-sent'));
    for (const s of segments) sent.feed(s);
    await sent.settled();
    expect(sent.partsSent).toBeGreaterThanOrEqual(1);
    await expect(sent.finish([0, 1, 2, 3], 2)).rejects.toThrow(/already sent/);
    await sent.close();
    expect(await sentObjects.head(KEY)).toBeNull();
    expect(await readdir(path.join(dir, 'sent', 'multipart'))).toEqual([]);

    // The recording has a segment the assembly never got (made by another process).
    const missing = assembly(store('missing'), await workDir('work-missing'));
    for (const s of segments.slice(1)) missing.feed(s);
    await expect(missing.finish([0, 1, 2, 3], null)).rejects.toThrow(/holds segments 1\.\.3/);
    await missing.close();

    // A segment that is not MPEG-TS stops the assembly (the stop joins instead).
    const bad = path.join(dir, 'bad.ts');
    await writeFile(bad, Buffer.alloc(100_000, 0x47));
    const broken = assembly(store('broken'), await workDir('work-broken'));
    broken.feed(segments[0]!);
    broken.feed({ seq: 1, file: bad });
    broken.feed(segments[2]!);
    await broken.settled();
    expect(broken.whole).toBe(false);
    await expect(broken.finish([0, 1, 2], null)).rejects.toThrow();
    await broken.close();
  });
});

describe('picture and sound in the assembled MP4', () => {
  /** The fixture's camera and microphone: a one-frame flash and a 10 ms click at the same instants, every 2 s. */
  const FRAME = { x: 0, y: 0, width: 320, height: 180 };
  let files: string[] = [];
  let join: DriftReport;

  /** Two encoder runs of the fixture (as before and after a recorder's restart), 4 s segments, seq 0.. in order. */
  beforeAll(async () => {
    const av = await avFixtures({ width: 320, height: 180, fps: 15, seconds: 16 });
    const out = path.join(dir, 'sync');
    await mkdir(out);
    for (const [i, first] of [0, 3].entries()) {
      await run('ffmpeg', [
        ...['-hide_banner', '-nostdin', '-v', 'error', '-y', '-i', av.video, '-i', av.audio],
        ...['-t', '12', '-map', '0:v', '-map', '1:a', '-vf', 'fps=30'],
        ...['-c:v', 'libx264', '-preset', 'veryfast', '-pix_fmt', 'yuv420p', '-b:v', '800k'],
        ...['-g', '60', '-keyint_min', '60', '-sc_threshold', '0'],
        ...['-c:a', 'aac', '-b:a', '128k', '-ar', '48000', '-ac', '2'],
        ...['-f', 'segment', '-segment_time', '4', '-segment_format', 'mpegts', '-segment_start_number', String(first)],
        path.join(out, `seg-${String(i)}-%06d.ts`),
      ]);
    }
    files = (await readdir(out)).sort().map((f) => path.join(out, f));
    const joined = path.join(dir, 'sync-joined.mp4');
    await joinSegments(files, joined);
    join = await measureDrift(joined, FRAME);
  }, 120_000);

  async function assembled(name: string, keepSec: number | null): Promise<DriftReport> {
    const objects = store(name);
    const a = assembly(objects, await workDir(`work-${name}`), { holdSec: 60 });
    files.forEach((file, seq) => a.feed({ seq, file }));
    await a.finish(
      files.map((_, i) => i),
      keepSec,
    );
    await a.close();
    const file = path.join(dir, `${name}.mp4`);
    await objects.download(KEY, file);
    return measureDrift(file, FRAME);
  }

  it('pairs every flash with its click within one frame, as the join does, across two encoder runs', async () => {
    // The reference: the old join of the same segments keeps every pair together.
    expect(join.pairs.length).toBeGreaterThanOrEqual(10);
    expect(join.maxAbsDriftMs).toBeLessThanOrEqual(34);
    const r = await assembled('sync-whole', null);
    expect(r.pairs.length).toBe(join.pairs.length);
    expect(r.unpairedFlashes).toEqual([]);
    expect(r.unpairedClicks).toEqual([]);
    expect(r.maxAbsDriftMs).toBeLessThanOrEqual(34);
    expect(Math.abs(r.meanDriftMs - join.meanDriftMs)).toBeLessThan(5);
    // The flashes sit at the same instants of the recording as in the join.
    r.pairs.forEach((p, i) => expect(Math.abs(p.flashSec - join.pairs[i]!.flashSec)).toBeLessThan(0.04));
  });

  it('keeps them together through a cut inside a segment', async () => {
    const r = await assembled('sync-cut', 17);
    expect(r.pairs.length).toBe(join.pairs.filter((p) => p.flashSec < 17).length);
    expect(r.maxAbsDriftMs).toBeLessThanOrEqual(34);
    expect(Math.abs(r.meanDriftMs - join.meanDriftMs)).toBeLessThan(5);
  });
});
