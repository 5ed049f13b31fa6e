/**
 * Occlusion culling for a full repaint. Lines are opaque and drawn with round caps and joins, so
 * a line is a union of capsules; a pixel lying wholly inside a later line (or a later eraser
 * stroke, which clears everything under it) ends up with that later line's colour whatever came
 * before. Walking the items from the top down on a grid of the canvas's pixels, a line whose every
 * touched pixel is already wholly covered by later lines cannot change the picture and is not
 * drawn. On a board drawn over for an hour most early lines are buried, and the canvas, whose
 * cost is per drawn pixel, paints only what shows.
 *
 * The test is conservative: a pixel counts as covered only when its whole square is inside a
 * later line's capsule (radius minus half the pixel's diagonal and the curve flattening error),
 * and a line's pixels are tested out to its radius plus one pixel of antialiasing. Shapes other
 * than straight outlines (ellipses, dotted lines), text, stencils and images are always drawn and
 * cover nothing.
 *
 * On a board drawn over many times the grid is the canvas's device pixels (`cullGrid`, ADR 054):
 * at a device pixel ratio of 2 a covering line's margin and a tested line's antialiased edge are
 * then half a CSS pixel, not one, and about 40 % fewer lines are drawn.
 */
import type { BoardItem } from '#core/contracts/board.ts';
import { shapeOutline } from './geometry.ts';

export interface CullView {
  /** Grid pixels per board unit. */
  scale: number;
  /** Board origin in grid pixels. */
  ox: number;
  oy: number;
  /** Grid size in grid pixels. */
  width: number;
  height: number;
}

/**
 * The culling grid for a board shown at `scale` CSS pixels per unit with its origin at (ox, oy)
 * CSS pixels on a surface cssW x cssH CSS pixels: the canvas's device pixels at ratio `dpr`.
 */
export function gridView(scale: number, ox: number, oy: number, cssW: number, cssH: number, dpr: number): CullView {
  return { scale: scale * dpr, ox: ox * dpr, oy: oy * dpr, width: Math.round(cssW * dpr), height: Math.round(cssH * dpr) };
}

const HALF_DIAGONAL = Math.SQRT1_2;
const TILE_SHIFT = 3;
const TILE_FULL = 64;

/** Covered pixels, and per 8 x 8 tile how many of its pixels are covered. */
interface Grid {
  covered: Uint8Array;
  tiles: Uint8Array;
  w: number;
  h: number;
  /** Tiles per row. */
  tw: number;
}
const AA_MARGIN = 1;

/** Points of a smoothed stroke (the quadratic curves of traceSmooth) flattened; with the error. */
function flattenSmooth(p: readonly number[], s: number, ox: number, oy: number): { pts: number[]; err: number } {
  const n = p.length >> 1;
  const X = (i: number) => ox + p[2 * i]! * s;
  const Y = (i: number) => oy + p[2 * i + 1]! * s;
  if (n <= 2) {
    const pts = n === 0 ? [] : n === 1 ? [X(0), Y(0)] : [X(0), Y(0), X(1), Y(1)];
    return { pts, err: 0 };
  }
  const pts = [X(0), Y(0)];
  let err = 0;
  let sx = X(0);
  let sy = Y(0);
  for (let i = 1; i < n - 1; i++) {
    const cx = X(i);
    const cy = Y(i);
    const ex = (cx + X(i + 1)) / 2;
    const ey = (cy + Y(i + 1)) / 2;
    // Flattening a quadratic into k chords (uniform in t) errs by at most |P0 - 2P1 + P2| / (4 k^2):
    // a quarter of a grid pixel here (up to 4 chords). The error narrows what a line covers and
    // widens what it is tested over; half a pixel left about 20 % more lines drawn (ADR 054).
    const ddx = sx - 2 * cx + ex;
    const ddy = sy - 2 * cy + ey;
    const dd = Math.sqrt(ddx * ddx + ddy * ddy);
    const k = Math.min(4, Math.max(1, Math.ceil(Math.sqrt(dd))));
    err = Math.max(err, dd / (4 * k * k));
    for (let j = 1; j <= k; j++) {
      const t = j / k;
      const u = 1 - t;
      pts.push(u * u * sx + 2 * u * t * cx + t * t * ex, u * u * sy + 2 * u * t * cy + t * t * ey);
    }
    sx = ex;
    sy = ey;
  }
  pts.push(X(n - 1), Y(n - 1));
  return { pts, err };
}

interface Lines {
  /** Polylines in grid pixels (flat x, y). */
  polys: number[][];
  radius: number;
  /** How far the drawn line may be from these polylines. */
  err: number;
  /** Whether it hides what is under it (false: tested, never covering). */
  covers: boolean;
}

