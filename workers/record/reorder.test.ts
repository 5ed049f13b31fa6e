import { describe, expect, it } from 'vitest';
import { RtpReorder } from './reorder.ts';

function harness(waitMs = 100) {
  let now = 0;
  const out: number[] = [];
  const r = new RtpReorder<number>({ emit: (n) => out.push(n), waitMs, now: () => now });
  return {
    r,
    out,
    at: (t: number) => (now = t),
    push: (...seqs: number[]) => {
      for (const s of seqs) r.push(s, s);
    },
  };
}

describe('RtpReorder', () => {
  it('passes a stream in order straight through, across the 16-bit wrap', () => {
    const h = harness();
    h.push(65534, 65535, 0, 1);
    expect(h.out).toEqual([65534, 65535, 0, 1]);
  });

  it('holds what follows a gap until the retransmission fills it, then sends all in order', () => {
    const h = harness();
    h.push(10, 11, 13, 14);
    expect(h.out).toEqual([10, 11]);
    h.at(40);
    h.push(12); // the NACK's answer
    expect(h.out).toEqual([10, 11, 12, 13, 14]);
    expect(h.r.filled).toBe(1);
    expect(h.r.skipped).toBe(0);
  });

  it('gives a gap up after its wait (on the next packet or by its timer) and drops the packet that comes later', async () => {
    const h = harness(100);
    h.push(1, 3);
    h.at(99);
    h.push(4);
    expect(h.out).toEqual([1]);
    h.at(100);
    h.push(5);
    expect(h.out).toEqual([1, 3, 4, 5]);
    expect(h.r.skipped).toBe(1);
    h.push(2);
    expect(h.out).toEqual([1, 3, 4, 5]);
    expect(h.r.late).toBe(1);
    // The timer gives a gap up when nothing else comes (real time: a 5 ms wait).
    const real: number[] = [];
    const r = new RtpReorder<number>({ emit: (n) => real.push(n), waitMs: 5 });
    r.push(1, 1);
    r.push(3, 3);
    await expect.poll(() => real).toEqual([1, 3]);
  });

  it('gives a gap up at once behind too many packets, and starts over after a jump', () => {
    const out: number[] = [];
    const r = new RtpReorder<number>({ emit: (n) => out.push(n), waitMs: 1000, maxHeld: 3, now: () => 0 });
    for (const s of [1, 3, 4, 5]) r.push(s, s);
    expect(out).toEqual([1]);
    r.push(6, 6);
    expect(out).toEqual([1, 3, 4, 5, 6]);
    r.push(40_000, 40_000); // a new leg's numbering
    r.push(40_001, 40_001);
    expect(out).toEqual([1, 3, 4, 5, 6, 40_000, 40_001]);
  });

  it('ignores a duplicate', () => {
    const h = harness();
    h.push(7, 9, 9, 8, 8);
    expect(h.out).toEqual([7, 8, 9]);
  });
});
