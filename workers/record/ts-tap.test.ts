import { describe, expect, it } from 'vitest';
import { TsTap, patPmtPid, pmtVideoPid, tsPacketInfo } from './ts-tap.ts';

/** A 188-byte TS packet: header, optional adaptation field (random access flag), payload filled with `fill`. */
function packet(pid: number, o: { start?: boolean; randomAccess?: boolean; payload?: number[]; fill?: number } = {}): Buffer {
  const p = Buffer.alloc(188, o.fill ?? 0xff);
  p[0] = 0x47;
  p[1] = (o.start ? 0x40 : 0) | ((pid >> 8) & 0x1f);
  p[2] = pid & 0xff;
  let at = 4;
  if (o.randomAccess) {
    p[3] = 0x30; // adaptation field and payload
    p[4] = 1;
    p[5] = 0x40;
    at = 6;
  } else p[3] = 0x10;
  if (o.payload) Buffer.from(o.payload).copy(p, at);
  return p;
}

/** PAT naming program 1 at PMT PID 0x1000 (pointer field first). */
const pat = () => packet(0, { start: true, payload: [0, 0x00, 0xb0, 13, 0, 1, 0xc1, 0, 0, 0, 1, 0xf0, 0x00, 0, 0, 0, 0] });
/** PMT with an AAC stream (0x0f) on 0x101 and an H.264 stream (0x1b) on 0x100. */
const pmt = () =>
  packet(0x1000, {
    start: true,
    payload: [
      0, 0x02, 0xb0, 23, 0, 1, 0xc1, 0, 0, 0xe1, 0x00, 0xf0, 0x00, 0x0f, 0xe1, 0x01, 0xf0, 0x00, 0x1b, 0xe1, 0x00, 0xf0, 0x00, 0, 0, 0, 0,
    ],
  });

describe('TsTap', () => {
  it('reads the PAT, PMT and the random access flag', () => {
    expect(patPmtPid(pat())).toBe(0x1000);
    expect(pmtVideoPid(pmt())).toBe(0x100);
    expect(tsPacketInfo(packet(0x100, { start: true, randomAccess: true }))).toEqual({ pid: 0x100, start: true, randomAccess: true });
    expect(tsPacketInfo(packet(0x101, { start: true }))).toEqual({ pid: 0x101, start: true, randomAccess: false });
  });

  it('gives a reader that joins the tables and everything since the last keyframe at once, then every packet', () => {
    const tap = new TsTap();
    tap.write(Buffer.concat([pat(), pmt(), packet(0x100, { start: true, randomAccess: true, fill: 1 }), packet(0x101, { fill: 2 })]));
    tap.write(Buffer.concat([packet(0x100, { start: true, randomAccess: true, fill: 3 }), packet(0x101, { fill: 4 })]));
    const got: Buffer[] = [];
    tap.join((c) => got.push(c));
    let all = Buffer.concat(got);
    expect(all.length).toBe(4 * 188);
    expect([0, 1].map((i) => tsPacketInfo(all.subarray(i * 188)).pid)).toEqual([0, 0x1000]);
    expect([all[188 * 2 + 10], all[188 * 3 + 10]]).toEqual([3, 4]);
    tap.write(packet(0x100, { start: true, fill: 5 }));
    all = Buffer.concat(got);
    expect(all.length).toBe(5 * 188);
    expect(all[188 * 4 + 10]).toBe(5);
    expect(tap.keyframes).toBe(2);
  });

  it('starts a reader that joined before any keyframe at the first one, however the stream is cut', () => {
    const tap = new TsTap();
    const got: Buffer[] = [];
    tap.write(Buffer.concat([pat(), pmt(), packet(0x100, { start: true, fill: 1 })]));
    tap.join((c) => got.push(c));
    tap.write(packet(0x101, { fill: 2 }));
    expect(got).toHaveLength(0);
    const key = Buffer.concat([
      packet(0x101, { fill: 4 }),
      packet(0x100, { start: true, randomAccess: true, fill: 5 }),
      packet(0x101, { fill: 6 }),
    ]);
    tap.write(key.subarray(0, 7));
    tap.write(key.subarray(7, 200));
    tap.write(key.subarray(200));
    const all = Buffer.concat(got);
    expect(all.length).toBe(4 * 188);
    expect([0, 1].map((i) => tsPacketInfo(all.subarray(i * 188)).pid)).toEqual([0, 0x1000]);
    expect([all[188 * 2 + 10], all[188 * 3 + 10]]).toEqual([5, 6]);
  });

  it('stops feeding a reader that left, and skips bytes out of sync', () => {
    const tap = new TsTap();
    let bytes = 0;
    tap.write(Buffer.concat([pat(), pmt()]));
    const leave = tap.join((c) => (bytes += c.length));
    tap.write(Buffer.concat([Buffer.from([1, 2, 3]), packet(0x100, { start: true, randomAccess: true })]));
    expect(tap.skipped).toBe(3);
    expect(bytes).toBe(3 * 188);
    leave();
    tap.write(packet(0x101));
    expect(bytes).toBe(3 * 188);
  });
});
