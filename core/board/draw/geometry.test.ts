import { describe, expect, it } from 'vitest';
import type { BoardItem, ItemData } from '#core/contracts/board.ts';
import {
  hitItem,
  imagePlan,
  itemBounds,
  itemsInBox,
  passedThreshold,
  placeImage,
  scaleToWidth,
  shapeOutline,
  shouldKeepPoint,
  smoothJoins,
  topItemAt,
  traceSmooth,
  translateData,
  wrapText,
} from './geometry.ts';

/** Records path commands. */
function record(points: number[]): string[] {
  const out: string[] = [];
  traceSmooth(
    {
      moveTo: (x, y) => out.push(`M${x},${y}`),
      lineTo: (x, y) => out.push(`L${x},${y}`),
      quadraticCurveTo: (cx, cy, x, y) => out.push(`Q${cx},${cy},${x},${y}`),
    },
    points,
  );
  return out;
}

const stroke = (points: number[], extra: Partial<Extract<ItemData, { kind: 'stroke' }>> = {}): ItemData => ({
  kind: 'stroke',
  points,
  color: 'red',
  width: 4,
  ...extra,
});
const item = (id: string, data: ItemData): BoardItem => ({ id, uid: 'u1', data });

describe('stroke smoothing', () => {
  it('curves through the midpoints, with each sample as the control point, ending on the last point', () => {
    expect(record([0, 0, 10, 0, 10, 10, 20, 10])).toEqual(['M0,0', 'Q10,0,10,5', 'Q10,10,15,10', 'L20,10']);
  });
  it('draws a dot for one point and a straight line for two', () => {
    expect(record([5, 5])).toEqual(['M5,5', 'L5.01,5']);
    expect(record([0, 0, 3, 4])).toEqual(['M0,0', 'L3,4']);
    expect(record([])).toEqual([]);
  });
  it('drops pointer samples closer than one unit to the last kept one', () => {
    expect(shouldKeepPoint([0, 0], 0.5, 0.5)).toBe(false);
    expect(shouldKeepPoint([0, 0], 1, 0)).toBe(true);
    expect(shouldKeepPoint([], 0, 0)).toBe(true);
  });
  it('takes miter joins only where no join can show: no repeated sample, no turn past 90 degrees', () => {
    expect(smoothJoins([])).toBe(true);
    expect(smoothJoins([0, 0, 3, 4])).toBe(true);
    // Gentle wiggles and a right angle: the curves meet tangent.
    expect(smoothJoins([0, 0, 3, 2, 6, 1, 9, 3])).toBe(true);
    expect(smoothJoins([0, 0, 10, 0, 10, 10, 20, 10])).toBe(true);
    // Turning back (a tick, a zigzag) or a repeated sample: round joins.
    expect(smoothJoins([0, 0, 10, 0, 2, 3])).toBe(false);
    expect(smoothJoins([0, 0, 5, 5, 5, 5, 9, 2])).toBe(false);
  });
});

describe('shapes', () => {
  it('fits an equilateral triangle into the box, standing on its bottom edge', () => {
    const o = shapeOutline('triangle', 0, 0, 200, 100);
    expect(o.kind).toBe('poly');
    if (o.kind !== 'poly') return;
    const [top, right, left] = o.points;
    const side = Math.hypot(right!.x - left!.x, right!.y - left!.y);
    expect(Math.hypot(top!.x - left!.x, top!.y - left!.y)).toBeCloseTo(side, 6);
    expect(Math.hypot(top!.x - right!.x, top!.y - right!.y)).toBeCloseTo(side, 6);
    expect(left!.y).toBe(100);
    expect(top!.y).toBeCloseTo(0, 6); // the box is wide: the height limits the side
    expect((left!.x + right!.x) / 2).toBeCloseTo(100, 6);
  });
  it('gives a circle the shorter side as diameter, from the corner the drag started at', () => {
    expect(shapeOutline('circle', 100, 100, 40, 0)).toEqual({ kind: 'ellipse', cx: 70, cy: 70, rx: 30, ry: 30 });
    expect(shapeOutline('ellipse', 0, 0, 100, 40)).toEqual({ kind: 'ellipse', cx: 50, cy: 20, rx: 50, ry: 20 });
  });
  it('puts the right angle at the bottom-left and the dotted line on a 3,3 dash', () => {
    const o = shapeOutline('rightTriangle', 10, 10, 50, 40);
    expect(o.kind === 'poly' && o.points).toEqual([
      { x: 10, y: 10 },
      { x: 10, y: 40 },
      { x: 50, y: 40 },
    ]);
    const d = shapeOutline('dottedline', 0, 0, 10, 10);
    expect(d.kind === 'poly' && d.dash).toEqual([3, 3]);
  });
  it('gives an arrow a head at its end point', () => {
    const o = shapeOutline('arrow', 0, 0, 100, 0, 4);
    expect(o.kind === 'poly' && o.head?.[1]).toEqual({ x: 100, y: 0 });
    expect(o.kind === 'poly' && o.head?.[0].x).toBeLessThan(100);
  });
});

