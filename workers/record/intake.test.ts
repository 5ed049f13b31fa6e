import { describe, expect, it } from 'vitest';
import type { PublishedTrack } from '#core/contracts/media-signaling.ts';
import { AudioIn, vp8KeyframeStart } from './intake.ts';

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
    a.mixInto(acc, 960);
    // Down to the pull plus the 50 ms prime: the newest sound is what is heard.
    expect(acc.every((v) => v === 2)).toBe(true);
    expect(a.queued).toBe(2_400);
  });
});
