/**
 * Pure geometry of the board in board units (1024 x 768): stroke smoothing, shape outlines, item
 * bounds, hit testing, box selection, moving, text wrapping and image sizes. No DOM here, so the
 * renderer, the tools and the bench share one tested set of rules.
 */
import { TEXT_BOX_WIDTH, TEXT_FONT_SIZE, type BoardItem, type ItemData, type ShapeData, type ShapeKind } from '#core/contracts/board.ts';

export interface Point {
  x: number;
  y: number;
}

export interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** The subset of CanvasRenderingContext2D (and Path2D) a path is traced into. */
export interface PathSink {
  moveTo(x: number, y: number): void;
  lineTo(x: number, y: number): void;
  quadraticCurveTo(cx: number, cy: number, x: number, y: number): void;
}

/**
 * Traces a freehand line smoothed with quadratic curves through the midpoints: each sampled point
 * becomes the control point of a curve from the previous midpoint to the next, so corners between
 * samples are rounded and the line still passes through the first and last points.
 * `points` is flat [x0, y0, x1, y1, ...].
 */
export function traceSmooth(sink: PathSink, points: ArrayLike<number>): void {
  const n = points.length >> 1;
  if (n === 0) return;
  const x0 = points[0]!;
  const y0 = points[1]!;
  sink.moveTo(x0, y0);
  if (n === 1) {
    // A dot: a zero-length line, drawn as a round cap.
    sink.lineTo(x0 + 0.01, y0);
    return;
  }
  if (n === 2) {
    sink.lineTo(points[2]!, points[3]!);
    return;
  }
  for (let i = 1; i < n - 1; i++) {
    const cx = points[2 * i]!;
    const cy = points[2 * i + 1]!;
    const nx = points[2 * i + 2]!;
    const ny = points[2 * i + 3]!;
    sink.quadraticCurveTo(cx, cy, (cx + nx) / 2, (cy + ny) / 2);
  }
  sink.lineTo(points[2 * n - 2]!, points[2 * n - 1]!);
}

/**
 * Whether the line traceSmooth draws through these points can be stroked with miter joins and look
 * the same as with round ones. Its curves meet tangent to each other (each ends heading to the next
 * sample, the next starts heading there), so no join shows, unless two samples coincide or the
 * line turns by more than 90 degrees at a sample (a curve that sharp may be stroked with joins of
 * its own). Chromium's software rasterizer strokes miter joins faster (ADR 054).
 */
export function smoothJoins(points: ArrayLike<number>): boolean {
  const n = points.length >> 1;
  for (let i = 1; i < n - 1; i++) {
    const ax = points[2 * i]! - points[2 * i - 2]!;
    const ay = points[2 * i + 1]! - points[2 * i - 1]!;
    const bx = points[2 * i + 2]! - points[2 * i]!;
    const by = points[2 * i + 3]! - points[2 * i + 1]!;
    if ((ax === 0 && ay === 0) || (bx === 0 && by === 0) || ax * bx + ay * by < 0) return false;
  }
  return true;
}

/** Rounds board coordinates to 0.1 unit: the wire and the store need no more. */
export function roundCoord(v: number): number {
  return Math.round(v * 10) / 10;
}

/** Drops a sample closer than `minDistance` to the last kept one (pointer noise). */
export function shouldKeepPoint(points: readonly number[], x: number, y: number, minDistance = 1): boolean {
  const n = points.length;
  if (n < 2) return true;
  const dx = x - points[n - 2]!;
  const dy = y - points[n - 1]!;
  return dx * dx + dy * dy >= minDistance * minDistance;
}

export function normRect(x1: number, y1: number, x2: number, y2: number): Rect {
  return { x: Math.min(x1, x2), y: Math.min(y1, y2), w: Math.abs(x2 - x1), h: Math.abs(y2 - y1) };
}

export function rectsIntersect(a: Rect, b: Rect): boolean {
  return a.x <= b.x + b.w && b.x <= a.x + a.w && a.y <= b.y + b.h && b.y <= a.y + a.h;
}

