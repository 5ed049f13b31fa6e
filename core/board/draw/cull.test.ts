import { describe, expect, it } from 'vitest';
import type { BoardItem, ItemData } from '#core/contracts/board.ts';
import { cullGrid, gridView, visibleItems, worthCulling } from './cull.ts';

const view = { scale: 1, ox: 0, oy: 0, width: 200, height: 100 };
const line = (id: string, points: number[], width: number, extra: Partial<Extract<ItemData, { kind: 'stroke' }>> = {}): BoardItem => ({
  id,
  uid: 'u',
  data: { kind: 'stroke', points, color: 'red', width, ...extra },
});

describe('occlusion culling', () => {
  it('skips a thin line buried under a later thick one, and keeps the later one', () => {
    const keep = visibleItems([line('a', [20, 50, 80, 50], 4), line('b', [10, 50, 90, 50], 30)], view);
    expect([...keep]).toEqual([0, 1]);
  });
  it('keeps a line that sticks out from under a later one, even by its antialiased edge', () => {
    expect([...visibleItems([line('a', [20, 50, 120, 50], 4), line('b', [10, 50, 90, 50], 30)], view)]).toEqual([1, 1]);
    // Radius 14 under radius 15: its edge pixels reach past the cover's wholly covered pixels.
    expect([...visibleItems([line('a', [30, 50, 70, 50], 28), line('b', [10, 50, 90, 50], 30)], view)]).toEqual([1, 1]);
    // Radius 13 under radius 15: every pixel it touches is wholly inside the cover.
    expect([...visibleItems([line('a', [30, 50, 70, 50], 26), line('b', [10, 50, 90, 50], 30)], view)]).toEqual([0, 1]);
  });
  it('counts an eraser as covering (what it clears is gone), and is drawn itself', () => {
    const keep = visibleItems([line('a', [20, 50, 80, 50], 4), line('e', [10, 50, 90, 50], 20, { eraser: true })], view);
    expect([...keep]).toEqual([0, 1]);
  });
  it('never skips text, images or stencils, and they cover nothing', () => {
    const text: BoardItem = { id: 't', uid: 'u', data: { kind: 'text', text: 'x', x: 10, y: 40, width: 150, fontSize: 18, color: 'red' } };
    const image: BoardItem = { id: 'i', uid: 'u', data: { kind: 'image', src: 'board/r/i.png', x: 0, y: 0, w: 200, h: 100 } };
    const keep = visibleItems([line('a', [20, 50, 80, 50], 4), text, image], view);
    expect([...keep]).toEqual([1, 1, 1]);
  });
  it('skips lines that are out of view', () => {
    expect([...visibleItems([line('a', [500, 500, 600, 500], 4)], view)]).toEqual([0]);
  });
  it('does not let an ellipse or a dotted line cover anything', () => {
    const dotted: BoardItem = {
      id: 'd',
      uid: 'u',
      data: { kind: 'shape', shape: 'dottedline', x1: 10, y1: 50, x2: 90, y2: 50, color: 'red', width: 30 },
    };
    expect([...visibleItems([line('a', [20, 50, 80, 50], 4), dotted], view)]).toEqual([1, 1]);
  });
  it('culls on the device pixels: at a ratio of 2 the margins are half a CSS pixel', () => {
    expect(gridView(0.5, 10, 20, 200, 100, 2)).toEqual({ scale: 1, ox: 20, oy: 40, width: 400, height: 200 });
    // Radius 14 under radius 15 shows at its antialiased edge on CSS pixels (above), and is
    // wholly inside on a screen of twice the pixels.
    const items = [line('a', [30, 50, 70, 50], 28), line('b', [10, 50, 90, 50], 30)];
    expect([...visibleItems(items, gridView(1, 0, 0, 200, 100, 1))]).toEqual([1, 1]);
    expect([...visibleItems(items, gridView(1, 0, 0, 200, 100, 2))]).toEqual([0, 1]);
    // Radius 14.5 under 15 still shows there.
    expect([...visibleItems([line('a', [30, 50, 70, 50], 29), items[1]!], gridView(1, 0, 0, 200, 100, 2))]).toEqual([1, 1]);
  });
  it('picks the device pixels only for a board drawn over many times', () => {
    // A line of width 4 across the 200 x 100 view inks about 4 % of it.
    const lines = (n: number) => Array.from({ length: n }, (_, i) => line(`l${i}`, [0, i % 100, 199, i % 100], 4));
    expect(cullGrid(lines(50), 1, 0, 0, 200, 100, 2)).toBeNull();
    expect(cullGrid(lines(150), 1, 0, 0, 200, 100, 2)).toEqual(gridView(1, 0, 0, 200, 100, 1));
    expect(cullGrid(lines(300), 1, 0, 0, 200, 100, 2)).toEqual(gridView(1, 0, 0, 200, 100, 2));
  });
  it('is worth running only on a board drawn over several times', () => {
    const few = Array.from({ length: 10 }, (_, i) => line(`l${i}`, [0, i * 10, 199, i * 10], 4));
    expect(worthCulling(few, view)).toBe(false);
    const many = Array.from({ length: 400 }, (_, i) => line(`l${i}`, [0, i % 100, 199, i % 100], 4));
    expect(worthCulling(many, view)).toBe(true);
  });
});
