/**
 * One ffmpeg per video track: whole VP8 frames arrive on stdin in IVF, put together by the recorder
 * (vp8.ts, ADR 082); the pictures leave on stdout as YUV4MPEG2 (yuv420p at the tile's size). Not
 * rawvideo: ffmpeg 5.1 writes a rawvideo picture to a pipe only when the next one comes (a frame
 * late, 67 ms at 15 fps), a y4m picture at once (ADR 080). Sound is decoded in the recorder itself
 * (ADR 083).
 * A decoder dies with the recorder: its stdout is a pipe to us, so a write after we are gone
 * fails (EPIPE) and it exits; `stop` kills it too.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { ivfFrame, ivfHeader } from './vp8.ts';

/**
 * No probing and no delay; no `nobuffer`, which throws away what the stream's probing read, the
 * first keyframe (measured: 0 of 10 pictures decoded with it, 10 of 10 without, ADR 082).
 */
const VIDEO_LOW_DELAY = ['-flags', 'low_delay', '-analyzeduration', '0', '-probesize', '32'];
/** Frames queued for a video decoder beyond this: it is not keeping up, and is started again. */
const VIDEO_QUEUE_LIMIT = 8 * 1024 * 1024;

export interface DecoderOptions {
  /** The size of the output (scaled keeping the aspect, padded black). */
  width: number;
  height: number;
  /**
   * Each chunk of output, as it comes (video: the caller reads the y4m stream). One it cannot read
   * (it throws) ends this decoder, reported as an exit.
   */
  onData: (chunk: Buffer) => void;
  onExit: (code: number | null, stderrTail: string) => void;
}

export class Decoder {
  readonly child: ChildProcess;
  #stopped = false;
  /** The presentation time of the last frame written (90 kHz, always rising) and its RTP timestamp. */
  #pts = -1;
  #rtpTs = 0;
  /** Frames written, and bytes written that ffmpeg has not taken yet (diagnostics). */
  written = 0;
  get queuedBytes(): number {
    return this.child.stdin?.writableLength ?? 0;
  }

  private constructor(child: ChildProcess) {
    this.child = child;
  }

  static start(o: DecoderOptions): Decoder {
    const child = spawn(
      'ffmpeg',
      [
        '-hide_banner',
        '-nostdin',
        '-nostats',
        '-loglevel',
        'error',
        ...VIDEO_LOW_DELAY,
        // One decoding thread: frame threads would hold each picture back a frame or two.
        '-threads',
        '1',
        '-f',
        'ivf',
        '-i',
        'pipe:0',
        '-map',
        '0:v:0',
        '-vf',
        `scale=${String(o.width)}:${String(o.height)}:force_original_aspect_ratio=decrease,pad=${String(o.width)}:${String(o.height)}:(ow-iw)/2:(oh-ih)/2,format=yuv420p`,
        '-fps_mode',
        'passthrough',
        '-f',
        'yuv4mpegpipe',
        'pipe:1',
      ],
      { stdio: ['pipe', 'pipe', 'pipe'] },
    );
    const d = new Decoder(child);
    // A write after ffmpeg is gone fails (EPIPE): its exit is reported by 'close'.
    child.stdin.on('error', () => undefined);
    child.stdin.write(ivfHeader(o.width, o.height));
    let tail = '';
    child.stderr.on('data', (c: Buffer) => {
      tail = (tail + c.toString()).slice(-2000);
    });
    child.stdout.on('data', (c: Buffer) => {
      if (d.#stopped) return;
      try {
        o.onData(c);
      } catch (err) {
        tail += `\n${String(err)}`;
        child.stdout.removeAllListeners('data');
        child.kill('SIGKILL');
      }
    });
    child.once('error', (err) => {
      tail += String(err);
    });
    child.once('close', (code) => {
      if (!d.#stopped) o.onExit(code, tail);
    });
    return d;
  }

  /**
   * Writes a whole VP8 frame. A decoder that has fallen this far behind is stopped (its
   * exit is reported, and the intake starts another at the next keyframe).
   */
  writeFrame(data: Buffer, rtpTimestamp: number): void {
    const stdin = this.child.stdin;
    if (this.#stopped || !stdin || !this.running || stdin.destroyed) return;
    // The RTP clock, unwrapped and kept rising: a new leg's clock starts anywhere.
    const step = (rtpTimestamp - this.#rtpTs) >>> 0;
    this.#pts = this.#pts < 0 ? 0 : this.#pts + (step > 0 && step < 90_000 * 10 ? step : 3000);
    this.#rtpTs = rtpTimestamp;
    if (stdin.writableLength > VIDEO_QUEUE_LIMIT) {
      this.child.kill('SIGKILL');
      return;
    }
    stdin.write(ivfFrame(data, this.#pts));
    this.written++;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  stop(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    if (this.running) this.child.kill('SIGKILL');
  }
}
