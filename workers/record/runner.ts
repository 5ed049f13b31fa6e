/**
 * The recorder role's loop (ADR 077): claims recording tasks from the database, records each with
 * a RecordingSession, uploads every closed segment as it closes, and at the stop joins them into
 * one MP4. A task whose recorder died is claimed again once its lease runs out (ADR 071): segments
 * the dead process finished on this machine's disk are uploaded first, then recording goes on
 * with the next sequence number, so the final file covers what came before and after the gap.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '#core/platform/logger.ts';
import type { ObjectStore } from '#core/platform/objects.ts';
import { segmentKey, type ClaimedTask, type RecordTasks } from '#core/recording/record-tasks.ts';
import type { ClosedSegment, RecordingSettings, Scene } from './types.ts';
import { segmentName } from './encoder.ts';

/** The task store (core/recording/record-tasks.ts) as the runner uses it. */
export type TaskStore = Pick<
  RecordTasks,
  'claim' | 'renew' | 'peek' | 'stopRequestedAt' | 'started' | 'addSegment' | 'segments' | 'finish' | 'fail'
>;

/** How long a session may take to end before it is ended by force. */
const SESSION_STOP_MS = 20_000;
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
}

export interface RunnerDeps {
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
  }): Promise<SessionHandle>;
  /** `trimEndSec`: what was recorded after the stop was asked, cut from the end. */
  join(files: string[], outFile: string, trimEndSec: number): Promise<{ durationMs: number; bytes: number }>;
  /** Duration and size of a segment file a killed process left (null: unusable). */
  probeSegment(file: string): Promise<{ durationMs: number; bytes: number } | null>;
  /** How often an idle recorder looks for work (ms). */
  pollMs?: number;
}

const SEGMENT_FILE = /^seg-(\d{6})\.ts$/;
/** The joined file of a task (inside the task's prefix, as the task store checks). */
export const recordingKey = (userId: string, taskId: string) => `records/${userId}/${taskId}/recording.mp4`;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref());

/** Retries an upload a few times (a store that blinks must not lose a piece that is still on disk). */
async function withRetries<T>(what: () => Promise<T>, tries = 5): Promise<T> {
  let last: unknown;
  for (let i = 0; i < tries; i++) {
    try {
      return await what();
    } catch (err) {
      last = err;
      await sleep(200 * 2 ** i);
    }
  }
  throw last;
}

