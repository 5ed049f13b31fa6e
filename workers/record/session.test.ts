import { describe, expect, it } from 'vitest';
import { encoderGivenUp, pictureEveryMs } from './session.ts';

describe('an encoder behind real time', () => {
  it('gets fewer new pictures the further behind it is', () => {
    expect(pictureEveryMs(0)).toBe(0);
    expect(pictureEveryMs(0.9)).toBe(0);
    expect(pictureEveryMs(1)).toBe(1000);
    expect(pictureEveryMs(9.9)).toBe(1000);
    expect(pictureEveryMs(10)).toBe(5000);
    expect(pictureEveryMs(60)).toBe(5000);
  });

  it('is waited for while it makes progress, however far behind; given up when stuck or hopeless', () => {
    // 45 s behind (past the old 30 s break) but writing: the recording waits for it.
    expect(encoderGivenUp(45, 200)).toBe(false);
    expect(encoderGivenUp(100, 14_000)).toBe(false);
    // Nothing written for more than 15 s while frames wait: stuck.
    expect(encoderGivenUp(5, 15_001)).toBe(true);
    // Up to date: no frames wait, silence from it says nothing.
    expect(encoderGivenUp(0.5, 60_000)).toBe(false);
    // Two minutes behind: it would not catch up before the class ends.
    expect(encoderGivenUp(121, 0)).toBe(true);
  });
});
