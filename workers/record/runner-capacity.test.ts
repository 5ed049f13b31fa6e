/**
 * The runner's claim rule (ADR 105): with a capacity, a new room is taken only when the measured
 * free CPU carries one more session; a push of a room composed here is taken whatever the load;
 * refusals are counted once per task and logged once per change of state. The task store, the
 * sessions and the machine are fakes driven by the test (the rule is what is tested here; the real
 * recorders are in tests/integration/recorder-capacity.test.ts).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ClaimedTask } from '#core/recording/record-tasks.ts';
import type { ClaimedLive } from '#core/streaming/live-tasks.ts';
import type { ObjectStore } from '#core/platform/objects.ts';
import { capturingLogger } from '#tests/support/log-capture.ts';
import { Capacity, type CpuProbe } from './capacity.ts';
import { RecorderRunner, type LiveTaskStore, type PushHandle, type SessionHandle, type TaskStore } from './runner.ts';
import { TsTap } from './ts-tap.ts';
import type { Scene } from './types.ts';

/** Two cores whose clock and counters the test moves. */
function machine() {
  const m = { now: 0, total: 0, idle: 0, ticks: new Map<number, number>() };
  const probe: CpuProbe = {
    cores: 2,
    ticksPerSecond: 100,
    now: () => m.now,
    machine: () => ({ total: m.total, idle: m.idle }),
    processTicks: (pid) => m.ticks.get(pid) ?? null,
    selfSeconds: () => 0,
  };
  /** One second during which each session's process used `cores`, the machine `idleShare` idle. */
  const second = (idleShare: number, cores: number) => {
    m.now += 1000;
    m.total += 200;
    m.idle += 200 * idleShare;
    for (const [pid, t] of m.ticks) m.ticks.set(pid, t + 100 * cores);
  };
  return { m, probe, second };
}

function taskStore() {
  const tasks: Array<ClaimedTask & { owner: string | null }> = [];
  const store: TaskStore = {
    claim: async (owner, onlyRooms) => {
      const t = tasks.find((x) => x.owner === null && (!onlyRooms || onlyRooms.includes(x.roomNumber)));
      if (!t) return null;
      t.owner = owner;
      return { ...t };
    },
    waiting: async (_owner, except = []) =>
      tasks.filter((x) => x.owner === null && !except.includes(x.roomNumber)).map((x) => ({ taskId: x.taskId, roomNumber: x.roomNumber })),
    renew: async () => 'recording',
    peek: async () => 'recording',
    stopRequestedAt: async () => null,
    started: async () => undefined,
    addSegment: async () => undefined,
    segments: async () => [],
    finish: async () => undefined,
    fail: async () => undefined,
  };
  const add = (taskId: string, roomNumber: string) =>
    tasks.push({ taskId, roomNumber, userId: 'u1', state: 'starting', resumed: false, nextSeq: 0, startedAt: null, owner: null });
  const ownerOf = (taskId: string) => tasks.find((t) => t.taskId === taskId)?.owner ?? null;
  return { store, add, ownerOf };
}

const scene: Scene = {
  current: () => ({ version: 0, showState: 'wb', main: null, video: null, creatorId: 'u1' }),
  label: () => Buffer.alloc(0),
  close: () => undefined,
};

