/**
 * The recorder role's loop (ADR 077): claims recording tasks from the database, records each with
 * a RecordingSession, uploads every closed segment as it closes, and at the stop joins them into
 * one MP4. A task whose recorder died is claimed again once its lease runs out (ADR 071): segments
 * the dead process finished on this machine's disk are uploaded first, then recording goes on
 * with the next sequence number, so the final file covers what came before and after the gap.
 *
 * It also claims live pushes (ADR 085). A room is composed once here whatever uses it: a recording
 * and a live push of the same class share one RoomStage (stage.ts), one session, one encoding.
 *
 * It hears its work (ADR 109): a task note (a recording or a push asked for, or asked to stop, in a
 * room) wakes the claims and the leases of that room's tasks at once; a slow sweep (`sweepMs`) and
 * the lease renewals are the net for a note that was lost. Between them it reads nothing.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '#core/platform/logger.ts';
import { segmentKey, type ClaimedTask } from '#core/recording/record-tasks.ts';
import type { ClaimedLive } from '#core/streaming/live-tasks.ts';
import type { ClosedSegment, Scene } from './types.ts';
import { Assembly } from './assembly.ts';
import { LivePush, type LivePushOptions, type LiveStatus } from './live-push.ts';
import { RoomStage, type LiveUse, type RecordingLeft, type RecordingUse, type StageDeps, type StageSession } from './stage.ts';
import type { TsTap } from './ts-tap.ts';
import { withRetries } from './retry.ts';
import { keepLease, type Lease, type LeaseOptions } from './lease.ts';
import { RunnerLoad } from './runner-load.ts';
import { finish, keepSecOf, recordingKey, recoverLocal, stopSession, summaryOf, type FinishContext } from './runner-finish.ts';
import type { PushHandle, RunnerDeps, RunnerStats, SessionHandle } from './runner-types.ts';

export type { LiveTaskStore, PushHandle, RunnerDeps, RunnerStats, SessionHandle, TaskNotes, TaskStore } from './runner-types.ts';
export { recordingKey } from './runner-finish.ts';

/** A session started for a live push does not wait for the cameras' first pictures: a refused key is known only once bytes flow, and the platform shows a tile filling in a moment later. */
const LIVE_FIRST_PICTURES_WAIT_MS = 0;
/** The slow sweep's default (RECORDER_SWEEP_SECONDS): how often the claims run when no note came. */
export const DEFAULT_SWEEP_MS = 5000;
/** How often the load is sampled (ADR 105: the capacity's window is read once a second). */
const SAMPLE_MS = 1000;
/** What a note says: which kind of task in which room. */
const NOTE = /^(record|live):(.+)$/;

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
  /** The load this recorder weighs before each claim (ADR 105). */
  readonly #load: RunnerLoad;
  #sessionCount = 0;
  /** Claims asked for again while a pass was under way (a note, a task that ended). */
  #again = false;
  /** Wakes a task's lease when a note for its room comes, by room. */
  readonly #roomWakes = new Map<string, Set<() => void>>();
  readonly #leases = new Set<Lease>();
  #offNotes: (() => void) | null = null;
  #sampler: NodeJS.Timeout | null = null;
  readonly #finishing: FinishContext;

  constructor(deps: RunnerDeps) {
    const capacity = deps.capacity ?? null;
    this.#load = new RunnerLoad(deps, capacity, () => this.rooms);
    this.#finishing = { d: deps, owner: this.owner, stageOf: (room) => this.#stageOf(room) };
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
    if (this.#loop) return;
    this.#offNotes = this.#d.notes?.on((note) => this.#heard(note)) ?? null;
    if (this.#d.capacity) {
      this.#sampler = setInterval(() => this.#load.sample(), SAMPLE_MS);
      this.#sampler.unref();
    }
    this.#loop = this.#sweep();
  }

  /** A task note: the claims run now, and the leases of that room's tasks read their state. */
  #heard(note: string): void {
    const m = NOTE.exec(note);
    this.#poke();
    if (!m) return;
    for (const wake of this.#roomWakes.get(m[2]!) ?? []) wake();
  }

  /** Runs the claims now (or again right after the pass under way). */
  #poke(): void {
    this.#again = true;
    this.#wake?.();
  }

  /**
   * Claims while there is room for another class (the slots, and with a capacity its measured
   * headroom, ADR 105); when full, still claims work for the rooms composed here (a push of a room
   * this process records costs no new session).
   */
  async #claimAll(): Promise<void> {
    const d = this.#d;
    this.#load.sample();
    const only = () => (this.#load.mayTakeRoom() ? undefined : this.rooms);
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
    // While refusing, what it leaves to others is read at each pass (a query; the claim above is one too).
    if (this.#load.refusing && d.tasks.waiting) await this.#load.countRefused(await d.tasks.waiting(this.owner, this.rooms));
  }

  /** The recorder's load and refusals (ADR 105), for the operators' metrics. */
  stats(): RunnerStats {
    return this.#load.stats();
  }

  #track(key: string, room: string, work: () => Promise<void>): void {
    const entry = { room, run: Promise.resolve() };
    this.#running.set(key, entry);
    entry.run = work().finally(() => {
      this.#running.delete(key);
      this.#poke();
    });
  }

  /** The claims: at once on a note, else every `sweepMs` (the net for a lost note, ADR 109). */
  async #sweep(): Promise<void> {
    const every = this.#d.sweepMs ?? DEFAULT_SWEEP_MS;
    while (!this.#closed) {
      this.#again = false;
      try {
        await this.#claimAll();
      } catch (err) {
        this.#d.logger.warn({ err }, 'recording claim failed');
      }
      if (this.#again || this.#closed) continue;
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
        await stopSession(session as SessionHandle, log);
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
  /** A lease held for as long as `renew` says the task goes on, woken by the notes of its room (lease.ts). */
  #keep(room: string, o: Pick<LeaseOptions, 'renew' | 'peek' | 'goesOn' | 'onState' | 'log'>): { stop: () => Promise<void> } {
    const lease = keepLease({
      ...o,
      leaseSeconds: this.#d.leaseSeconds,
      closed: () => this.#closed,
      onNote: (wake) => {
        let set = this.#roomWakes.get(room);
        if (!set) this.#roomWakes.set(room, (set = new Set()));
        set.add(wake);
        return () => {
          set.delete(wake);
          if (set.size === 0 && this.#roomWakes.get(room) === set) this.#roomWakes.delete(room);
        };
      },
    });
    this.#leases.add(lease);
    return {
      stop: async () => {
        await lease.stop();
        this.#leases.delete(lease);
      },
    };
  }

  async #record(task: ClaimedTask): Promise<void> {
    const d = this.#d;
    const log = d.logger.child({ taskId: task.taskId, room: task.roomNumber });
    const workDir = path.join(d.workRoot, task.taskId);
    await mkdir(workDir, { recursive: true });
    let nextSeq = await recoverLocal(this.#finishing, task, workDir, log);
    let lost = false;
    let stopAsked = task.state === 'stopping';
    /** How the recording left its session at the stop (ADR 104), if it ran until the stop. */
    let ended: RecordingLeft | null = null;

    let stop!: () => void;
    const stopped = new Promise<void>((resolve) => (stop = resolve));
    if (stopAsked) stop();
    this.#stops.add(stop);
    // The lease is renewed for as long as this process works on the task, the join included.
    const lease = this.#keep(task.roomNumber, {
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
      const keepSec = await keepSecOf(this.#finishing, task, ended);
      await finish(this.#finishing, task, workDir, log, keepSec, ended ? summaryOf(ended) : { resumedAtStop: true }, assembly);
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
    const lease = this.#keep(task.roomNumber, {
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
   * Stops taking work and ends the sessions here without joining: their leases lapse and another
   * recorder (or this one restarted) resumes them, so a restart of the process cuts no recording
   * and no live push for longer than the lease.
   */
  async close(): Promise<void> {
    this.#closed = true;
    this.#offNotes?.();
    if (this.#sampler) clearInterval(this.#sampler);
    this.#wake?.();
    for (const lease of this.#leases) lease.wake();
    for (const stop of this.#stops) stop();
    await this.#loop;
    await Promise.allSettled([...this.#running.values()].map((r) => r.run));
    // Stages kept a moment after their last push (LINGER_MS) end now.
    await Promise.allSettled([...this.#stages.values()].map((stage) => stage.shutdown()));
    await this.#d.notes?.close?.();
  }
}
