import { describe, expect, it } from 'vitest';
import { isVp8Keyframe, levelFromDbov, rembParts } from './rtp.ts';

describe('VP8 keyframe detection', () => {
  it('reads the payload header after the descriptor', () => {
    expect(isVp8Keyframe(Uint8Array.from([0x10, 0x00, 0x9d]))).toBe(true);
    expect(isVp8Keyframe(Uint8Array.from([0x10, 0x01, 0x9d]))).toBe(false);
    // Not the start of a partition, or not partition 0.
    expect(isVp8Keyframe(Uint8Array.from([0x00, 0x00]))).toBe(false);
    expect(isVp8Keyframe(Uint8Array.from([0x11, 0x00]))).toBe(false);
  });
  it('skips the extension bytes Chromium sends (15-bit picture id, TL0PICIDX, TID)', () => {
    // X=1, S=1 | I,L,T set | picture id with M bit (2 bytes) | TL0PICIDX | TID | payload header
    expect(isVp8Keyframe(Uint8Array.from([0x90, 0xe0, 0x80, 0x01, 0x05, 0x20, 0x00]))).toBe(true);
    expect(isVp8Keyframe(Uint8Array.from([0x90, 0xe0, 0x80, 0x01, 0x05, 0x20, 0x01]))).toBe(false);
    // One-byte picture id only.
    expect(isVp8Keyframe(Uint8Array.from([0x90, 0x80, 0x05, 0x00]))).toBe(true);
    expect(isVp8Keyframe(Uint8Array.from([0x90, 0x80, 0x05]))).toBe(false);
    expect(isVp8Keyframe(new Uint8Array())).toBe(false);
  });
});

describe('audio level and REMB encoding', () => {
  it('maps -dBov to 0-100', () => {
    expect(levelFromDbov(0)).toBe(100);
    expect(levelFromDbov(40)).toBe(50);
    expect(levelFromDbov(80)).toBe(0);
    expect(levelFromDbov(127)).toBe(0);
  });
  it('splits a bitrate into an 18-bit mantissa and an exponent', () => {
    for (const b of [64_000, 1_200_000, 5_000_000]) {
      const { brExp, brMantissa } = rembParts(b);
      expect(brMantissa).toBeLessThan(1 << 18);
      expect(brMantissa * 2 ** brExp).toBeLessThanOrEqual(b);
      expect(brMantissa * 2 ** brExp).toBeGreaterThan(b * 0.99);
    }
  });
});
