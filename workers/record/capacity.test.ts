import { describe, expect, it } from 'vitest';
import { Capacity, firstEstimateCores, procProbe, type CpuProbe } from './capacity.ts';

/**
 * A machine driven by the test: `advance(ms, { idleShare, pids: { pid: cores } , selfCores })`
 * moves the clock and charges the ticks as if each process had used that many cores meanwhile.
 */
function fakeMachine(cores = 2) {
  let now = 0;
  let total = 0;
  let idle = 0;
  let self = 0;
  const ticks = new Map<number, number>();
  const probe: CpuProbe = {
    cores,
    ticksPerSecond: 100,
    now: () => now,
    machine: () => ({ total, idle }),
    processTicks: (pid) => ticks.get(pid) ?? null,
    selfSeconds: () => self,
  };
  return {
    probe,
    start(pid: number) {
      ticks.set(pid, 0);
    },
    end(pid: number) {
      ticks.delete(pid);
    },
    advance(ms: number, o: { idleShare: number; pids?: Record<number, number>; selfCores?: number }) {
      now += ms;
      const all = (ms / 1000) * 100 * cores;
      total += all;
      idle += all * o.idleShare;
      self += (ms / 1000) * (o.selfCores ?? 0);
      for (const [pid, c] of Object.entries(o.pids ?? {})) ticks.set(Number(pid), (ticks.get(Number(pid)) ?? 0) + (ms / 1000) * 100 * c);
    },
  };
}

/** `seconds` of one-second samples. */
function run(
  cap: Capacity,
  m: ReturnType<typeof fakeMachine>,
  seconds: number,
  o: Parameters<ReturnType<typeof fakeMachine>['advance']>[1],
) {
  for (let i = 0; i < seconds; i++) {
    m.advance(1000, o);
    cap.sample();
  }
}

