/** VP8 frames put together from RTP: keyframe starts, losses held until a keyframe, IVF framing. */
import { describe, expect, it } from 'vitest';
import { ivfFrame, ivfHeader, Vp8Assembler, vp8Descriptor, vp8KeyframeStart, type Vp8Packet } from './vp8.ts';

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

describe('vp8Descriptor', () => {
  it('measures the descriptor with each optional field, and refuses one cut short', () => {
    expect(vp8Descriptor(Uint8Array.from([0x10, 0x00]))).toEqual({ start: true, partition: 0, headerLength: 1 });
    expect(vp8Descriptor(Uint8Array.from([0x90, 0xe0, 0x81, 0x23, 0x07, 0x40, 0x50]))).toEqual({
      start: true,
      partition: 0,
      headerLength: 6,
    });
    expect(vp8Descriptor(Uint8Array.from([0x82, 0x80, 0x12, 0x00]))).toEqual({ start: false, partition: 2, headerLength: 3 });
    expect(vp8Descriptor(Uint8Array.from([]))).toBeNull();
    expect(vp8Descriptor(Uint8Array.from([0x90]))).toBeNull();
    expect(vp8Descriptor(Uint8Array.from([0x90, 0x80]))).toBeNull();
    expect(vp8Descriptor(Uint8Array.from([0x90, 0xe0, 0x81]))).toBeNull();
  });
});

/**
 * A frame as a sender packetizes it: a 15-bit picture id in each descriptor, S on the first packet,
 * the marker on the last; the frame's first byte says key (bit 0 clear) or not.
 */
function packetize(frame: { key: boolean; size: number; fill: number }, seq: number, ts: number, pic: number, mtu = 100): Vp8Packet[] {
  const data = Buffer.alloc(frame.size, frame.fill);
  data[0] = frame.key ? 0x10 : 0x11;
  const out: Vp8Packet[] = [];
  for (let at = 0; at < data.length; at += mtu) {
    const first = at === 0;
    const head = Buffer.from([first ? 0x90 : 0x80, 0x80, 0x80 | ((pic >> 8) & 0x7f), pic & 0xff]);
    out.push({
      sequenceNumber: (seq + out.length) & 0xffff,
      timestamp: ts >>> 0,
      marker: at + mtu >= data.length,
      payload: Buffer.concat([head, data.subarray(at, at + mtu)]),
    });
  }
  return out;
}

/** A stream of frames (keyframes where `keys` says) as packets, from sequence number `seq0`. */
function stream(n: number, keys: Set<number>, seq0 = 65530): Vp8Packet[][] {
  const frames: Vp8Packet[][] = [];
  let seq = seq0;
  for (let i = 0; i < n; i++) {
    const packets = packetize({ key: keys.has(i), size: 250, fill: i }, seq, 4_294_960_000 + i * 3000, 32760 + i);
    seq += packets.length;
    frames.push(packets);
  }
  return frames;
}

/** Pushes every packet but the lost ones (frame, packet index); returns the frames sent on. */
function feed(a: Vp8Assembler, frames: Vp8Packet[][], lost: (frame: number, packet: number, of: number) => boolean): number[] {
  const sent: number[] = [];
  frames.forEach((packets, i) => {
    for (const [k, p] of packets.entries()) if (!lost(i, k, packets.length) && a.push(p)) sent.push(i);
  });
  return sent;
}

