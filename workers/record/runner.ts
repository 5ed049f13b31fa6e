/**
 * The recorder role's loop (ADR 077): claims recording tasks from the database, records each with
 * a RecordingSession, uploads every closed segment as it closes, and at the stop joins them into
 * one MP4. A task whose recorder died is claimed again once its lease runs out (ADR 071): segments
 * the dead process finished on this machine's disk are uploaded first, then recording goes on
 * with the next sequence number, so the final file covers what came before and after the gap.
 *
 * It also claims live pushes (ADR 085). A room is composed once here whatever uses it: a recording
 * and a live push of the same class share one RoomStage (stage.ts), one session, one encoding.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '#core/platform/logger.ts';
import type { ObjectStore } from '#core/platform/objects.ts';
import { segmentKey, type ClaimedTask, type RecordTasks } from '#core/recording/record-tasks.ts';
import type { ClaimedLive, LiveTasks } from '#core/streaming/live-tasks.ts';
import type { ClosedSegment, RecordingSettings, Scene } from './types.ts';
import { segmentName } from './encoder.ts';
import { Assembly, type AssemblyResult } from './assembly.ts';
import { LivePush, type LivePushOptions, type LiveStatus } from './live-push.ts';
import { RoomStage, type LiveUse, type RecordingLeft, type RecordingUse, type StageDeps, type StageSession } from './stage.ts';
import type { TsTap } from './ts-tap.ts';
import type { Capacity, CapacityView, Refusal } from './capacity.ts';
import { withRetries } from './retry.ts';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref());

/** The task store (core/recording/record-tasks.ts) as the runner uses it. */
export type TaskStore = Pick<
  RecordTasks,
  'claim' | 'renew' | 'peek' | 'stopRequestedAt' | 'started' | 'addSegment' | 'segments' | 'finish' | 'fail'
> &
  Partial<Pick<RecordTasks, 'waiting'>>;
/** The live task store (core/streaming/live-tasks.ts) as the runner uses it. */
export type LiveTaskStore = Pick<LiveTasks, 'claim' | 'renew' | 'peek' | 'live' | 'reconnecting' | 'fail'>;
/** A push of the room's encoding to a platform (live-push.ts). */
export interface PushHandle {
  readonly status: LiveStatus;
  end(): Promise<void>;
}

/**
 * A session's stop waits while its encoder makes progress (ADR 104: it encodes all it was given);
 * an encoder with no output for this long is ended by force, and so is one still going after
 * SESSION_STOP_MAX_MS.
 */
const SESSION_STOP_STALL_MS = 20_000;
const SESSION_STOP_MAX_MS = 10 * 60_000;
/** A session started for a live push does not wait for the cameras' first pictures: a refused key is known only once bytes flow, and the platform shows a tile filling in a moment later. */
const LIVE_FIRST_PICTURES_WAIT_MS = 0;
/** How often a running recording looks for a stop between renewals (a read). */
const STOP_POLL_MS = 250;

export interface SessionHandle {
  readonly flowing: Promise<void>;
  readonly broken: Promise<never>;
  stop(): Promise<void>;
  /** Wall time (ms epoch) of the first frame, once flowing. */
  readonly startedAtMs?: number;
  /** Ends every process of the session at once (after a stop that took too long). */
  kill?(): void;
  /** Grows while the encoder works (its output bytes): a stop waits for as long as it grows. */
  readonly progress?: number;
  /** The encoding as MPEG-TS, for a live push (ADR 084). */
  readonly liveTap: TsTap;
  /** Seconds of frames queued to the encoder: how far it is behind real time (ADR 105). */
  readonly lagSeconds?: number;
  /** Its processes (encoder, decoders), whose CPU the capacity measures (ADR 105). */
  readonly processIds?: number[];
}

/** What the runner reports of its load (ADR 105): the operators' metrics read it. */
export interface RunnerStats {
  /** Rooms composed here, and the hard limit (RECORDER_SLOTS). */
  rooms: number;
  slots: number;
  /** Sessions running here: lag (now and over the window) and measured cost in cores (null: not yet). */
  sessions: CapacityView['sessions'];
  /** What one more session is taken to cost, in cores, and whether that was measured. */
  nextCores: number | null;
  measured: boolean;
  /** Cores free for the recorder (budget and machine idle both counted), the budget, the machine's idle cores. */
  freeCores: number | null;
  budgetCores: number | null;
  machineIdleCores: number | null;
  /** Whether it refuses new rooms now, and why. */
  refusing: Refusal | null;
  /** Tasks it has left to other recorders since it started. */
  refusals: number;
}

