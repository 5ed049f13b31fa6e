import { describe, expect, it } from 'vitest';
import { finalInit, Mp4FormatError, patchFragment, readBoxes, readFragmented, sidxBox } from './mp4-boxes.ts';

const box = (type: string, ...parts: Buffer[]) => {
  const body = Buffer.concat(parts);
  const head = Buffer.alloc(8);
  head.writeUInt32BE(8 + body.length, 0);
  head.write(type, 4, 'latin1');
  return Buffer.concat([head, body]);
};
const u32 = (...v: number[]) => Buffer.concat(v.map((x) => Buffer.from([x >>> 24, (x >>> 16) & 255, (x >>> 8) & 255, x & 255])));
const u64 = (v: number) => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(BigInt(v));
  return b;
};

/** A video track (id 1, 90 kHz) and an audio track (id 2, 48 kHz), as ffmpeg's empty moov lays them out. */
function init(): Buffer {
  const trak = (id: number, handler: string, timescale: number, entry: Buffer) =>
    box(
      'trak',
      box('tkhd', u32(0x3, 0, 0, id, 0, 0), Buffer.alloc(60)),
      box(
        'mdia',
        box('mdhd', u32(0, 0, 0, timescale, 0), Buffer.alloc(4)),
        box('hdlr', u32(0, 0), Buffer.from(handler, 'latin1'), Buffer.alloc(12)),
        box('minf', box('stbl', box('stsd', u32(0, 1), entry))),
      ),
    );
  const sps = Buffer.from('6764001facd9', 'hex');
  const avcC = box('avcC', Buffer.from([1, 0x64, 0, 0x1f, 0xff, 0xe1]), Buffer.from([0, sps.length]), sps, Buffer.from([1, 0, 1, 0x68]));
  const avc1 = box('avc1', Buffer.alloc(24), Buffer.from([0x02, 0x80, 0x01, 0x68]), Buffer.alloc(50), avcC);
  const mp4a = box('mp4a', Buffer.alloc(16), Buffer.from([0, 2, 0, 16, 0, 0, 0, 0]), u32(48000 << 16));
  return Buffer.concat([
    box('ftyp', Buffer.from('isom', 'latin1'), u32(0x200)),
    box(
      'moov',
      box('mvhd', u32(0, 0, 0, 1000, 0), Buffer.alloc(80)),
      trak(1, 'vide', 90000, avc1),
      trak(2, 'soun', 48000, mp4a),
      box('mvex', box('trex', u32(0, 1, 1, 3000, 0, 0)), box('trex', u32(0, 2, 1, 1024, 0, 0))),
    ),
  ]);
}

/** One fragment: 2 video samples (default duration 3000, composition offsets) and 3 audio samples of 1024. */
function fragment(seq: number, videoAt: number, audioAt: number): Buffer {
  const traf = (id: number, at: number, trun: Buffer) =>
    box('traf', box('tfhd', u32(0x020000, id)), box('tfdt', u32(0x01000000), u64(at)), trun);
  const video = box('trun', u32(0x000a01, 2, 0), u32(10, 6000, 10, 3000));
  const audio = box('trun', u32(0x000301, 3, 0), u32(1024, 5, 1024, 5, 1024, 5));
  return Buffer.concat([
    box('moof', box('mfhd', u32(0, seq)), traf(1, videoAt, video), traf(2, audioAt, audio)),
    box('mdat', Buffer.alloc(35)),
  ]);
}

