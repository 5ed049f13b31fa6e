/**
 * The few ISO-BMFF (MP4) boxes the recording's assembly (assembly.ts, ADR 106) reads and writes:
 * ffmpeg's fragmented output of one MPEG-TS segment is read into its init (ftyp + moov) and its
 * fragments (moof + mdat); each fragment's decode times (tfdt) and sequence number (mfhd) are
 * rewritten in place so fragments of many ffmpeg runs make one timeline; at the stop a moov with
 * the real durations (mvhd, tkhd, mdhd, mehd) and a segment index (sidx) of every fragment are
 * written in front of them. Nothing here decodes media: only box headers and sample tables.
 */

export interface Box {
  type: string;
  /** Offset of the box's first byte in the buffer. */
  start: number;
  /** Whole size, header included. */
  size: number;
  /** 8, or 16 with a 64-bit size. */
  header: number;
}

/** A file that is not the fragmented MP4 this module expects. */
export class Mp4FormatError extends Error {
  override name = 'Mp4FormatError';
}

/** The boxes one after another in buf[from, to). */
export function readBoxes(buf: Buffer, from = 0, to = buf.length): Box[] {
  const boxes: Box[] = [];
  let at = from;
  while (at < to) {
    if (at + 8 > to) throw new Mp4FormatError(`a box header is cut at ${String(at)}`);
    let size = buf.readUInt32BE(at);
    const type = buf.toString('latin1', at + 4, at + 8);
    let header = 8;
    if (size === 1) {
      if (at + 16 > to) throw new Mp4FormatError(`a large box header is cut at ${String(at)}`);
      size = Number(buf.readBigUInt64BE(at + 8));
      header = 16;
    } else if (size === 0) {
      size = to - at;
    }
    if (size < header || at + size > to) throw new Mp4FormatError(`box ${type} at ${String(at)} runs past its parent`);
    boxes.push({ type, start: at, size, header });
    at += size;
  }
  return boxes;
}

/** The children of a container box. */
export const childrenOf = (buf: Buffer, box: Box): Box[] => readBoxes(buf, box.start + box.header, box.start + box.size);

function child(buf: Buffer, box: Box, type: string): Box {
  const found = childrenOf(buf, box).find((b) => b.type === type);
  if (!found) throw new Mp4FormatError(`${box.type} has no ${type}`);
  return found;
}

/** A box's bytes after its header (full boxes: version and flags first). */
const body = (box: Box) => box.start + box.header;

export interface TrackInfo {
  id: number;
  /** 'vide' or 'soun' (another handler is refused). */
  handler: 'vide' | 'soun';
  timescale: number;
  /** trex: the default sample duration of its fragments. */
  defaultDuration: number;
  /**
   * What a decoder is set up with, from the sample description: codec, picture size and the SPS
   * (video), or codec, channels and rate (audio). Every segment of one assembly must say the same
   * (the bytes themselves differ: ffmpeg writes each file's bitrate, a PPS with a trailing zero).
   */
  codec: string;
}

export interface InitInfo {
  ftyp: Buffer;
  moov: Buffer;
  movieTimescale: number;
  tracks: TrackInfo[];
}

export interface TrackRun {
  trackId: number;
  /** Where the tfdt's value sits in the buffer, and its width (4 or 8 bytes). */
  tfdtAt: number;
  tfdtBytes: 4 | 8;
  decodeTime: number;
  /** The fragment's samples of this track: their count, summed duration, first composition offset. */
  samples: number;
  duration: number;
  firstCto: number;
  /** trun data_offset: where the samples start, counted from the moof (default-base-is-moof). */
  dataOffsetAt: number | null;
  /** Each sample's size and duration (for a cut). */
  sizes: number[];
  durations: number[];
}

export interface Fragment {
  /** moof start .. mdat end in the source buffer. */
  start: number;
  end: number;
  mfhdAt: number;
  runs: TrackRun[];
}

/** Reads ffmpeg's fragmented output (ftyp, moov, then moof + mdat pairs; an mfra at the end is ignored). */
export function readFragmented(buf: Buffer): { init: InitInfo; fragments: Fragment[] } {
  const top = readBoxes(buf);
  const ftyp = top.find((b) => b.type === 'ftyp');
  const moov = top.find((b) => b.type === 'moov');
  if (!ftyp || !moov) throw new Mp4FormatError('no ftyp or moov');
  const init = readInit(buf, ftyp, moov);
  const fragments: Fragment[] = [];
  for (let i = 0; i < top.length; i++) {
    const box = top[i]!;
    if (box.type !== 'moof') continue;
    const mdat = top[i + 1];
    if (mdat?.type !== 'mdat') throw new Mp4FormatError('a moof without its mdat');
    fragments.push(readMoof(buf, box, mdat, init));
  }
  return { init, fragments };
}

