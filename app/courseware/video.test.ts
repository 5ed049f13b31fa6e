import { describe, expect, it } from 'vitest';
import { expectedTime, heldAt } from './VideoCourseware.tsx';

describe('video follow', () => {
  it('ages a playing control from when it arrived, not a paused one', () => {
    expect(expectedTime({ type: 'play', currentTime: 4, heldAt: 1000 }, 3500)).toBe(6.5);
    expect(expectedTime({ type: 'heartbeat', currentTime: 4, heldAt: 1000 }, 1000)).toBe(4);
    expect(expectedTime({ type: 'pause', currentTime: 4, heldAt: 1000 }, 9000)).toBe(4);
  });
  it('believes at most 10 s of ageing', () => {
    expect(expectedTime({ type: 'play', currentTime: 1, heldAt: 0 }, 60_000)).toBe(11);
    expect(heldAt(1000, 500_000, 200)).toBe(200 - 10_000);
  });
  it('places a late joiner by the server time since the control', () => {
    expect(heldAt(10_000, 12_500, 800)).toBe(800 - 2500);
    expect(heldAt(0, 12_500, 800)).toBe(800);
    // A server clock behind the control does not run the video backwards.
    expect(heldAt(20_000, 12_500, 800)).toBe(800);
  });
});