export class RecorderRunner {
  readonly owner = `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  readonly #d: RunnerDeps;
  readonly #running = new Map<string, Promise<void>>();
  /** Ends a running session at once (close()). */
  readonly #stops = new Set<() => void>();
  #closed = false;
  #loop: Promise<void> | null = null;
  #wake: (() => void) | null = null;

  constructor(deps: RunnerDeps) {
    this.#d = deps;
  }

  /** Recordings in progress here (task ids). */
  get active(): string[] {
    return [...this.#running.keys()];
  }

  start(): void {
    this.#loop ??= this.#poll();
  }

  async #poll(): Promise<void> {
    const every = this.#d.pollMs ?? 1000;
    while (!this.#closed) {
      try {
        while (!this.#closed && this.#running.size < this.#d.slots) {
          const task = await this.#d.tasks.claim(this.owner);
          if (!task) break;
          this.#d.logger.info(
            { taskId: task.taskId, room: task.roomNumber, resumed: task.resumed, state: task.state },
            'recording claimed',
          );
          const run = this.#record(task)
            .catch((err: unknown) => this.#d.logger.error({ err, taskId: task.taskId }, 'recording failed'))
            .finally(() => {
              this.#running.delete(task.taskId);
              this.#wake?.();
            });
          this.#running.set(task.taskId, run);
        }
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

  async #record(task: ClaimedTask): Promise<void> {
    const d = this.#d;
    const log = d.logger.child({ taskId: task.taskId, room: task.roomNumber });
    const workDir = path.join(d.workRoot, task.taskId);
    await mkdir(workDir, { recursive: true });
    let nextSeq = await this.#recoverLocal(task, workDir, log);
    let lost = false;
    let stopAsked = task.state === 'stopping';
    /** When the last session stopped writing frames, if it ran until the stop. */
    let sessionEndedAt: number | null = null;

    // The lease is renewed for as long as this process works on the task, the join included.
    let renewing = true;
    const signal: { stop: (() => void) | null } = { stop: null };
    const stopNow = () => signal.stop?.();
    this.#stops.add(stopNow);
    const renewals = (async () => {
      const every = Math.max(500, (d.leaseSeconds * 1000) / 3);
      let renewedAt = Date.now();
      while (renewing && !this.#closed) {
        await sleep(STOP_POLL_MS);
        if (!renewing) break;
        try {
          const renew = Date.now() - renewedAt >= every;
          const state = renew ? await d.tasks.renew(task.taskId, this.owner) : await d.tasks.peek(task.taskId, this.owner);
          if (renew) renewedAt = Date.now();
          if (state === 'lost') {
            lost = true;
            signal.stop?.();
            break;
          }
          if (state === 'stopping' && !stopAsked) {
            stopAsked = true;
            signal.stop?.();
          }
        } catch (err) {
          log.warn({ err }, 'lease renewal failed');
        }
      }
    })();

    try {
      while (!stopAsked && !lost && !this.#closed) {
        const stopped = new Promise<void>((resolve) => (signal.stop = resolve));
        let session: SessionHandle | null = null;
        let scene: Scene | null = null;
        try {
          const media = await d.mediaFor(task.roomNumber);
          scene = await d.openScene(task.roomNumber);
          session = await d.startSession({
            ...media,
            workDir,
            firstSeq: nextSeq,
            settings: d.settings,
            scene,
            logger: log,
            onSegment: async (s) => {
              nextSeq = Math.max(nextSeq, s.seq + 1);
              const key = segmentKey(task.userId, task.taskId, s.seq);
              await withRetries(() => d.objects.putFile(key, s.file, 'video/mp2t'));
              await withRetries(() =>
                d.tasks.addSegment(task.taskId, this.owner, { seq: s.seq, key, durationMs: s.durationMs, bytes: s.bytes }),
              );
            },
          });
          await Promise.race([session.flowing, session.broken, stopped]);
          if (task.state === 'starting' && !stopAsked && !lost) {
            await d.tasks.started(task.taskId, this.owner, session.startedAtMs ? new Date(session.startedAtMs) : undefined);
            task.state = 'recording';
            log.info('recording started');
          }
          await Promise.race([stopped, session.broken]);
          if (stopAsked) sessionEndedAt = Date.now();
        } catch (err) {
          log.warn({ err }, 'recording session broke');
          if (task.state === 'starting' && !task.resumed) {
            // Never started: the teacher is told at once (roomRecordFailed) instead of waiting.
            await d.tasks.fail(task.taskId, this.owner, err instanceof Error ? err.message : String(err));
            return;
          }
          await sleep(1000);
        } finally {
          await this.#stopSession(session, log);
          scene?.close();
        }
      }
      if (lost || this.#closed) return;
      // The stop reaches the recorder a little late (a read every 250 ms, a busy machine): what it
      // recorded after the teacher's stop is cut, so the file lasts as long as the class was recorded.
      const askedAt = sessionEndedAt !== null ? await d.tasks.stopRequestedAt(task.taskId) : null;
      const overshootSec = askedAt && sessionEndedAt !== null ? Math.max(0, (sessionEndedAt - askedAt.getTime()) / 1000) : 0;
      await this.#finish(task, workDir, log, Math.min(overshootSec, 30));
    } finally {
      this.#stops.delete(stopNow);
      renewing = false;
      await renewals;
    }
  }

  /** Ends a session, giving it SESSION_STOP_MS to hand on its last pieces (a busy machine may be slow). */
  async #stopSession(session: SessionHandle | null, log: Logger): Promise<void> {
    if (!session) return;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), SESSION_STOP_MS)));
    try {
      const how = await Promise.race([session.stop().then(() => 'done' as const), late]);
      if (how === 'late') log.warn({ ms: SESSION_STOP_MS }, 'the session did not end in time; its pieces on disk are taken as they are');
    } catch (err) {
      log.warn({ err }, 'session stop failed');
    } finally {
      clearTimeout(timer);
      session.kill?.();
    }
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

  async #finish(task: ClaimedTask, workDir: string, log: Logger, trimEndSec = 0): Promise<void> {
    const d = this.#d;
    // Pieces a session closed but could not hand on (it was ended by force) are on this disk.
    await this.#recoverLocal(task, workDir, log, true);
    const segments = (await d.tasks.segments(task.taskId)).sort((a, b) => a.seq - b.seq);
    if (segments.length === 0) {
      await d.tasks.fail(task.taskId, this.owner, 'nothing was recorded');
      await rm(workDir, { recursive: true, force: true });
      return;
    }
    const began = Date.now();
    const files: string[] = [];
    for (const s of segments) {
      const file = path.join(workDir, segmentName(s.seq));
      const here = await stat(file).catch(() => null);
      // Pieces recorded by another machine before a takeover come from the store.
      if (!here || here.size !== s.bytes) await withRetries(() => d.objects.download(s.key, file));
      files.push(file);
    }
    const out = path.join(workDir, 'recording.mp4');
    const joined = await d.join(files, out, trimEndSec);
    const key = recordingKey(task.userId, task.taskId);
    await withRetries(() => d.objects.putFile(key, out, 'video/mp4'));
    await d.tasks.finish(task.taskId, this.owner, { key, bytes: joined.bytes, durationMs: joined.durationMs });
    log.info(
      {
        segments: segments.length,
        durationMs: joined.durationMs,
        trimmedMs: Math.round(trimEndSec * 1000),
        bytes: joined.bytes,
        ms: Date.now() - began,
      },
      'recording listed',
    );
    // The MP4 holds everything now: the pieces go from the store and the disk.
    for (const s of segments) await d.objects.delete(s.key).catch((err: unknown) => log.warn({ err, key: s.key }, 'segment delete failed'));
    await rm(workDir, { recursive: true, force: true });
  }

  /**
   * Stops taking work and ends the sessions here without joining: their leases lapse and another
   * recorder (or this one restarted) resumes them, so a restart of the process cuts no recording.
   */
  async close(): Promise<void> {
    this.#closed = true;
    this.#wake?.();
    for (const stop of this.#stops) stop();
    await this.#loop;
    await Promise.allSettled([...this.#running.values()]);
  }
}
