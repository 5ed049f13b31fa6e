import { describe, expect, it } from 'vitest';
import { AudioTimeline } from './audio-timeline.ts';

/** A 20 ms packet (960 samples) whose every sample is `value`. */
const packet = (value: number) => new Int16Array(960).fill(value);
/** RTP timestamp of the k-th 20 ms packet of a sender whose clock starts at `start`. */
const ts = (k: number, start = 1_000_000) => (start + k * 960) >>> 0;

/** Pulls `ms` of sound from `fromMs` in 20 ms pulls; returns the samples. */
function pull(t: AudioTimeline, fromMs: number, ms: number): Int32Array {
  const out = new Int32Array(ms * 48);
  for (let at = 0; at < ms; at += 20) {
    const acc = new Int32Array(960);
    t.mixInto(acc, fromMs + at, 960);
    out.set(acc, at * 48);
  }
  return out;
}

describe('AudioTimeline puts sound where its RTP time says', () => {
  it('places packets that came in a burst after a stall exactly where packets on time would be', () => {
    const smooth = new AudioTimeline();
    const burst = new AudioTimeline();
    for (let k = 0; k < 50; k++) {
      // Packet k is made at 20k ms and arrives 15 ms later; in the bursty run packets 10-19 wait for a
      // stalled loop and all arrive at 400 ms, one of them twice, and 30 and 31 swap places.
      smooth.place(ts(k), 20 * k + 15, packet(k + 1));
      const arrived = k >= 10 && k < 20 ? 400 : 20 * k + 15;
      const order = k === 30 ? 31 : k === 31 ? 30 : k;
      burst.place(ts(order), k === 30 || k === 31 ? 20 * 31 + 15 : arrived, packet(order + 1));
      if (k === 15) burst.place(ts(k), 400, packet(k + 1)); // twice: placed once
    }
    const a = pull(smooth, 15, 1000);
    const b = pull(burst, 15, 1000);
    expect(Array.from(b)).toEqual(Array.from(a));
    // Packet k's sound is at 20k ms of the pull (the base is the 15 ms the fastest took).
    for (const k of [0, 10, 19, 30, 31, 49]) expect(a[k * 960 + 5]).toBe(k + 1);
    expect(burst.summary.late).toBe(0);
  });

  it('leaves silence for a missing packet and for a sender that sent nothing (no packets while muted)', () => {
    const t = new AudioTimeline();
    for (const k of [0, 1, 3, 40, 41]) t.place(ts(k), 20 * k + 10, packet(7));
    const out = pull(t, 10, 1000);
    expect(out[0]).toBe(7);
    expect(out[2 * 960 + 1]).toBe(0); // packet 2 never came
    expect(out[3 * 960 + 1]).toBe(7);
    expect(out.subarray(4 * 960, 40 * 960).every((v) => v === 0)).toBe(true);
    expect(out[40 * 960 + 1]).toBe(7);
    expect(out[41 * 960 + 959]).toBe(7);
  });

  it('drops an older packet that came after the mixer took its place, and only that', () => {
    const t = new AudioTimeline();
    t.place(ts(0), 10, packet(1));
    t.place(ts(2), 50, packet(3));
    pull(t, 10, 40); // the mixer is past 0-40 ms
    t.place(ts(1), 300, packet(2)); // 20-40 ms, out of order: gone
    expect(t.summary.late).toBe(960);
    const next = pull(t, 50, 20);
    expect(next.every((v) => v === 3)).toBe(true);
  });

  it('hears a sender that fell behind real time late, not never: its sound goes on right after what was taken', () => {
    const t = new AudioTimeline();
    // A starved browser: its microphone gives 20 ms of sound every 30 ms of our clock.
    const out: number[] = [];
    let pulled = 0;
    for (let k = 0; k < 100; k++) {
      const now = 30 * k;
      t.place(ts(k), now, packet(1));
      // The mixer takes what is 100 ms old (its hold) in 10 ms steps.
      while (pulled + 10 <= now - 100) {
        const acc = new Int32Array(480);
        t.mixInto(acc, pulled, 480);
        out.push(...acc);
        pulled += 10;
      }
    }
    expect(t.summary.late).toBe(0);
    expect(t.summary.shiftedMs).toBeGreaterThan(500);
    // Once it started, everything it sent is heard: sound 2/3 of the time, never dropped.
    const heard = out.filter((v) => v === 1).length;
    expect(heard).toBeGreaterThan(t.summary.samples - 100 * 48 - 960);
  });

  it('mixes tracks by adding, and a piece cut by the span keeps its rest for the next pull', () => {
    const t = new AudioTimeline();
    t.place(ts(0), 0, packet(5));
    const acc = new Int32Array(480).fill(2);
    expect(t.mixInto(acc, 0, 480)).toBe(true);
    expect(acc.every((v) => v === 7)).toBe(true);
    expect(t.queued).toBe(480);
    const rest = new Int32Array(960);
    t.mixInto(rest, 10, 960);
    expect(rest.subarray(0, 480).every((v) => v === 5)).toBe(true);
    expect(rest.subarray(480).every((v) => v === 0)).toBe(true);
    expect(t.mixInto(new Int32Array(960), 30, 960)).toBe(false);
  });

  it('follows the RTP clock across its 32-bit wrap', () => {
    const t = new AudioTimeline();
    const start = 0xffffffff - 960 * 3 + 1;
    for (let k = 0; k < 8; k++) t.place(ts(k, start), 20 * k, packet(k + 1));
    const out = pull(t, 0, 160);
    for (let k = 0; k < 8; k++) expect(out[k * 960 + 100]).toBe(k + 1);
  });

  it('starts its base again when the sender restarts its clock, and moves it up when the sender runs slow', () => {
    const t = new AudioTimeline();
    t.place(ts(0), 0, packet(1));
    // The sender's clock starts again 20 s back (a new source): its sound goes where it arrives.
    t.place(ts(0, 100), 100, packet(2));
    expect(t.summary.rebased).toBe(1);
    const out = pull(t, 0, 140);
    expect(out[5]).toBe(1);
    expect(out[100 * 48 + 5]).toBe(2);

    // A clock 1 % slow: each packet's gap is 0.2 ms more than the one before. Without following it,
    // the last of 1000 packets would be placed 200 ms before it arrived.
    const slow = new AudioTimeline();
    for (let k = 0; k < 1000; k++) slow.place(ts(k), k * 20 * 1.01, packet(1));
    const lastAt = 999 * 20 * 1.01;
    const recent = new Int32Array(130 * 48);
    slow.mixInto(recent, lastAt - 130, recent.length);
    const end = recent.findLastIndex((v) => v === 1) + 1;
    // It ends at most 60 ms (two 2 s windows of drift and its own 20 ms) before it arrived.
    expect(end).toBeGreaterThan(70 * 48);
  });
});