function readInit(buf: Buffer, ftyp: Box, moov: Box): InitInfo {
  const mvhd = child(buf, moov, 'mvhd');
  const movieTimescale = buf.readUInt32BE(body(mvhd) + (buf[body(mvhd)] === 1 ? 20 : 12));
  const trex = new Map<number, number>();
  const mvex = childrenOf(buf, moov).find((b) => b.type === 'mvex');
  if (!mvex) throw new Mp4FormatError('the moov has no mvex: not a fragmented file');
  for (const t of childrenOf(buf, mvex).filter((b) => b.type === 'trex')) {
    trex.set(buf.readUInt32BE(body(t) + 4), buf.readUInt32BE(body(t) + 12));
  }
  const tracks: TrackInfo[] = [];
  for (const trak of childrenOf(buf, moov).filter((b) => b.type === 'trak')) {
    const tkhd = child(buf, trak, 'tkhd');
    const id = buf.readUInt32BE(body(tkhd) + (buf[body(tkhd)] === 1 ? 20 : 12));
    const mdia = child(buf, trak, 'mdia');
    const mdhd = child(buf, mdia, 'mdhd');
    const timescale = buf.readUInt32BE(body(mdhd) + (buf[body(mdhd)] === 1 ? 20 : 12));
    const handler = buf.toString('latin1', body(child(buf, mdia, 'hdlr')) + 8, body(child(buf, mdia, 'hdlr')) + 12);
    if (handler !== 'vide' && handler !== 'soun') throw new Mp4FormatError(`a ${handler} track`);
    const stsd = child(buf, child(buf, child(buf, mdia, 'minf'), 'stbl'), 'stsd');
    tracks.push({ id, handler, timescale, defaultDuration: trex.get(id) ?? 0, codec: codecOf(buf, stsd, handler) });
  }
  if (!tracks.some((t) => t.handler === 'vide')) throw new Mp4FormatError('no video track');
  return {
    ftyp: Buffer.from(buf.subarray(ftyp.start, ftyp.start + ftyp.size)),
    moov: Buffer.from(buf.subarray(moov.start, moov.start + moov.size)),
    movieTimescale,
    tracks,
  };
}

/** The decoder set-up a sample description names (see TrackInfo.codec). */
function codecOf(buf: Buffer, stsd: Box, handler: 'vide' | 'soun'): string {
  const [entry] = readBoxes(buf, body(stsd) + 8, stsd.start + stsd.size);
  if (!entry) throw new Mp4FormatError('an empty stsd');
  const e = entry.start;
  if (handler === 'soun') return `${entry.type} ${String(buf.readUInt16BE(e + 24))}ch ${String(buf.readUInt32BE(e + 32) >>> 16)}Hz`;
  const size = `${String(buf.readUInt16BE(e + 32))}x${String(buf.readUInt16BE(e + 34))}`;
  const avcC = readBoxes(buf, e + 86, e + entry.size).find((b) => b.type === 'avcC');
  if (!avcC) return `${entry.type} ${size}`;
  const a = body(avcC);
  const spsLength = buf.readUInt16BE(a + 6);
  const sps = buf.subarray(a + 8, Math.min(a + 8 + spsLength, avcC.start + avcC.size));
  let end = sps.length;
  while (end > 0 && sps[end - 1] === 0) end--;
  return `${entry.type} ${size} ${sps.subarray(0, end).toString('hex')}`;
}

