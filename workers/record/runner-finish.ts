/**
 * A recording's end on the recorder (ADR 077, 104, 106): its session stopped (waiting while the
 * encoder drains), the media seconds to keep, segments a killed process left on disk, and the
 * finished file listed (from the assembly, or the segments joined), its pieces and directory gone.
 */
import { readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '#core/platform/logger.ts';
import { segmentKey, type ClaimedTask } from '#core/recording/record-tasks.ts';
import { segmentName } from './encoder.ts';
import type { Assembly, AssemblyResult } from './assembly.ts';
import type { RecordingLeft, RoomStage } from './stage.ts';
import type { RunnerDeps, SessionHandle } from './runner-types.ts';
import { withRetries } from './retry.ts';

/**
 * A session's stop waits while its encoder makes progress (ADR 104: it encodes all it was given);
 * an encoder with no output for this long is ended by force, and so is one still going after
 * SESSION_STOP_MAX_MS.
 */
const SESSION_STOP_STALL_MS = 20_000;
const SESSION_STOP_MAX_MS = 10 * 60_000;

const SEGMENT_FILE = /^seg-(\d{6})\.ts$/;

/** What the end of a recording needs of its runner. */
export interface FinishContext {
  d: RunnerDeps;
  owner: string;
  /** The room's open stage on this recorder, if any. */
  stageOf(roomNumber: string): RoomStage | null;
}

/** What a recording's end says in its 'recording listed' line (ADR 104): lag, repeated pictures, the stop's wait. */
export function summaryOf(l: RecordingLeft): Record<string, unknown> {
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

/**
 * Ends a session: its encoder encodes what it was given and hands on its last pieces for as long
 * as it makes progress (SESSION_STOP_STALL_MS without output, or SESSION_STOP_MAX_MS in all, and
 * it is ended by force: its pieces on disk are taken as they are).
 */
export async function stopSession(session: SessionHandle | null, log: Logger): Promise<void> {
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
export async function keepSecOf(c: FinishContext, task: ClaimedTask, ended: RecordingLeft | null): Promise<number | null> {
  const d = c.d;
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
export async function recoverLocal(c: FinishContext, task: ClaimedTask, workDir: string, log: Logger, always = false): Promise<number> {
  let next = task.nextSeq;
  if (!task.resumed && !always) return next;
  const known = new Set((await c.d.tasks.segments(task.taskId)).map((s) => s.seq));
  const files = (await readdir(workDir).catch(() => [] as string[])).filter((f) => SEGMENT_FILE.test(f)).sort();
  for (const f of files) {
    const seq = Number(SEGMENT_FILE.exec(f)![1]);
    if (known.has(seq)) continue;
    const file = path.join(workDir, f);
    const probe = await c.d.probeSegment(file);
    if (!probe || probe.durationMs <= 0) {
      await rm(file, { force: true });
      continue;
    }
    const key = segmentKey(task.userId, task.taskId, seq);
    await withRetries(() => c.d.objects.putFile(key, file, 'video/mp2t'));
    await c.d.tasks.addSegment(task.taskId, c.owner, { seq, key, ...probe });
    next = Math.max(next, seq + 1);
    log.info({ seq, durationMs: probe.durationMs }, 'recovered a segment left on disk');
  }
  return next;
}

export async function finish(
  c: FinishContext,
  task: ClaimedTask,
  workDir: string,
  log: Logger,
  keepSec: number | null,
  summary: Record<string, unknown> = {},
  assembly: Assembly | null = null,
): Promise<void> {
  const d = c.d;
  // Pieces a session closed but could not hand on (it was ended by force) are on this disk.
  await recoverLocal(c, task, workDir, log, true);
  const segments = (await d.tasks.segments(task.taskId)).sort((a, b) => a.seq - b.seq);
  if (segments.length === 0) {
    await d.tasks.fail(task.taskId, c.owner, 'nothing was recorded');
    await dropDir(c, task.roomNumber, workDir, []);
    return;
  }
  const began = Date.now();
  const listed = assembly ? await assembled(assembly, segments, keepSec, log) : null;
  if (listed) {
    const { bytes, durationMs, partsBefore, bytesAtStop } = listed;
    await d.tasks.finish(task.taskId, c.owner, { key: recordingKey(task.userId, task.taskId), bytes, durationMs });
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
    for (const s of segments) await d.objects.delete(s.key).catch((err: unknown) => log.warn({ err, key: s.key }, 'segment delete failed'));
    await dropDir(
      c,
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
  await d.tasks.finish(task.taskId, c.owner, { key, bytes: joined.bytes, durationMs: joined.durationMs });
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
  await dropDir(c, task.roomNumber, workDir, [...files, out]);
}

/**
 * The recording from the assembly (ADR 106) when it holds exactly the task's segments and makes
 * a whole file; null (logged, the upload aborted) sends the stop the old way: join and upload.
 */
async function assembled(
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
async function dropDir(c: FinishContext, roomNumber: string, workDir: string, files: string[]): Promise<void> {
  const stage = c.stageOf(roomNumber);
  if (stage?.writesInto(workDir) && stage.releaseDir()) {
    for (const f of files) await rm(f, { force: true });
    return;
  }
  await rm(workDir, { recursive: true, force: true });
}
