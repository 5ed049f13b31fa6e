/**
 * One room composed on this recorder (ADR 085): a recording and a live push of the same class share
 * one session (one intake, one compositor, one encoding). The stage starts the session when the
 * first of them arrives, starts it again after a break while someone still uses it, and stops it
 * when the last one leaves.
 *
 * - A recording takes the closed segments from the one in progress when it arrives (so its file
 *   and its start time begin up to one segment before it was asked), numbered from its own next
 *   sequence number and moved into its own directory.
 * - Its end is a media instant (ADR 104): the stop's wall time on the session's clock. It takes
 *   every segment that begins before that instant, however far behind real time the encoder is,
 *   and leaves with the one that reaches it (the runner cuts the rest by media time). The last user
 *   stops the session, whose encoder encodes everything queued; with a push going on, it waits for
 *   the encoder to get there, for a time that grows with how far behind it is (LEAVE_WAIT_*).
 * - A live push is given the session's MPEG-TS tap; after a restart, the new session's tap.
 * - A segment no recording takes is deleted as soon as it closes.
 */
import { randomBytes } from 'node:crypto';
import { copyFile, mkdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { segmentName } from './encoder.ts';
import type { TsTap } from './ts-tap.ts';
import type { ClosedSegment, Logger } from './types.ts';

/**
 * A recording leaving while the session goes on (a push) waits for the encoder to reach its stop:
 * this long, plus twice the media seconds the encoder still had to close at the stop, at most
 * LEAVE_WAIT_MAX_MS. A segment it did not get by then has no taker.
 */
export const LEAVE_WAIT_BASE_MS = 10_000;
export const LEAVE_WAIT_MAX_MS = 60_000;
/** A broken session is started again after this. */
const RESTART_MS = 1000;
/**
 * A stage whose last push ended keeps its session this long: a teacher starting again (after a
 * refused key, with another platform) or a recording coming next has the room composed at once.
 */
export const LINGER_MS = 5000;

export interface StageSession {
  readonly flowing: Promise<void>;
  readonly broken: Promise<never>;
  /** Wall time (ms epoch) of the session's first frame: its media second 0 (segments' startSec/endSec count from it). */
  readonly startedAtMs?: number;
  /** How long the start waited for the cameras' first pictures (diagnostics). */
  readonly firstPicturesMs?: number;
  /** The most the encoder fell behind real time (s), and the frames that repeated a picture for it (diagnostics). */
  readonly maxLagSec?: number;
  readonly repeated?: number;
  readonly liveTap: TsTap;
}

export interface StageDeps {
  roomNumber: string;
  logger: Logger;
  /** Opens the room (media, scene) and starts a session writing `seg-<seq>.ts` files into workDir. */
  open(o: { workDir: string; firstSeq: number; onSegment: (s: ClosedSegment) => Promise<void> }): Promise<StageSession>;
  /** Ends a session (its last segment is handed on first), and whatever it opened. */
  close(session: StageSession): Promise<void>;
  /** The stage has nobody left and has stopped. */
  onEmpty(): void;
}

/** How a recording left the stage (ADR 104). */
export interface RecordingLeft {
  /** Wall time (ms epoch) it left. */
  endedAtMs: number;
  /** Media seconds its last segment runs past the stop's instant (the runner cuts them); 0 when none. */
  overshootSec: number;
  /** How far the encoder's closed segments were behind the stop's instant when the stop came (s). */
  behindSec: number;
  /** How long the leave waited for the encoder to reach the stop. */
  waitedMs: number;
  /** False when the wait ran out (or the session ended) before a segment reached the stop. */
  reached: boolean;
  /** The session's most lag behind real time (s), and its pictures repeated for it (frames). */
  maxLagSec: number;
  repeated: number;
}

export interface RecordingUse {
  /** Resolves with the wall time (ms epoch) of the first frame this recording has, once media flows. */
  readonly flowing: Promise<number>;
  /** Resolves (never rejects) if the stage could not start a session before this use saw media flow. */
  readonly failed: Promise<Error>;
  /**
   * Leaves at the media instant of `stopAtMs` (the teacher's stop, wall ms epoch; default now):
   * takes every segment beginning before it, waiting for the encoder to get there (stopping the
   * session if nobody else uses it).
   */
  leave(stopAtMs?: number): Promise<RecordingLeft>;
}

export interface LiveUse {
  readonly flowing: Promise<number>;
  readonly failed: Promise<Error>;
  leave(): Promise<void>;
}

interface RecordingConsumer {
  kind: 'recording';
  workDir: string;
  firstSeq: number;
  /** The stage's sequence number of this recording's first segment (set when the first session is known). */
  fromStageSeq: number;
  onSegment: (s: ClosedSegment) => Promise<void>;
  /** Leaving: the stop's media instant on the current session's clock (null: not leaving). */
  stopSec: number | null;
  /** When the leave was asked (performance.now()), and how far behind the encoder was then. */
  leaveAskedAt: number;
  behindSec: number;
  /** The end (media seconds) of the last segment it took from the current session. */
  tookUpToSec: number;
  waitTimer: NodeJS.Timeout | null;
  /** The session it leaves (its figures go in the summary). */
  leaving: StageSession | null;
  left: (how: { reached: boolean }) => void;
  flowed: (at: number) => void;
  failed: (err: Error) => void;
  sawFlow: boolean;
}

interface LiveConsumer {
  kind: 'live';
  onTap: (tap: TsTap | null) => void;
  flowed: (at: number) => void;
  failed: (err: Error) => void;
  sawFlow: boolean;
}

type Consumer = RecordingConsumer | LiveConsumer;

export class RoomStage {
  readonly roomNumber: string;
  /** Where the sessions write their segments. */
  readonly workDir: string;
  /** The directory belongs to the recording that made the stage (it is that task's work directory). */
  readonly #dirOwner: RecordingConsumer | null;
  readonly #d: StageDeps;
  readonly #users = new Set<Consumer>();
  #session: StageSession | null = null;
  #flowingSince = 0;
  /** A session being stopped (its encoder still hands on what it had), and when it began flowing (0: never). */
  #closing: StageSession | null = null;
  #closingSince = 0;
  /** Wall time (ms epoch) the segment in progress began: the session's first frame, then each close (its media end on the session's clock). */
  #segmentSince = 0;
  /** Media seconds of the current session closed into segments so far. */
  #closedSec = 0;
  /** The next segment's sequence number (of the stage). */
  #nextSeq: number;
  #running: Promise<void> | null = null;
  #wakeStop: (() => void) | null = null;
  #closed = false;
  #linger: NodeJS.Timeout | null = null;

  private constructor(d: StageDeps, workDir: string, firstSeq: number, dirOwner: RecordingConsumer | null) {
    this.#d = d;
    this.roomNumber = d.roomNumber;
    this.workDir = workDir;
    this.#nextSeq = firstSeq;
    this.#dirOwner = dirOwner;
  }

  /** A stage made for a recording: it writes into the recording's directory with the recording's numbers (a crash leaves them there). */
  static forRecording(d: StageDeps, r: { workDir: string; firstSeq: number; onSegment: (s: ClosedSegment) => Promise<void> }) {
    const c = recordingConsumer(r);
    const stage = new RoomStage(d, r.workDir, r.firstSeq, c.consumer);
    stage.#add(c.consumer);
    return { stage, use: c.use(stage) };
  }

  /** A stage made for a live push: a directory of its own under `root`, whose segments are deleted unless a recording comes. */
  static forLive(d: StageDeps, root: string, onTap: (tap: TsTap | null) => void) {
    const stage = new RoomStage(d, path.join(root, `stage-${d.roomNumber}-${randomBytes(4).toString('hex')}`), 0, null);
    const use = stage.addLive(onTap);
    return { stage, use };
  }

  /** Whether the stage still runs (a closed one takes nobody). */
  get open(): boolean {
    return !this.#closed;
  }

  /** Whether a session writes into `dir` (the runner must not delete it under it). */
  writesInto(dir: string): boolean {
    return !this.#closed && path.resolve(dir) === path.resolve(this.workDir);
  }

  addRecording(r: { workDir: string; firstSeq: number; onSegment: (s: ClosedSegment) => Promise<void> }): RecordingUse {
    const c = recordingConsumer(r);
    this.#add(c.consumer);
    return c.use(this);
  }

  addLive(onTap: (tap: TsTap | null) => void): LiveUse {
    let flowed!: (at: number) => void;
    let failed!: (err: Error) => void;
    const flowing = new Promise<number>((r) => (flowed = r));
    const failing = new Promise<Error>((r) => (failed = r));
    const c: LiveConsumer = { kind: 'live', onTap, flowed, failed, sawFlow: false };
    this.#add(c);
    return {
      flowing,
      failed: failing,
      leave: () => {
        c.onTap(null);
        this.#remove(c, LINGER_MS);
        return Promise.resolve();
      },
    };
  }

  #add(c: Consumer): void {
    if (this.#closed) throw new Error('the stage has closed');
    if (this.#linger) clearTimeout(this.#linger);
    this.#linger = null;
    this.#users.add(c);
    if (this.#session && this.#flowingSince) {
      if (c.kind === 'recording') c.fromStageSeq = this.#nextSeq;
      if (c.kind === 'live') c.onTap(this.#session.liveTap);
      c.sawFlow = true;
      // A recording has the segment in progress from its beginning: that is where its file begins.
      c.flowed(c.kind === 'recording' ? this.#segmentSince : Date.now());
    } else if (c.kind === 'recording') {
      c.fromStageSeq = this.#nextSeq;
    }
    this.#running ??= this.#run();
  }

  /** The last user gone: the session stops after `lingerMs` unless someone comes back. */
  #remove(c: Consumer, lingerMs: number): void {
    this.#users.delete(c);
    if (this.#users.size > 0 || this.#closed) return;
    if (this.#linger) clearTimeout(this.#linger);
    this.#linger = setTimeout(() => {
      this.#linger = null;
      if (this.#users.size === 0) this.#wakeStop?.();
    }, lingerMs);
    this.#linger.unref();
  }

  /** Ends the stage now, whoever uses it (the process is closing); resolves once the session stopped. */
  async shutdown(): Promise<void> {
    if (this.#linger) clearTimeout(this.#linger);
    this.#linger = null;
    this.#users.clear();
    this.#wakeStop?.();
    await this.#running;
  }

  /** Starts sessions while anyone uses the stage; a broken one is started again after RESTART_MS. */
  async #run(): Promise<void> {
    await mkdir(this.workDir, { recursive: true });
    const log = this.#d.logger;
    while (this.#users.size > 0) {
      let session: StageSession | null = null;
      let broke = false;
      const stop = new Promise<'stop'>((r) => (this.#wakeStop = () => r('stop')));
      try {
        session = await this.#d.open({ workDir: this.workDir, firstSeq: this.#nextSeq, onSegment: (s) => this.#segment(s) });
        this.#session = session;
        const first = await Promise.race([session.flowing.then(() => 'flowing' as const), session.broken, stop]);
        if (first === 'flowing') {
          this.#flowingSince = session.startedAtMs ?? Date.now();
          this.#segmentSince = this.#flowingSince;
          this.#closedSec = 0;
          // Each session has its own media clock.
          for (const u of this.#users) if (u.kind === 'recording') u.tookUpToSec = 0;
          log.info({ firstPicturesMs: Math.round(session.firstPicturesMs ?? 0), users: this.#users.size }, 'room session flowing');
          for (const u of this.#users) {
            if (u.kind === 'live') u.onTap(session.liveTap);
            if (!u.sawFlow) {
              u.sawFlow = true;
              u.flowed(this.#flowingSince);
            }
          }
          await Promise.race([session.broken, stop]);
        }
      } catch (err) {
        const e = err instanceof Error ? err : new Error(String(err));
        broke = true;
        log.warn({ err: e }, 'the room session broke');
        for (const u of this.#users) {
          if (u.kind === 'live') u.onTap(null);
          if (!u.sawFlow) u.failed(e);
        }
      } finally {
        this.#closing = session;
        this.#closingSince = this.#flowingSince;
        this.#flowingSince = 0;
        this.#session = null;
        if (session) await this.#d.close(session);
        this.#closing = null;
        this.#closingSince = 0;
        // Recordings leaving get what the stopped session handed on last (its encoder encoded all it had).
        for (const u of this.#users) if (u.kind === 'recording' && u.stopSec !== null) this.#leaveNow(u, false);
      }
      // After a break, a moment before trying again; after a stop someone came back during, at once.
      if (this.#users.size > 0 && broke) await new Promise<void>((r) => setTimeout(r, RESTART_MS).unref());
    }
    this.#closed = true;
    this.#wakeStop = null;
    // A recording's directory is that recording's until it lets it go (its join may still read it).
    if (!this.#dirOwner || this.#dirReleased) await rm(this.workDir, { recursive: true, force: true });
    this.#d.onEmpty();
  }

  #dirReleased = false;

  /**
   * The recording that made the stage is done with its directory while the stage still writes into
   * it: the stage deletes it when it ends. False when the stage has ended (the caller deletes it).
   */
  releaseDir(): boolean {
    if (this.#closed) return false;
    this.#dirReleased = true;
    return true;
  }

  #leaveNow(c: RecordingConsumer, reached: boolean): void {
    this.#users.delete(c);
    if (c.waitTimer) clearTimeout(c.waitTimer);
    c.waitTimer = null;
    c.left({ reached });
    c.stopSec = null;
    if (this.#users.size === 0) this.#wakeStop?.();
  }

  /** Whether a leaving recording still takes `s`: it begins before the stop's instant (a segment without a span: yes). */
  static #wants(r: RecordingConsumer, s: ClosedSegment): boolean {
    if (r.stopSec === null || s.startSec === undefined) return true;
    // A frame's worth of slack: a segment beginning at the stop holds nothing before it.
    return s.startSec < r.stopSec - 0.001;
  }

  /** A closed segment: to each recording that takes it (moved into its directory, renumbered), deleted if none does. */
  async #segment(s: ClosedSegment): Promise<void> {
    this.#nextSeq = Math.max(this.#nextSeq, s.seq + 1);
    if (s.endSec !== undefined) this.#closedSec = Math.max(this.#closedSec, s.endSec);
    // Where the next segment begins: in media time when the segment says (an encoder behind real time closes it late).
    this.#segmentSince = s.endSec !== undefined && this.#flowingSince ? this.#flowingSince + s.endSec * 1000 : Date.now();
    const takers = [...this.#users].filter(
      (u): u is RecordingConsumer => u.kind === 'recording' && s.seq >= u.fromStageSeq && RoomStage.#wants(u, s),
    );
    // A leaving recording offered a segment beginning after its stop has all it needs.
    for (const u of [...this.#users]) {
      if (u.kind === 'recording' && u.stopSec !== null && s.seq >= u.fromStageSeq && !takers.includes(u)) this.#leaveNow(u, true);
    }
    // Usually one; a recording leaving and the next one arriving can share the segment between them.
    for (const [i, r] of takers.entries()) {
      const seq = r.firstSeq + (s.seq - r.fromStageSeq);
      const file = path.join(r.workDir, segmentName(seq));
      if (path.resolve(file) !== path.resolve(s.file)) {
        await mkdir(r.workDir, { recursive: true });
        if (i === takers.length - 1) await rename(s.file, file);
        else await copyFile(s.file, file);
      }
      await r.onSegment({ ...s, seq, file });
      if (s.endSec !== undefined) r.tookUpToSec = Math.max(r.tookUpToSec, s.endSec);
      // The segment reaching the stop's instant is its last (without spans: the first after the stop was asked).
      if (r.stopSec !== null && (s.endSec === undefined || s.endSec >= r.stopSec - 0.001)) this.#leaveNow(r, true);
    }
    if (takers.length === 0) await rm(s.file, { force: true });
  }

  /**
   * A recording leaves at the media instant of `stopAtMs` (ADR 104): when it is the last user the
   * session stops and its encoder hands on everything queued; else it takes segments until one
   * reaches the instant, waiting for a bounded time that grows with how far behind the encoder is.
   */
  leaveRecording(c: RecordingConsumer, stopAtMs = Date.now()): Promise<RecordingLeft> {
    if (!this.#users.has(c)) {
      return Promise.resolve({
        endedAtMs: Date.now(),
        overshootSec: 0,
        behindSec: 0,
        waitedMs: 0,
        reached: true,
        maxLagSec: 0,
        repeated: 0,
      });
    }
    return new Promise<RecordingLeft>((resolve) => {
      const done = c.left;
      c.left = ({ reached }) => {
        done({ reached });
        const stopSec = c.stopSec ?? 0;
        resolve({
          endedAtMs: Date.now(),
          overshootSec: reached && c.tookUpToSec > stopSec ? c.tookUpToSec - stopSec : 0,
          behindSec: c.behindSec,
          waitedMs: Math.round(performance.now() - c.leaveAskedAt),
          reached,
          maxLagSec: c.leaving?.maxLagSec ?? 0,
          repeated: c.leaving?.repeated ?? 0,
        });
      };
      c.leaveAskedAt = performance.now();
      // A session being stopped (it broke, or the last push left) still hands on what its encoder had: the recording waits for it.
      const closing = !this.#session && this.#closing !== null;
      const session = this.#session ?? this.#closing;
      const since = closing ? this.#closingSince : this.#flowingSince;
      c.leaving = session;
      // Nothing flowing (yet or any more): nothing to wait for.
      if (!session || !since) {
        c.stopSec = 0;
        c.tookUpToSec = 0;
        this.#leaveNow(c, true);
        return;
      }
      // The stop's instant on the session's clock; never before the recording's own start.
      const origin = session.startedAtMs ?? since;
      c.stopSec = Math.max(0, (stopAtMs - origin) / 1000);
      c.behindSec = Math.max(0, c.stopSec - this.#closedSec);
      // A stop the closed segments already reach (the stop was seen late): it has them all.
      if (c.tookUpToSec >= c.stopSec && c.tookUpToSec > 0) {
        this.#leaveNow(c, true);
        return;
      }
      // The session's stop lets it go once the encoder handed on all it had.
      if (closing) return;
      const others = [...this.#users].some((u) => u !== c);
      // The last user: the session stops, its encoder hands on all it was given, and the run lets the recording go.
      if (!others) {
        this.#wakeStop?.();
        return;
      }
      const waitMs = Math.min(LEAVE_WAIT_MAX_MS, LEAVE_WAIT_BASE_MS + 2000 * c.behindSec);
      c.waitTimer = setTimeout(() => {
        c.waitTimer = null;
        this.#d.logger.warn(
          { behindSec: Math.round(c.behindSec * 10) / 10, waitedMs: waitMs },
          'the encoder did not reach the recording’s stop in time: it ends with what was closed',
        );
        if (c.stopSec !== null) this.#leaveNow(c, false);
      }, waitMs);
      c.waitTimer.unref();
    });
  }
}

function recordingConsumer(r: { workDir: string; firstSeq: number; onSegment: (s: ClosedSegment) => Promise<void> }) {
  let flowed!: (at: number) => void;
  let failed!: (err: Error) => void;
  const flowing = new Promise<number>((res) => (flowed = res));
  const failing = new Promise<Error>((res) => (failed = res));
  const consumer: RecordingConsumer = {
    kind: 'recording',
    workDir: r.workDir,
    firstSeq: r.firstSeq,
    fromStageSeq: 0,
    onSegment: r.onSegment,
    stopSec: null,
    leaveAskedAt: 0,
    behindSec: 0,
    tookUpToSec: 0,
    waitTimer: null,
    leaving: null,
    left: () => undefined,
    flowed,
    failed,
    sawFlow: false,
  };
  return {
    consumer,
    use: (stage: RoomStage): RecordingUse => ({ flowing, failed: failing, leave: (stopAtMs) => stage.leaveRecording(consumer, stopAtMs) }),
  };
}