export function inflate(r: Rect, by: number): Rect {
  return { x: r.x - by, y: r.y - by, w: r.w + 2 * by, h: r.h + 2 * by };
}

export function unionRects(rects: readonly Rect[]): Rect | null {
  if (rects.length === 0) return null;
  let x1 = Infinity;
  let y1 = Infinity;
  let x2 = -Infinity;
  let y2 = -Infinity;
  for (const r of rects) {
    x1 = Math.min(x1, r.x);
    y1 = Math.min(y1, r.y);
    x2 = Math.max(x2, r.x + r.w);
    y2 = Math.max(y2, r.y + r.h);
  }
  return { x: x1, y: y1, w: x2 - x1, h: y2 - y1 };
}

/** Outline of a shape as polylines (closed ones repeat their first point), or an ellipse. */
export type ShapeOutline =
  | { kind: 'poly'; points: Point[]; closed: boolean; dash?: [number, number]; head?: [Point, Point, Point] }
  | { kind: 'ellipse'; cx: number; cy: number; rx: number; ry: number };

export const ARROW_HEAD_MIN = 10;
export const DOTTED_DASH: [number, number] = [3, 3];

/** Where each shape sits in the box dragged from (x1, y1) to (x2, y2). */
export function shapeOutline(shape: ShapeKind, x1: number, y1: number, x2: number, y2: number, width = 4): ShapeOutline {
  const r = normRect(x1, y1, x2, y2);
  switch (shape) {
    case 'line':
      return {
        kind: 'poly',
        points: [
          { x: x1, y: y1 },
          { x: x2, y: y2 },
        ],
        closed: false,
      };
    case 'dottedline':
      return {
        kind: 'poly',
        points: [
          { x: x1, y: y1 },
          { x: x2, y: y2 },
        ],
        closed: false,
        dash: DOTTED_DASH,
      };
    case 'arrow': {
      const angle = Math.atan2(y2 - y1, x2 - x1);
      const len = Math.max(ARROW_HEAD_MIN, width * 3);
      const spread = Math.PI / 7;
      const left = { x: x2 - len * Math.cos(angle - spread), y: y2 - len * Math.sin(angle - spread) };
      const right = { x: x2 - len * Math.cos(angle + spread), y: y2 - len * Math.sin(angle + spread) };
      return {
        kind: 'poly',
        points: [
          { x: x1, y: y1 },
          { x: x2, y: y2 },
        ],
        closed: false,
        head: [left, { x: x2, y: y2 }, right],
      };
    }
    case 'rectangle':
      return {
        kind: 'poly',
        points: [
          { x: r.x, y: r.y },
          { x: r.x + r.w, y: r.y },
          { x: r.x + r.w, y: r.y + r.h },
          { x: r.x, y: r.y + r.h },
        ],
        closed: true,
      };
    case 'rightTriangle':
      // The right angle at the bottom-left corner of the box.
      return {
        kind: 'poly',
        points: [
          { x: r.x, y: r.y },
          { x: r.x, y: r.y + r.h },
          { x: r.x + r.w, y: r.y + r.h },
        ],
        closed: true,
      };
    case 'triangle': {
      // Equilateral, as large as fits the box, standing on the box's bottom edge, centred.
      const side = Math.min(r.w, (r.h * 2) / Math.sqrt(3));
      const height = (side * Math.sqrt(3)) / 2;
      const left = r.x + (r.w - side) / 2;
      const bottom = r.y + r.h;
      return {
        kind: 'poly',
        points: [
          { x: left + side / 2, y: bottom - height },
          { x: left + side, y: bottom },
          { x: left, y: bottom },
        ],
        closed: true,
      };
    }
    case 'circle': {
      // Diameter = the shorter side, from the corner the drag started at.
      const d = Math.min(r.w, r.h);
      const cx = x2 >= x1 ? x1 + d / 2 : x1 - d / 2;
      const cy = y2 >= y1 ? y1 + d / 2 : y1 - d / 2;
      return { kind: 'ellipse', cx, cy, rx: d / 2, ry: d / 2 };
    }
    case 'ellipse':
      return { kind: 'ellipse', cx: r.x + r.w / 2, cy: r.y + r.h / 2, rx: r.w / 2, ry: r.h / 2 };
  }
}