function linesOf(item: BoardItem, v: CullView): Lines | null {
  const d = item.data;
  if (d.kind === 'stroke') {
    const { pts, err } = flattenSmooth(d.points, v.scale, v.ox, v.oy);
    return { polys: [pts], radius: (d.width * v.scale) / 2, err, covers: true };
  }
  if (d.kind === 'shape') {
    const o = shapeOutline(d.shape, d.x1, d.y1, d.x2, d.y2, d.width);
    const radius = (d.width * v.scale) / 2;
    const map = (pts: readonly { x: number; y: number }[]) => pts.flatMap((q) => [v.ox + q.x * v.scale, v.oy + q.y * v.scale]);
    if (o.kind === 'ellipse') {
      const pts: number[] = [];
      for (let i = 0; i <= 48; i++) {
        const a = (i / 48) * Math.PI * 2;
        pts.push(v.ox + (o.cx + o.rx * Math.cos(a)) * v.scale, v.oy + (o.cy + o.ry * Math.sin(a)) * v.scale);
      }
      // 48 chords of an ellipse stay within r * (1 - cos(pi / 48)) of it.
      const err = Math.max(o.rx, o.ry) * v.scale * (1 - Math.cos(Math.PI / 48));
      return { polys: [pts], radius, err, covers: false };
    }
    const main = map(o.closed && o.points[0] ? [...o.points, o.points[0]] : o.points);
    const polys = o.head ? [main, map(o.head)] : [main];
    return { polys, radius, err: 0, covers: o.dash === undefined };
  }
  return null;
}

/** Whether every tile under the pixel box is wholly covered. */
function allFull(tiles: Uint8Array, tw: number, x0: number, y0: number, x1: number, y1: number): boolean {
  for (let ty = y0 >> TILE_SHIFT; ty <= y1 >> TILE_SHIFT; ty++) {
    for (let tx = x0 >> TILE_SHIFT; tx <= x1 >> TILE_SHIFT; tx++) if (tiles[ty * tw + tx] !== TILE_FULL) return false;
  }
  return true;
}

/** Whether any pixel within `reach` of the polylines is not covered yet (the line shows). */
function anyUncovered(polys: number[][], reach: number, g: Grid): boolean {
  const { covered, tiles, w, h, tw } = g;
  const reach2 = reach * reach;
  for (const pts of polys) {
    const count = pts.length >> 1;
    for (let i = 0; i < Math.max(1, count - 1); i++) {
      const ax = pts[2 * i]!;
      const ay = pts[2 * i + 1]!;
      const bx = count > 1 ? pts[2 * i + 2]! : ax;
      const by = count > 1 ? pts[2 * i + 3]! : ay;
      const x0 = Math.max(0, Math.floor(Math.min(ax, bx) - reach));
      const x1 = Math.min(w - 1, Math.ceil(Math.max(ax, bx) + reach));
      const y0 = Math.max(0, Math.floor(Math.min(ay, by) - reach));
      const y1 = Math.min(h - 1, Math.ceil(Math.max(ay, by) + reach));
      if (x0 > x1 || y0 > y1) continue;
      // Buried tiles first: a segment over whole covered tiles has nothing left to show.
      if (allFull(tiles, tw, x0, y0, x1, y1)) continue;
      const dx = bx - ax;
      const dy = by - ay;
      const len2 = dx * dx + dy * dy;
      const inv = len2 === 0 ? 0 : 1 / len2;
      for (let y = y0; y <= y1; y++) {
        const py = y + 0.5 - ay;
        const row = y * w;
        for (let x = x0; x <= x1; x++) {
          if (covered[row + x] !== 0) continue;
          const px = x + 0.5 - ax;
          let t = (px * dx + py * dy) * inv;
          t = t < 0 ? 0 : t > 1 ? 1 : t;
          const qx = px - t * dx;
          const qy = py - t * dy;
          if (qx * qx + qy * qy <= reach2) return true;
        }
      }
    }
  }
  return false;
}

/** Marks every pixel whose centre lies within `inner` of the polylines as covered. */
function cover(polys: number[][], inner: number, g: Grid): void {
  const { covered, tiles, w, h, tw } = g;
  const inner2 = inner * inner;
  for (const pts of polys) {
    const count = pts.length >> 1;
    for (let i = 0; i < Math.max(1, count - 1); i++) {
      const ax = pts[2 * i]!;
      const ay = pts[2 * i + 1]!;
      const bx = count > 1 ? pts[2 * i + 2]! : ax;
      const by = count > 1 ? pts[2 * i + 3]! : ay;
      const x0 = Math.max(0, Math.ceil(Math.min(ax, bx) - inner - 0.5));
      const x1 = Math.min(w - 1, Math.floor(Math.max(ax, bx) + inner - 0.5));
      const y0 = Math.max(0, Math.ceil(Math.min(ay, by) - inner - 0.5));
      const y1 = Math.min(h - 1, Math.floor(Math.max(ay, by) + inner - 0.5));
      if (x0 > x1 || y0 > y1 || allFull(tiles, tw, x0, y0, x1, y1)) continue;
      const dx = bx - ax;
      const dy = by - ay;
      const len2 = dx * dx + dy * dy;
      const inv = len2 === 0 ? 0 : 1 / len2;
      for (let y = y0; y <= y1; y++) {
        const py = y + 0.5 - ay;
        const row = y * w;
        const tileRow = (y >> TILE_SHIFT) * tw;
        for (let x = x0; x <= x1; x++) {
          // Already covered pixels need no distance (in a busy area, most of them).
          if (covered[row + x] !== 0) continue;
          const px = x + 0.5 - ax;
          let t = (px * dx + py * dy) * inv;
          t = t < 0 ? 0 : t > 1 ? 1 : t;
          const qx = px - t * dx;
          const qy = py - t * dy;
          if (qx * qx + qy * qy <= inner2) {
            covered[row + x] = 1;
            tiles[tileRow + (x >> TILE_SHIFT)]! += 1;
          }
        }
      }
    }
  }
}

