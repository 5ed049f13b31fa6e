/**
 * The recorder's video decoder fed whole VP8 frames (ADR 082): real libvpx VP8 from ffmpeg, cut
 * into RTP packets as a browser sends them, put together by the intake's assembler and decoded by
 * the recorder's ffmpeg. Each picture must come out before the next frame goes in (no frame held
 * back), the first keyframe must be decoded (the old RTP input's probing swallowed it), and a lost
 * packet must hold the pictures back until the next keyframe instead of smearing them.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { until } from '#tests/support/until.ts';
import { Decoder } from '../../workers/record/decoder.ts';
import { VideoIn } from '../../workers/record/intake.ts';
import { LAYOUT } from '../../workers/record/types.ts';
import { Vp8Assembler, type Vp8Packet } from '../../workers/record/vp8.ts';

const run = promisify(execFile);
let dir: string;
/** The test stream's frames (IVF payloads) and whether each is a keyframe. */
let frames: Array<{ data: Buffer; key: boolean }>;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'banshu-vp8-'));
  const file = path.join(dir, 'src.ivf');
  // 3 s at 15 fps, a keyframe every 15 frames: keyframes at 0, 15, 30.
  await run('ffmpeg', [
    ...['-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc2=size=640x360:rate=15', '-t', '3'],
    ...['-c:v', 'libvpx', '-g', '15', '-keyint_min', '15', '-deadline', 'realtime', '-b:v', '600k', '-y', file],
  ]);
  const ivf = await readFile(file);
  frames = [];
  for (let at = 32; at < ivf.length;) {
    const n = ivf.readUInt32LE(at);
    const data = ivf.subarray(at + 12, at + 12 + n);
    frames.push({ data, key: (data[0]! & 0x01) === 0 });
    at += 12 + n;
  }
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A frame cut into RTP payloads of at most 1000 bytes as a browser sends it (15-bit picture id). */
function packetize(data: Buffer, seq: number, timestamp: number, pictureId: number): Vp8Packet[] {
  const out: Vp8Packet[] = [];
  for (let at = 0; at < data.length; at += 1000) {
    const head = Buffer.from([at === 0 ? 0x90 : 0x80, 0x80, 0x80 | (pictureId >> 8), pictureId & 0xff]);
    out.push({
      sequenceNumber: (seq + out.length) & 0xffff,
      timestamp,
      marker: at + 1000 >= data.length,
      payload: Buffer.concat([head, data.subarray(at, at + 1000)]),
    });
  }
  return out;
}

it('decodes each frame before the next is written, the first keyframe included, and waits for a keyframe after a loss', async () => {
  expect(frames.length).toBe(45);
  expect(frames.map((f, i) => (f.key ? i : -1)).filter((i) => i >= 0)).toEqual([0, 15, 30]);
  const video = new VideoIn({ trackId: 'v', userId: 'u', source: 'camera', kind: 'video', paused: false, layers: [] });
  let exited = '';
  const decoder = Decoder.start({
    width: video.width,
    height: video.height,
    onData: (c) => video.onData(c),
    onExit: (code, tail) => (exited = `${String(code)} ${tail}`),
  });
  let losses = 0;
  const assembler = new Vp8Assembler(() => losses++);
  const pictureAfter: Array<number | null> = [];
  let seq = 65000;
  try {
    for (const [i, f] of frames.entries()) {
      const packets = packetize(f.data, seq, (i * 6000) >>> 0, i);
      seq += packets.length;
      const before = video.frames;
      for (const [k, p] of packets.entries()) {
        // Frame 5 loses its second packet (or its only one) for good.
        if (i === 5 && k === Math.min(1, packets.length - 1)) continue;
        const frame = assembler.push(p);
        if (frame) decoder.writeFrame(frame.data, frame.timestamp);
      }
      const expectPicture = i < 5 || i >= 15;
      if (expectPicture) {
        const t0 = performance.now();
        await until(`the picture of frame ${String(i)}`, () => video.frames > before, 5000);
        pictureAfter.push(performance.now() - t0);
      } else {
        // Nothing may come out for a frame held back: give the decoder the time a picture takes.
        await new Promise((r) => setTimeout(r, 60));
        expect(video.frames).toBe(before);
        pictureAfter.push(null);
      }
    }
  } finally {
    decoder.stop();
  }
  expect(exited).toBe('');
  expect(losses).toBe(1);
  expect(assembler.heldForKey).toBe(9); // frames 6-14
  expect(video.frames).toBe(5 + 30);
  // The picture is the test pattern at the tile's size, not a grey or black field.
  expect(video.frame!.length).toBe((LAYOUT.camera.w * LAYOUT.camera.h * 3) / 2);
  const luma = video.frame!.subarray(0, LAYOUT.camera.w * LAYOUT.camera.h);
  const distinct = new Set(luma).size;
  expect(distinct).toBeGreaterThan(50);
  const waits = pictureAfter.filter((w): w is number => w !== null).sort((a, b) => a - b);
  console.info(
    `picture after its frame was written: median ${waits[waits.length >> 1]!.toFixed(1)} ms, max ${waits.at(-1)!.toFixed(1)} ms`,
  );
});