describe('Capacity', () => {
  it('measures a session from its processes and its share of the Node process, after its warm-up', () => {
    const m = fakeMachine();
    const cap = new Capacity({ budget: 0.8, firstEstimateCores: 0.7, probe: m.probe });
    m.start(10);
    m.start(11);
    const session = { processIds: [10, 11], lagSeconds: 0.1 };
    cap.add('s1', '100001', session);
    // Warm-up: the start costs more, and is not what the class costs.
    run(cap, m, 3, { idleShare: 0.6, pids: { 10: 1.5, 11: 0.3 }, selfCores: 0.5 });
    expect(cap.view().sessions[0]!.cores).toBeNull();
    expect(cap.view().measured).toBe(false);
    expect(cap.view().nextCores).toBe(0.7);
    run(cap, m, 8, { idleShare: 0.6, pids: { 10: 0.25, 11: 0.05 }, selfCores: 0.1 });
    const v = cap.view();
    expect(v.sessions).toEqual([{ id: 's1', room: '100001', lagSeconds: 0.1, meanLagSeconds: 0.1, cores: 0.4, warming: false }]);
    expect(v).toMatchObject({ cores: 2, budgetCores: 1.6, measured: true, nextCores: 0.4, usedCores: 0.4, machineIdleCores: 1.2 });
    // Free: the budget's 1.6 - 0.4 = 1.2, the machine's idle 1.2.
    expect(v.freeCores).toBe(1.2);
  });

  it('a decoder started again counts from its start; a session whose processes are gone is dropped', () => {
    const m = fakeMachine();
    const cap = new Capacity({ budget: 1, firstEstimateCores: 0.7, probe: m.probe, warmupMs: 0 });
    m.start(10);
    m.start(11);
    const session = { processIds: [10, 11] };
    cap.add('s1', 'r', session);
    run(cap, m, 6, { idleShare: 0.5, pids: { 10: 0.3, 11: 0.1 } });
    m.end(11);
    m.start(12);
    session.processIds = [10, 12];
    run(cap, m, 6, { idleShare: 0.5, pids: { 10: 0.3, 12: 0.1 } });
    expect(cap.view().sessions[0]!.cores).toBe(0.4);
    m.end(10);
    m.end(12);
    run(cap, m, 1, { idleShare: 1 });
    expect(cap.view().sessions).toEqual([]);
    expect(cap.rooms).toEqual([]);
    // What it measured is kept for the next class.
    expect(cap.view()).toMatchObject({ measured: true, nextCores: 0.4, usedCores: 0 });
  });

  it('the Node process is shared by the sessions running', () => {
    const m = fakeMachine();
    const cap = new Capacity({ budget: 1, firstEstimateCores: 0.7, probe: m.probe, warmupMs: 0 });
    for (const pid of [1, 2]) m.start(pid);
    cap.add('a', 'r1', { processIds: [1] });
    cap.add('b', 'r2', { processIds: [2] });
    run(cap, m, 7, { idleShare: 0.5, pids: { 1: 0.2, 2: 0.4 }, selfCores: 0.2 });
    expect(cap.view().sessions.map((s) => s.cores)).toEqual([0.3, 0.5]);
    // One more is taken to cost the dearest.
    expect(cap.view().nextCores).toBe(0.5);
  });

  it('takes a room only under the slots, with no encoder lagging and the free CPU covering one more', () => {
    const m = fakeMachine();
    const cap = new Capacity({ budget: 0.5, firstEstimateCores: 0.7, probe: m.probe });
    // An idle recorder takes one, whatever it measures.
    expect(cap.decide({ rooms: 0, pending: 0, slots: 2 }).take).toBe(true);
    expect(cap.decide({ rooms: 1, pending: 1, slots: 1 })).toMatchObject({ take: false, why: 'slots' });
    // Claimed, not started yet: counted at the estimate; 1.0 - 0.7 < 0.7.
    expect(cap.decide({ rooms: 1, pending: 1, slots: 4 })).toMatchObject({ take: false, why: 'cpu' });
    m.start(10);
    const session = { processIds: [10], lagSeconds: 0 };
    cap.add('s1', 'r1', session);
    run(cap, m, 10, { idleShare: 0.8, pids: { 10: 0.3 } });
    // Measured at 0.3: 1.0 - 0.3 = 0.7 >= 0.3, and the machine has 1.6 idle.
    expect(cap.decide({ rooms: 1, pending: 0, slots: 4 })).toMatchObject({ take: true, view: { nextCores: 0.3, freeCores: 0.7 } });
    // With a second one claimed (pending at 0.3): 0.4 left, still one more.
    expect(cap.decide({ rooms: 2, pending: 1, slots: 4 }).take).toBe(true);
    // Three: 0.1 left of the budget.
    expect(cap.decide({ rooms: 3, pending: 2, slots: 4 })).toMatchObject({ take: false, why: 'cpu' });
    // The machine busy with other work: idle 0.2 of a core is less than a session.
    run(cap, m, 11, { idleShare: 0.1, pids: { 10: 0.3 } });
    expect(cap.decide({ rooms: 1, pending: 0, slots: 4 })).toMatchObject({ take: false, why: 'cpu', view: { machineIdleCores: 0.2 } });
    run(cap, m, 11, { idleShare: 0.8, pids: { 10: 0.3 } });
    expect(cap.decide({ rooms: 1, pending: 0, slots: 4 }).take).toBe(true);
    // An encoder behind real time by more than 0.5 s over the window: nothing new.
    session.lagSeconds = 0.9;
    run(cap, m, 11, { idleShare: 0.8, pids: { 10: 0.3 } });
    expect(cap.decide({ rooms: 1, pending: 0, slots: 4 })).toMatchObject({ take: false, why: 'lagging' });
    // A moment behind is not lagging: the window's mean decides.
    session.lagSeconds = 0;
    run(cap, m, 8, { idleShare: 0.8, pids: { 10: 0.3 } });
    session.lagSeconds = 2;
    run(cap, m, 1, { idleShare: 0.8, pids: { 10: 0.3 } });
    expect(cap.decide({ rooms: 1, pending: 0, slots: 4 }).take).toBe(true);
  });

  it("an encoder's lag in its session's first seconds (it is starting) refuses nothing; after them it does", () => {
    const m = fakeMachine();
    const cap = new Capacity({ budget: 1, firstEstimateCores: 0.3, probe: m.probe });
    m.start(10);
    const session = { processIds: [10], lagSeconds: 0.8 };
    cap.add('s1', 'r1', session);
    run(cap, m, 2, { idleShare: 0.9, pids: { 10: 0.2 } });
    expect(cap.view().sessions[0]).toMatchObject({ warming: true, meanLagSeconds: 0.8 });
    expect(cap.decide({ rooms: 1, pending: 0, slots: 4 }).take).toBe(true);
    run(cap, m, 2, { idleShare: 0.9, pids: { 10: 0.2 } });
    expect(cap.decide({ rooms: 1, pending: 0, slots: 4 })).toMatchObject({ take: false, why: 'lagging' });
  });

  it('a session not measured yet is reserved at the estimate against the machine idle', () => {
    const m = fakeMachine();
    const cap = new Capacity({ budget: 1, firstEstimateCores: 0.7, probe: m.probe });
    m.start(10);
    cap.add('s1', 'r1', { processIds: [10] });
    run(cap, m, 2, { idleShare: 0.6, pids: { 10: 0.2 } });
    // 1.2 idle - 0.7 reserved = 0.5 < 0.7.
    expect(cap.decide({ rooms: 1, pending: 0, slots: 4 })).toMatchObject({ take: false, why: 'cpu', view: { freeCores: 0.5 } });
  });

  it('samples at most once per interval', () => {
    const m = fakeMachine();
    const cap = new Capacity({ budget: 1, firstEstimateCores: 0.7, probe: m.probe });
    m.advance(1000, { idleShare: 0.5 });
    cap.sample();
    m.advance(100, { idleShare: 0 });
    cap.sample();
    m.advance(1000, { idleShare: 0.5 });
    cap.sample();
    // The busy 100 ms and the next second were read as one interval: 1 s idle of 2.2 s, on 2 cores.
    expect(cap.view().machineIdleCores).toBe(0.91);
  });

  it('the first estimate follows the frames: 0.7 of a core at 720p30, never under 0.35', () => {
    expect(firstEstimateCores({ width: 1280, height: 720, fps: 30 })).toBe(0.7);
    expect(firstEstimateCores({ width: 1920, height: 1080, fps: 30 })).toBe(1.58);
    expect(firstEstimateCores({ width: 1280, height: 720, fps: 15 })).toBe(0.35);
    expect(firstEstimateCores({ width: 640, height: 360, fps: 15 })).toBe(0.35);
  });

  it('reads this machine from /proc', () => {
    const m = procProbe.machine();
    expect(m && m.total > 0 && m.idle >= 0 && m.idle <= m.total).toBe(true);
    expect(procProbe.processTicks(process.pid)).toBeGreaterThanOrEqual(0);
    expect(procProbe.processTicks(2 ** 30)).toBeNull();
    expect(procProbe.cores).toBeGreaterThan(0);
  });
});
