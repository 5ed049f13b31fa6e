import { describe, expect, it } from 'vitest';
import { mayDraw, nextBackground, readExtend, stepZoom, toolbarWidth, writeExtend } from './tools.ts';

describe('board tools', () => {
  it('steps zoom through 10-150 % and stops at the ends', () => {
    expect(stepZoom(1, 1)).toBe(1.25);
    expect(stepZoom(1, -1)).toBe(0.75);
    expect(stepZoom(1.5, 1)).toBe(1.5);
    expect(stepZoom(0.1, -1)).toBe(0.1);
    expect(stepZoom(0.4, 1)).toBe(0.5); // from a wheel zoom between steps
  });
  it('cycles the five background colours', () => {
    expect([0, 1, 2, 3, 4].map(nextBackground)).toEqual([1, 2, 3, 4, 0]);
  });
  it('reads and writes roomExtend without losing other fields', () => {
    expect(readExtend('')).toEqual({ color: 0, pageIndex: 0 });
    expect(readExtend('{"color":3,"pageIndex":20}')).toEqual({ color: 3, pageIndex: 20 });
    expect(readExtend('{"color":9,"pageIndex":21}')).toEqual({ color: 0, pageIndex: 0 });
    expect(readExtend('not json')).toEqual({ color: 0, pageIndex: 0 });
    expect(JSON.parse(writeExtend('{"screenOwner":"u1","color":1}', { pageIndex: 4 }))).toEqual({
      screenOwner: 'u1',
      color: 1,
      pageIndex: 4,
    });
  });
  it('lets the creator draw always and members only with wbPower on outside type 4', () => {
    expect(mayDraw('creator', '0', 4)).toBe(true);
    expect(mayDraw('member', '1', 1)).toBe(true);
    expect(mayDraw('member', '0', 1)).toBe(false);
    expect(mayDraw('member', '1', 4)).toBe(false);
    expect(mayDraw('observer', '1', 1)).toBe(false);
  });
  it('sizes the toolbar as docs/product/03-board-courseware-billing.md §9 says', () => {
    expect([toolbarWidth(true, false), toolbarWidth(false, false), toolbarWidth(true, true)]).toEqual([575, 356, 318]);
  });
});