describe('Vp8Assembler', () => {
  it('puts each frame together from its packets, across sequence and timestamp wrap, starting at a keyframe', () => {
    const losses: number[] = [];
    const a = new Vp8Assembler(() => losses.push(1));
    const frames = stream(6, new Set([1, 4]));
    const out = frames.map((packets) => packets.map((p) => a.push(p)).filter((f) => f !== null));
    // Frame 0 is not a keyframe: the decoder's first frame must be one, so it is held back.
    expect(out[0]).toEqual([]);
    for (let i = 1; i < 6; i++) {
      expect(out[i]).toHaveLength(1);
      const f = out[i]![0]!;
      expect(f.key).toBe(i === 1 || i === 4);
      expect(f.data.length).toBe(250);
      expect(f.data.subarray(1).every((b) => b === i)).toBe(true);
      expect(f.timestamp).toBe((4_294_960_000 + i * 3000) >>> 0);
    }
    expect({ frames: a.frames, keyframes: a.keyframes, heldForKey: a.heldForKey, broken: a.broken }).toEqual({
      frames: 5,
      keyframes: 2,
      heldForKey: 1,
      broken: 0,
    });
    expect(losses).toEqual([]);
  });

  it('drops a frame with a packet missing and holds what follows until the next keyframe, telling once', () => {
    let losses = 0;
    const a = new Vp8Assembler(() => losses++);
    // Frame 2's second packet is lost for good: the reorder gave it up.
    const sent = feed(a, stream(8, new Set([0, 5])), (i, k) => i === 2 && k === 1);
    expect(sent).toEqual([0, 1, 5, 6, 7]);
    expect(losses).toBe(1);
    expect(a.broken).toBe(1);
    expect(a.heldForKey).toBe(2); // frames 3 and 4
    expect(a.waitingForKey).toBe(false);
  });

  it('drops a frame whose last packet is missing, even when the next frame starts right after the gap', () => {
    let losses = 0;
    const a = new Vp8Assembler(() => losses++);
    const sent = feed(a, stream(4, new Set([0, 3])), (i, k, of) => i === 1 && k === of - 1);
    expect(sent).toEqual([0, 3]);
    expect(losses).toBe(1);
  });

  it('starts over at the next keyframe after a reset (a new decoder or leg), whatever the numbering', () => {
    const a = new Vp8Assembler();
    for (const p of stream(2, new Set([0])).flat()) a.push(p);
    a.reset();
    expect(a.waitingForKey).toBe(true);
    const sent: number[] = [];
    stream(3, new Set([1]), 100).forEach((packets, i) => packets.forEach((p) => a.push(p) && sent.push(i)));
    expect(sent).toEqual([1, 2]);
  });

  it('ignores payloads too short to carry a descriptor or any frame data', () => {
    const a = new Vp8Assembler();
    expect(a.push({ sequenceNumber: 1, timestamp: 1, marker: true, payload: Uint8Array.from([]) })).toBeNull();
    expect(a.push({ sequenceNumber: 2, timestamp: 1, marker: true, payload: Uint8Array.from([0x90, 0x80, 0x01]) })).toBeNull();
    expect(a.push({ sequenceNumber: 3, timestamp: 1, marker: true, payload: Uint8Array.from([0x10]) })).toBeNull();
    const key = a.push({ sequenceNumber: 4, timestamp: 9, marker: true, payload: Uint8Array.from([0x10, 0x10, 0x02]) });
    expect(key?.data).toEqual(Buffer.from([0x10, 0x02]));
  });
});

describe('IVF', () => {
  it('writes the 32-byte VP8 header and 12-byte frame headers with 64-bit times', () => {
    const h = ivfHeader(640, 360);
    expect(h.length).toBe(32);
    expect(h.toString('latin1', 0, 4)).toBe('DKIF');
    expect(h.toString('latin1', 8, 12)).toBe('VP80');
    expect([h.readUInt16LE(12), h.readUInt16LE(14), h.readUInt32LE(16), h.readUInt32LE(20)]).toEqual([640, 360, 90_000, 1]);
    const f = ivfFrame(Buffer.from([1, 2, 3]), 2 ** 33 + 5);
    expect(f.length).toBe(15);
    expect(f.readUInt32LE(0)).toBe(3);
    expect(f.readBigUInt64LE(4)).toBe(2n ** 33n + 5n);
    expect([...f.subarray(12)]).toEqual([1, 2, 3]);
  });
});
