/**
 * One recording running on this process: the intake (the room's tracks from the SFU, one decoder
 * per track), the compositor and mixer, the encoder cutting segments. One clock drives it all:
 * at every tick as many frames as wall time says are due are written, and with each frame exactly
 * the samples of its 1/fps, so picture and sound cannot drift apart whatever the timers do.
 */
import { Compositor, Mixer } from './compositor.ts';
import { Encoder } from './encoder.ts';
import { TsTap } from './ts-tap.ts';
import { FileVideo } from './file-video.ts';
import { Intake, MEDIA_HOLD_MS, type VideoIn } from './intake.ts';
import { AUDIO_RATE, LAYOUT, type ClosedSegment, type Logger, type RecordingSettings, type Scene } from './types.ts';

export type { ClosedSegment, RecordingSettings };

/**
 * An encoder behind real time gets fewer new pictures (ADR 104): from 1 s behind a new one once a
 * second, from 10 s behind once every 5 s, and the last one again for the other frames. The same
 * Buffer queued twice costs no memory, and x264 encodes a repeated picture almost for free, so a
 * machine short of CPU shows a jerkier picture while the encoder catches up, instead of losing
 * the recording (the sound and the timeline stay exact).
 */
export function pictureEveryMs(behindSec: number): number {
  if (behindSec < 1) return 0;
  return behindSec < 10 ? 1000 : 5000;
}
/**
 * When the session gives up on its encoder and breaks (the runner starts a new one): when it has
 * written nothing for STUCK_MS while frames wait (stuck, not slow), or when it is so far behind
 * (GIVE_UP_BEHIND_SECONDS) that it would not catch up before the class ends. A slow encoder that
 * still makes progress is waited for: breaking would lose more than waiting (ADR 104).
 */
export function encoderGivenUp(behindSec: number, msSinceProgress: number): boolean {
  return behindSec > GIVE_UP_BEHIND_SECONDS || (behindSec >= 1 && msSinceProgress > STUCK_MS);
}
const STUCK_MS = 15_000;
const GIVE_UP_BEHIND_SECONDS = 120;
/**
 * The recording begins when every camera there at the start shows its first picture (so the file
 * does not open on empty tiles while decoders wait for a keyframe), or after this long at most.
 */
const FIRST_PICTURES_WAIT_MS = 3000;

export interface SessionOptions {
  mediaUrl: string;
  mediaToken: string;
  workDir: string;
  firstSeq: number;
  settings: RecordingSettings;
  scene: Scene;
  logger: Logger;
  onSegment: (s: ClosedSegment) => Promise<void>;
  /** How long the start waits for the first pictures at most (default FIRST_PICTURES_WAIT_MS; tests on a loaded machine). */
  firstPicturesWaitMs?: number;
}

export class RecordingSession {
  /**
   * Resolves when the first composed frame went to the encoder: once every camera present at the
   * start has a picture (or FIRST_PICTURES_WAIT_MS passed). Nothing is written before.
   */
  readonly flowing: Promise<void>;
  /** Rejects if the session breaks (encoder died, SFU gone for good). */
  readonly broken: Promise<never>;
  readonly intake: Intake;
  readonly encoder: Encoder;
  readonly #o: SessionOptions;
  readonly #compositor: Compositor;
  readonly #mixer: Mixer;
  readonly #video: FileVideo;
  readonly #timer: NodeJS.Timeout;
  /** The clock's zero: the first frame, once the first pictures are in (0 until then). */
  #t0 = 0;
  /** When the session began waiting for the first pictures, and the cameras it waits for. */
  readonly #openedAt: number;
  readonly #firstCameras: VideoIn[];
  #frames = 0;
  #samples = 0;
  #last: Buffer | null = null;
  #lastComposedAt = 0;
  /** The encoder's output as last seen, and when it last grew (a stuck encoder writes nothing). */
  #outSeen = 0;
  #outSeenAt = 0;
  /** Time spent composing, mixing and queueing (the Node side's own cost, diagnostics). */
  busyMs = 0;
  /** How long the start waited for the first pictures (diagnostics; FIRST_PICTURES_WAIT_MS at most). */
  firstPicturesMs = 0;
  /** Wall time (ms epoch) of the recording's first frame: where the file's timeline begins. */
  startedAtMs = 0;
  /** Frames that repeated the previous picture because the encoder was behind (diagnostics). */
  repeated = 0;
  /** The encoder's output as one MPEG-TS stream, for a live push of this class (ADR 084). */
  readonly liveTap = new TsTap();
  /** The most the encoder's input queue held, in seconds of frames (how far behind real time it fell). */
  maxLagSec = 0;
  /** Media seconds the encoder has closed into segments so far (the end of the last one). */
  closedSec = 0;
  /** How long the stop waited for the encoder to encode what was queued and close its last segment. */
  drainMs = 0;
  #flowing!: () => void;
  #fail!: (err: Error) => void;
  #stopping: Promise<void> | null = null;
  #writing = true;

