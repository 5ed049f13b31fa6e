import { describe, expect, it } from 'vitest';
import { MemoryRateLimiter } from './memory-rate-limit.ts';

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
