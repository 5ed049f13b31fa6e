import { describe, expect, it } from 'vitest';
import { loadScore } from './media-registry.ts';

describe('media node load', () => {
  it('is a share of capacity, counting rooms placed since the last report', () => {
    expect(loadScore({ peers: 50, capacity: 100, fresh: 0 })).toBe(0.5);
    expect(loadScore({ peers: 0, capacity: 100, fresh: 5 })).toBe(0.1);
    // A bigger node with the same peers is the less loaded one.
    expect(loadScore({ peers: 40, capacity: 200, fresh: 0 })).toBeLessThan(loadScore({ peers: 40, capacity: 100, fresh: 0 }));
  });
});