  private constructor(o: SessionOptions, intake: Intake) {
    this.#o = o;
    this.intake = intake;
    this.flowing = new Promise<void>((resolve) => (this.#flowing = resolve));
    this.broken = new Promise<never>((_, reject) => (this.#fail = reject));
    this.broken.catch(() => undefined);
    this.#video = new FileVideo({ scene: o.scene, logger: o.logger });
    this.#compositor = new Compositor({
      scene: o.scene,
      tracks: intake,
      video: this.#video,
    });
    this.#mixer = new Mixer(intake);
    this.encoder = new Encoder({
      settings: o.settings,
      workDir: o.workDir,
      firstSeq: o.firstSeq,
      logger: o.logger,
      // A live push joins the tap at a keyframe (ADR 084).
      onLive: (c) => this.liveTap.write(c),
      onSegment: async (s) => {
        if (s.endSec !== undefined) this.closedSec = Math.max(this.closedSec, s.endSec);
        try {
          await o.onSegment(s);
        } catch (err) {
          this.#breaks(err instanceof Error ? err : new Error(String(err)));
          throw err;
        }
      },
    });
    this.encoder.done.catch((err: unknown) => this.#breaks(err instanceof Error ? err : new Error(String(err))));
    intake.broken.catch((err: unknown) => this.#breaks(err instanceof Error ? err : new Error(String(err))));
    this.#openedAt = performance.now();
    this.#firstCameras = [...intake.videos.values()].filter((v) => v.source === 'camera' && !v.paused);
    this.#tick();
    // Each tick composes after the event loop has read what is waiting on the decoders' pipes: a
    // timer runs before the loop polls for input, so after a stall the frames due would take their
    // sound before the decoders' output of those moments was read (silence there, and the late
    // sound dropped as too far behind).
    this.#timer = setInterval(() => setImmediate(() => this.#tick()), Math.max(5, Math.floor(1000 / o.settings.fps / 2)));
  }

  static async start(o: SessionOptions): Promise<RecordingSession> {
    const intake = await Intake.open({ mediaUrl: o.mediaUrl, mediaToken: o.mediaToken, logger: o.logger });
    return new RecordingSession(o, intake);
  }

  /** Seconds of media written so far. */
  get writtenSeconds(): number {
    return this.#frames / this.#o.settings.fps;
  }

  /** The media instant (session seconds: frame n at n/fps) of a wall instant (ms epoch). */
  mediaSecAt(wallMs: number): number {
    return this.startedAtMs ? (wallMs - this.startedAtMs) / 1000 : 0;
  }

  /** Grows while the encoder works (its output): a stop waits for as long as it grows. */
  get progress(): number {
    return this.encoder.outBytes;
  }

  #tick(): void {
    if (!this.#writing) return;
    const began = performance.now();
    this.#compose();
    this.busyMs += performance.now() - began;
  }

  /** Every camera there at the start has shown a picture (or gone, or paused), or the wait is over. */
  #firstPicturesIn(now: number): boolean {
    if (now - this.#openedAt >= (this.#o.firstPicturesWaitMs ?? FIRST_PICTURES_WAIT_MS)) return true;
    return this.#firstCameras.every((v) => v.pictureAt(now - MEDIA_HOLD_MS) !== null || v.closed || v.paused);
  }

  #compose(): void {
    if (this.#t0 === 0) {
      const now = performance.now();
      if (!this.#firstPicturesIn(now)) return;
      this.#t0 = now;
      this.startedAtMs = Date.now();
      this.firstPicturesMs = now - this.#openedAt;
    }
    const fps = this.#o.settings.fps;
    const due = Math.floor(((performance.now() - this.#t0) * fps) / 1000) + 1;
    if (due <= this.#frames) return;
    const behind = this.encoder.video.writableLength / this.#frameBytes() / fps;
    if (behind > this.maxLagSec) this.maxLagSec = behind;
    const now = performance.now();
    if (this.encoder.outBytes !== this.#outSeen || this.#outSeenAt === 0) {
      this.#outSeen = this.encoder.outBytes;
      this.#outSeenAt = now;
    }
    if (encoderGivenUp(behind, now - this.#outSeenAt)) {
      this.#breaks(new Error(`the encoder does not keep up with real time (${behind.toFixed(1)} s behind)`));
      return;
    }
    // One picture for every frame due now (more than one only after a stall of the event loop).
    let frame = this.#last;
    // Behind: fewer new pictures, the others repeat the last.
    const every = pictureEveryMs(behind);
    if (!frame || every === 0 || now - this.#lastComposedAt >= every) {
      this.#video.update();
      frame = this.#last = this.#compositor.compose();
      this.#lastComposedAt = now;
    } else this.repeated += due - this.#frames;
    // The sound of every frame due is mixed in one pull: after a stall it is all queued already,
    // and taken whole it is kept (a pull per frame would find more than a frame's worth and drop it).
    const samplesDue = Math.round((due * AUDIO_RATE) / fps);
    const pcm = this.#mixer.mix(this.#t0 + (this.#samples * 1000) / AUDIO_RATE - MEDIA_HOLD_MS, samplesDue - this.#samples);
    let at = 0;
    while (this.#frames < due) {
      this.#frames++;
      const upTo = Math.round((this.#frames * AUDIO_RATE) / fps) - this.#samples;
      this.encoder.video.write(frame);
      this.encoder.audio.write(pcm.subarray(at * 2, upTo * 2));
      at = upTo;
    }
    this.#samples = samplesDue;
    this.#flowing();
  }

  /** Composed frames are always the layout's size (the encoder scales them). */
  #frameBytes(): number {
    return (LAYOUT.frame.w * LAYOUT.frame.h * 3) / 2;
  }

  #breaks(err: Error): void {
    if (this.#stopping) return;
    this.#o.logger.warn({ err: err.message }, 'recording session broke');
    this.#fail(err);
    // Keep what was recorded: the encoder closes its segment and hands it on.
    void this.stop().catch(() => undefined);
  }

  /** Ends the encoder and the decoders at once (after a stop that took too long); closed pieces stay on disk. */
  kill(): void {
    this.#writing = false;
    clearInterval(this.#timer);
    this.#video.close();
    this.intake.close();
    this.encoder.kill();
  }

  /** Ends the encoder cleanly; every segment has been handed to onSegment before it resolves. */
  stop(): Promise<void> {
    this.#stopping ??= (async () => {
      this.#writing = false;
      clearInterval(this.#timer);
      const tracks = this.intake.summary();
      this.#video.close();
      this.intake.close();
      // The encoder encodes everything queued before it exits (ADR 104): the stop waits for it.
      const behindSec = Math.max(0, this.writtenSeconds - this.closedSec);
      const began = performance.now();
      try {
        await this.encoder.end();
      } finally {
        this.drainMs = Math.round(performance.now() - began);
        this.encoder.kill();
        this.#o.logger.info(
          {
            seconds: this.writtenSeconds,
            repeated: this.repeated,
            maxLagSec: Math.round(this.maxLagSec * 10) / 10,
            behindAtStopSec: Math.round(behindSec * 10) / 10,
            drainMs: this.drainMs,
            busyMs: Math.round(this.busyMs),
            tracks,
          },
          'recording session ended',
        );
      }
    })();
    return this.#stopping;
  }

  /**
   * How far the encoder is behind real time now: the seconds of frames queued to it and not yet
   * taken (as `#compose` reads it). The recorder's capacity (capacity.ts, ADR 105) watches it.
   */
  get lagSeconds(): number {
    return this.encoder.video.writableLength / this.#frameBytes() / this.#o.settings.fps;
  }

  /** The session's processes now: its encoder and its video decoders (capacity.ts reads their CPU). */
  get processIds(): number[] {
    const pids = [this.encoder.child.pid, ...[...this.intake.videos.values()].map((v) => v.decoder?.child.pid)];
    return pids.filter((p): p is number => p !== undefined);
  }
}
