import { describe, expect, it } from 'vitest';
import { ivfFrame, ivfHeader, GAP_WAIT_MS, Vp8Assembler, vp8PayloadStart, type Vp8Packet } from './vp8.ts';

/**
 * A frame of `n` packets from `seq`: the descriptor (S bit on the first; a 7-bit picture id) and
 * one payload byte each, the first of which says keyframe (P bit 0) or not.
 */
function frame(seq: number, ts: number, n: number, key: boolean, tag: number): Vp8Packet[] {
  return Array.from({ length: n }, (_, i) => ({
    sequenceNumber: (seq + i) & 0xffff,
    timestamp: ts,
    marker: i === n - 1,
    payload: Buffer.from([i === 0 ? 0x90 : 0x80, 0x80, 0x05, i === 0 ? (key ? 0x00 : 0x01) : tag, tag]),
  }));
}

function feed(a: Vp8Assembler, packets: Vp8Packet[], now = 0) {
  return packets.flatMap((p) => a.push(p, now));
}

describe('Vp8Assembler', () => {
  it('hands on each frame the moment its last packet is in, without the descriptors', () => {
    const a = new Vp8Assembler(() => undefined);
    const key = frame(100, 9000, 3, true, 7);
    expect(feed(a, key.slice(0, 2))).toEqual([]);
    const out = a.push(key[2]!, 0);
    expect(out).toHaveLength(1);
    expect(out[0]).toMatchObject({ timestamp: 9000, key: true });
    expect([...out[0]!.data]).toEqual([0x00, 7, 7, 7, 7, 7]);
    expect(feed(a, frame(103, 12000, 2, false, 8)).map((f) => f.timestamp)).toEqual([12000]);
  });

  it('puts reordered packets back in order, across the 16-bit wrap', () => {
    const a = new Vp8Assembler(() => undefined);
    const key = frame(65534, 3000, 4, true, 1);
    const out = feed(a, [key[0]!, key[2]!, key[1]!, key[3]!]);
    expect(out).toHaveLength(1);
    expect([...out[0]!.data]).toEqual([0x00, 1, 1, 1, 1, 1, 1, 1]);
    expect(feed(a, frame(2, 6000, 1, false, 2))).toHaveLength(1);
  });

  it('starts at a keyframe: inter frames before the first keyframe are dropped', () => {
    const a = new Vp8Assembler(() => undefined);
    expect(feed(a, frame(10, 100, 2, false, 1))).toEqual([]);
    expect(feed(a, frame(12, 200, 2, true, 2)).map((f) => f.timestamp)).toEqual([200]);
    expect(a.dropped).toBe(1);
  });

  it('waits for a lost packet, then gives the frame up, asks for a keyframe once and skips to it', () => {
    let asked = 0;
    const a = new Vp8Assembler(() => asked++);
    feed(a, frame(0, 0, 1, true, 0));
    const broken = frame(1, 3000, 3, false, 1);
    feed(a, [broken[0]!, broken[2]!], 10);
    // Newer frames wait behind it while the retransmission may come.
    expect(feed(a, frame(4, 6000, 1, false, 2), 20)).toEqual([]);
    expect(asked).toBe(0);
    // The time is up: the broken frame and the inter frame after it cannot be decoded.
    expect(feed(a, frame(5, 9000, 1, false, 3), 10 + GAP_WAIT_MS)).toEqual([]);
    expect(asked).toBe(1);
    expect(feed(a, frame(6, 12000, 1, false, 4), 10 + GAP_WAIT_MS)).toEqual([]);
    expect(asked).toBe(1);
    expect(feed(a, frame(7, 15000, 2, true, 5), 10 + GAP_WAIT_MS).map((f) => f.timestamp)).toEqual([15000]);
    expect(a.dropped).toBe(4);
  });

  it('a retransmission in time completes the frame, and the frames behind it follow in order', () => {
    const a = new Vp8Assembler(() => undefined);
    feed(a, frame(0, 0, 1, true, 0));
    const late = frame(1, 3000, 3, false, 1);
    feed(a, [late[0]!, late[2]!], 10);
    expect(feed(a, frame(4, 6000, 1, false, 2), 20)).toEqual([]);
    expect(a.push(late[1]!, 60).map((f) => f.timestamp)).toEqual([3000, 6000]);
    // A copy of a packet already handed on changes nothing.
    expect(a.push(late[1]!, 70)).toEqual([]);
    expect(a.dropped).toBe(0);
  });

  it('a whole frame lost is waited for, then skipped to the next keyframe', () => {
    let asked = 0;
    const a = new Vp8Assembler(() => asked++);
    feed(a, frame(0, 0, 1, true, 0));
    // Frame 3000 (seq 1) never comes.
    expect(feed(a, frame(2, 6000, 1, false, 2), 0)).toEqual([]);
    expect(feed(a, frame(3, 9000, 1, true, 3), GAP_WAIT_MS).map((f) => f.timestamp)).toEqual([9000]);
    expect(asked).toBe(0);
  });
});

describe('IVF', () => {
  it('writes the 32-byte VP8 header and 12-byte frame headers', () => {
    const h = ivfHeader(320, 180);
    expect(h.length).toBe(32);
    expect(h.subarray(0, 4).toString()).toBe('DKIF');
    expect(h.subarray(8, 12).toString()).toBe('VP80');
    expect([h.readUInt16LE(12), h.readUInt16LE(14), h.readUInt32LE(16), h.readUInt32LE(20)]).toEqual([320, 180, 90_000, 1]);
    const f = ivfFrame(Buffer.from([1, 2, 3]), 2 ** 33 + 5);
    expect([f.readUInt32LE(0), f.readBigUInt64LE(4), [...f.subarray(12)]]).toEqual([3, 2n ** 33n + 5n, [1, 2, 3]]);
  });

  it('finds the payload after the descriptor', () => {
    expect(vp8PayloadStart(Uint8Array.from([0x10, 0x00]))).toBe(1);
    expect(vp8PayloadStart(Uint8Array.from([0x90, 0xe0, 0x81, 0x23, 0x07, 0x40, 0x50]))).toBe(6);
    expect(vp8PayloadStart(Uint8Array.from([0x90]))).toBe(-1);
  });
});
