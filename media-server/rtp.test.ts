import { describe, expect, it } from 'vitest';
import { isVp8Keyframe, levelFromDbov, rembParts, vp8Ids, Vp8Continuity } from './rtp.ts';

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

describe('VP8 picture id continuity across a layer switch', () => {
  // X=1, S=1 | I and L set | 15-bit picture id | TL0PICIDX | payload header byte
  const packet = (pic: number, tl0: number, key = false) =>
    Uint8Array.from([0x90, 0xc0, 0x80 | (pic >> 8), pic & 0xff, tl0, key ? 0x00 : 0x01]);

  it('reads the ids', () => {
    expect(vp8Ids(packet(0x1234, 7))).toMatchObject({ pic: 0x1234, picBits: 15, picAt: 2, tl0At: 4 });
    expect(vp8Ids(Uint8Array.from([0x90, 0x80, 0x05, 0x00]))).toMatchObject({ pic: 5, picBits: 7, tl0At: -1 });
    expect(vp8Ids(Uint8Array.from([0x10, 0x00]))).toBeNull();
  });

  it('passes the first layer through untouched and numbers the next layer on from the last picture sent', () => {
    const c = new Vp8Continuity();
    const first = packet(5000, 200);
    expect(c.apply(first)).toBe(first);
    c.apply(packet(5001, 201));
    // The low layer numbers its pictures far below: after the switch they continue at 5002 / 202.
    const key = packet(120, 9, true);
    c.switchTo(key);
    const out = c.apply(key);
    expect(out).not.toBe(key);
    expect(key[2]).toBe(0x80); // the shared packet is not changed
    expect(vp8Ids(out)!.pic).toBe(5002);
    expect(out[4]).toBe(202);
    expect(isVp8Keyframe(out)).toBe(true);
    expect(vp8Ids(c.apply(packet(121, 9)))!.pic).toBe(5003);
  });

  it('wraps the 15-bit picture id and the 8-bit TL0PICIDX', () => {
    const c = new Vp8Continuity();
    c.apply(packet(0x7fff, 255));
    const key = packet(10, 3, true);
    c.switchTo(key);
    const out = c.apply(key);
    expect(vp8Ids(out)!.pic).toBe(0);
    expect(out[4]).toBe(0);
  });
});