export interface RunnerDeps {
  /** Assemble the MP4 as the class goes (ADR 106; RECORDING_ASSEMBLY). */
  assemble?: boolean;
  tasks: TaskStore;
  objects: ObjectStore;
  logger: Logger;
  settings: RecordingSettings;
  /** Recordings this process runs at once. */
  slots: number;
  leaseSeconds: number;
  /** Where segments are written before upload (DATA_DIR/recordings). */
  workRoot: string;
  mediaFor(roomNumber: string): Promise<{ mediaToken: string; mediaUrl: string }>;
  openScene(roomNumber: string): Promise<Scene>;
  startSession(o: {
    mediaUrl: string;
    mediaToken: string;
    workDir: string;
    firstSeq: number;
    settings: RecordingSettings;
    scene: Scene;
    logger: Logger;
    onSegment: (s: ClosedSegment) => Promise<void>;
    /** How long the start waits for every camera's first picture at most (the session's default: 3 s). */
    firstPicturesWaitMs?: number;
  }): Promise<SessionHandle>;
  /** `keepSec`: media seconds kept from the file's start (the class's end, ADR 104); null keeps all. */
  join(files: string[], outFile: string, keepSec: number | null): Promise<{ durationMs: number; bytes: number }>;
  /** Duration and size of a segment file a killed process left (null: unusable). */
  probeSegment(file: string): Promise<{ durationMs: number; bytes: number } | null>;
  /** How often an idle recorder looks for work (ms). */
  pollMs?: number;
  /** Live pushes to claim (none: this runner only records). */
  live?: LiveTaskStore;
  /** Starts a push (default: LivePush, an ffmpeg copying the tap to RTMP). */
  startPush?: (o: LivePushOptions) => PushHandle;
  /**
   * The recorder's headroom (capacity.ts, ADR 105): with it, a new room is taken only when the
   * measured free CPU carries one more session and no encoder here lags; `slots` stays the hard
   * limit. Without it, `slots` alone decides.
   */
  capacity?: Capacity;
}

const SEGMENT_FILE = /^seg-(\d{6})\.ts$/;

/** What a recording's end says in its 'recording listed' line (ADR 104): lag, repeated pictures, the stop's wait. */
function summaryOf(l: RecordingLeft): Record<string, unknown> {
  const r1 = (x: number) => Math.round(x * 10) / 10;
  return {
    overshootSec: r1(l.overshootSec),
    behindAtStopSec: r1(l.behindSec),
    stopWaitMs: l.waitedMs,
    reachedStop: l.reached,
    maxLagSec: r1(l.maxLagSec),
    repeatedFrames: l.repeated,
  };
}
/** The joined file of a task (inside the task's prefix, as the task store checks). */
export const recordingKey = (userId: string, taskId: string) => `records/${userId}/${taskId}/recording.mp4`;