let dir = '';
const runners: RecorderRunner[] = [];
afterEach(async () => {
  for (const r of runners.splice(0)) await r.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function setup(o: { capacity: boolean }) {
  dir = await mkdtemp(path.join(tmpdir(), 'banshu-runner-capacity-'));
  const { m, probe, second } = machine();
  const tasks = taskStore();
  const lives: Array<ClaimedLive & { owner: string | null }> = [];
  const ended = new Set<string>();
  // Task notes (ADR 109): the test sends the one the database would when a push ends.
  const listeners = new Set<(note: string) => void>();
  const notes = {
    on: (l: (note: string) => void) => (listeners.add(l), () => void listeners.delete(l)),
    send: (note: string) => listeners.forEach((l) => l(note)),
  };
  const live: LiveTaskStore = {
    claim: async (owner, onlyRooms) => {
      const t = lives.find((x) => x.owner === null && (!onlyRooms || onlyRooms.includes(x.roomNumber)));
      if (!t) return null;
      t.owner = owner;
      return { ...t };
    },
    renew: async (taskId) => (ended.has(taskId) ? 'ended' : 'active'),
    peek: async (taskId) => (ended.has(taskId) ? 'ended' : 'active'),
    live: async () => undefined,
    reconnecting: async () => undefined,
    fail: async () => undefined,
  };
  const { logger, lines } = capturingLogger('info');
  let pid = 100;
  const sessions: Array<SessionHandle & { lagSeconds: number }> = [];
  const runner = new RecorderRunner({
    tasks: tasks.store,
    live,
    startPush: (): PushHandle => ({ status: { state: 'live', kbps: 3000 }, end: async () => undefined }),
    objects: {} as ObjectStore,
    logger,
    settings: { width: 1280, height: 720, fps: 30, videoKbps: 3000, audioKbps: 128, segmentSeconds: 4 },
    slots: 3,
    leaseSeconds: 6,
    workRoot: dir,
    sweepMs: 10,
    notes,
    mediaFor: async () => ({ mediaToken: 't', mediaUrl: 'ws://media' }),
    openScene: async () => scene,
    startSession: async () => {
      const mine = ++pid;
      m.ticks.set(mine, 0);
      const session = {
        flowing: Promise.resolve(),
        broken: new Promise<never>(() => undefined),
        startedAtMs: Date.now(),
        liveTap: new TsTap(),
        lagSeconds: 0,
        processIds: [mine],
        stop: async () => void m.ticks.delete(mine),
      };
      sessions.push(session);
      return session;
    },
    join: async () => ({ durationMs: 0, bytes: 0 }),
    probeSegment: async () => null,
    // One class measured at 0.4 of a core fills a budget of 0.3 x 2 cores (0.6).
    ...(o.capacity ? { capacity: new Capacity({ budget: 0.3, firstEstimateCores: 0.7, probe }) } : {}),
  });
  runners.push(runner);
  runner.start();
  /** Seconds of the fake machine, each given to the runner's polls. */
  const seconds = async (n: number, idleShare: number, cores: number) => {
    for (let i = 0; i < n; i++) {
      second(idleShare, cores);
      await new Promise((r) => setTimeout(r, 30));
    }
  };
  return { runner, tasks, lives, ended, notes, seconds, lines, sessions };
}

const at = (lines: Array<{ msg?: string }>, msg: string) => lines.filter((l) => l.msg === msg);

describe('RecorderRunner with a measured capacity', () => {
  it('refuses a second room its measured free CPU cannot carry, though the slots would allow it', async () => {
    const { runner, tasks, seconds, lines } = await setup({ capacity: true });
    tasks.add('t1', '100001');
    await expect.poll(() => tasks.ownerOf('t1')).toBe(runner.owner);
    // The session is measured: 0.4 of a core.
    await seconds(10, 0.7, 0.4);
    expect(runner.stats()).toMatchObject({
      rooms: 1,
      slots: 3,
      measured: true,
      nextCores: 0.4,
      sessions: [{ room: '100001', cores: 0.4 }],
    });
    tasks.add('t2', '100002');
    // Many polls go by (each with a claim): the task stays for another recorder.
    await seconds(5, 0.7, 0.4);
    await expect.poll(() => runner.stats().refusals).toBe(1);
    expect(tasks.ownerOf('t2')).toBeNull();
    expect(runner.stats()).toMatchObject({ refusing: 'cpu', freeCores: 0.2, budgetCores: 0.6 });
    // Logged once for the task, with the figures, and once for the change of state (at the first
    // class's start, when it was counted at the first estimate, 0.7 > 0.6), not at every poll.
    expect(at(lines, 'recording refused: this recorder is at capacity')).toEqual([
      expect.objectContaining({ taskId: 't2', room: '100002', why: 'cpu', rooms: 1, freeCores: 0.2, nextCores: 0.4, measured: true }),
    ]);
    expect(at(lines, 'recording refused: this recorder is at capacity')[0]).toMatchObject({ sessionCores: [0.4], lagSeconds: [0] });
    expect(at(lines, 'recorder at capacity: new classes are left to other recorders')).toEqual([
      expect.objectContaining({ why: 'cpu', rooms: 1, nextCores: 0.7, measured: false }),
    ]);
  });

  it('a push of a room composed here costs no new session: taken at capacity', async () => {
    const { runner, tasks, lives, ended, notes, seconds } = await setup({ capacity: true });
    tasks.add('t1', '100001');
    await expect.poll(() => tasks.ownerOf('t1')).toBe(runner.owner);
    await seconds(10, 0.7, 0.4);
    tasks.add('t2', '100002');
    await expect.poll(() => runner.stats().refusing).toBe('cpu');
    lives.push({
      taskId: 'l1',
      roomNumber: '100001',
      platform: 'YouTube',
      pushUrl: 'rtmp://example/live/key',
      resumed: false,
      owner: null,
    } as ClaimedLive & { owner: null });
    await expect.poll(() => runner.activeLive).toEqual(['l1']);
    expect(tasks.ownerOf('t2')).toBeNull();
    expect(runner.rooms).toEqual(['100001']);
    // The push ends first (a recording leaving a room still pushed waits for its next segment, which fakes never close).
    ended.add('l1');
    notes.send('live:100001');
    await expect.poll(() => runner.activeLive).toEqual([]);
  });

  it('takes the room once the measured load leaves room for it, and says so once', async () => {
    const { runner, tasks, seconds, lines } = await setup({ capacity: true });
    tasks.add('t1', '100001');
    await expect.poll(() => tasks.ownerOf('t1')).toBe(runner.owner);
    await seconds(10, 0.7, 0.4);
    tasks.add('t2', '100002');
    await expect.poll(() => runner.stats().refusals).toBe(1);
    // The class gets cheaper (a still board): 0.15 of a core, so 0.45 left of 0.6.
    await seconds(12, 0.7, 0.15);
    await expect.poll(() => tasks.ownerOf('t2')).toBe(runner.owner);
    // Each change logged once: the two kinds of line alternate, never repeat.
    const changes = lines
      .filter((l) => l.msg === 'recorder has room for another class' || l.msg?.startsWith('recorder at capacity'))
      .map((l) => l.msg);
    expect(changes.length).toBeGreaterThanOrEqual(2);
    expect(changes.every((msg, i) => i === 0 || msg !== changes[i - 1])).toBe(true);
    expect(runner.stats().refusals).toBe(1);
  });

  it('refuses while an encoder here lags behind real time', async () => {
    const { runner, tasks, seconds, sessions } = await setup({ capacity: true });
    tasks.add('t1', '100001');
    await expect.poll(() => tasks.ownerOf('t1')).toBe(runner.owner);
    await expect.poll(() => sessions.length).toBe(1);
    sessions[0]!.lagSeconds = 2;
    await seconds(10, 0.9, 0.05);
    tasks.add('t2', '100002');
    await expect.poll(() => runner.stats().refusing).toBe('lagging');
    expect(runner.stats().sessions[0]).toMatchObject({ lagSeconds: 2, meanLagSeconds: 2 });
    expect(tasks.ownerOf('t2')).toBeNull();
  });

  it('without a capacity, the slots alone decide (what RECORDER_SLOTS did before)', async () => {
    const { runner, tasks, seconds } = await setup({ capacity: false });
    tasks.add('t1', '100001');
    await expect.poll(() => tasks.ownerOf('t1')).toBe(runner.owner);
    await seconds(10, 0.7, 0.4);
    tasks.add('t2', '100002');
    await expect.poll(() => tasks.ownerOf('t2')).toBe(runner.owner);
    expect(runner.stats()).toMatchObject({ rooms: 2, refusals: 0, refusing: null, freeCores: null });
  });
});