/** Rough text measure (used where no canvas is at hand): CJK and wide characters a full em. */
export function approxTextWidth(text: string, fontSize: number): number {
  let w = 0;
  for (const ch of text) {
    const code = ch.codePointAt(0) ?? 0;
    w += code > 0x2e80 ? fontSize : code === 32 ? fontSize * 0.3 : fontSize * 0.55;
  }
  return w;
}

export const TEXT_LINE_HEIGHT = 1.3;

/**
 * Wraps text into lines no wider than `width`: at explicit line breaks, then between words, and
 * inside a word (or a run of CJK) that is wider than the box by itself.
 */
export function wrapText(text: string, width: number, measure: (s: string) => number): string[] {
  const lines: string[] = [];
  for (const paragraph of text.split('\n')) {
    let line = '';
    // Words keep their trailing space; CJK characters are words of their own.
    const tokens = paragraph.match(/[\u2e80-\uffff]|[^\s\u2e80-\uffff]+\s*|\s+/gu) ?? [''];
    for (const token of tokens) {
      const candidate = line + token;
      const fits = measure(candidate.trimEnd()) <= width;
      if (fits || line === '') {
        if (fits) {
          line = candidate;
          continue;
        }
        // A token wider than the box on an empty line: break it by characters.
        for (const ch of token) {
          if (line !== '' && measure((line + ch).trimEnd()) > width) {
            lines.push(line.trimEnd());
            line = ch.trim() === '' ? '' : ch;
          } else line += ch;
        }
        continue;
      }
      lines.push(line.trimEnd());
      line = token.trim() === '' ? '' : token;
    }
    lines.push(line.trimEnd());
  }
  return lines;
}

export function textHeight(lineCount: number, fontSize = TEXT_FONT_SIZE): number {
  return Math.max(1, lineCount) * fontSize * TEXT_LINE_HEIGHT;
}

/** The box an item covers, including half its line width. */
export function itemBounds(data: ItemData, measure?: (s: string, fontSize: number) => number): Rect {
  switch (data.kind) {
    case 'stroke': {
      const p = data.points;
      let x1 = Infinity;
      let y1 = Infinity;
      let x2 = -Infinity;
      let y2 = -Infinity;
      for (let i = 0; i + 1 < p.length; i += 2) {
        const x = p[i]!;
        const y = p[i + 1]!;
        if (x < x1) x1 = x;
        if (x > x2) x2 = x;
        if (y < y1) y1 = y;
        if (y > y2) y2 = y;
      }
      if (x1 === Infinity) return { x: 0, y: 0, w: 0, h: 0 };
      return inflate({ x: x1, y: y1, w: x2 - x1, h: y2 - y1 }, data.width / 2);
    }
    case 'shape': {
      const o = shapeOutline(data.shape, data.x1, data.y1, data.x2, data.y2, data.width);
      if (o.kind === 'ellipse') return inflate({ x: o.cx - o.rx, y: o.cy - o.ry, w: 2 * o.rx, h: 2 * o.ry }, data.width / 2);
      const pts = o.head ? [...o.points, ...o.head] : o.points;
      const xs = pts.map((q) => q.x);
      const ys = pts.map((q) => q.y);
      const x = Math.min(...xs);
      const y = Math.min(...ys);
      return inflate({ x, y, w: Math.max(...xs) - x, h: Math.max(...ys) - y }, data.width / 2);
    }
    case 'stencil':
    case 'image':
      return { x: data.x, y: data.y, w: data.w, h: data.h };
    case 'text': {
      const m = measure ? (s: string) => measure(s, data.fontSize) : (s: string) => approxTextWidth(s, data.fontSize);
      const lines = wrapText(data.text, data.width, m);
      return { x: data.x, y: data.y, w: data.width, h: textHeight(lines.length, data.fontSize) };
    }
  }
}

