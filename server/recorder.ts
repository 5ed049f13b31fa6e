/**
 * The recorder role (ADR 077): a RecorderRunner over this process's platform, recording classes
 * and pushing them live (ADR 085). It runs only with RECORDER_SLOTS above 0, and says it runs only then.
 * It takes a new class only when its measured headroom carries it (ADR 105); the runner it returns
 * reports its load and refusals (`stats()`). It hears its work from the database's task notes
 * (ADR 109), with a slow sweep as the net.
 */
import path from 'node:path';
import { listen, RECORDER_TASKS_CHANNEL, type Listening } from '#core/platform/db/notify.ts';
import { openRoomScene } from '../workers/record/scene.ts';
import { RecordingSession } from '../workers/record/session.ts';
import { joinSegments, probeMedia } from '../workers/record/join.ts';
import { RecorderRunner, type TaskNotes } from '../workers/record/runner.ts';
import { Capacity, firstEstimateCores } from '../workers/record/capacity.ts';
import { LAYOUT } from '../workers/record/types.ts';
import type { Platform } from './platform.ts';

export function startRecorder(platform: Platform): RecorderRunner | null {
  const { config, services, objects, logger, database } = platform;
  if (config.RECORDER_SLOTS === 0) return null;
  const log = logger.child({ part: 'recorder' });
  // What this recorder can carry, measured (ADR 105); RECORDER_SLOTS stays the hard limit.
  const estimate = firstEstimateCores({ width: config.RECORDING_WIDTH, height: config.RECORDING_HEIGHT, fps: config.RECORDING_FPS });
  const capacity = new Capacity({ budget: config.RECORDER_CPU_BUDGET, firstEstimateCores: estimate });
  const runner = new RecorderRunner({
    notes: taskNotes(platform, log),
    sweepMs: config.RECORDER_SWEEP_SECONDS * 1000,
    tasks: services.recordTasks,
    live: services.liveTasks,
    objects,
    logger: log,
    settings: {
      width: config.RECORDING_WIDTH,
      height: config.RECORDING_HEIGHT,
      fps: config.RECORDING_FPS,
      videoKbps: config.RECORDING_VIDEO_KBPS,
      audioKbps: config.RECORDING_AUDIO_KBPS,
      segmentSeconds: config.RECORDING_SEGMENT_SECONDS,
      x264Preset: config.RECORDING_X264_PRESET,
    },
    slots: config.RECORDER_SLOTS,
    assemble: config.RECORDING_ASSEMBLY,
    capacity,
    leaseSeconds: config.RECORDING_LEASE_SECONDS,
    workRoot: path.resolve(config.DATA_DIR, 'recordings'),
    mediaFor: (roomNumber) => {
      if (!services.media) throw new Error('no media nodes to record from');
      return services.media.forRecorder(roomNumber);
    },
    openScene: (roomNumber) =>
      openRoomScene({
        db: database.db,
        objects,
        roomNumber,
        logger: log,
        width: LAYOUT.main.w,
        height: LAYOUT.main.h,
        // The scene hears the room on its channels, at the web tier's address (ADR 109).
        webUrl: config.publicUrl,
        tokens: () => services.rooms.recorderTokens(roomNumber),
      }),
    startSession: (o) => RecordingSession.start(o),
    join: (files, out, keepSec) => joinSegments(files, out, keepSec === null ? {} : { keepSec }),
    probeSegment: async (file) => {
      try {
        const p = await probeMedia(file);
        return { durationMs: Math.round(p.durationSec * 1000), bytes: p.bytes };
      } catch {
        return null;
      }
    },
  });
  runner.start();
  log.info(
    { slots: config.RECORDER_SLOTS, cpuBudget: config.RECORDER_CPU_BUDGET, firstEstimateCores: estimate, owner: runner.owner },
    'recorder running',
  );
  return runner;
}

/**
 * The database's task notes (core/platform/db/notify.ts) for the runner. While the listener is not
 * up (starting, or it could not connect) the runner's sweep finds the work, later.
 */
function taskNotes(platform: Platform, log: Platform['logger']): TaskNotes {
  const listeners = new Set<(note: string) => void>();
  let closed = false;
  const listening: Promise<Listening | null> = listen(
    platform.database,
    RECORDER_TASKS_CHANNEL,
    (note) => {
      for (const l of listeners) l(note);
    },
    (err) => log.warn({ err }, 'recorder task notes: the listener was lost; listening again (the sweep finds work meanwhile)'),
  ).then(
    (l) => {
      if (closed) void l.close();
      return l;
    },
    (err: unknown) => {
      log.warn({ err }, 'recorder task notes: could not listen; work is found by the sweep only');
      return null;
    },
  );
  return {
    on(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      closed = true;
      listeners.clear();
      await (await listening)?.close();
    },
  };
}
