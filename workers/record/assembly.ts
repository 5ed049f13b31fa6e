/**
 * The recording's MP4, built while the class runs (ADR 106), so the stop only handles its last
 * piece. Each closed MPEG-TS segment is remuxed by stream copy (one short ffmpeg, nothing decoded)
 * into fragmented MP4 (moof + mdat, a fragment per keyframe); its decode times are rewritten onto
 * one timeline (a new encoder run, whose clock starts again, follows the last one without a hole)
 * and the fragments are appended to a local file. That file goes to the store as a multipart
 * upload whose parts are sent during the class; the first part is kept back: at the stop it is
 * sent as the init (ftyp + moov with the real durations) and a sidx listing every fragment (a
 * player knows the length and seeks without reading the rest), followed by the first bytes of the
 * fragments. The last few segments stay local too, so the recording's cut (`keepSec`) can still
 * drop or shorten them.
 *
 * Anything it cannot do (a segment ffmpeg cannot read, a change of codec settings, a cut into what
 * was already sent, a store that refuses) makes `finish` throw: the runner then joins the
 * segments the old way (join.ts) and uploads that. The multipart upload is aborted then.
 */
import { open, rm, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '#core/platform/logger.ts';
import { MULTIPART_MIN_PART, type ObjectStore } from '#core/platform/objects.ts';
import { run } from '../convert/process.ts';
import { probeMedia } from './join.ts';
import { finalInit, Mp4FormatError, patchFragment, readFragmented, sidxBox, type InitInfo, type SidxEntry } from './mp4-boxes.ts';
import { withRetries } from './retry.ts';

export interface AssemblyOptions {
  objects: ObjectStore;
  /** The final object (recordingKey). */
  key: string;
  /** Where the assembly's files go (the task's work dir). */
  dir: string;
  logger: Logger;
  ffmpeg?: string;
  ffprobe?: string;
  /** Bytes per part sent during the class (default 16 MiB; S3 wants at least 5 MiB). */
  partBytes?: number;
  /** The last this many media seconds stay local until the stop (the cut may still change them). */
  holdSec?: number;
  /**
   * 'adopt': the finished file becomes the object by a rename (a store on this disk:
   * ObjectStore.adoptFile), nothing sent during the class; 'parts': a multipart upload whose parts
   * go during the class. Default: 'adopt' when the store can, else 'parts'.
   */
  mode?: 'adopt' | 'parts';
}

export interface AssemblyResult {
  durationMs: number;
  bytes: number;
  /** Segments, parts sent before the stop, bytes sent at the stop. */
  segments: number;
  partsBefore: number;
  bytesAtStop: number;
}

const TS_HZ = 90_000;
/** Two segments of one encoder run meet within this (join.ts uses the same). */
const SAME_RUN_SEC = 0.25;
/** A track's next fragment that starts within this of where the last ended is placed exactly there. */
const SNAP_SEC = 0.005;
const DEFAULT_PART = 16 * 1024 * 1024;
/**
 * Room kept at the file's start for the init and the sidx written at the stop (a free box fills
 * the rest): the moov is about 1.3 kB, the sidx 12 bytes a fragment (a fragment every 2 s: 21.6 kB
 * an hour), so 256 KiB hold about 11 hours.
 */
export const HEADER_RESERVE = 256 * 1024;
const DEFAULT_HOLD_SEC = 40;

interface SegmentEntry {
  seq: number;
  file: string;
  /** Where its fragments sit in the assembly file. */
  byteStart: number;
  byteEnd: number;
  /** Its fragments in the sidx list start here. */
  firstFragment: number;
  /** Per track: the decode time its first sample got (track ticks), and where the track ended after it. */
  startTicks: Map<number, number>;
  endTicks: Map<number, number>;
  /** Its span on the recording's timeline (seconds; all tracks). */
  startSec: number;
  endSec: number;
  /** Its first video decode time and video length on its own MPEG-TS clock (to tell a new run). */
  srcVideoStart: number;
  srcVideoEnd: number;
}

export class Assembly {
  readonly #o: AssemblyOptions;
  readonly #file: string;
  #fh: FileHandle | null = null;
  #length = HEADER_RESERVE;
  #init: InitInfo | null = null;
  readonly #segments: SegmentEntry[] = [];
  readonly #fragments: Array<SidxEntry & { start: number }> = [];
  #sequence = 0;
  /** The current run: its origin on its own clock (90 kHz) and where it begins on the recording's timeline (s). */
  #run: { origin: number; atSec: number } | null = null;
  /**
   * The video track's edit list media time (video ticks): the first segment's first composition
   * offset. Video decode times are written this far ahead of the pictures' presentation, which
   * keeps them at or above zero while the first picture is presented at its own time.
   */
  #videoShift: number | null = null;
  #failed: Error | null = null;
  #queue: Promise<void> = Promise.resolve();
  #uploadId: string | null = null;
  readonly #parts: Array<{ partNumber: number; etag: string }> = [];
  /** Bytes of the assembly file the store has (parts 2..n), from the first part's end. */
  #sentEnd = 0;
  #closed = false;

  readonly #mode: 'adopt' | 'parts';

  constructor(o: AssemblyOptions) {
    this.#o = o;
    this.#file = path.join(o.dir, 'assembly.mp4');
    this.#mode = o.mode ?? (o.objects.adoptFile ? 'adopt' : 'parts');
  }

  get #partBytes(): number {
    return Math.max(MULTIPART_MIN_PART, this.#o.partBytes ?? DEFAULT_PART);
  }

  /** False once something went wrong: the stop then goes the old way. */
  get whole(): boolean {
    return this.#failed === null && !this.#closed;
  }

  /** The segments taken so far, in order. */
  get seqs(): number[] {
    return this.#segments.map((s) => s.seq);
  }

  /** The timeline's end so far (seconds): the longest track. */
  get durationSec(): number {
    const last = this.#segments.at(-1);
    return last ? last.endSec : 0;
  }

  /** Parts sent so far (before the stop). */
  get partsSent(): number {
    return this.#parts.length;
  }

  /** Queues a closed segment (the caller does not wait for the remux or an upload). */
  feed(segment: { seq: number; file: string }): void {
    this.#queue = this.#queue.then(async () => {
      if (this.#failed || this.#closed) return;
      try {
        await this.#append(segment);
        await this.#sendReady();
      } catch (err) {
        this.#failed = err instanceof Error ? err : new Error(String(err));
        this.#o.logger.warn({ err, seq: segment.seq }, 'the recording assembly stopped; the stop will join the segments instead');
      }
    });
  }

  /** Waits for what was fed to be appended (and sent, when due). */
  async settled(): Promise<void> {
    await this.#queue;
  }

  async #remux(file: string, limitSec?: number): Promise<Buffer> {
    const args = ['-hide_banner', '-nostdin', '-v', 'error', '-i', file, '-map', '0', '-c', 'copy', '-bsf:a', 'aac_adtstoasc'];
    if (limitSec !== undefined) args.push('-t', limitSec.toFixed(3));
    args.push('-f', 'mp4', '-movflags', 'frag_keyframe+empty_moov+default_base_moof+delay_moov', 'pipe:1');
    const r = await run(this.#o.ffmpeg ?? 'ffmpeg', args, { timeoutMs: 60_000, maxStdout: 512 * 1024 * 1024 });
    if (r.killed || r.code !== 0)
      throw new Error(`the remux of ${file} failed: ${r.killed ?? String(r.code)} ${r.stderr.trim().slice(0, 300)}`);
    return r.stdout;
  }

  /** Remuxes one segment, places its fragments on the timeline and appends them. */
  async #append(segment: { seq: number; file: string }, limitSec?: number, reuse?: SegmentEntry): Promise<void> {
    const times = await firstTimes(segment.file);
    const buf = await this.#remux(segment.file, limitSec);
    const { init, fragments } = readFragmented(buf);
    if (fragments.length === 0) throw new Mp4FormatError(`${segment.file} gave no fragments`);
    if (!this.#init) this.#init = init;
    else if (!sameTracks(this.#init, init))
      throw new Mp4FormatError(`${segment.file} has other tracks or codec settings than the first segment`);
    const video = init.tracks.find((t) => t.handler === 'vide')!;
    const prev = this.#segments.at(-1);

    // The first video sample's composition offset: its presentation time is its decode time plus this.
    const firstVideoRun = fragments[0]!.runs.find((r) => r.trackId === video.id);
    if (!firstVideoRun) throw new Mp4FormatError(`${segment.file} does not start with video`);
    // The video track's edit list shifts its presentation back by the first segment's offset
    // (finalInit writes it), so that decode times never go below zero: see videoShift below.
    this.#videoShift ??= Math.max(0, firstVideoRun.firstCto);
    const shift = this.#videoShift;
    // Where this segment begins on the recording's timeline: its own clock, from the run's origin,
    // which is the earliest presentation time of its first segment (the first picture or sound).
    const videoPts = times.video + (firstVideoRun.firstCto * TS_HZ) / video.timescale;
    const srcStart = Math.min(videoPts, times.audio ?? Infinity);
    if (!reuse) {
      const continues = prev !== undefined && Math.abs(times.video - prev.srcVideoEnd) <= SAME_RUN_SEC * TS_HZ;
      if (!this.#run || !continues) this.#run = { origin: srcStart, atSec: prev ? prev.endSec : 0 };
    }
    const run = this.#run!;
    const firstOfTrack = new Map<number, number>();
    for (const f of fragments) for (const r of f.runs) if (!firstOfTrack.has(r.trackId)) firstOfTrack.set(r.trackId, r.decodeTime);
    const startTicks = new Map<number, number>();
    const before = reuse ? this.#segments.at(-1)?.endTicks : prev?.endTicks;
    for (const t of init.tracks) {
      if (reuse) {
        const s = reuse.startTicks.get(t.id);
        if (s !== undefined) startTicks.set(t.id, s);
        continue;
      }
      if (t.handler === 'soun' && times.audio === null) throw new Mp4FormatError(`no audio time found in ${segment.file}`);
      // Both tracks are placed by presentation time: audio has no reordering, so its first time is
      // its presentation; video is placed by its decode time plus the edit list's shift, so the
      // edit list brings every picture back to its presentation time (decode + offset - shift).
      const src = t.handler === 'vide' ? times.video : times.audio!;
      let at = Math.round((run.atSec + (src - run.origin) / TS_HZ) * t.timescale) + (t.handler === 'vide' ? shift : 0);
      const end = before?.get(t.id);
      if (end !== undefined && (Math.abs(at - end) <= SNAP_SEC * t.timescale || at < end)) at = end;
      startTicks.set(t.id, Math.max(0, at));
    }

    const entry: SegmentEntry = {
      seq: segment.seq,
      file: segment.file,
      byteStart: this.#length,
      byteEnd: this.#length,
      firstFragment: this.#fragments.length,
      startTicks,
      endTicks: new Map(before ?? []),
      startSec: Infinity,
      endSec: 0,
      srcVideoStart: times.video,
      srcVideoEnd: times.video,
    };
    const chunks: Buffer[] = [];
    for (const f of fragments) {
      const decodeTimes = new Map<number, number>();
      for (const r of f.runs) decodeTimes.set(r.trackId, r.decodeTime - firstOfTrack.get(r.trackId)! + startTicks.get(r.trackId)!);
      patchFragment(buf, f, ++this.#sequence, decodeTimes);
      let sidx: (SidxEntry & { start: number }) | null = null;
      for (const r of f.runs) {
        const t = init.tracks.find((x) => x.id === r.trackId)!;
        const end = r.decodeTime + r.duration;
        entry.endTicks.set(r.trackId, Math.max(entry.endTicks.get(r.trackId) ?? 0, end));
        // The span in presentation seconds (the video's decode times run `shift` ahead).
        const back = r.trackId === video.id ? shift : 0;
        entry.startSec = Math.min(entry.startSec, (r.decodeTime - back) / t.timescale);
        entry.endSec = Math.max(entry.endSec, (end - back) / t.timescale);
        if (r.trackId === video.id) {
          sidx = { size: f.end - f.start, start: r.decodeTime + r.firstCto, duration: r.duration };
          entry.srcVideoEnd += (r.duration * TS_HZ) / t.timescale;
        }
      }
      if (!sidx) throw new Mp4FormatError(`a fragment of ${segment.file} has no video`);
      this.#fragments.push(sidx);
      chunks.push(buf.subarray(f.start, f.end));
    }
    const bytes = Buffer.concat(chunks);
    this.#fh ??= await open(this.#file, 'w+');
    await this.#fh.write(bytes, 0, bytes.length, this.#length);
    this.#length += bytes.length;
    entry.byteEnd = this.#length;
    this.#segments.push(entry);
  }

  /** Sends every whole part that lies before the held-back end. */
  async #sendReady(): Promise<void> {
    const last = this.#segments.at(-1);
    if (!last || this.#mode === 'adopt') return;
    const holdSec = this.#o.holdSec ?? DEFAULT_HOLD_SEC;
    const held = this.#segments.find((s) => s.endSec > last.endSec - holdSec);
    const limit = held ? held.byteStart : this.#length;
    const size = this.#partBytes;
    if (this.#sentEnd === 0) this.#sentEnd = MULTIPART_MIN_PART; // part 1 waits for the stop
    while (limit - this.#sentEnd >= size) {
      this.#uploadId ??= await this.#o.objects.createMultipart(this.#o.key, 'video/mp4');
      const partNumber = this.#parts.length + 2;
      const etag = await withRetries(() =>
        this.#o.objects.uploadPart(this.#o.key, this.#uploadId!, partNumber, this.#file, this.#sentEnd, this.#sentEnd + size),
      );
      this.#parts.push({ partNumber, etag });
      this.#sentEnd += size;
    }
  }

  /**
   * The stop: `seqs` are the recording's segments (the task's list) and must be exactly those
   * fed; `keepSec` media seconds from the start are kept (null: all). Appends nothing new; sends
   * the first part (init + sidx + the first bytes) and the rest, completes the upload and answers
   * what the store now holds. Throws when the assembly cannot make the file; the caller joins.
   */
  async finish(seqs: readonly number[], keepSec: number | null): Promise<AssemblyResult> {
    await this.#queue;
    if (this.#failed) throw this.#failed;
    if (this.#closed) throw new Error('the assembly was closed');
    const mine = this.seqs;
    if (mine.length !== seqs.length || mine.some((s, i) => s !== seqs[i])) {
      throw new Error(`the assembly holds segments ${describe(mine)}, the recording ${describe(seqs)}`);
    }
    if (mine.length === 0 || !this.#init) throw new Error('nothing was assembled');
    if (keepSec !== null) await this.#cut(keepSec);
    const init = this.#init;
    const last = this.#segments.at(-1)!;
    const video = init.tracks.find((t) => t.handler === 'vide')!;

    const frags = this.#fragments;
    const entries: SidxEntry[] = frags.map((f, i) => ({
      size: f.size,
      duration: i + 1 < frags.length ? frags[i + 1]!.start - f.start : f.duration,
    }));
    const moov = finalInit(init, last.endTicks, new Map([[video.id, this.#videoShift ?? 0]]));
    const sidx = sidxBox(video.id, video.timescale, frags[0]!.start, entries);
    // ftyp + moov, a free box over the rest of the reserved room, then the sidx right before the first moof.
    const pad = HEADER_RESERVE - moov.length - sidx.length;
    if (pad < 8) throw new Mp4FormatError(`the index (${String(moov.length + sidx.length)} bytes) does not fit the room kept for it`);
    const free = Buffer.alloc(pad);
    free.writeUInt32BE(pad, 0);
    free.write('free', 4, 'latin1');
    const header = Buffer.concat([moov, free, sidx]);
    await this.#fh!.write(header, 0, header.length, 0);
    await this.#fh!.truncate(this.#length);
    const durationSec = last.endSec;

    // ffprobe reads the file as a player would: codecs, duration, the index first (it reads the head only).
    const probe = await probeMedia(this.#file, { ...(this.#o.ffprobe ? { ffprobe: this.#o.ffprobe } : {}) });
    if (probe.videoCodec !== 'h264') throw new Mp4FormatError(`the assembled file has no H.264 video (${String(probe.videoCodec)})`);
    if (init.tracks.some((t) => t.handler === 'soun') && probe.audioCodec !== 'aac')
      throw new Mp4FormatError('the assembled file has no AAC audio');
    if (!probe.moovFirst) throw new Mp4FormatError('the assembled file does not start with its moov');
    if (Math.abs(probe.durationSec - durationSec) > 0.5) {
      throw new Mp4FormatError(`ffprobe reads ${probe.durationSec.toFixed(2)} s where the fragments last ${durationSec.toFixed(2)} s`);
    }

    const objects = this.#o.objects;
    const key = this.#o.key;
    const total = this.#length;
    const result = { durationMs: Math.round(durationSec * 1000), bytes: total, segments: this.#segments.length };
    if (this.#mode === 'adopt' && objects.adoptFile) {
      await this.#fh!.sync();
      await this.#fh!.close();
      this.#fh = null;
      await objects.adoptFile(key, this.#file, 'video/mp4');
      const info = await objects.head(key);
      if (info?.size !== total) throw new Error(`the store holds ${String(info?.size)} bytes of ${String(total)}`);
      return { ...result, partsBefore: 0, bytesAtStop: header.length };
    }

    // Part 1 (the index and the first bytes: all of them when no part was sent), the held-back tail, complete.
    this.#uploadId ??= await objects.createMultipart(key, 'video/mp4');
    const uploadId = this.#uploadId;
    const partsBefore = this.#parts.length;
    const firstEnd = partsBefore > 0 ? MULTIPART_MIN_PART : total;
    const parts = [
      { partNumber: 1, etag: await withRetries(() => objects.uploadPart(key, uploadId, 1, this.#file, 0, firstEnd)) },
      ...this.#parts,
    ];
    let bytesAtStop = firstEnd;
    if (partsBefore > 0 && total > this.#sentEnd) {
      const partNumber = parts.length + 1;
      const start = this.#sentEnd;
      parts.push({ partNumber, etag: await withRetries(() => objects.uploadPart(key, uploadId, partNumber, this.#file, start, total)) });
      bytesAtStop += total - start;
    }
    const bytes = await objects.completeMultipart(key, uploadId, parts);
    this.#uploadId = null;
    if (bytes !== total) throw new Error(`the store joined ${String(bytes)} bytes of ${String(total)}`);
    return { ...result, partsBefore, bytesAtStop };
  }

  /** Drops what lies after `keepSec`: whole segments, and the rest of the one it falls in (remuxed again with -t). */
  async #cut(keepSec: number): Promise<void> {
    let k = this.#segments.findLastIndex((s) => s.startSec < keepSec - 0.01);
    if (k < 0) k = 0;
    const seg = this.#segments[k]!;
    const shorten = keepSec < seg.endSec - 0.01;
    const dropFrom = shorten ? k : k + 1;
    if (dropFrom >= this.#segments.length) return;
    const cutAt = this.#segments[dropFrom]!.byteStart;
    // Parts 2.. hold [MULTIPART_MIN_PART, sentEnd): the cut may not reach into them.
    if (this.#parts.length > 0 && cutAt < this.#sentEnd) {
      throw new Error(`the cut at ${keepSec.toFixed(2)} s falls into what was already sent`);
    }
    const dropped = this.#segments.splice(dropFrom);
    this.#fragments.length = dropped[0]!.firstFragment;
    this.#sequence = this.#fragments.length;
    this.#length = cutAt;
    await this.#fh!.truncate(cutAt);
    if (shorten) await this.#append(seg, Math.max(0.1, keepSec - seg.startSec), seg);
  }

  /** Ends the upload (when one is open) and removes the local files. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#queue;
    if (this.#uploadId) {
      const id = this.#uploadId;
      this.#uploadId = null;
      await this.#o.objects
        .abortMultipart(this.#o.key, id)
        .catch((err: unknown) => this.#o.logger.warn({ err }, 'aborting the assembly upload failed'));
    }
    await this.#fh?.close();
    this.#fh = null;
    await rm(this.#file, { force: true });
  }
}

function describe(seqs: readonly number[]): string {
  return seqs.length === 0 ? 'none' : `${String(seqs[0])}..${String(seqs.at(-1))} (${String(seqs.length)})`;
}

function sameTracks(a: InitInfo, b: InitInfo): boolean {
  return (
    a.tracks.length === b.tracks.length &&
    a.tracks.every((t, i) => {
      const u = b.tracks[i]!;
      return t.id === u.id && t.handler === u.handler && t.timescale === u.timescale && t.codec === u.codec;
    })
  );
}

const TS_PACKET = 188;
/** Read at a time, and at most, looking for the first audio PES (a keyframe of a busy picture can come first and be large). */
const SCAN_CHUNK = 1024 * 1024;
const SCAN_MAX = 16 * 1024 * 1024;

/**
 * The first video decode time and the first audio time of an MPEG-TS segment, on its 90 kHz
 * clock, from the PES headers near its start (ffmpeg's remux starts each track at zero).
 */
export async function firstTimes(file: string): Promise<{ video: number; audio: number | null }> {
  const fh = await open(file, 'r');
  let video: number | null = null;
  let audio: number | null = null;
  try {
    const { size } = await fh.stat();
    const limit = Math.min(size, SCAN_MAX);
    const buf = Buffer.alloc(SCAN_CHUNK - (SCAN_CHUNK % TS_PACKET));
    for (let at = 0; at < limit && (video === null || audio === null); at += buf.length) {
      const { bytesRead } = await fh.read(buf, 0, buf.length, at);
      for (let o = 0; o + TS_PACKET <= bytesRead && (video === null || audio === null); o += TS_PACKET) {
        if (buf[o] !== 0x47 || !(buf[o + 1]! & 0x40)) continue;
        const control = (buf[o + 3]! >> 4) & 3;
        if (!(control & 1)) continue;
        let p = o + 4;
        if (control & 2) p += 1 + buf[o + 4]!;
        if (p + 19 > o + TS_PACKET || buf[p] !== 0 || buf[p + 1] !== 0 || buf[p + 2] !== 1) continue;
        const id = buf[p + 3]!;
        const flags = buf[p + 7]! >> 6;
        if (!(flags & 2)) continue;
        const time = (q: number) =>
          ((buf[q]! >> 1) & 7) * 2 ** 30 + buf[q + 1]! * 2 ** 22 + (buf[q + 2]! >> 1) * 2 ** 15 + buf[q + 3]! * 2 ** 7 + (buf[q + 4]! >> 1);
        if (id >= 0xe0 && id <= 0xef && video === null) video = flags === 3 ? time(p + 14) : time(p + 9);
        else if (id >= 0xc0 && id <= 0xdf && audio === null) audio = time(p + 9);
      }
    }
  } finally {
    await fh.close();
  }
  if (video === null) throw new Mp4FormatError(`${file} has no video PES near its start`);
  return { video, audio };
}
