import { describe, expect, it } from 'vitest';
import { vp8KeyframeStart } from './intake.ts';

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