function readMoof(buf: Buffer, moof: Box, mdat: Box, init: InitInfo): Fragment {
  const kids = childrenOf(buf, moof);
  const mfhd = kids.find((b) => b.type === 'mfhd');
  if (!mfhd) throw new Mp4FormatError('a moof without mfhd');
  const runs: TrackRun[] = [];
  for (const traf of kids.filter((b) => b.type === 'traf')) {
    const parts = childrenOf(buf, traf);
    const tfhd = parts.find((b) => b.type === 'tfhd');
    const tfdt = parts.find((b) => b.type === 'tfdt');
    const truns = parts.filter((b) => b.type === 'trun');
    if (!tfhd || !tfdt) throw new Mp4FormatError('a traf without tfhd or tfdt');
    if (truns.length !== 1) throw new Mp4FormatError(`a traf with ${String(truns.length)} truns`);
    const tfhdFlags = buf.readUIntBE(body(tfhd) + 1, 3);
    if (tfhdFlags & 0x1) throw new Mp4FormatError('a tfhd with an explicit base data offset');
    const trackId = buf.readUInt32BE(body(tfhd) + 4);
    const track = init.tracks.find((t) => t.id === trackId);
    if (!track) throw new Mp4FormatError(`a fragment of unknown track ${String(trackId)}`);
    let at = body(tfhd) + 8;
    if (tfhdFlags & 0x2) at += 4;
    let defaultDuration = track.defaultDuration;
    if (tfhdFlags & 0x8) {
      defaultDuration = buf.readUInt32BE(at);
      at += 4;
    }
    let defaultSize = 0;
    if (tfhdFlags & 0x10) defaultSize = buf.readUInt32BE(at);
    const tfdtBytes = buf[body(tfdt)] === 1 ? 8 : 4;
    const tfdtAt = body(tfdt) + 4;
    const decodeTime = tfdtBytes === 8 ? Number(buf.readBigUInt64BE(tfdtAt)) : buf.readUInt32BE(tfdtAt);

    const trun = truns[0]!;
    const version = buf[body(trun)]!;
    const flags = buf.readUIntBE(body(trun) + 1, 3);
    const count = buf.readUInt32BE(body(trun) + 4);
    let p = body(trun) + 8;
    let dataOffsetAt: number | null = null;
    if (flags & 0x1) {
      dataOffsetAt = p;
      p += 4;
    }
    if (flags & 0x4) p += 4;
    const sizes: number[] = [];
    const durations: number[] = [];
    let firstCto = 0;
    for (let i = 0; i < count; i++) {
      let d = defaultDuration;
      let s = defaultSize;
      if (flags & 0x100) {
        d = buf.readUInt32BE(p);
        p += 4;
      }
      if (flags & 0x200) {
        s = buf.readUInt32BE(p);
        p += 4;
      }
      if (flags & 0x400) p += 4;
      if (flags & 0x800) {
        if (i === 0) firstCto = version === 0 ? buf.readUInt32BE(p) : buf.readInt32BE(p);
        p += 4;
      }
      durations.push(d);
      sizes.push(s);
    }
    if (p > trun.start + trun.size) throw new Mp4FormatError('a trun longer than its box');
    runs.push({
      trackId,
      tfdtAt,
      tfdtBytes,
      decodeTime,
      samples: count,
      duration: durations.reduce((a, b) => a + b, 0),
      firstCto,
      dataOffsetAt,
      sizes,
      durations,
    });
  }
  return { start: moof.start, end: mdat.start + mdat.size, mfhdAt: body(mfhd) + 4, runs };
}

/** Writes a fragment's new decode time for one track and its sequence number, in place. */
export function patchFragment(buf: Buffer, f: Fragment, sequence: number, decodeTimes: ReadonlyMap<number, number>): void {
  buf.writeUInt32BE(sequence, f.mfhdAt);
  for (const run of f.runs) {
    const t = decodeTimes.get(run.trackId);
    if (t === undefined) continue;
    if (!Number.isSafeInteger(t) || t < 0) throw new Mp4FormatError(`decode time ${String(t)} cannot be written`);
    if (run.tfdtBytes === 8) buf.writeBigUInt64BE(BigInt(t), run.tfdtAt);
    else if (t <= 0xffffffff) buf.writeUInt32BE(t, run.tfdtAt);
    else throw new Mp4FormatError('a 32-bit tfdt cannot hold the decode time');
    run.decodeTime = t;
  }
}

function box(type: string, ...parts: Buffer[]): Buffer {
  const size = 8 + parts.reduce((a, b) => a + b.length, 0);
  const head = Buffer.alloc(8);
  head.writeUInt32BE(size, 0);
  head.write(type, 4, 'latin1');
  return Buffer.concat([head, ...parts]);
}

/** Rewrites a box's duration field (mvhd, mdhd: after the timescale; tkhd: after the track id). */
function setDuration(buf: Buffer, b: Box, kind: 'mvhd' | 'mdhd' | 'tkhd', value: number): void {
  const v1 = buf[body(b)] === 1;
  const at = body(b) + (v1 ? (kind === 'tkhd' ? 28 : 24) : kind === 'tkhd' ? 20 : 16);
  if (v1) buf.writeBigUInt64BE(BigInt(value), at);
  else if (value <= 0xffffffff) buf.writeUInt32BE(value, at);
  else throw new Mp4FormatError(`${kind} cannot hold duration ${String(value)}`);
}

/**
 * The init of the whole recording: ffmpeg's moov with each track's duration (in its timescale),
 * the movie's (the longest track) in mvhd, tkhd and a new mehd (fragment_duration) in mvex. The
 * remuxer's edit lists are dropped (they placed one segment's tracks against each other); a track
 * in `mediaStarts` gets an edit list presenting it from that media time (its ticks) on: the video,
 * whose decode times run ahead of its presentation by the first picture's composition offset.
 */
