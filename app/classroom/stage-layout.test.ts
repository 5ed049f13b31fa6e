import { describe, expect, it } from 'vitest';
import { gridFit, speakerFit, STRIP_H, STRIP_W } from './stage-layout.ts';

describe('the video stage geometry', () => {
  it('fills a wide box with the largest 16:9 tiles', () => {
    const two = gridFit(2, 880, 420);
    expect(two.cols).toBe(2);
    expect(two.w).toBe(436);
    expect(Math.abs(two.w / two.h - 16 / 9)).toBeLessThan(0.02);
    const four = gridFit(4, 880, 520);
    expect([four.cols, four.rows]).toEqual([2, 2]);
    expect(four.h * 2 + 8).toBeLessThanOrEqual(520);
    const nine = gridFit(9, 880, 520);
    expect(nine.cols * nine.w + (nine.cols - 1) * 8).toBeLessThanOrEqual(880);
    expect(nine.rows * nine.h + (nine.rows - 1) * 8).toBeLessThanOrEqual(520);
  });

  it('gives one person the whole box', () => {
    expect(gridFit(1, 800, 450)).toMatchObject({ cols: 1, w: 800, h: 450 });
  });

  it('puts the speaker over a strip of 224 x 126 tiles', () => {
    const fit = speakerFit(3, 880, 520);
    expect(fit.strip).toEqual({ w: STRIP_W, h: STRIP_H });
    expect(fit.main.h + STRIP_H + 8).toBeLessThanOrEqual(520);
    expect(fit.main.w).toBeGreaterThan(STRIP_W * 2);
  });
});