export class RecorderRunner {
  readonly owner = `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  readonly #d: RunnerDeps;
  /** Recordings and pushes in progress here, by task ('live-' before a live task's id), with their room. */
  readonly #running = new Map<string, { room: string; run: Promise<void> }>();
  /** The rooms composed here. */
  readonly #stages = new Map<string, RoomStage>();
  /** Ends a running task's wait at once (close()). */
  readonly #stops = new Set<() => void>();
  #closed = false;
  #loop: Promise<void> | null = null;
  #wake: (() => void) | null = null;
  /** Headroom: the sessions started here go to the capacity with their room (ADR 105). */
  readonly #capacity: Capacity | null;
  #sessionCount = 0;
  /** Whether new rooms are refused now (logged once per change), and the tasks left to others. */
  #refusing: Refusal | null = null;
  readonly #refused = new Set<string>();
  #refusals = 0;
  readonly #measuredLogged = new Set<string>();
  #waitingReadAt = 0;

  constructor(deps: RunnerDeps) {
    this.#capacity = deps.capacity ?? null;
    const capacity = this.#capacity;
    if (!capacity) {
      this.#d = deps;
      return;
    }
    // Each session is followed by the capacity under its room (the scene it is opened with is the room's).
    const sceneRooms = new WeakMap<Scene, string>();
    this.#d = {
      ...deps,
      openScene: async (roomNumber) => {
        const scene = await deps.openScene(roomNumber);
        sceneRooms.set(scene, roomNumber);
        return scene;
      },
      startSession: async (o) => {
        const session = await deps.startSession(o);
        capacity.add(`s${String(++this.#sessionCount)}`, sceneRooms.get(o.scene) ?? '', session);
        return session;
      },
    };
  }

  /** Recordings in progress here (task ids). */
  get active(): string[] {
    return [...this.#running.keys()].filter((k) => !k.startsWith('live-'));
  }

  /** Live pushes in progress here (task ids). */
  get activeLive(): string[] {
    return [...this.#running.keys()].filter((k) => k.startsWith('live-')).map((k) => k.slice(5));
  }

  /** Rooms composed here now (one session each, whatever records or pushes them). */
  get rooms(): string[] {
    return [...new Set([...this.#running.values()].map((r) => r.room))];
  }

  start(): void {
    this.#loop ??= this.#poll();
  }

  /**
   * Claims while there is room for another class (the slots, and with a capacity its measured
   * headroom, ADR 105); when full, still claims work for the rooms composed here (a push of a room
   * this process records costs no new session).
   */
  async #claimAll(): Promise<void> {
    const d = this.#d;
    this.#sample();
    const only = () => (this.#mayTakeRoom() ? undefined : this.rooms);
    for (;;) {
      if (this.#closed) return;
      const rooms = only();
      if (rooms?.length === 0) return;
      const task = await d.tasks.claim(this.owner, rooms);
      if (!task) break;
      this.#d.logger.info({ taskId: task.taskId, room: task.roomNumber, resumed: task.resumed, state: task.state }, 'recording claimed');
      this.#track(task.taskId, task.roomNumber, () =>
        this.#record(task).catch((err: unknown) => this.#d.logger.error({ err, taskId: task.taskId }, 'recording failed')),
      );
    }
    if (!d.live) return;
    for (;;) {
      if (this.#closed) return;
      const rooms = only();
      if (rooms?.length === 0) return;
      const task = await d.live.claim(this.owner, rooms);
      if (!task) break;
      // Never the push address: it holds the key.
      this.#d.logger.info(
        { liveTaskId: task.taskId, room: task.roomNumber, platform: task.platform, resumed: task.resumed },
        'live push claimed',
      );
      this.#track(`live-${task.taskId}`, task.roomNumber, () =>
        this.#live(task).catch((err: unknown) => this.#d.logger.error({ err, liveTaskId: task.taskId }, 'live push failed')),
      );
    }
    // While refusing, what it leaves to others is read once a second (a query; the claim above is one too).
    if (this.#refusing && d.tasks.waiting && Date.now() - this.#waitingReadAt >= 1000) {
      this.#waitingReadAt = Date.now();
      await this.#countRefused(await d.tasks.waiting(this.owner, this.rooms));
    }
  }

  /**
   * Whether a new room may be taken now: under the slots, and with a capacity, the measured headroom
   * (ADR 105). A change between taking and refusing is logged once, with the figures.
   */
  #mayTakeRoom(): boolean {
    const d = this.#d;
    const rooms = this.rooms;
    if (!this.#capacity) return rooms.length < d.slots;
    const followed = new Set(this.#capacity.rooms);
    const verdict = this.#capacity.decide({ rooms: rooms.length, pending: rooms.filter((r) => !followed.has(r)).length, slots: d.slots });
    const now = verdict.take ? null : verdict.why;
    if (now !== this.#refusing) {
      if (now) d.logger.warn({ why: now, ...this.#figures() }, 'recorder at capacity: new classes are left to other recorders');
      else d.logger.info(this.#figures(), 'recorder has room for another class');
      this.#refusing = now;
    }
    return verdict.take;
  }

  /** Reads the load (at most once a second); a session's first measured cost is logged. */
  #sample(): void {
    if (!this.#capacity) return;
    this.#capacity.sample();
    const view = this.#capacity.view();
    for (const s of view.sessions) {
      if (s.cores === null || this.#measuredLogged.has(s.id)) continue;
      this.#measuredLogged.add(s.id);
      this.#d.logger.info(
        { room: s.room, cores: s.cores, lagSeconds: s.meanLagSeconds, machineIdleCores: view.machineIdleCores },
        'recording cost measured',
      );
    }
    for (const id of this.#measuredLogged) if (!view.sessions.some((s) => s.id === id)) this.#measuredLogged.delete(id);
  }

  /** The figures a refusal is logged with (ADR 105). */
  #figures() {
    const s = this.stats();
    return {
      rooms: s.rooms,
      slots: s.slots,
      freeCores: s.freeCores,
      nextCores: s.nextCores,
      measured: s.measured,
      budgetCores: s.budgetCores,
      machineIdleCores: s.machineIdleCores,
      sessionCores: s.sessions.map((x) => x.cores),
      lagSeconds: s.sessions.map((x) => x.meanLagSeconds),
    };
  }

  /** Tasks of other rooms waiting while this recorder refuses: each counted (and logged) once. */
  async #countRefused(waiting: Array<{ taskId: string; roomNumber: string }>): Promise<void> {
    for (const t of waiting) {
      if (this.#refused.has(t.taskId)) continue;
      this.#refused.add(t.taskId);
      this.#refusals++;
      this.#d.logger.warn(
        { taskId: t.taskId, room: t.roomNumber, why: this.#refusing, ...this.#figures() },
        'recording refused: this recorder is at capacity',
      );
    }
    // Only the recent ones are remembered (a task is waiting for RECORDING_START_TIMEOUT_SECONDS at most, or a lease).
    if (this.#refused.size > 1000) for (const id of [...this.#refused].slice(0, 500)) this.#refused.delete(id);
  }

  /** The recorder's load and refusals (ADR 105), for the operators' metrics. */
  stats(): RunnerStats {
    const v = this.#capacity?.view(this.rooms.filter((r) => !this.#capacity!.rooms.includes(r)).length);
    return {
      rooms: this.rooms.length,
      slots: this.#d.slots,
      sessions: v?.sessions ?? [],
      nextCores: v?.nextCores ?? null,
      measured: v?.measured ?? false,
      freeCores: v?.freeCores ?? null,
      budgetCores: v?.budgetCores ?? null,
      machineIdleCores: v?.machineIdleCores ?? null,
      refusing: this.#refusing,
      refusals: this.#refusals,
    };
  }

  #track(key: string, room: string, work: () => Promise<void>): void {
    const entry = { room, run: Promise.resolve() };
    this.#running.set(key, entry);
    entry.run = work().finally(() => {
      this.#running.delete(key);
      this.#wake?.();
    });
  }

  async #poll(): Promise<void> {
    const every = this.#d.pollMs ?? 250;
    while (!this.#closed) {
      try {
        await this.#claimAll();
      } catch (err) {
        this.#d.logger.warn({ err }, 'recording claim failed');
      }
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, every);
        t.unref();
        this.#wake = () => {
          clearTimeout(t);
          resolve();
        };
      });
      this.#wake = null;
    }
  }

  /** What a stage of `roomNumber` needs: the room's media and scene, a session, its stop. */
  #stageDeps(roomNumber: string, log: Logger, forLive = false): StageDeps {
    const d = this.#d;
    const scenes = new Map<StageSession, Scene>();
    return {
      roomNumber,
      logger: log,
      open: async ({ workDir, firstSeq, onSegment }) => {
        const media = await d.mediaFor(roomNumber);
        const scene = await d.openScene(roomNumber);
        try {
          const session = await d.startSession({
            ...media,
            workDir,
            firstSeq,
            // A session made for a push is encoded at a constant bitrate, as platforms ask (a recording joining it gets the same).
            settings: forLive ? { ...d.settings, cbr: true } : d.settings,
            scene,
            logger: log,
            onSegment,
            // A push waits less for the cameras' first pictures: the platform's answer (a refused key) comes only once bytes flow.
            ...(forLive ? { firstPicturesWaitMs: LIVE_FIRST_PICTURES_WAIT_MS } : {}),
          });
          scenes.set(session, scene);
          return session;
        } catch (err) {
          scene.close();
          throw err;
        }
      },
      close: async (session) => {
        await this.#stopSession(session as SessionHandle, log);
        scenes.get(session)?.close();
        scenes.delete(session);
      },
      onEmpty: () => {
        if (this.#stages.get(roomNumber)?.open === false) this.#stages.delete(roomNumber);
      },
    };
  }

  /** The room's open stage here, if any. */
  #stageOf(roomNumber: string): RoomStage | null {
    const stage = this.#stages.get(roomNumber);
    return stage?.open ? stage : null;
  }

  /**
   * A lease held for as long as `renew` says the task goes on; `onEnd` once it does not (or the
   * process closes). Between renewals a read (`peek`) notices an end within STOP_POLL_MS.
   */
  #keep(o: {
    renew: () => Promise<string>;
    peek: () => Promise<string>;
    goesOn: (state: string) => boolean;
    onState: (state: string) => void;
    log: Logger;
  }): { stop: () => Promise<void> } {
    const d = this.#d;
    let renewing = true;
    const loop = (async () => {
      const every = Math.max(500, (d.leaseSeconds * 1000) / 3);
      let renewedAt = Date.now();
      while (renewing && !this.#closed) {
        await sleep(STOP_POLL_MS);
        if (!renewing) break;
        try {
          const renew = Date.now() - renewedAt >= every;
          const state = renew ? await o.renew() : await o.peek();
          if (renew) renewedAt = Date.now();
          o.onState(state);
          if (!o.goesOn(state)) break;
        } catch (err) {
          o.log.warn({ err }, 'lease renewal failed');
        }
      }
    })();
    return {
      stop: async () => {
        renewing = false;
        await loop;
      },
    };
  }

  async #record(task: ClaimedTask): Promise<void> {
    const d = this.#d;
    const log = d.logger.child({ taskId: task.taskId, room: task.roomNumber });
    const workDir = path.join(d.workRoot, task.taskId);
    await mkdir(workDir, { recursive: true });
    let nextSeq = await this.#recoverLocal(task, workDir, log);
    let lost = false;
    let stopAsked = task.state === 'stopping';
    /** How the recording left its session at the stop (ADR 104), if it ran until the stop. */
    let ended: RecordingLeft | null = null;

    let stop!: () => void;
    const stopped = new Promise<void>((resolve) => (stop = resolve));
    if (stopAsked) stop();
    this.#stops.add(stop);
    // The lease is renewed for as long as this process works on the task, the join included.
    const lease = this.#keep({
      renew: () => d.tasks.renew(task.taskId, this.owner),
      peek: () => d.tasks.peek(task.taskId, this.owner),
      goesOn: (state) => state !== 'lost',
      onState: (state) => {
        if (state === 'lost') {
          lost = true;
          stop();
        }
        if (state === 'stopping' && !stopAsked) {
          stopAsked = true;
          stop();
        }
      },
      log,
    });

    let use: RecordingUse | null = null;
    // The MP4 built as the class goes (ADR 106); a resumed task has pieces of another process: it joins at the stop.
    const assembly =
      task.resumed || !d.assemble
        ? null
        : new Assembly({ objects: d.objects, key: recordingKey(task.userId, task.taskId), dir: workDir, logger: log });
    try {
      if (!stopAsked) {
        const recording = {
          workDir,
          firstSeq: nextSeq,
          onSegment: async (s: ClosedSegment) => {
            nextSeq = Math.max(nextSeq, s.seq + 1);
            const key = segmentKey(task.userId, task.taskId, s.seq);
            await withRetries(() => d.objects.putFile(key, s.file, 'video/mp2t'));
            await withRetries(() =>
              d.tasks.addSegment(task.taskId, this.owner, { seq: s.seq, key, durationMs: s.durationMs, bytes: s.bytes }),
            );
            assembly?.feed(s);
          },
        };
        const shared = this.#stageOf(task.roomNumber);
        if (shared) {
          log.info('recording joins the room session already running here (live push)');
          use = shared.addRecording(recording);
        } else {
          const made = RoomStage.forRecording(this.#stageDeps(task.roomNumber, log), recording);
          this.#stages.set(task.roomNumber, made.stage);
          use = made.use;
        }
        const first = await Promise.race([
          use.flowing.then((at) => ({ at })),
          use.failed.then((err) => ({ err })),
          stopped.then(() => null),
        ]);
        if (first && 'err' in first && task.state === 'starting' && !task.resumed) {
          // Never started: the teacher is told at once (roomRecordFailed) instead of waiting.
          await use.leave();
          use = null;
          await d.tasks.fail(task.taskId, this.owner, first.err.message);
          return;
        }
        // A resumed recording waits for the stage's next try (it keeps trying while someone uses it).
        const startedAt = first && 'at' in first ? first.at : await Promise.race([use.flowing, stopped.then(() => null)]);
        if (startedAt !== null && task.state === 'starting' && !stopAsked && !lost) {
          await d.tasks.started(task.taskId, this.owner, new Date(startedAt));
          task.state = 'recording';
          log.info('recording started');
        }
        await stopped;
        // The class ended at the teacher's stop: a media instant on the session's clock, whenever
        // the recorder sees it and however far behind its encoder is (ADR 104).
        const askedAt = stopAsked && !lost && !this.#closed ? await d.tasks.stopRequestedAt(task.taskId).catch(() => null) : null;
        const left = await use.leave(askedAt?.getTime());
        use = null;
        if (stopAsked) ended = left;
      }
      if (lost || this.#closed) return;
      const keepSec = await this.#keepSec(task, ended);
      await this.#finish(task, workDir, log, keepSec, ended ? summaryOf(ended) : { resumedAtStop: true }, assembly);
    } finally {
      if (use) await use.leave();
      await assembly?.close();
      this.#stops.delete(stop);
      await lease.stop();
    }
  }

  /**
   * A live push (ADR 085): the room's stage here (made for it, or the recording's), a LivePush on
   * its tap (again on each new session after a break); its states go to the task (live,
   * reconnecting, failed), its bitrate with each renewal. Ends when the teacher or the class ends
   * it, when the push fails, or when the process closes (the lease lapses and another recorder, or
   * this one restarted, takes it over).
   */
  async #live(task: ClaimedLive): Promise<void> {
    const d = this.#d;
    const tasks = d.live!;
    const log = d.logger.child({ liveTaskId: task.taskId, room: task.roomNumber });
    const startPush = d.startPush ?? ((o: LivePushOptions) => new LivePush(o));
    let ended = false;
    let failure: { why: 'refused' | 'unreachable' | 'failed'; detail: string } | null = null;
    let failureTold = false;
    let push: PushHandle | null = null;
    let reported = '';
    // Task writes in the order the push changed.
    let writes = Promise.resolve();
    const write = (what: () => Promise<void>) => {
      writes = writes.then(what).catch((err: unknown) => log.warn({ err }, 'live task update failed'));
    };

    let stop!: () => void;
    const stopped = new Promise<void>((resolve) => (stop = resolve));
    this.#stops.add(stop);
    const onStatus = (s: LiveStatus) => {
      if (s.state === reported && s.state !== 'failed') return;
      reported = s.state;
      if (s.state === 'live') write(() => tasks.live(task.taskId, this.owner));
      else if (s.state === 'reconnecting') write(() => tasks.reconnecting(task.taskId, this.owner));
      else if (s.state === 'failed') {
        failure = {
          why: s.reason ?? 'failed',
          detail: s.reason === 'refused' ? 'the platform refused the stream' : 'the platform stayed unreachable',
        };
        // The teacher hears it now; the session stops after.
        const { why, detail } = failure;
        write(async () => {
          await tasks.fail(task.taskId, this.owner, why, detail);
          failureTold = true;
        });
        stop();
      }
    };
    const onTap = (tap: TsTap | null) => {
      const old = push;
      push = null;
      void old?.end();
      if (tap && !ended && !failure) push = startPush({ url: task.pushUrl, tap, logger: log, onStatus });
    };
    const lease = this.#keep({
      renew: () => tasks.renew(task.taskId, this.owner, push?.status.state === 'live' ? push.status.kbps : 0),
      peek: () => tasks.peek(task.taskId, this.owner),
      goesOn: (state) => state === 'active',
      onState: (state) => {
        if (state === 'ended') {
          ended = true;
          stop();
        }
      },
      log,
    });

    let use: LiveUse | null = null;
    try {
      const shared = this.#stageOf(task.roomNumber);
      if (shared) {
        log.info('live push joins the room session already running here (recording)');
        use = shared.addLive(onTap);
      } else {
        const made = RoomStage.forLive(this.#stageDeps(task.roomNumber, log, true), d.workRoot, onTap);
        this.#stages.set(task.roomNumber, made.stage);
        use = made.use;
      }
      const first = await Promise.race([use.flowing.then(() => null), use.failed, stopped.then(() => null)]);
      if (first instanceof Error && !task.resumed) failure = { why: 'failed', detail: first.message };
      else await stopped;
    } finally {
      ended = true;
      const last = push as PushHandle | null;
      push = null;
      await last?.end();
      if (use) await use.leave();
      this.#stops.delete(stop);
      await lease.stop();
      await writes;
    }
    const failed = failure;
    if (failed && (failureTold || !this.#closed)) {
      if (!failureTold) await tasks.fail(task.taskId, this.owner, failed.why, failed.detail);
      log.warn({ why: failed.why }, 'live push failed');
    } else {
      log.info({ closing: this.#closed }, 'live push ended');
    }
  }

  /**
   * Ends a session: its encoder encodes what it was given and hands on its last pieces for as long
   * as it makes progress (SESSION_STOP_STALL_MS without output, or SESSION_STOP_MAX_MS in all, and
   * it is ended by force: its pieces on disk are taken as they are).
   */
  async #stopSession(session: SessionHandle | null, log: Logger): Promise<void> {
    if (!session) return;
    let timer: NodeJS.Timeout | undefined;
    const began = Date.now();
    const late = new Promise<'stalled' | 'too long'>((resolve) => {
      let seen = session.progress;
      let movedAt = Date.now();
      timer = setInterval(() => {
        const now = Date.now();
        if (session.progress !== seen) {
          seen = session.progress;
          movedAt = now;
        }
        if (now - movedAt >= SESSION_STOP_STALL_MS) resolve('stalled');
        else if (now - began >= SESSION_STOP_MAX_MS) resolve('too long');
      }, 500);
    });
    try {
      const how = await Promise.race([session.stop().then(() => 'done' as const), late]);
      if (how !== 'done') {
        log.warn({ how, ms: Date.now() - began }, 'the session did not end in time; its pieces on disk are taken as they are');
      }
    } catch (err) {
      log.warn({ err }, 'session stop failed');
    } finally {
      clearInterval(timer);
      session.kill?.();
    }
  }

  /**
   * Media seconds of the file to keep (ADR 104): up to the stop's instant. Its segments run to the
   * end of the one holding the stop; that one's overshoot past the instant is cut. A task resumed
   * after its stop (its recorder died while ending) has no session here to tell the overshoot: the
   * wall time from its first frame to the stop is a bound that never cuts what came before the stop
   * (gaps only make it longer than the media). Null keeps all.
   */
  async #keepSec(task: ClaimedTask, ended: RecordingLeft | null): Promise<number | null> {
    const d = this.#d;
    if (ended) {
      if (!ended.reached || ended.overshootSec <= 0) return null;
      const segs = await d.tasks.segments(task.taskId);
      const totalSec = segs.reduce((a, s) => a + s.durationMs, 0) / 1000;
      return Math.max(0, totalSec - ended.overshootSec);
    }
    if (task.state !== 'stopping' || !task.startedAt) return null;
    const askedAt = await d.tasks.stopRequestedAt(task.taskId);
    return askedAt ? Math.max(0, (askedAt.getTime() - task.startedAt.getTime()) / 1000) : null;
  }

  /**
   * Segments a killed recorder on this machine finished after its last upload: the encoder
   * closes its current file when its input ends. Each one that probes as media is uploaded.
   */
  async #recoverLocal(task: ClaimedTask, workDir: string, log: Logger, always = false): Promise<number> {
    let next = task.nextSeq;
    if (!task.resumed && !always) return next;
    const known = new Set((await this.#d.tasks.segments(task.taskId)).map((s) => s.seq));
    const files = (await readdir(workDir).catch(() => [] as string[])).filter((f) => SEGMENT_FILE.test(f)).sort();
    for (const f of files) {
      const seq = Number(SEGMENT_FILE.exec(f)![1]);
      if (known.has(seq)) continue;
      const file = path.join(workDir, f);
      const probe = await this.#d.probeSegment(file);
      if (!probe || probe.durationMs <= 0) {
        await rm(file, { force: true });
        continue;
      }
      const key = segmentKey(task.userId, task.taskId, seq);
      await withRetries(() => this.#d.objects.putFile(key, file, 'video/mp2t'));
      await this.#d.tasks.addSegment(task.taskId, this.owner, { seq, key, ...probe });
      next = Math.max(next, seq + 1);
      log.info({ seq, durationMs: probe.durationMs }, 'recovered a segment left on disk');
    }
    return next;
  }

  async #finish(
    task: ClaimedTask,
    workDir: string,
    log: Logger,
    keepSec: number | null,
    summary: Record<string, unknown> = {},
    assembly: Assembly | null = null,
  ): Promise<void> {
    const d = this.#d;
    // Pieces a session closed but could not hand on (it was ended by force) are on this disk.
    await this.#recoverLocal(task, workDir, log, true);
    const segments = (await d.tasks.segments(task.taskId)).sort((a, b) => a.seq - b.seq);
    if (segments.length === 0) {
      await d.tasks.fail(task.taskId, this.owner, 'nothing was recorded');
      await this.#dropDir(task.roomNumber, workDir, []);
      return;
    }
    const began = Date.now();
    const listed = assembly ? await this.#assembled(assembly, segments, keepSec, log) : null;
    if (listed) {
      const { bytes, durationMs, partsBefore, bytesAtStop } = listed;
      await d.tasks.finish(task.taskId, this.owner, { key: recordingKey(task.userId, task.taskId), bytes, durationMs });
      log.info(
        {
          segments: segments.length,
          durationMs,
          keepSec: keepSec === null ? null : Math.round(keepSec * 100) / 100,
          ...summary,
          bytes,
          partsBefore,
          bytesAtStop,
          ms: Date.now() - began,
        },
        'recording listed (assembled)',
      );
      for (const s of segments)
        await d.objects.delete(s.key).catch((err: unknown) => log.warn({ err, key: s.key }, 'segment delete failed'));
      await this.#dropDir(
        task.roomNumber,
        workDir,
        segments.map((s) => path.join(workDir, segmentName(s.seq))),
      );
      return;
    }
    const files: string[] = [];
    for (const s of segments) {
      const file = path.join(workDir, segmentName(s.seq));
      const here = await stat(file).catch(() => null);
      // Pieces recorded by another machine before a takeover come from the store.
      if (!here || here.size !== s.bytes) await withRetries(() => d.objects.download(s.key, file));
      files.push(file);
    }
    const out = path.join(workDir, 'recording.mp4');
    const joined = await d.join(files, out, keepSec);
    const key = recordingKey(task.userId, task.taskId);
    await withRetries(() => d.objects.putFile(key, out, 'video/mp4'));
    await d.tasks.finish(task.taskId, this.owner, { key, bytes: joined.bytes, durationMs: joined.durationMs });
    log.info(
      {
        segments: segments.length,
        durationMs: joined.durationMs,
        keepSec: keepSec === null ? null : Math.round(keepSec * 100) / 100,
        ...summary,
        bytes: joined.bytes,
        ms: Date.now() - began,
      },
      'recording listed',
    );
    // The MP4 holds everything now: the pieces go from the store and the disk.
    for (const s of segments) await d.objects.delete(s.key).catch((err: unknown) => log.warn({ err, key: s.key }, 'segment delete failed'));
    await this.#dropDir(task.roomNumber, workDir, [...files, out]);
  }

  /**
   * The recording from the assembly (ADR 106) when it holds exactly the task's segments and makes
   * a whole file; null (logged, the upload aborted) sends the stop the old way: join and upload.
   */
  async #assembled(
    assembly: Assembly,
    segments: ReadonlyArray<{ seq: number }>,
    keepSec: number | null,
    log: Logger,
  ): Promise<AssemblyResult | null> {
    try {
      await assembly.settled();
      // keepSec: media seconds kept from the file's start, up to the stop's media instant (ADR 104).
      return await assembly.finish(
        segments.map((s) => s.seq),
        keepSec,
      );
    } catch (err) {
      log.warn({ err }, 'the assembled recording could not be used; joining the segments instead');
      return null;
    } finally {
      await assembly.close();
    }
  }

  /** A finished recording's directory goes, unless the room's session (a live push) still writes into it: then its own files go, the rest with the stage. */
  async #dropDir(roomNumber: string, workDir: string, files: string[]): Promise<void> {
    const stage = this.#stageOf(roomNumber);
    if (stage?.writesInto(workDir) && stage.releaseDir()) {
      for (const f of files) await rm(f, { force: true });
      return;
    }
    await rm(workDir, { recursive: true, force: true });
  }

  /**
   * Stops taking work and ends the sessions here without joining: their leases lapse and another
   * recorder (or this one restarted) resumes them, so a restart of the process cuts no recording
   * and no live push for longer than the lease.
   */
  async close(): Promise<void> {
    this.#closed = true;
    this.#wake?.();
    for (const stop of this.#stops) stop();
    await this.#loop;
    await Promise.allSettled([...this.#running.values()].map((r) => r.run));
    // Stages kept a moment after their last push (LINGER_MS) end now.
    await Promise.allSettled([...this.#stages.values()].map((stage) => stage.shutdown()));
  }
}
