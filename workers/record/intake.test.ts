import { describe, expect, it } from 'vitest';
import type { PublishedTrack } from '#core/contracts/media-signaling.ts';
import { AudioIn } from './intake.ts';
import { vp8KeyframeStart } from './vp8.ts';

describe('vp8KeyframeStart', () => {
  it('finds the first packet of a keyframe, with or without the descriptor extension', () => {
    // S=1, PID 0, no extension; payload header P=0 (key) or 1 (inter).
    expect(vp8KeyframeStart(Uint8Array.from([0x10, 0x00, 0x9d]))).toBe(true);
    expect(vp8KeyframeStart(Uint8Array.from([0x10, 0x01, 0x9d]))).toBe(false);
    // X=1 with a 15-bit picture id (I, M), TL0PICIDX (L) and TID (T), as Chrome sends.
    expect(vp8KeyframeStart(Uint8Array.from([0x90, 0xe0, 0x81, 0x23, 0x07, 0x40, 0x50]))).toBe(true);
    expect(vp8KeyframeStart(Uint8Array.from([0x90, 0xe0, 0x81, 0x23, 0x07, 0x40, 0x51]))).toBe(false);
    // A 7-bit picture id.
    expect(vp8KeyframeStart(Uint8Array.from([0x90, 0x80, 0x12, 0x00]))).toBe(true);
  });

  it('refuses a packet that does not start partition 0', () => {
    expect(vp8KeyframeStart(Uint8Array.from([0x00, 0x00]))).toBe(false); // S=0: a continuation
    expect(vp8KeyframeStart(Uint8Array.from([0x11, 0x00]))).toBe(false); // PID 1
    expect(vp8KeyframeStart(Uint8Array.from([0x90]))).toBe(false); // cut short
  });
});

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

  it('drops what lies beyond 120 ms past a pull, oldest first, so the sound never lags', () => {
    const a = new AudioIn(track);
    a.onData(pcm(500, 1)); // old
    a.onData(pcm(500, 2)); // newest
    const acc = new Int32Array(960); // a 20 ms pull
    a.mixInto(acc, 960, 0);
    // Down to the pull plus a 30 ms slack: the newest sound is what is heard.
    expect(acc.every((v) => v === 2)).toBe(true);
    expect(a.queued).toBe(1440);
  });

  it('after running dry it plays what comes at once, with silence only for what was missing', () => {
    const a = new AudioIn(track);
    const acc = new Int32Array(1600); // a 33 ms pull (30 fps)
    a.onData(pcm(10, 5));
    expect(a.mixInto(acc, 1600, 0)).toBe(false); // not primed: less than a packet
    a.onData(pcm(20, 5));
    expect(a.mixInto(acc, 1600, 33)).toBe(true);
    expect(acc.filter((v) => v === 5)).toHaveLength(1440);
    expect(acc.subarray(1440).every((v) => v === 0)).toBe(true);
    // One packet arrives: the next pull takes it, no waiting for a prime again.
    acc.fill(0);
    a.onData(pcm(20, 7));
    expect(a.mixInto(acc, 1600, 66)).toBe(true);
    expect(acc.subarray(0, 960).every((v) => v === 7)).toBe(true);
  });

  it('trims the sound left waiting after every pull of a second down to a 30 ms slack', () => {
    const a = new AudioIn(track);
    const acc = new Int32Array(960);
    a.onData(pcm(100, 3)); // a burst: 100 ms, then a packet per pull
    let t = 0;
    a.mixInto(acc, 960, t);
    for (; t <= 1000; t += 20) {
      a.onData(pcm(20, 3));
      a.mixInto(acc, 960, t + 20);
    }
    // 80 ms stayed queued all second (the burst's lead): all but 30 ms of it went.
    expect(a.trimmed).toBe(2400);
    expect(a.queued).toBe(1440);
  });
});