function distToSegmentSq(px: number, py: number, ax: number, ay: number, bx: number, by: number): number {
  const dx = bx - ax;
  const dy = by - ay;
  const len = dx * dx + dy * dy;
  let t = len === 0 ? 0 : ((px - ax) * dx + (py - ay) * dy) / len;
  t = Math.max(0, Math.min(1, t));
  const qx = ax + t * dx - px;
  const qy = ay + t * dy - py;
  return qx * qx + qy * qy;
}

function nearPolyline(points: readonly Point[], closed: boolean, x: number, y: number, reach: number): boolean {
  const r2 = reach * reach;
  const n = points.length;
  for (let i = 0; i < n - 1 + (closed ? 1 : 0); i++) {
    const a = points[i]!;
    const b = points[(i + 1) % n]!;
    if (distToSegmentSq(x, y, a.x, a.y, b.x, b.y) <= r2) return true;
  }
  return false;
}

function insidePolygon(points: readonly Point[], x: number, y: number): boolean {
  let inside = false;
  for (let i = 0, j = points.length - 1; i < points.length; j = i++) {
    const a = points[i]!;
    const b = points[j]!;
    if (a.y > y !== b.y > y && x < ((b.x - a.x) * (y - a.y)) / (b.y - a.y) + a.x) inside = !inside;
  }
  return inside;
}

/** Tolerance of a click, in board units, on top of half the line width. */
export const HIT_TOLERANCE = 5;

/**
 * Whether a click at (x, y) picks this item: a line within reach of its path; a closed shape
 * inside or on its outline; text, stencils and images inside their box. Eraser strokes are not
 * objects and are never picked.
 */
export function hitItem(data: ItemData, x: number, y: number, tolerance = HIT_TOLERANCE): boolean {
  switch (data.kind) {
    case 'stroke': {
      if (data.eraser) return false;
      const reach = data.width / 2 + tolerance;
      const b = itemBounds(data);
      if (x < b.x - tolerance || x > b.x + b.w + tolerance || y < b.y - tolerance || y > b.y + b.h + tolerance) return false;
      const p = data.points;
      const r2 = reach * reach;
      if (p.length === 2) return (p[0]! - x) ** 2 + (p[1]! - y) ** 2 <= r2;
      for (let i = 0; i + 3 < p.length; i += 2) {
        if (distToSegmentSq(x, y, p[i]!, p[i + 1]!, p[i + 2]!, p[i + 3]!) <= r2) return true;
      }
      return false;
    }
    case 'shape': {
      const o = shapeOutline(data.shape, data.x1, data.y1, data.x2, data.y2, data.width);
      const reach = data.width / 2 + tolerance;
      if (o.kind === 'ellipse') {
        const rx = o.rx + reach;
        const ry = o.ry + reach;
        if (rx <= 0 || ry <= 0) return false;
        return ((x - o.cx) / rx) ** 2 + ((y - o.cy) / ry) ** 2 <= 1;
      }
      if (nearPolyline(o.points, o.closed, x, y, reach)) return true;
      if (o.head && nearPolyline(o.head, false, x, y, reach)) return true;
      return o.closed && insidePolygon(o.points, x, y);
    }
    case 'stencil':
    case 'image':
    case 'text': {
      const b = inflate(itemBounds(data), tolerance);
      return x >= b.x && x <= b.x + b.w && y >= b.y && y <= b.y + b.h;
    }
  }
}

/** The top-most item under the point (items are in drawing order, last on top). */
export function topItemAt(items: Iterable<BoardItem>, x: number, y: number): BoardItem | null {
  let found: BoardItem | null = null;
  for (const item of items) if (hitItem(item.data, x, y)) found = item;
  return found;
}

