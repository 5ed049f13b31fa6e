/**
 * The one encoder of a recording: composed yuv420p frames (always 1280x720, scaled to the
 * configured size when it differs) on a named pipe, mixed s16le 48 kHz mono on
 * pipe:3, H.264 (x264 veryfast, a keyframe every 2 s exactly) and AAC out, cut into MPEG-TS
 * segments numbered from `firstSeq`, and the same as one MPEG-TS stream on pipe:4 for a live push. ffmpeg writes a line to a CSV list each time it closes a
 * segment (name, start, end); the list is watched, and each new line is handed on with the
 * segment's real duration and size.
 *
 * Its log goes to a file, not a pipe to us: if the recorder is killed (-9), the encoder sees its
 * inputs end, closes the segment it was writing and exits, with nothing of ours to write to.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, constants, createWriteStream, openSync } from 'node:fs';
import { readFile, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { AUDIO_RATE, LAYOUT, type ClosedSegment, type Logger, type RecordingSettings } from './types.ts';

const LIST_POLL_MS = 250;
/** A keyframe every this many seconds, so segments cut on time. */
const KEYFRAME_SECONDS = 2;

export const segmentName = (seq: number) => `seg-${String(seq).padStart(6, '0')}.ts`;

/** Escapes a value for the tee muxer's `[key=value:...]target` syntax. */
function teeEscape(v: string): string {
  return v.replace(/[\\:|[\]=]/g, (c) => `\\${c}`);
}

/**
 * The encoder's ffmpeg arguments. Its one encoding goes to two outputs through the tee muxer: the
 * recording's segments, and an MPEG-TS stream on pipe:4 that a live push joins (ADR 084). A
 * failure of the second (nobody reading) is ignored: the segments go on.
 */
export function encoderArgs(s: RecordingSettings, firstSeq: number, workDir: string, list: string, videoIn = 'pipe:0'): string[] {
  const gop = String(Math.round(s.fps * KEYFRAME_SECONDS));
  const { w, h } = LAYOUT.frame;
  // Frames come at the layout's size; another output size is scaled here (bicubic; even, as yuv420p needs).
  const out = { w: s.width & ~1, h: s.height & ~1 };
  const scale = out.w === w && out.h === h ? [] : ['-vf', `scale=${String(out.w)}:${String(out.h)}:flags=bicubic`];
  return [
    ...['-hide_banner', '-nostdin', '-nostats', '-loglevel', 'warning'],
    ...['-f', 'rawvideo', '-pix_fmt', 'yuv420p', '-s', `${String(w)}x${String(h)}`, '-framerate', String(s.fps)],
    ...['-thread_queue_size', '64', '-i', videoIn],
    ...['-f', 's16le', '-ar', String(AUDIO_RATE), '-ac', '1', '-thread_queue_size', '1024', '-i', 'pipe:3'],
    ...['-map', '0:v', '-map', '1:a'],
    ...scale,
    ...['-c:v', 'libx264', '-preset', s.x264Preset ?? 'veryfast', '-pix_fmt', 'yuv420p'],
    ...['-b:v', `${String(s.videoKbps)}k`, '-maxrate', `${String(s.videoKbps)}k`, '-bufsize', `${String(s.videoKbps * 2)}k`],
    ...(s.cbr ? ['-minrate', `${String(s.videoKbps)}k`, '-x264-params', 'nal-hrd=cbr'] : []),
    ...['-g', gop, '-keyint_min', gop, '-sc_threshold', '0', '-force_key_frames', `expr:gte(t,n_forced*${String(KEYFRAME_SECONDS)})`],
    ...['-c:a', 'aac', '-b:a', `${String(s.audioKbps)}k`, '-ar', String(AUDIO_RATE), '-ac', '2'],
    '-f',
    'tee',
    [
      `[f=segment:segment_time=${String(s.segmentSeconds)}:segment_format=mpegts:segment_start_number=${String(firstSeq)}:segment_list=${teeEscape(list)}:segment_list_type=csv]${teeEscape(path.join(workDir, 'seg-%06d.ts'))}`,
      '[f=mpegts:onfail=ignore]pipe\\:4',
    ].join('|'),
  ];
}

export interface EncoderOptions {
  settings: RecordingSettings;
  workDir: string;
  firstSeq: number;
  logger: Logger;
  /** Called once per closed segment, in order; the next waits for it. */
  onSegment: (s: ClosedSegment) => Promise<void>;
  /** The same encoding as an MPEG-TS stream, as it comes (a live push joins it); read and dropped without it. */
  onLive?: (chunk: Buffer) => void;
}

/**
 * The encoder is the one process whose starvation loses the recording (ADR 074's overload mode
 * only thins the picture; 30 s behind, the session breaks). It is started through nice(1) with a
 * higher priority than the decoders and the rest of the machine (ENCODER_NICE), which takes where
 * the recorder may (root or CAP_SYS_NICE) and elsewhere leaves the default: nice says so in the
 * encoder's log and runs it all the same (ADR 078). Every thread of ffmpeg inherits it.
 */
export const ENCODER_NICE = -10;

export class Encoder {
  readonly child: ChildProcess;
  readonly video: Writable;
  readonly audio: Writable;
  /** Resolves when ffmpeg exited and every segment was handed on; rejects if it died on its own. */
  readonly done: Promise<void>;
  readonly #o: EncoderOptions;
  readonly #list: string;
  readonly #log: string;
  readonly #poll: NodeJS.Timeout;
  #seen = 0;
  /** Bytes the encoder has output so far (its MPEG-TS stream): grows while it works. */
  outBytes = 0;
  /** The list's times run this far ahead of the frames' (null until the first cut tells it). */
  #delaySec: number | null = null;
  #chain: Promise<void> = Promise.resolve();
  #ending = false;
  #failure: Error | null = null;
  readonly #fifo: string;
  #fifoOpen = false;

