/**
 * The runner's end of a recording (ADR 104): the teacher's stop, read from the task store, is a
 * media instant on the session's clock; the recording keeps every segment up to it however late
 * the encoder closes them, and the join keeps `keepSec` media seconds. The task store, the object
 * store, the session and the join are fakes (the media side is tests/integration/recording-whole);
 * the runner, its stage, the files and the timers are real.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ObjectStore } from '#core/platform/objects.ts';
import type { ClaimedTask, Segment } from '#core/recording/record-tasks.ts';
import { segmentName } from './encoder.ts';
import { RecorderRunner, type RunnerDeps, type SessionHandle, type TaskNotes, type TaskStore } from './runner.ts';
import { TsTap } from './ts-tap.ts';
import type { ClosedSegment, Logger, Scene } from './types.ts';

const lines: Array<{ msg: string; o: Record<string, unknown> }> = [];
const logger: Logger = {
  info: (o: Record<string, unknown>, msg: string) => void lines.push({ o, msg }),
  warn: (o: Record<string, unknown>, msg: string) => void lines.push({ o, msg }),
  error: (o: Record<string, unknown>, msg: string) => void lines.push({ o, msg }),
  debug: () => undefined,
  child: () => logger,
} as unknown as Logger;

const tick = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

let root = '';
beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'runner-'));
  lines.length = 0;
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

/** Task notes as the database sends them (core/platform/db/notify.ts), and whether the test lets them through. */
function fakeNotes() {
  const listeners = new Set<(note: string) => void>();
  const notes: TaskNotes & { send(note: string): void; lose: boolean } = {
    lose: false,
    on(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    send(note) {
      if (!this.lose) for (const l of listeners) l(note);
    },
  };
  return notes;
}

/** One task, stopped when the test says (its note sent); what the runner wrote to it and read of it. */
function fakeTasks(claim: Partial<ClaimedTask> = {}, stoppedAt: Date | null = null) {
  const notes = fakeNotes();
  const reads = { renew: 0, peek: 0, claim: 0 };
  const segments: Segment[] = [];
  let claimed = false;
  let asked = true;
  let state: 'recording' | 'stopping' = claim.state === 'stopping' ? 'stopping' : 'recording';
  let stopAt: Date | null = stoppedAt;
  const finished: Array<{ durationMs: number }> = [];
  const task: ClaimedTask = {
    taskId: 't1',
    roomNumber: '123456789',
    userId: 'u1',
    state: 'starting',
    resumed: false,
    nextSeq: 0,
    startedAt: null,
    ...claim,
  };
  const store: TaskStore = {
    claim: () => {
      reads.claim++;
      if (claimed || !asked) return Promise.resolve(null);
      claimed = true;
      return Promise.resolve({ ...task });
    },
    renew: () => Promise.resolve(void reads.renew++).then(() => state),
    peek: () => Promise.resolve(void reads.peek++).then(() => state),
    stopRequestedAt: () => Promise.resolve(stopAt),
    started: () => Promise.resolve(),
    addSegment: (_id, _owner, s) => Promise.resolve(void segments.push(s)),
    segments: () => Promise.resolve([...segments]),
    finish: (_id, _owner, mp4) => Promise.resolve(void finished.push(mp4)),
    fail: (_id, _owner, reason) => Promise.reject(new Error(`failed: ${reason}`)),
  };
  return {
    store,
    notes,
    reads,
    segments,
    finished,
    /** The task is not there until `ask()` (which sends its note). */
    later() {
      asked = false;
    },
    ask() {
      asked = true;
      notes.send(`record:${task.roomNumber}`);
    },
    stop(at: number) {
      stopAt = new Date(at);
      state = 'stopping';
      notes.send(`record:${task.roomNumber}`);
    },
  };
}

/** A session whose encoder is `behind` media seconds behind: closes what the test says now, the rest when stopped, slowly. */
function fakeSession(startedAtMs: number, o: { workDir: string; firstSeq: number; onSegment: (s: ClosedSegment) => Promise<void> }) {
  let seq = o.firstSeq;
  const close = async (startSec: number, endSec: number) => {
    const file = path.join(o.workDir, segmentName(seq));
    await writeFile(file, 'ts');
    await o.onSegment({ seq: seq++, file, durationMs: (endSec - startSec) * 1000, bytes: 2, startSec, endSec });
  };
  const backlog: Array<[number, number]> = [];
  let progress = 0;
  const session: SessionHandle & { close: typeof close; backlog: typeof backlog } = {
    flowing: Promise.resolve(),
    broken: new Promise<never>(() => undefined),
    startedAtMs,
    liveTap: new TsTap(),
    get progress() {
      return progress;
    },
    close,
    backlog,
    stop: async () => {
      for (const [a, b] of backlog) {
        await tick(400);
        progress++;
        await close(a, b);
      }
    },
    kill: () => undefined,
  };
  return session;
}

function deps(
  tasks: TaskStore & { notes?: TaskNotes },
  joins: Array<{ files: string[]; keepSec: number | null }>,
  onSession: (s: ReturnType<typeof fakeSession>) => void,
): RunnerDeps {
  const objects = {
    putFile: () => Promise.resolve(),
    download: () => Promise.resolve(null),
    delete: () => Promise.resolve(),
  } as unknown as ObjectStore;
  return {
    tasks,
    ...(tasks.notes ? { notes: tasks.notes } : {}),
    objects,
    logger,
    settings: { width: 1280, height: 720, fps: 30, videoKbps: 3000, audioKbps: 128, segmentSeconds: 4 },
    slots: 1,
    leaseSeconds: 6,
    workRoot: root,
    sweepMs: 20,
    mediaFor: () => Promise.resolve({ mediaToken: 'x', mediaUrl: 'ws://nowhere' }),
    openScene: () => Promise.resolve({ close: () => undefined } as unknown as Scene),
    startSession: (o) => {
      const s = fakeSession(Date.now() - 20_000, o);
      onSession(s);
      return Promise.resolve(s);
    },
    join: (files, out, keepSec) => {
      joins.push({ files: files.map((f) => path.basename(f)), keepSec });
      return Promise.resolve({ durationMs: Math.round((keepSec ?? 0) * 1000), bytes: 1 });
    },
    probeSegment: () => Promise.resolve({ durationMs: 4000, bytes: 2 }),
  };
}

describe('the runner ends a recording at the media instant of the teacher’s stop', () => {
  it('keeps every segment up to the stop from an encoder 10 s behind, and joins keepSec = the stop minus the file’s start', async () => {
    const t = fakeTasks();
    const joins: Array<{ files: string[]; keepSec: number | null }> = [];
    let session: ReturnType<typeof fakeSession> | null = null;
    const runner = new RecorderRunner(deps({ ...t.store, notes: t.notes }, joins, (s) => (session = s)));
    runner.start();
    await expect.poll(() => session, { timeout: 5000 }).not.toBeNull();
    const s = session!;
    // The class has run 20 s of media; the encoder closed 8 s of it. The stop: media 18 s.
    await s.close(0, 4);
    await s.close(4, 8);
    s.backlog.push([8, 12], [12, 16], [16, 20], [20, 22]);
    t.stop(s.startedAtMs! + 18_000);
    await expect.poll(() => joins.length, { timeout: 10_000 }).toBe(1);
    expect(joins[0]!.files).toEqual([0, 1, 2, 3, 4].map(segmentName));
    expect(joins[0]!.keepSec).toBeCloseTo(18, 6);
    expect(t.segments.map((x) => x.seq)).toEqual([0, 1, 2, 3, 4]);
    const listed = lines.find((l) => l.msg === 'recording listed')!;
    expect(listed.o).toMatchObject({ keepSec: 18, overshootSec: 2, behindAtStopSec: 10, reachedStop: true });
    expect(listed.o['stopWaitMs']).toBeGreaterThanOrEqual(1000);
    await runner.close();
  });
});

describe('a recorder killed and resumed', () => {
  /** Segments a killed recorder left in the task's directory (their spans are lost: they are probed, 4 s each). */
  async function leftOnDisk(seqs: number[]): Promise<void> {
    await mkdir(path.join(root, 't1'), { recursive: true });
    for (const seq of seqs) await writeFile(path.join(root, 't1', segmentName(seq)), 'ts');
  }

  it('a resumed recording: the stop maps onto the new session, the earlier pieces count whole', async () => {
    await leftOnDisk([0, 1]);
    const t = fakeTasks({ state: 'recording', resumed: true, nextSeq: 2, startedAt: new Date(Date.now() - 60_000) });
    const joins: Array<{ files: string[]; keepSec: number | null }> = [];
    let session: ReturnType<typeof fakeSession> | null = null;
    const runner = new RecorderRunner(deps({ ...t.store, notes: t.notes }, joins, (s) => (session = s)));
    runner.start();
    await expect.poll(() => session, { timeout: 5000 }).not.toBeNull();
    const s = session!;
    await s.close(0, 4);
    s.backlog.push([4, 8], [8, 12], [12, 14]);
    // The stop at media 9 s of the new session: 8 s recovered + 9 s = 17 s of file.
    t.stop(s.startedAtMs! + 9000);
    await expect.poll(() => joins.length, { timeout: 10_000 }).toBe(1);
    expect(joins[0]!.files).toEqual([0, 1, 2, 3, 4].map(segmentName));
    expect(joins[0]!.keepSec).toBeCloseTo(17, 6);
    await runner.close();
  });

  it('resumed after its stop (killed while ending): keeps at most the stop minus the first frame, all that came before the stop', async () => {
    await leftOnDisk([0, 1, 2]);
    const startedAt = new Date(Date.now() - 60_000);
    const t = fakeTasks({ state: 'stopping', resumed: true, nextSeq: 0, startedAt }, new Date(startedAt.getTime() + 10_000));
    const joins: Array<{ files: string[]; keepSec: number | null }> = [];
    const runner = new RecorderRunner(deps({ ...t.store, notes: t.notes }, joins, () => undefined));
    runner.start();
    await expect.poll(() => joins.length, { timeout: 10_000 }).toBe(1);
    expect(joins[0]!.files).toEqual([0, 1, 2].map(segmentName));
    expect(joins[0]!.keepSec).toBeCloseTo(10, 6);
    await runner.close();
  });
});

describe('the runner hears its work (ADR 109)', () => {
  it('reads nothing between lease renewals, and reads the task at once when the note of its stop comes', async () => {
    const t = fakeTasks();
    const joins: Array<{ files: string[]; keepSec: number | null }> = [];
    let session: ReturnType<typeof fakeSession> | null = null;
    const runner = new RecorderRunner(deps({ ...t.store, notes: t.notes }, joins, (s) => (session = s)));
    runner.start();
    await expect.poll(() => session, { timeout: 5000 }).not.toBeNull();
    // The first renewal comes a third of the lease (2 s) after the claim; until then nothing was read.
    await expect.poll(() => t.reads.renew, { timeout: 5000 }).toBeGreaterThanOrEqual(1);
    expect(t.reads.peek).toBe(0);
    const s = session!;
    await s.close(0, 4);
    const askedAt = Date.now();
    t.stop(s.startedAtMs! + 4000);
    await expect.poll(() => t.reads.peek, { timeout: 1000, interval: 5 }).toBe(1);
    await expect.poll(() => joins.length, { timeout: 10_000 }).toBe(1);
    // Well before the next renewal could have told it.
    expect(Date.now() - askedAt).toBeLessThan(1500);
    await runner.close();
  });

  it('a stop whose note was lost is seen at the next renewal', async () => {
    const t = fakeTasks();
    const joins: Array<{ files: string[]; keepSec: number | null }> = [];
    let session: ReturnType<typeof fakeSession> | null = null;
    const runner = new RecorderRunner(deps({ ...t.store, notes: t.notes }, joins, (s) => (session = s)));
    runner.start();
    await expect.poll(() => session, { timeout: 5000 }).not.toBeNull();
    const s = session!;
    await s.close(0, 4);
    t.notes.lose = true;
    t.stop(s.startedAtMs! + 4000);
    await expect.poll(() => joins.length, { timeout: 10_000 }).toBe(1);
    expect(t.reads.peek).toBe(0);
    expect(t.reads.renew).toBeGreaterThanOrEqual(1);
    await runner.close();
  });

  it('a task asked for is claimed on its note, not at the next sweep; without a note the sweep finds it', async () => {
    const heard = fakeTasks();
    heard.later();
    let session: ReturnType<typeof fakeSession> | null = null;
    const runner = new RecorderRunner({ ...deps({ ...heard.store, notes: heard.notes }, [], (s) => (session = s)), sweepMs: 60_000 });
    runner.start();
    await expect.poll(() => heard.reads.claim, { timeout: 5000 }).toBeGreaterThanOrEqual(1);
    const before = heard.reads.claim;
    heard.ask();
    await expect.poll(() => session, { timeout: 1000, interval: 5 }).not.toBeNull();
    // Two passes: the one the note started, and the one after the claim ended it.
    expect(heard.reads.claim - before).toBeLessThanOrEqual(2);
    await runner.close();

    const swept = fakeTasks();
    swept.later();
    let found: ReturnType<typeof fakeSession> | null = null;
    const other = new RecorderRunner({ ...deps({ ...swept.store, notes: swept.notes }, [], (s) => (found = s)), sweepMs: 300 });
    other.start();
    swept.notes.lose = true;
    swept.ask();
    await expect.poll(() => found, { timeout: 3000 }).not.toBeNull();
    await other.close();
  });
});
