import { describe, expect, it } from 'vitest';
import { ManualClock } from './clock.ts';
import { MemoryRateLimiter, TokenBuckets } from './memory-rate-limit.ts';

describe('MemoryRateLimiter', () => {
  it('allows `limit` hits per window per key, then frees up as the window slides', () => {
    let now = 1_000_000;
    const limiter = new MemoryRateLimiter(() => now);
    for (let i = 0; i < 3; i++) expect(limiter.hit('a', 3, 10_000)).toBe(true);
    expect(limiter.hit('a', 3, 10_000)).toBe(false);
    expect(limiter.hit('b', 3, 10_000)).toBe(true);
    now += 10_001;
    expect(limiter.hit('a', 3, 10_000)).toBe(true);
  });
});

describe('TokenBuckets', () => {
  it('a steady rate at the refill rate never runs dry, however it jitters; a flood gets the capacity', () => {
    const clock = new ManualClock(1_000_000);
    const buckets = new TokenBuckets(clock, 10, 1 / 1000);
    // 600 hits, one a second on average, each up to 0.3 s early or late.
    let at = 0;
    for (let i = 0; i < 600; i++) {
      const t = i * 1000 + (((i * 7919) % 601) - 300);
      clock.advance(t - at);
      at = t;
      expect(buckets.take('steady'), `hit ${i}`).toBe(true);
    }
    const flood = Array.from({ length: 15 }, () => buckets.take('flood'));
    expect(flood.filter(Boolean)).toHaveLength(10);
    expect(buckets.take('flood')).toBe(false);
    clock.advance(1000);
    expect(buckets.take('flood')).toBe(true);
    expect(buckets.take('flood')).toBe(false);
  });
});