describe('hit testing and selection', () => {
  const line = stroke([0, 0, 100, 0]);
  it('picks a line within half its width plus the tolerance, and not farther', () => {
    expect(hitItem(line, 50, 6)).toBe(true); // 2 + 5 = 7 reach
    expect(hitItem(line, 50, 8)).toBe(false);
    expect(hitItem(line, 110, 0)).toBe(false);
  });
  it('never picks an eraser stroke', () => {
    expect(hitItem(stroke([0, 0, 100, 0], { eraser: true, width: 20 }), 50, 0)).toBe(false);
  });
  it('picks a closed shape inside and an open one only near its line', () => {
    const rect: ItemData = { kind: 'shape', shape: 'rectangle', x1: 0, y1: 0, x2: 100, y2: 100, color: 'red', width: 4 };
    expect(hitItem(rect, 50, 50)).toBe(true);
    expect(hitItem(rect, 120, 50)).toBe(false);
    const ln: ItemData = { ...rect, shape: 'line' };
    expect(hitItem(ln, 50, 50)).toBe(true);
    expect(hitItem(ln, 80, 20)).toBe(false);
  });
  it('returns the top-most item under the point', () => {
    const items = [item('a', stroke([0, 0, 100, 0])), item('b', stroke([0, 2, 100, 2])), item('c', stroke([0, 300, 100, 300]))];
    expect(topItemAt(items, 50, 1)?.id).toBe('b');
    expect(topItemAt(items, 500, 500)).toBeNull();
  });
  it('selects what a box touches, skipping eraser strokes', () => {
    const items = [
      item('a', stroke([0, 0, 10, 10])),
      item('b', stroke([200, 200, 210, 210])),
      item('e', stroke([0, 0, 10, 10], { eraser: true })),
      item('t', { kind: 'text', text: 'hello', x: 5, y: 5, width: 150, fontSize: 18, color: 'black' }),
    ];
    expect(itemsInBox(items, { x: -5, y: -5, w: 30, h: 30 })).toEqual(['a', 't']);
  });
  it('starts a move only after 5 px', () => {
    expect(passedThreshold(3, 3)).toBe(false);
    expect(passedThreshold(3, 4)).toBe(true);
  });
  it('moves every kind of item by the same offset', () => {
    expect(translateData(stroke([1, 2, 3, 4]), 10, 20)).toMatchObject({ points: [11, 22, 13, 24] });
    expect(translateData({ kind: 'image', src: 'k', x: 1, y: 2, w: 3, h: 4 }, 1, 1)).toMatchObject({ x: 2, y: 3, w: 3, h: 4 });
  });
});

describe('text', () => {
  const measure = (s: string) => s.length * 10;
  it('wraps at word boundaries to the box width, and inside words longer than the box', () => {
    expect(wrapText('aaa bbb ccc', 75, measure)).toEqual(['aaa bbb', 'ccc']);
    expect(wrapText('abcdefghij', 40, measure)).toEqual(['abcd', 'efgh', 'ij']);
    expect(wrapText('a\nb', 100, measure)).toEqual(['a', 'b']);
  });
  it('wraps Chinese by character', () => {
    expect(wrapText('一二三四五', 30, measure)).toEqual(['一二三', '四五']);
  });
  it('gives a text item a box 150 wide and one line per wrap', () => {
    const b = itemBounds({ kind: 'text', text: 'x', x: 10, y: 20, width: 150, fontSize: 18, color: 'red' });
    expect(b).toMatchObject({ x: 10, y: 20, w: 150 });
    expect(b.h).toBeCloseTo(18 * 1.3, 6);
  });
});

describe('images', () => {
  it('follows docs/product/03-board-courseware-billing.md §5: jpg/png only, at most 20,480,000 bytes, compressed above 512,000', () => {
    expect(imagePlan('image/gif', 'a.gif', 10)).toBe('badType');
    expect(imagePlan('image/png', 'a.png', 20_480_001)).toBe('tooLarge');
    expect(imagePlan('image/png', 'a.png', 20_480_000)).toBe('compress');
    expect(imagePlan('image/jpeg', 'a.jpg', 512_000)).toBe('asIs');
    expect(imagePlan('image/jpeg', 'a.jpg', 512_001)).toBe('compress');
    expect(imagePlan('', 'photo.JPG', 100)).toBe('asIs');
  });
  it('scales down to a width, keeping the aspect, and never enlarges', () => {
    expect(scaleToWidth(4000, 3000, 1280)).toEqual({ width: 1280, height: 960 });
    expect(scaleToWidth(3024, 4032, 2048)).toEqual({ width: 2048, height: 2731 });
    expect(scaleToWidth(800, 600, 1280)).toEqual({ width: 800, height: 600 });
  });
  it('places an image within half the board, centred where the user looks, on the board', () => {
    expect(placeImage(2000, 1000, { x: 512, y: 384 })).toEqual({ x: 256, y: 256, w: 512, h: 256 });
    expect(placeImage(100, 100, { x: 1020, y: 0 })).toEqual({ x: 924, y: 0, w: 100, h: 100 });
  });
});
