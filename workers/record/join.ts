/**
 * The end of a recording (docs/decisions/076): the MPEG-TS segments the encoder wrote are joined by
 * stream copy (ffmpeg's concat demuxer) into one MP4 with its index first (fast start), so a player
 * can start and seek before the whole file has arrived. Nothing is decoded or encoded: the cost
 * grows with the bytes copied, a few seconds for an hour.
 *
 * Segments may come from more than one encoder run (a recorder crashed and another resumed): each
 * run's timestamps start again. The concat demuxer places every file at the sum of the durations of
 * those before it, and its own idea of a file's duration (ffprobe's format duration: first audio
 * packet to last video packet) leaves a hole of 20-90 ms at every segment boundary, which over an
 * hour of 4 s segments adds most of a minute. So each segment's first and last timestamps are read
 * here from its MPEG-TS packets (a few kB from each end, no process per segment), and the list
 * gives every file its exact duration: up to the next segment's start inside one run (the original
 * timeline is kept to the sample), up to its own last frame where a new run begins.
 */
import { open, mkdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { run, type RunResult } from '../convert/process.ts';

export interface MediaProbe {
  videoCodec: string | null;
  width: number;
  height: number;
  /** Average frame rate (frames / duration), else the nominal one; 0 without video. */
  fps: number;
  audioCodec: string | null;
  sampleRate: number;
  channels: number;
  durationSec: number;
  bytes: number;
  /** MP4: the moov box comes before mdat (fast start). False for other containers. */
  moovFirst: boolean;
}

export interface MediaToolOptions {
  /**
   * A join only: media seconds kept from the file's start (the class's end, ADR 104); what the
   * segments hold after it is cut. Absent: everything is kept.
   */
  keepSec?: number;
  ffmpeg?: string;
  ffprobe?: string;
  /** Default: 10 minutes for a join (an hour of segments takes seconds), 1 minute for a probe. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** A segment or a joined file that cannot be used; `file` names the culprit. */
export class MediaFileError extends Error {
  override name = 'MediaFileError';
  readonly file: string;
  constructor(message: string, file: string) {
    super(message);
    this.file = file;
  }
}

/** Where one segment's media begins and ends, in seconds of its own MPEG-TS clock (90 kHz). */
export interface SegmentSpan {
  file: string;
  startSec: number;
  endSec: number;
  hasAudio: boolean;
}

/** Two segments of one encoder run meet within this (they meet exactly; a frame is 33 ms). */
const SAME_RUN_TOLERANCE_SEC = 0.25;
/** The joined file may differ from the sum of its parts by this before it counts as broken. */
const JOIN_TOLERANCE_SEC = 0.5;

/**
 * Joins MPEG-TS segments (in order) into a fast-start MP4 at `outFile` by stream copy, and checks
 * the result with ffprobe (H.264 present, AAC when the segments had audio, the expected duration).
 * A missing or unreadable segment is a MediaFileError naming it; `outFile` appears only when the
 * join succeeded.
 */
export async function joinSegments(
  files: string[],
  outFile: string,
  options: MediaToolOptions = {},
): Promise<{ durationMs: number; bytes: number }> {
  if (files.length === 0) throw new MediaFileError('no segments to join', outFile);
  // A few kB from each end of every file; a handful at a time keeps the disk busy without a flood of handles.
  const spans: SegmentSpan[] = new Array<SegmentSpan>(files.length);
  let next = 0;
  const scanner = async () => {
    for (let i = next++; i < files.length; i = next++) spans[i] = await scanSegment(files[i]!);
  };
  await Promise.all(Array.from({ length: Math.min(8, files.length) }, scanner));
  const durations = segmentDurations(spans);
  const wholeSec = durations.reduce((a, b) => a + b, 0);
  // Never cut below a second (a stop can not come before the file's start), never past its end.
  const keep = options.keepSec === undefined ? wholeSec : Math.min(wholeSec, Math.max(1, options.keepSec));
  const cut = wholeSec - keep > 0.001;
  const expectedSec = cut ? keep : wholeSec;

  await mkdir(path.dirname(outFile), { recursive: true });
  const listFile = `${outFile}.concat.txt`;
  const partial = `${outFile}.partial`;
  const list = spans.map((s, i) => `file ${quote(path.resolve(s.file))}\nduration ${durations[i]!.toFixed(6)}\n`).join('');
  await writeFile(listFile, `ffconcat version 1.0\n${list}`);
  try {
    const args = ['-hide_banner', '-nostdin', '-v', 'error', '-y', '-f', 'concat', '-safe', '0', '-i', listFile];
    args.push('-map', '0', '-c', 'copy');
    if (cut) args.push('-t', expectedSec.toFixed(3));
    // MPEG-TS carries AAC with ADTS headers; MP4 wants the bare frames and an AudioSpecificConfig.
    if (spans.some((s) => s.hasAudio)) args.push('-bsf:a', 'aac_adtstoasc');
    args.push('-movflags', '+faststart', '-f', 'mp4', partial);
    const r = await run(options.ffmpeg ?? 'ffmpeg', args, { timeoutMs: options.timeoutMs ?? 10 * 60_000, ...signalOf(options) });
    failIfBroken(r, 'the join', outFile);
    // The concat demuxer logs a file it cannot open or read and goes on with the rest (exit code 0).
    if (r.stderr.trim()) throw await culprit(spans, options, `the join reported: ${firstLines(r.stderr)}`, outFile);

    const probe = await probeMedia(partial, options);
    if (probe.videoCodec !== 'h264') throw new MediaFileError(`the joined file has no H.264 video (${String(probe.videoCodec)})`, outFile);
    if (spans.some((s) => s.hasAudio) && probe.audioCodec !== 'aac') {
      throw new MediaFileError(`the joined file has no AAC audio (${String(probe.audioCodec)})`, outFile);
    }
    if (!probe.moovFirst) throw new MediaFileError('the joined file does not start with its index (moov)', outFile);
    if (Math.abs(probe.durationSec - expectedSec) > JOIN_TOLERANCE_SEC) {
      throw new MediaFileError(
        `the joined file lasts ${probe.durationSec.toFixed(2)} s where its segments add up to ${expectedSec.toFixed(2)} s`,
        outFile,
      );
    }
    await rename(partial, outFile);
    return { durationMs: Math.round(probe.durationSec * 1000), bytes: probe.bytes };
  } finally {
    await rm(listFile, { force: true });
    await rm(partial, { force: true });
  }
}

/**
 * The first segment ffmpeg cannot read cleanly on its own (only on the failure path: a stream copy
 * of each, in order, a few tens of ms apiece), so the error names the file to look at.
 */
async function culprit(spans: SegmentSpan[], options: MediaToolOptions, fallback: string, outFile: string): Promise<MediaFileError> {
  for (const { file } of spans) {
    const r = await run(
      options.ffmpeg ?? 'ffmpeg',
      ['-hide_banner', '-nostdin', '-v', 'error', '-i', file, '-map', '0', '-c', 'copy', '-f', 'null', '-'],
      {
        timeoutMs: 60_000,
        ...signalOf(options),
      },
    );
    if (r.code !== 0 || r.stderr.trim()) return new MediaFileError(`segment ${file} could not be read: ${firstLines(r.stderr)}`, file);
  }
  return new MediaFileError(fallback, outFile);
}

/**
 * How long each segment lasts in the joined file: up to the next segment's start when the next
 * one continues the same run (its start is this one's end), else to this one's own end.
 */
export function segmentDurations(spans: SegmentSpan[]): number[] {
  return spans.map((s, i) => {
    const next = spans[i + 1];
    const sameRun = next !== undefined && Math.abs(next.startSec - s.endSec) <= SAME_RUN_TOLERANCE_SEC;
    return (sameRun ? next.startSec : s.endSec) - s.startSec;
  });
}

/** What ffprobe says about a media file, plus its size and whether an MP4's index comes first. */
export async function probeMedia(file: string, options: MediaToolOptions = {}): Promise<MediaProbe> {
  const size = await stat(file).catch(() => null);
  if (!size?.isFile()) throw new MediaFileError(`${file} does not exist`, file);
  const r = await run(options.ffprobe ?? 'ffprobe', ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', file], {
    timeoutMs: options.timeoutMs ?? 60_000,
    ...signalOf(options),
  });
  failIfBroken(r, 'ffprobe', file);
  let info: ProbeJson;
  try {
    info = JSON.parse(r.stdout.toString('utf8')) as ProbeJson;
  } catch {
    throw new MediaFileError(`ffprobe gave no answer for ${file}`, file);
  }
  const video = info.streams?.find((s) => s.codec_type === 'video');
  const audio = info.streams?.find((s) => s.codec_type === 'audio');
  const durationSec = Number(info.format?.duration ?? video?.duration ?? audio?.duration ?? NaN);
  if ((!video && !audio) || !(durationSec > 0)) throw new MediaFileError(`${file} holds no playable media`, file);
  return {
    videoCodec: video?.codec_name ?? null,
    width: video?.width ?? 0,
    height: video?.height ?? 0,
    fps: video ? rate(video.avg_frame_rate) || rate(video.r_frame_rate) : 0,
    audioCodec: audio?.codec_name ?? null,
    sampleRate: Number(audio?.sample_rate ?? 0),
    channels: audio?.channels ?? 0,
    durationSec,
    bytes: size.size,
    moovFirst: await moovBeforeMdat(file),
  };
}

interface ProbeJson {
  format?: { duration?: string };
  streams?: Array<{
    codec_type?: string;
    codec_name?: string;
    width?: number;
    height?: number;
    avg_frame_rate?: string;
    r_frame_rate?: string;
    sample_rate?: string;
    channels?: number;
    duration?: string;
  }>;
}

function rate(fraction: string | undefined): number {
  const [n, d] = (fraction ?? '').split('/').map(Number);
  const v = n !== undefined && d ? n / d : 0;
  return Number.isFinite(v) ? Math.round(v * 1000) / 1000 : 0;
}

/** Walks the top-level boxes of an ISO-BMFF file: true when moov comes before mdat. */
export async function moovBeforeMdat(file: string): Promise<boolean> {
  const fh = await open(file, 'r');
  try {
    const { size } = await fh.stat();
    const head = Buffer.alloc(16);
    let at = 0;
    while (at + 8 <= size) {
      const { bytesRead } = await fh.read(head, 0, 16, at);
      if (bytesRead < 8) return false;
      const type = head.toString('latin1', 4, 8);
      if (type === 'moov') return true;
      if (type === 'mdat') return false;
      let boxSize = head.readUInt32BE(0);
      if (boxSize === 1) {
        if (bytesRead < 16) return false;
        boxSize = Number(head.readBigUInt64BE(8));
      } else if (boxSize === 0) {
        return false; // the last box runs to the end: no moov after it
      }
      if (boxSize < 8) return false;
      at += boxSize;
    }
    return false;
  } finally {
    await fh.close();
  }
}

const TS_PACKET = 188;
const TS_SYNC = 0x47;
/** Read from each end of a segment: many frames at 3 Mbit/s, and several audio PES. */
const SCAN_BYTES = 256 * 1024;
const PTS_HZ = 90_000;
const AAC_RATES = [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350];

/**
 * First and last media time of an MPEG-TS segment from its PES headers: the start is the smallest
 * PTS near the beginning, the video's end the largest PTS near the end plus one frame, the audio's
 * end the last PES's PTS plus the samples of its ADTS frames. A missing, empty or non-TS file, or
 * one without video, is a MediaFileError.
 */
export async function scanSegment(file: string): Promise<SegmentSpan> {
  const fh = await open(file, 'r').catch(() => null);
  if (!fh) throw new MediaFileError(`segment ${file} is missing`, file);
  try {
    const { size } = await fh.stat();
    if (size < TS_PACKET * 3) throw new MediaFileError(`segment ${file} is empty or cut short (${String(size)} bytes)`, file);
    const headBytes = Buffer.alloc(Math.min(size, SCAN_BYTES));
    await fh.read(headBytes, 0, headBytes.length, 0);
    if (headBytes[0] !== TS_SYNC || headBytes[TS_PACKET] !== TS_SYNC || headBytes[2 * TS_PACKET] !== TS_SYNC) {
      throw new MediaFileError(`segment ${file} is not MPEG-TS`, file);
    }
    const head = readPes(headBytes, 0);
    const tailStart = Math.max(0, size - SCAN_BYTES);
    const tailBytes = Buffer.alloc(size - tailStart);
    await fh.read(tailBytes, 0, tailBytes.length, tailStart);
    const tail = readPes(tailBytes, syncOffset(tailBytes));

    const videoHead = head.filter((p) => p.kind === 'video').map((p) => p.pts);
    const audioHead = head.filter((p) => p.kind === 'audio').map((p) => p.pts);
    const videoTail = tail.filter((p) => p.kind === 'video').map((p) => p.pts);
    if (videoHead.length === 0 || videoTail.length === 0) throw new MediaFileError(`segment ${file} has no video`, file);
    const start = Math.min(...videoHead, ...audioHead);
    const videoEnd = Math.max(...videoTail) + frameTicks([...videoHead, ...videoTail]);
    const lastAudio = tail.filter((p) => p.kind === 'audio').at(-1);
    const audioEnd = lastAudio ? lastAudio.pts + adtsTicks(lastAudio.payload) : -Infinity;
    return { file, startSec: start / PTS_HZ, endSec: Math.max(videoEnd, audioEnd) / PTS_HZ, hasAudio: audioHead.length > 0 };
  } finally {
    await fh.close();
  }
}

interface Pes {
  kind: 'video' | 'audio';
  pts: number;
  /** The PES payload as far as the buffer holds it (kept for audio only). */
  payload: Buffer;
}

/** The first offset where three packets in a row start with the sync byte (the tail starts anywhere). */
function syncOffset(buf: Buffer): number {
  for (let o = 0; o < TS_PACKET && o + 2 * TS_PACKET < buf.length; o++) {
    if (buf[o] === TS_SYNC && buf[o + TS_PACKET] === TS_SYNC && buf[o + 2 * TS_PACKET] === TS_SYNC) return o;
  }
  return 0;
}

/** The PES packets that start in `buf` (video: stream ids 0xE0-0xEF, audio 0xC0-0xDF) with their PTS. */
function readPes(buf: Buffer, from: number): Pes[] {
  const found: Pes[] = [];
  const audioParts = new Map<Pes, Buffer[]>();
  const openAudio = new Map<number, Pes>(); // pid -> the audio PES being read
  for (let o = from; o + TS_PACKET <= buf.length; o += TS_PACKET) {
    if (buf[o] !== TS_SYNC) continue;
    const unitStart = (buf[o + 1]! & 0x40) !== 0;
    const pid = ((buf[o + 1]! & 0x1f) << 8) | buf[o + 2]!;
    const control = (buf[o + 3]! >> 4) & 3;
    if (!(control & 1)) continue; // no payload
    let p = o + 4;
    if (control & 2) p += 1 + buf[o + 4]!;
    const end = o + TS_PACKET;
    if (p >= end) continue;
    if (!unitStart) {
      const pes = openAudio.get(pid);
      if (pes) audioParts.get(pes)!.push(buf.subarray(p, end));
      continue;
    }
    openAudio.delete(pid);
    if (buf[p] !== 0 || buf[p + 1] !== 0 || buf[p + 2] !== 1 || p + 14 > end) continue;
    const streamId = buf[p + 3]!;
    const kind = streamId >= 0xe0 && streamId <= 0xef ? 'video' : streamId >= 0xc0 && streamId <= 0xdf ? 'audio' : null;
    if (!kind || !(buf[p + 7]! & 0x80)) continue; // not media, or no PTS
    const pts =
      ((buf[p + 9]! >> 1) & 7) * 2 ** 30 +
      buf[p + 10]! * 2 ** 22 +
      (buf[p + 11]! >> 1) * 2 ** 15 +
      buf[p + 12]! * 2 ** 7 +
      (buf[p + 13]! >> 1);
    const pes: Pes = { kind, pts, payload: Buffer.alloc(0) };
    found.push(pes);
    if (kind === 'audio') {
      audioParts.set(pes, [buf.subarray(p + 9 + buf[p + 8]!, end)]);
      openAudio.set(pid, pes);
    }
  }
  for (const [pes, parts] of audioParts) pes.payload = Buffer.concat(parts);
  return found;
}

/** One frame in 90 kHz ticks: the smallest step between distinct PTS values (1/30 s when unknown). */
function frameTicks(pts: number[]): number {
  const sorted = [...new Set(pts)].sort((a, b) => a - b);
  let step = Infinity;
  for (let i = 1; i < sorted.length; i++) step = Math.min(step, sorted[i]! - sorted[i - 1]!);
  return Number.isFinite(step) ? step : PTS_HZ / 30;
}

/** The duration of the ADTS frames in an AAC PES payload, in 90 kHz ticks. */
function adtsTicks(payload: Buffer): number {
  let ticks = 0;
  let o = 0;
  while (o + 7 <= payload.length && payload[o] === 0xff && (payload[o + 1]! & 0xf0) === 0xf0) {
    const sampleRate = AAC_RATES[(payload[o + 2]! >> 2) & 0x0f] ?? 0;
    const length = ((payload[o + 3]! & 0x03) << 11) | (payload[o + 4]! << 3) | (payload[o + 5]! >> 5);
    const blocks = (payload[o + 6]! & 0x03) + 1;
    if (!sampleRate || length < 7 || o + length > payload.length) break;
    ticks += (blocks * 1024 * PTS_HZ) / sampleRate;
    o += length;
  }
  return ticks;
}

/** A path in an ffconcat list: single-quoted, a quote written as '\''. */
function quote(p: string): string {
  return `'${p.replace(/'/g, "'\\''")}'`;
}

function signalOf(options: MediaToolOptions): { signal?: AbortSignal } {
  return options.signal ? { signal: options.signal } : {};
}

function failIfBroken(r: RunResult, what: string, file: string): void {
  if (r.killed === 'timeout') throw new MediaFileError(`${what} ran past its time limit`, file);
  if (r.killed === 'aborted') throw new MediaFileError(`${what} was cancelled`, file);
  if (r.code !== 0) throw new MediaFileError(`${what} failed (exit ${String(r.code)}): ${firstLines(r.stderr)}`, file);
}

function firstLines(text: string): string {
  return text.trim().split('\n').slice(0, 3).join(' | ');
}
