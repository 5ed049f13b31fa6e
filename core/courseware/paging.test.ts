import { describe, expect, it } from 'vitest';
import { boundPage, coursewareView, isPortrait, NO_COURSEWARE, scrollOf, slideOffset, stepScroll } from './paging.ts';

describe('courseware paging', () => {
  it('bounds pages to 1..total', () => {
    expect(boundPage(0, 5)).toBe(1);
    expect(boundPage(6, 5)).toBe(5);
    expect(boundPage(3, 5)).toBe(3);
    expect(boundPage(3, 0)).toBe(0);
    expect(boundPage(Number.NaN, 4)).toBe(1);
  });
  it('scrolls in tenths from 0 to 1.8', () => {
    let s = 0;
    for (let i = 0; i < 30; i++) s = stepScroll(s, 1);
    expect(s).toBe(1.8);
    expect(stepScroll(0, -1)).toBe(0);
    expect(stepScroll(0.3, 1)).toBe(0.4);
    expect(stepScroll(0.7, -1)).toBe(0.6);
  });
  it('knows portrait pages', () => {
    expect(isPortrait({ width: 1280, height: 1810 })).toBe(true);
    expect(isPortrait({ width: 1280, height: 720 })).toBe(false);
    expect(isPortrait(undefined)).toBe(false);
  });
  it('moves a portrait page image up by the scroll, never past its end', () => {
    expect(slideOffset({ width: 1280, height: 720 }, 1, 1024, 768)).toBe(0);
    expect(slideOffset({ width: 1000, height: 2000 }, 0.5, 1024, 768)).toBe(384);
    expect(slideOffset({ width: 1000, height: 1000 * 1.5 }, 1.8, 1024, 768)).toBe(1536 - 768);
  });
  it('reads the scroll of the block, tolerating its absence', () => {
    expect(scrollOf(NO_COURSEWARE)).toBe(0);
    expect(scrollOf({ ...NO_COURSEWARE, scroll: 0.30000000000000004 })).toBe(0.3);
    expect(scrollOf({ ...NO_COURSEWARE, scroll: 9 })).toBe(1.8);
  });
  it('chooses the view of docs/product/03-board-courseware-billing.md §2.1', () => {
    const loaded = { ...NO_COURSEWARE, documentId: 'd', documentType: 1 as const, images: ['a'], pptCurrentPage: 1, pptTotalPage: 1 };
    expect(coursewareView(NO_COURSEWARE, true, false)).toBe('default');
    expect(coursewareView(NO_COURSEWARE, true, true)).toBe('uploading');
    expect(coursewareView(NO_COURSEWARE, false, false)).toBe('holdon');
    expect(coursewareView(loaded, false, false)).toBe('loaded');
    expect(coursewareView({ ...loaded, documentType: 3, videoUrl: 'v' }, false, false)).toBe('video');
    expect(coursewareView({ ...loaded, images: [], status: 1 }, true, false)).toBe('uploading');
    expect(coursewareView({ ...loaded, images: [], status: 4 }, true, false)).toBe('default');
  });
});
