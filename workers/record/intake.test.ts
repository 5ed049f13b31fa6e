import { describe, expect, it } from 'vitest';
import type { PublishedTrack } from '#core/contracts/media-signaling.ts';
import { AudioIn, VideoIn } from './intake.ts';
import { LAYOUT } from './types.ts';

describe('AudioIn', () => {
  const track: PublishedTrack = { trackId: 'a', userId: 'u', source: 'mic', kind: 'audio', paused: false, layers: [] };
  /** `ms` of 48 kHz mono s16le, every sample `value`. */
  const pcm = (ms: number, value: number) => {
    const b = Buffer.alloc(((48_000 * ms) / 1000) * 2);
    for (let i = 0; i < b.length; i += 2) b.writeInt16LE(value, i);
    return b;
  };

  it('keeps a second that arrived at once when the clock catches up with all of it (an event loop stall)', () => {
    const a = new AudioIn(track);
    // The decoder's output while the loop was stalled: 1 s, delivered in one go.
    a.onData(pcm(1000, 100));
    expect(a.queued).toBe(48_000);
    // The clock then pulls the whole second for the frames it owes.
    const acc = new Int32Array(48_000);
    expect(a.mixInto(acc, 48_000)).toBe(true);
    expect(acc.every((v) => v === 100)).toBe(true);
    expect(a.queued).toBe(0);
  });

  it('drops what lies beyond 120 ms past a pull at once, oldest first, down to the 30 ms slack', () => {
    const a = new AudioIn(track);
    a.onData(pcm(500, 1)); // old
    a.onData(pcm(500, 2)); // newest
    const acc = new Int32Array(960); // a 20 ms pull
    a.mixInto(acc, 960, 0);
    expect(acc.every((v) => v === 2)).toBe(true);
    expect(a.queued).toBe(1_440);
    expect(a.trimmed).toBe(48_000 - 960 - 1_440);
  });

  it('primes 20 ms once; a pull that finds too little leaves silence and does not wait for a prime again', () => {
    const a = new AudioIn(track);
    a.onData(pcm(10, 5));
    expect(a.mixInto(new Int32Array(960), 960, 0)).toBe(false); // 10 ms: not primed
    a.onData(pcm(10, 5));
    const first = new Int32Array(1_600); // a 33 ms pull finds 20 ms
    expect(a.mixInto(first, 1_600, 33)).toBe(true);
    expect(first.subarray(0, 960).every((v) => v === 5)).toBe(true);
    expect(first.subarray(960).every((v) => v === 0)).toBe(true);
    // One packet later it plays at once: the shortfall did not make it wait for 20 ms again.
    a.onData(pcm(10, 7));
    const next = new Int32Array(1_600);
    expect(a.mixInto(next, 1_600, 66)).toBe(true);
    expect(next.subarray(0, 480).every((v) => v === 7)).toBe(true);
  });

  it('drops, once a second, what stayed queued beyond the 30 ms slack through every pull', () => {
    const a = new AudioIn(track);
    a.onData(pcm(80, 3)); // 80 ms ahead of the pulls, steadily
    let now = 0;
    for (let k = 0; k < 30; k++) {
      a.onData(pcm(20, 3));
      a.mixInto(new Int32Array(960), 960, now);
      now += 20;
    }
    // 30 pulls span 580 ms: nothing is trimmed before a second has passed.
    expect(a.queued).toBe(3_840);
    for (let k = 0; k < 25; k++) {
      a.onData(pcm(20, 3));
      a.mixInto(new Int32Array(960), 960, now);
      now += 20;
    }
    // After the second: the 80 ms ahead is down to the slack.
    expect(a.queued).toBeLessThanOrEqual(1_440 + 960);
    expect(a.queued).toBeGreaterThanOrEqual(1_440);
    expect(a.trimmed).toBe(3_840 - 1_440);
  });
});

describe("VideoIn reads the decoder's YUV4MPEG2", () => {
  const camera: PublishedTrack = { trackId: 'v', userId: 'u', source: 'camera', kind: 'video', paused: false, layers: [] };
  const { w, h } = LAYOUT.camera;
  const size = (w * h * 3) / 2;
  const header = Buffer.from(`YUV4MPEG2 W${String(w)} H${String(h)} F15:1 Ip A1:1 C420jpeg XYSCSS=420JPEG\n`);
  const picture = (value: number) => Buffer.concat([Buffer.from('FRAME\n'), Buffer.alloc(size, value)]);

  it('takes each picture whole, however the pipe cuts the stream', () => {
    const v = new VideoIn(camera);
    const stream = Buffer.concat([header, picture(1), picture(2), picture(3)]);
    // Cuts inside the header, inside a FRAME line and inside a picture.
    for (const [from, to] of [
      [0, 7],
      [7, header.length + 3],
      [header.length + 3, header.length + 1000],
      [header.length + 1000, stream.length - 5],
      [stream.length - 5, stream.length],
    ] as const)
      v.onData(stream.subarray(from, to));
    expect(v.frames).toBe(3);
    expect(v.frame?.length).toBe(size);
    expect(v.frame?.every((b) => b === 3)).toBe(true);
    expect(v.pictureAt(performance.now())).toBe(v.frame);
  });

  it("starts again at a new decoder's header, and refuses a stream of another size", () => {
    const v = new VideoIn(camera);
    v.onData(Buffer.concat([header, picture(1)]).subarray(0, header.length + 100)); // a decoder cut short
    v.resetPartial();
    v.onData(Buffer.concat([header, picture(9)]));
    expect(v.frames).toBe(1);
    expect(v.frame?.every((b) => b === 9)).toBe(true);
    v.resetPartial();
    expect(() => v.onData(Buffer.from('YUV4MPEG2 W320 H180 F15:1\n'))).toThrow(/is not 640x360/);
  });
});
