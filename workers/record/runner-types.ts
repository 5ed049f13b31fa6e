/**
 * What the recorder's runner (runner.ts) works with: the task stores as it uses them, a session
 * and a push as it holds them, its dependencies and what it reports of its load.
 */
import type { Logger } from '#core/platform/logger.ts';
import type { ObjectStore } from '#core/platform/objects.ts';
import type { RecordTasks } from '#core/recording/record-tasks.ts';
import type { LiveTasks } from '#core/streaming/live-tasks.ts';
import type { RecordingSettings, Scene } from './types.ts';
import type { LivePushOptions, LiveStatus } from './live-push.ts';
import type { TsTap } from './ts-tap.ts';
import type { Capacity, CapacityView, Refusal } from './capacity.ts';
import type { SessionOptions } from './session.ts';

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

/** Where task notes come from (core/platform/db/notify.ts's listener, a test's own). */
export interface TaskNotes {
  /** Calls `listener` with each note; returns the unsubscribe. */
  on(listener: (note: string) => void): () => void;
  /** Stops listening (the runner's close). */
  close?(): Promise<void>;
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
  startSession(o: SessionOptions): Promise<SessionHandle>;
  /** `keepSec`: media seconds kept from the file's start (the class's end, ADR 104); null keeps all. */
  join(files: string[], outFile: string, keepSec: number | null): Promise<{ durationMs: number; bytes: number }>;
  /** Duration and size of a segment file a killed process left (null: unusable). */
  probeSegment(file: string): Promise<{ durationMs: number; bytes: number } | null>;
  /**
   * The slow sweep (ms, RECORDER_SWEEP_SECONDS): how often the recorder looks for work when no note
   * came. Notes (`notes`) wake it at once; the sweep is the net for a note that was lost (ADR 109).
   */
  sweepMs?: number;
  /**
   * Task notes (ADR 109: `record:{room}`, `live:{room}`, sent by the database when a task is asked
   * for or asked to stop): each wakes the claims, and the leases of tasks of that room, at once.
   */
  notes?: TaskNotes;
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