  constructor(o: EncoderOptions) {
    this.#o = o;
    const tag = `${String(o.firstSeq)}-${String(Date.now())}`;
    this.#list = path.join(o.workDir, `segments-${tag}.csv`);
    this.#log = path.join(o.workDir, `encoder-${tag}.log`);
    // The pictures go through a named pipe written from libuv's thread pool: one blocking write of
    // a whole frame there, whatever the event loop (shared with the SFU in a ROLE=all process) is
    // doing. The sound, 6 KiB a frame, stays on a plain pipe. ADR 078 has what was measured.
    const fifo = path.join(o.workDir, `video-${tag}.fifo`);
    const made = spawnSync('mkfifo', ['-m', '600', fifo]);
    if (made.status !== 0) throw new Error(`mkfifo failed: ${made.stderr?.toString() ?? String(made.error)}`);
    this.#fifo = fifo;
    const logFd = openSync(this.#log, 'a');
    this.child = spawn(
      'nice',
      ['-n', String(ENCODER_NICE), 'ffmpeg', ...encoderArgs(o.settings, o.firstSeq, o.workDir, this.#list, fifo)],
      {
        stdio: ['ignore', 'ignore', logFd, 'pipe', 'pipe'],
      },
    );
    closeSync(logFd);
    const video = createWriteStream(fifo);
    video.once('open', () => (this.#fifoOpen = true));
    this.video = video;
    this.audio = this.child.stdio[3] as Writable;
    // Always read, so the encoder never waits on it.
    const live = this.child.stdio[4] as Readable;
    live.on('error', () => undefined);
    live.on('data', (c: Buffer) => {
      this.outBytes += c.length;
      o.onLive?.(c);
    });
    // A write after ffmpeg is gone fails here; its exit tells the session.
    this.video.on('error', () => undefined);
    this.audio.on('error', () => undefined);
    this.#poll = setInterval(() => this.#readList(), LIST_POLL_MS);
    this.#poll.unref();
    this.done = new Promise<void>((resolve, reject) => {
      this.child.once('error', (err) => (this.#failure = err));
      this.child.once('exit', (code, signal) => {
        clearInterval(this.#poll);
        this.#releaseFifo();
        this.#readList();
        const clean = code === 0 && this.#ending;
        if (!clean && !this.#failure) this.#failure = new Error(`the encoder exited (${String(code ?? signal)})`);
        void this.#chain.then(async () => {
          if (clean) return resolve();
          const tail = await readFile(this.#log, 'utf8').catch(() => '');
          reject(Object.assign(this.#failure!, { log: tail.slice(-1500) }));
        }, reject);
      });
    });
    this.done.catch(() => undefined);
  }

  /**
   * After ffmpeg is gone: a writer still waiting to open the named pipe (ffmpeg died before it read
   * its input) is let through by a reader of our own, so no thread of the pool stays blocked; its
   * writes then fail (EPIPE), which is ignored. The pipe's file goes.
   */
  #releaseFifo(): void {
    if (!this.#fifoOpen) {
      try {
        closeSync(openSync(this.#fifo, constants.O_RDONLY | constants.O_NONBLOCK));
      } catch {
        // gone already
      }
    }
    void rm(this.#fifo, { force: true });
  }

  /** Ends both inputs: ffmpeg finishes the segment it writes and exits; `done` follows. */
  end(): Promise<void> {
    this.#ending = true;
    this.video.end();
    this.audio.end();
    return this.done;
  }

  kill(): void {
    this.#ending = true;
    this.child.kill('SIGKILL');
  }

  /**
   * A segment's span in the session's media seconds (frame n at n/fps). The list gives packet
   * times, which run a constant reordering delay (x264's B-frames: two or three frames) ahead of
   * the frames' own; every cut is on a forced keyframe, at an exact multiple of KEYFRAME_SECONDS of
   * media, so the first cut after the start tells the delay.
   */
  #span(start: number, end: number): { startSec: number; endSec: number } {
    if (this.#delaySec === null && start > 0) {
      const off = start - Math.round(start / KEYFRAME_SECONDS) * KEYFRAME_SECONDS;
      this.#delaySec = off >= 0 && off < 0.5 ? off : 0;
    }
    const d = this.#delaySec ?? 0;
    return { startSec: start > 0 ? Math.max(0, start - d) : 0, endSec: Math.max(0, end - d) };
  }

  #readList(): void {
    this.#chain = this.#chain.then(async () => {
      const text = await readFile(this.#list, 'utf8').catch(() => '');
      const lines = text.split('\n').filter((l) => l.trim() !== '');
      // Only whole lines: the last one may still be written.
      const complete = text.endsWith('\n') ? lines : lines.slice(0, -1);
      while (this.#seen < complete.length) {
        const [name, start, end] = complete[this.#seen]!.split(',');
        this.#seen++;
        const seq = Number(/seg-(\d+)\.ts/.exec(name ?? '')?.[1]);
        const file = path.join(this.#o.workDir, name!);
        const bytes = (await stat(file)).size;
        const durationMs = Math.round((Number(end) - Number(start)) * 1000);
        await this.#o.onSegment({ seq, file, durationMs, bytes, ...this.#span(Number(start), Number(end)) });
      }
    });
    this.#chain.catch((err: unknown) => {
      // Once: a failed hand-on stays failed (the chain holds it), so the list is not read again.
      if (this.#failure) return;
      this.#failure = err instanceof Error ? err : new Error(String(err));
      clearInterval(this.#poll);
      this.#o.logger.warn({ err }, 'a closed segment could not be handed on');
    });
  }
}