describe('MP4 boxes of the assembly', () => {
  it('reads tracks, codec set-up and fragments, and rewrites decode times and sequence numbers in place', () => {
    const file = Buffer.concat([init(), fragment(1, 0, 0), fragment(2, 6000, 3072)]);
    const { init: info, fragments } = readFragmented(file);
    expect(info.movieTimescale).toBe(1000);
    expect(info.tracks.map((t) => [t.id, t.handler, t.timescale, t.defaultDuration])).toEqual([
      [1, 'vide', 90000, 3000],
      [2, 'soun', 48000, 1024],
    ]);
    expect(info.tracks[0]!.codec).toBe('avc1 640x360 6764001facd9');
    expect(info.tracks[1]!.codec).toBe('mp4a 2ch 48000Hz');
    expect(fragments).toHaveLength(2);
    expect(fragments[1]!.runs.map((r) => [r.trackId, r.decodeTime, r.samples, r.duration, r.firstCto])).toEqual([
      [1, 6000, 2, 6000, 6000],
      [2, 3072, 3, 3072, 0],
    ]);
    patchFragment(
      file,
      fragments[1]!,
      7,
      new Map([
        [1, 900_000],
        [2, 2 ** 40],
      ]),
    );
    const again = readFragmented(file).fragments[1]!;
    expect(file.readUInt32BE(again.mfhdAt)).toBe(7);
    expect(again.runs.map((r) => r.decodeTime)).toEqual([900_000, 2 ** 40]);
    expect(() => patchFragment(file, again, 8, new Map([[1, -1]]))).toThrow(Mp4FormatError);
  });

  it('writes the durations into mvhd, tkhd, mdhd and a new mehd', () => {
    const info = readFragmented(Buffer.concat([init(), fragment(1, 0, 0)])).init;
    const out = finalInit(
      info,
      new Map([
        [1, 90000 * 61],
        [2, 48000 * 62],
      ]),
    );
    const [ftyp, moov] = readBoxes(out);
    expect([ftyp!.type, moov!.type]).toEqual(['ftyp', 'moov']);
    expect(moov!.start + moov!.size).toBe(out.length);
    const reread = readFragmented(Buffer.concat([out, fragment(1, 0, 0)]));
    expect(reread.init.tracks).toHaveLength(2);
    const kids = readBoxes(out, moov!.start + 8, moov!.start + moov!.size);
    const mvhd = kids.find((b) => b.type === 'mvhd')!;
    expect(out.readUInt32BE(mvhd.start + 8 + 16)).toBe(62_000); // the longest track, in ms
    const mvex = kids.find((b) => b.type === 'mvex')!;
    const [mehd] = readBoxes(out, mvex.start + 8, mvex.start + mvex.size);
    expect(mehd!.type).toBe('mehd');
    expect(Number(out.readBigUInt64BE(mehd!.start + 12))).toBe(62_000);
    const traks = kids.filter((b) => b.type === 'trak');
    // tkhd in the movie's timescale (ms), mdhd in the track's.
    expect(traks.map((t) => out.readUInt32BE(t.start + 8 + 8 + 20))).toEqual([61_000, 62_000]);
  });

  it('indexes every fragment in a sidx (sizes, durations, a keyframe first)', () => {
    const sidx = sidxBox(1, 90000, 6000, [
      { size: 1000, duration: 180000 },
      { size: 2000, duration: 175000 },
    ]);
    const [b] = readBoxes(sidx);
    expect(b).toMatchObject({ type: 'sidx', size: sidx.length });
    expect(sidx.readUInt32BE(12)).toBe(1);
    expect(sidx.readUInt32BE(16)).toBe(90000);
    expect(Number(sidx.readBigUInt64BE(20))).toBe(6000);
    expect(sidx.readUInt16BE(38)).toBe(2);
    expect([sidx.readUInt32BE(40), sidx.readUInt32BE(44), sidx.readUInt32BE(48)]).toEqual([1000, 180000, 0x90000000]);
    expect([sidx.readUInt32BE(52), sidx.readUInt32BE(56)]).toEqual([2000, 175000]);
  });

  it('refuses boxes that run past their parent, a moof without its mdat, and files without an index', () => {
    const cut = init().subarray(0, 100);
    expect(() => readBoxes(cut)).toThrow(Mp4FormatError);
    const noMdat = Buffer.concat([init(), fragment(1, 0, 0)]);
    const moofOnly = noMdat.subarray(0, noMdat.length - 43);
    expect(() => readFragmented(moofOnly)).toThrow(/without its mdat/);
    expect(() => readFragmented(fragment(1, 0, 0))).toThrow(/no ftyp or moov/);
  });
});
