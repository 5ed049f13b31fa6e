import { describe, expect, it } from 'vitest';
import { reviewStep } from './ReviewBoard.tsx';
import { readFollow, writeExtend } from '#core/board/draw/tools.ts';

describe('the board review keys', () => {
  it('page with the arrows and Page Up/Down within the pages, jump with Home/End', () => {
    expect(reviewStep('ArrowRight', 0, 3)).toBe(1);
    expect(reviewStep('PageDown', 1, 3)).toBe(2);
    expect(reviewStep('ArrowRight', 2, 3)).toBeNull();
    expect(reviewStep('ArrowLeft', 2, 3)).toBe(1);
    expect(reviewStep('PageUp', 0, 3)).toBeNull();
    expect(reviewStep('End', 0, 3)).toBe(2);
    expect(reviewStep('Home', 2, 3)).toBe(0);
    expect(reviewStep('Home', 0, 3)).toBeNull();
    expect(reviewStep('ArrowRight', 0, 0)).toBeNull();
    expect(reviewStep('x', 0, 3)).toBeNull();
  });
});

describe('follow me in roomExtend', () => {
  it('is on only for follow: 1, and writing it keeps the other fields', () => {
    expect(readFollow('')).toBe(false);
    expect(readFollow('not json')).toBe(false);
    expect(readFollow('{"follow":true}')).toBe(false);
    const on = writeExtend('{"color":2,"pageIndex":4}', { follow: 1 });
    expect(readFollow(on)).toBe(true);
    expect(JSON.parse(on)).toEqual({ color: 2, pageIndex: 4, follow: 1 });
    expect(readFollow(writeExtend(on, { follow: 0 }))).toBe(false);
  });
});
