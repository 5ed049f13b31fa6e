/**
 * The stage's end of a recording is a media instant (ADR 104): with an encoder behind real time,
 * the segments holding the class's last seconds close well after the stop, and the recording must
 * still take every one of them. Fake sessions stand in for the encoder (segments are files this test
 * writes, closing when the test says); the stage, its files and its timers are real.
 */
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { segmentName } from './encoder.ts';
import { LEAVE_WAIT_BASE_MS, RoomStage, type StageDeps, type StageSession } from './stage.ts';
import { TsTap } from './ts-tap.ts';
import type { ClosedSegment, Logger } from './types.ts';

const quiet: Logger = {
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  debug: () => undefined,
  child: () => quiet,
} as unknown as Logger;

const tick = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** A session whose encoder closes segments when the test says; its stop closes what is queued, one every `drainGapMs`. */
class FakeSession implements StageSession {
  #fail!: (err: Error) => void;
  readonly flowing = Promise.resolve();
  readonly broken = new Promise<never>((_, reject) => (this.#fail = reject));
  readonly liveTap = new TsTap();
  readonly startedAtMs: number;
  maxLagSec = 0;
  repeated = 0;
  /** Segments the encoder still holds: closed at the stop, in order. */
  queued: [number, number][] = [];
  drainGapMs = 0;
  #seq: number;
  readonly #workDir: string;
  readonly #onSegment: (s: ClosedSegment) => Promise<void>;

  constructor(o: { workDir: string; firstSeq: number; onSegment: (s: ClosedSegment) => Promise<void> }, startedAtMs: number) {
    this.#workDir = o.workDir;
    this.#seq = o.firstSeq;
    this.#onSegment = o.onSegment;
    this.startedAtMs = startedAtMs;
    this.broken.catch(() => undefined);
  }

  /** The encoder closes its next segment, spanning [startSec, endSec] of media. */
  async close(startSec: number, endSec: number): Promise<void> {
    const seq = this.#seq++;
    const file = path.join(this.#workDir, segmentName(seq));
    await writeFile(file, `media ${String(startSec)}-${String(endSec)}`);
    await this.#onSegment({ seq, file, durationMs: (endSec - startSec) * 1000, bytes: 20, startSec, endSec });
  }

  /** The session breaks (its encoder fell 30 s behind): the stage stops it and starts another. */
  breakNow(): void {
    this.#fail(new Error('the encoder does not keep up with real time'));
  }

  async stop(): Promise<void> {
    for (const [a, b] of this.queued) {
      if (this.drainGapMs) await tick(this.drainGapMs);
      await this.close(a, b);
    }
    this.queued = [];
  }
}

function fakeDeps(startedAtMs: number) {
  const sessions: FakeSession[] = [];
  let opened!: () => void;
  const firstOpen = new Promise<void>((r) => (opened = r));
  let emptied!: () => void;
  const empty = new Promise<void>((r) => (emptied = r));
  const deps: StageDeps = {
    roomNumber: '123456789',
    logger: quiet,
    open: (o) => {
      const s = new FakeSession(o, startedAtMs);
      sessions.push(s);
      opened();
      return Promise.resolve(s);
    },
    close: (s) => (s as FakeSession).stop(),
    onEmpty: () => emptied(),
  };
  return { deps, sessions, firstOpen, empty };
}

/** A recording's side: what it was handed (media spans), in its own directory. */
function taker(workDir: string) {
  const got: ClosedSegment[] = [];
  return { got, recording: { workDir, firstSeq: 0, onSegment: (s: ClosedSegment) => Promise.resolve(void got.push(s)) } };
}

let root = '';
beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'stage-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('a recording ends at its stop’s media instant, however late the encoder closes it', () => {
  it('last user: keeps every segment up to the stop while the encoder drains its backlog slowly, and cuts the rest', async () => {
    // The class has run 20 s; the encoder is 12 s behind: only [0,4] and [4,8] are closed.
    const t0 = Date.now() - 20_000;
    const { deps, sessions, firstOpen } = fakeDeps(t0);
    const dir = path.join(root, 'task');
    const r = taker(dir);
    const { stage, use } = RoomStage.forRecording(deps, r.recording);
    await firstOpen;
    expect(await use.flowing).toBe(t0);
    const s = sessions[0]!;
    await s.close(0, 4);
    await s.close(4, 8);
    // Still queued in the encoder: media past the stop at 18 s included; each closes 700 ms after the last.
    s.queued = [
      [8, 12],
      [12, 16],
      [16, 20],
      [20, 22],
    ];
    s.drainGapMs = 700;
    const left = await use.leave(t0 + 18_000);
    expect(r.got.map((g) => [g.startSec, g.endSec])).toEqual([
      [0, 4],
      [4, 8],
      [8, 12],
      [12, 16],
      [16, 20],
    ]);
    expect(left.reached).toBe(true);
    expect(left.overshootSec).toBeCloseTo(2, 6);
    expect(left.behindSec).toBeCloseTo(10, 6);
    // Everything it needs is in its directory, under its own numbers; the piece after the stop is gone.
    expect((await readdir(dir)).filter((f) => f.startsWith('seg-')).sort()).toEqual([0, 1, 2, 3, 4].map(segmentName));
    await stage.shutdown();
  });

  it('a push goes on: the recording waits for the encoder to reach its stop, then takes nothing more', async () => {
    const t0 = Date.now() - 30_000;
    const { deps, sessions, firstOpen } = fakeDeps(t0);
    const { stage, use: live } = RoomStage.forLive(deps, root, () => undefined);
    await firstOpen;
    await live.flowing;
    const s = sessions[0]!;
    await s.close(0, 4);
    // A recording joins: its file begins with the segment in progress, at its media start (4 s after t0), not now.
    const r = taker(path.join(root, 'rec'));
    const rec = stage.addRecording(r.recording);
    expect(await rec.flowing).toBe(t0 + 4000);
    await s.close(4, 8);
    // The stop at media 13 s; the encoder has closed up to 8 s and closes the rest late.
    const leaving = rec.leave(t0 + 13_000);
    await tick(600);
    await s.close(8, 12);
    await tick(600);
    await s.close(12, 16);
    const left = await leaving;
    expect(left).toMatchObject({ reached: true, behindSec: 5 });
    expect(left.overshootSec).toBeCloseTo(3, 6);
    expect(left.waitedMs).toBeGreaterThanOrEqual(1000);
    await s.close(16, 20);
    expect(r.got.map((g) => g.startSec)).toEqual([4, 8, 12]);
    expect((await readdir(path.join(root, 'rec'))).sort()).toEqual([0, 1, 2].map(segmentName));
    // The push's session goes on; the segment nobody takes is deleted.
    expect((await readdir(stage.workDir)).filter((f) => f.startsWith('seg-'))).toEqual([]);
    await live.leave();
    await stage.shutdown();
  });

  it('a push ending while the recording goes on drops none of its segments', async () => {
    const t0 = Date.now() - 10_000;
    const { deps, sessions, firstOpen, empty } = fakeDeps(t0);
    const { stage, use: live } = RoomStage.forLive(deps, root, () => undefined);
    await firstOpen;
    await live.flowing;
    const r = taker(path.join(root, 'rec'));
    const rec = stage.addRecording(r.recording);
    await rec.flowing;
    const s = sessions[0]!;
    await s.close(0, 4);
    await live.leave();
    await s.close(4, 8);
    s.queued = [[8, 11]];
    s.drainGapMs = 600;
    const left = await rec.leave(t0 + 10_500);
    expect(r.got.map((g) => [g.startSec, g.endSec])).toEqual([
      [0, 4],
      [4, 8],
      [8, 11],
    ]);
    expect(left.overshootSec).toBeCloseTo(0.5, 6);
    await empty;
  });

  it('a stop while a broken session still drains waits for what its encoder had', async () => {
    const t0 = Date.now() - 40_000;
    const { deps, sessions, firstOpen } = fakeDeps(t0);
    const dir = path.join(root, 'task');
    const r = taker(dir);
    const { stage, use } = RoomStage.forRecording(deps, r.recording);
    await firstOpen;
    await use.flowing;
    const s = sessions[0]!;
    await s.close(0, 4);
    s.queued = [
      [4, 8],
      [8, 12],
      [12, 14],
    ];
    s.drainGapMs = 500;
    s.breakNow();
    // The teacher stops at media 10 s while the broken session's encoder still hands on its backlog.
    await tick(100);
    const left = await use.leave(t0 + 10_000);
    expect(r.got.map((g) => g.startSec)).toEqual([0, 4, 8]);
    expect(left).toMatchObject({ reached: true, overshootSec: 2 });
    await stage.shutdown();
  });

  it('a push goes on and the encoder never reaches the stop: the wait is bounded (it grows with the lag) and logged', async () => {
    const t0 = Date.now() - 30_000;
    const { deps, sessions, firstOpen } = fakeDeps(t0);
    const warned: Array<Record<string, unknown>> = [];
    deps.logger = { ...quiet, warn: (o: Record<string, unknown>) => void warned.push(o) };
    const { stage, use: live } = RoomStage.forLive(deps, root, () => undefined);
    await firstOpen;
    await live.flowing;
    const r = taker(path.join(root, 'rec'));
    const rec = stage.addRecording(r.recording);
    await rec.flowing;
    await sessions[0]!.close(0, 4);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      // The stop at media 9 s; the encoder has closed 4 s: 5 s behind, so it waits 10 s + 2 x 5 s.
      let done = false;
      const leaving = rec.leave(t0 + 9000).then((l) => ((done = true), l));
      await vi.advanceTimersByTimeAsync(LEAVE_WAIT_BASE_MS + 9_000);
      expect(done).toBe(false);
      await vi.advanceTimersByTimeAsync(1_500);
      const left = await leaving;
      expect(left).toMatchObject({ reached: false, overshootSec: 0, behindSec: 5 });
      expect(warned).toEqual([{ behindSec: 5, waitedMs: LEAVE_WAIT_BASE_MS + 10_000 }]);
      expect(r.got.map((g) => g.startSec)).toEqual([0]);
    } finally {
      vi.useRealTimers();
    }
    await live.leave();
    await stage.shutdown();
  });

  it('a stop the closed segments already reach lets the recording go at once with its overshoot', async () => {
    const t0 = Date.now() - 10_000;
    const { deps, sessions, firstOpen } = fakeDeps(t0);
    const { stage, use: live } = RoomStage.forLive(deps, root, () => undefined);
    await firstOpen;
    await live.flowing;
    const r = taker(path.join(root, 'rec'));
    const rec = stage.addRecording(r.recording);
    await rec.flowing;
    await sessions[0]!.close(0, 4);
    await sessions[0]!.close(4, 8);
    // The stop was at media 6 s; the recorder saw it late.
    const left = await rec.leave(t0 + 6000);
    expect(left).toMatchObject({ reached: true, overshootSec: 2, behindSec: 0 });
    expect(r.got).toHaveLength(2);
    await live.leave();
    await stage.shutdown();
  });
});