/**
 * Which items a full repaint must draw (1) and which are buried under later lines (0), for the
 * board as it shows in `view`. Items are in drawing order.
 */
export function visibleItems(items: readonly BoardItem[], view: CullView): Uint8Array {
  const keep = new Uint8Array(items.length);
  const w = Math.max(1, Math.ceil(view.width));
  const h = Math.max(1, Math.ceil(view.height));
  const v = { ...view, width: w, height: h };
  const tw = (w + 7) >> TILE_SHIFT;
  const th = (h + 7) >> TILE_SHIFT;
  const g: Grid = { covered: new Uint8Array(w * h), tiles: new Uint8Array(tw * th), w, h, tw };
  // Tiles cut by the right or bottom edge have pixels outside: count those as covered.
  for (let ty = 0; ty < th; ty++) {
    for (let tx = 0; tx < tw; tx++) {
      const inside =
        (Math.min(w, (tx + 1) << TILE_SHIFT) - (tx << TILE_SHIFT)) * (Math.min(h, (ty + 1) << TILE_SHIFT) - (ty << TILE_SHIFT));
      g.tiles[ty * tw + tx] = TILE_FULL - inside;
    }
  }
  for (let i = items.length - 1; i >= 0; i--) {
    const lines = linesOf(items[i]!, v);
    if (!lines) {
      keep[i] = 1;
      continue;
    }
    if (!anyUncovered(lines.polys, lines.radius + lines.err + AA_MARGIN, g)) continue;
    keep[i] = 1;
    const inner = lines.radius - HALF_DIAGONAL - lines.err;
    if (lines.covers && inner > 0) cover(lines.polys, inner, g);
  }
  return keep;
}

/** Culling runs when the lines' ink covers the view this many times (ADR 018)... */
export const CULL_OVERDRAW = 4;
/** ...and on the device pixels from this many times on (ADR 054). */
export const DEVICE_GRID_OVERDRAW = 8;

/**
 * The grid a full repaint culls on, or null when culling would not pay. A board drawn over a few
 * times is culled on CSS pixels; one drawn over many times on the device pixels, where the finer
 * grid finds enough more buried lines to pay for its larger size (at a ratio of 2, 4 times the
 * cells; on a board of 10,000 bench strokes it found nothing more and cost 50-80 ms).
 */
export function cullGrid(
  items: readonly BoardItem[],
  scale: number,
  ox: number,
  oy: number,
  cssW: number,
  cssH: number,
  dpr: number,
): CullView | null {
  const css = gridView(scale, ox, oy, cssW, cssH, 1);
  const overdraw = inkOverArea(items, css, DEVICE_GRID_OVERDRAW);
  if (overdraw < CULL_OVERDRAW) return null;
  return overdraw >= DEVICE_GRID_OVERDRAW ? gridView(scale, ox, oy, cssW, cssH, dpr) : css;
}

/**
 * Whether culling can pay for itself: only when the lines' ink adds up to several times the area
 * in view (a board drawn over and over). Below that nearly every line shows anyway.
 */
export function worthCulling(items: readonly BoardItem[], view: CullView, overdraw = CULL_OVERDRAW): boolean {
  return inkOverArea(items, view, overdraw) >= overdraw;
}

/**
 * How many times the lines' ink covers the area in view (counted up to `cap`, then it stops): the
 * ink is each stroke's length plus its width, times its width.
 */
export function inkOverArea(items: readonly BoardItem[], view: CullView, cap: number): number {
  const area = view.width * view.height;
  const budget = cap * area;
  let ink = 0;
  for (const item of items) {
    const d = item.data;
    if (d.kind !== 'stroke') continue;
    const p = d.points;
    let len = 0;
    for (let i = 2; i + 1 < p.length; i += 2) len += Math.abs(p[i]! - p[i - 2]!) + Math.abs(p[i + 1]! - p[i - 1]!);
    ink += (len + d.width) * d.width * view.scale * view.scale;
    if (ink >= budget) break;
  }
  return ink / area;
}