export function finalInit(
  init: InitInfo,
  trackDurations: ReadonlyMap<number, number>,
  mediaStarts: ReadonlyMap<number, number> = new Map(),
): Buffer {
  const moov = Buffer.from(init.moov);
  const movieOf = (id: number) => {
    const t = init.tracks.find((x) => x.id === id)!;
    // What the track presents: its media less what its edit list skips.
    const presented = Math.max(0, (trackDurations.get(id) ?? 0) - (mediaStarts.get(id) ?? 0));
    return Math.round((presented * init.movieTimescale) / t.timescale);
  };
  const movieDuration = Math.max(0, ...init.tracks.map((t) => movieOf(t.id)));
  const [root] = readBoxes(moov);
  const kids = childrenOf(moov, root!);
  const parts: Buffer[] = [];
  for (const k of kids) {
    if (k.type === 'mvhd') setDuration(moov, k, 'mvhd', movieDuration);
    if (k.type === 'trak') {
      const tkhd = child(moov, k, 'tkhd');
      const id = moov.readUInt32BE(body(tkhd) + (moov[body(tkhd)] === 1 ? 20 : 12));
      setDuration(moov, tkhd, 'tkhd', movieOf(id));
      setDuration(moov, child(moov, child(moov, k, 'mdia'), 'mdhd'), 'mdhd', trackDurations.get(id) ?? 0);
      // The remuxer's edit list belonged to its one segment; the whole file gets its own.
      const kept = childrenOf(moov, k)
        .filter((c) => c.type !== 'edts')
        .map((c) => moov.subarray(c.start, c.start + c.size));
      const start = mediaStarts.get(id) ?? 0;
      const edts = start > 0 ? [editList(movieOf(id), start)] : [];
      parts.push(box('trak', kept[0]!, ...edts, ...kept.slice(1)));
      continue;
    }
    if (k.type === 'mvex') {
      const mehdBody = Buffer.alloc(12);
      mehdBody[0] = 1; // version 1: a 64-bit fragment_duration
      mehdBody.writeBigUInt64BE(BigInt(movieDuration), 4);
      const rest = childrenOf(moov, k)
        .filter((c) => c.type !== 'mehd')
        .map((c) => moov.subarray(c.start, c.start + c.size));
      parts.push(box('mvex', box('mehd', mehdBody), ...rest));
      continue;
    }
    parts.push(moov.subarray(k.start, k.start + k.size));
  }
  return Buffer.concat([init.ftyp, box('moov', ...parts)]);
}

/**
 * An edit list of one edit: the track is presented from `mediaTime` (its own ticks) on, for
 * `duration` (movie ticks), at normal rate. Version 1 (64-bit fields).
 */
function editList(duration: number, mediaTime: number): Buffer {
  const elst = Buffer.alloc(4 + 4 + 8 + 8 + 4);
  elst[0] = 1;
  elst.writeUInt32BE(1, 4);
  elst.writeBigUInt64BE(BigInt(duration), 8);
  elst.writeBigInt64BE(BigInt(mediaTime), 16);
  elst.writeUInt16BE(1, 24); // media_rate_integer 1, fraction 0
  return box('edts', box('elst', elst));
}

export interface SidxEntry {
  /** Bytes of the moof + mdat. */
  size: number;
  /** The fragment's video span, in the video track's timescale. */
  duration: number;
}

/**
 * A segment index (sidx, version 1) over every fragment, one reference each, in the video track's
 * time: a player learns the length and where each fragment starts without reading them. Every
 * fragment starts with a keyframe (SAP type 1). The fragments follow the sidx directly.
 */
export function sidxBox(videoTrackId: number, timescale: number, earliest: number, entries: readonly SidxEntry[]): Buffer {
  if (entries.length > 0xffff) throw new Mp4FormatError('more fragments than one sidx can list');
  const b = Buffer.alloc(4 + 4 + 4 + 8 + 8 + 2 + 2 + entries.length * 12);
  b[0] = 1;
  b.writeUInt32BE(videoTrackId, 4);
  b.writeUInt32BE(timescale, 8);
  b.writeBigUInt64BE(BigInt(earliest), 12);
  b.writeBigUInt64BE(0n, 20);
  b.writeUInt16BE(0, 28);
  b.writeUInt16BE(entries.length, 30);
  entries.forEach((e, i) => {
    const at = 32 + i * 12;
    if (e.size >= 2 ** 31) throw new Mp4FormatError('a fragment too large for the sidx');
    b.writeUInt32BE(e.size, at);
    b.writeUInt32BE(Math.max(0, Math.min(0xffffffff, e.duration)), at + 4);
    b.writeUInt32BE(0x90000000, at + 8); // starts_with_SAP = 1, SAP_type = 1, no delta
  });
  return box('sidx', b);
}