/** Ids of the selectable items a dragged box touches. */
export function itemsInBox(items: Iterable<BoardItem>, box: Rect): string[] {
  const ids: string[] = [];
  for (const item of items) {
    if (item.data.kind === 'stroke' && item.data.eraser) continue;
    if (rectsIntersect(box, itemBounds(item.data))) ids.push(item.id);
  }
  return ids;
}

/** Pointer travel (in screen pixels) before a press on a selection becomes a move. */
export const MOVE_THRESHOLD_PX = 5;

export function passedThreshold(dx: number, dy: number, threshold = MOVE_THRESHOLD_PX): boolean {
  return dx * dx + dy * dy >= threshold * threshold;
}

/** An item's data moved by (dx, dy); the same rule the board model applies to a `move`. */
export function translateData(data: ItemData, dx: number, dy: number): ItemData {
  switch (data.kind) {
    case 'stroke': {
      const points = new Array<number>(data.points.length);
      for (let i = 0; i < data.points.length; i += 2) {
        points[i] = data.points[i]! + dx;
        points[i + 1] = data.points[i + 1]! + dy;
      }
      return { ...data, points };
    }
    case 'shape':
      return { ...data, x1: data.x1 + dx, y1: data.y1 + dy, x2: data.x2 + dx, y2: data.y2 + dy };
    case 'stencil':
    case 'image':
    case 'text':
      return { ...data, x: data.x + dx, y: data.y + dy };
  }
}

/** A new shape's data from a drag. */
export function shapeData(shape: ShapeKind, from: Point, to: Point, color: ShapeData['color'], width: number): ShapeData {
  return { kind: 'shape', shape, x1: roundCoord(from.x), y1: roundCoord(from.y), x2: roundCoord(to.x), y2: roundCoord(to.y), color, width };
}

export const DEFAULT_TEXT_BOX = { width: TEXT_BOX_WIDTH, fontSize: TEXT_FONT_SIZE };

// ---------- images ----------

export const IMAGE_MAX_BYTES = 20_480_000;
export const IMAGE_COMPRESS_OVER_BYTES = 512_000;
export const IMAGE_COMPRESS_WIDTH = 1280;
export const IMAGE_COMPRESS_QUALITY = 0.5;
export const PHOTO_WIDTH = 2048;
export const PHOTO_QUALITY = 0.8;

/** Size after fitting to at most `maxWidth` wide, keeping the aspect ratio; never enlarged. */
export function scaleToWidth(width: number, height: number, maxWidth: number): { width: number; height: number } {
  if (width <= maxWidth || width <= 0) return { width, height };
  return { width: maxWidth, height: Math.max(1, Math.round((height * maxWidth) / width)) };
}

/** What to do with a picked board image (docs/product/03-board-courseware-billing.md §5): refuse, send as is, or compress first. */
export function imagePlan(type: string, name: string, size: number): 'badType' | 'tooLarge' | 'asIs' | 'compress' {
  const okType = /^image\/(jpeg|jpg|png)$/i.test(type) || (type === '' && /\.(jpe?g|png)$/i.test(name));
  if (!okType) return 'badType';
  if (size > IMAGE_MAX_BYTES) return 'tooLarge';
  return size > IMAGE_COMPRESS_OVER_BYTES ? 'compress' : 'asIs';
}

/**
 * Where a new image goes on the board: at most half the board in each direction, aspect kept,
 * centred on `centre` (the middle of what the user is looking at) and kept on the board.
 */
export function placeImage(width: number, height: number, centre: Point, board = { w: 1024, h: 768 }): Rect {
  const scale = Math.min(1, (board.w * 0.5) / Math.max(1, width), (board.h * 0.5) / Math.max(1, height));
  const w = Math.max(1, Math.round(width * scale));
  const h = Math.max(1, Math.round(height * scale));
  const x = Math.round(Math.min(Math.max(centre.x - w / 2, 0), Math.max(0, board.w - w)));
  const y = Math.round(Math.min(Math.max(centre.y - h / 2, 0), Math.max(0, board.h - h)));
  return { x, y, w, h };
}
