/** The encoder takes the layout's 1280x720 frames whatever the output size, and scales to it. */
import { describe, expect, it } from 'vitest';
import { encoderArgs } from './encoder.ts';

const settings = { width: 1280, height: 720, fps: 30, videoKbps: 3000, audioKbps: 128, segmentSeconds: 4 };

describe('encoderArgs', () => {
  it('reads 1280x720 frames and scales only when the output size differs (to even sizes)', () => {
    const same = encoderArgs(settings, 0, '/tmp/w', '/tmp/w/list.csv');
    expect(same[same.indexOf('-s') + 1]).toBe('1280x720');
    expect(same).not.toContain('-vf');
    const small = encoderArgs({ ...settings, width: 640, height: 360 }, 0, '/tmp/w', '/tmp/w/list.csv');
    expect(small[small.indexOf('-s') + 1]).toBe('1280x720');
    expect(small[small.indexOf('-vf') + 1]).toBe('scale=640:360:flags=bicubic');
    const odd = encoderArgs({ ...settings, width: 853, height: 481 }, 0, '/tmp/w', '/tmp/w/list.csv');
    expect(odd[odd.indexOf('-vf') + 1]).toBe('scale=852:480:flags=bicubic');
  });
});
