/**
 * Browser half of bench/board-paint (bundled by rolldown and loaded into Chromium): builds a
 * layer of N sequenced operations with the classroom's own LayerView, paints it with the
 * classroom's own BoardRenderer, and paints two references of the same size: every stroke's
 * points as straight segments in one path with one stroke() (the least a canvas can do for those
 * lines), and one path and stroke() per line (a renderer without batching).
 */
import type { BoardItem, ItemData, SequencedOp } from '../../core/contracts/board.ts';
import { LayerView } from '#core/board/draw/layer.ts';
import { BoardRenderer } from '#core/board/draw/renderer.ts';
import { cullGrid, visibleItems } from '#core/board/draw/cull.ts';
import { strokeAt } from './board-seed.ts';

export type Workload = 'seed' | 'class';

/**
 * 'seed': bench/lib/board-seed.ts strokes, colour and width changing at every stroke (the worst
 * case for batching). 'class': a lesson: colour changes every 40 strokes, width 4, and among
 * them 3 % eraser strokes, 3 % shapes and 1 % text.
 */
function dataAt(i: number, workload: Workload): ItemData {
  const s = strokeAt(i);
  if (workload === 'seed') return s;
  const colours = ['red', 'blue', 'black', 'green'] as const;
  const color = colours[Math.floor(i / 40) % colours.length]!;
  const r = (i * 7919) % 100;
  if (r < 3) return { ...s, width: 20, eraser: true };
  if (r < 6) {
    const shapes = ['rectangle', 'circle', 'line', 'arrow', 'triangle', 'ellipse', 'dottedline', 'rightTriangle'] as const;
    const x = s.points[0]!;
    const y = s.points[1]!;
    return { kind: 'shape', shape: shapes[i % shapes.length]!, x1: x, y1: y, x2: x + 40, y2: y + 30, color, width: 4 };
  }
  if (r < 7) return { kind: 'text', text: `第 ${i} 题 answer`, x: s.points[0]!, y: s.points[1]!, width: 150, fontSize: 18, color };
  return { ...s, color, width: 4 };
}

function op(i: number, workload: Workload): SequencedOp {
  const item: BoardItem = { id: `i${i}`, uid: 'u1', data: dataAt(i, workload) };
  return {
    opId: `o${i}`,
    type: 'create',
    btype: 'brush',
    id: item.id,
    page: 'wb:0',
    seq: i + 1,
    uid: 'u1',
    at: 0,
    effects: [{ kind: 'put', items: [item] }],
  };
}

/** Colour levels two paints of the same lines may differ by at an antialiased edge. */
const TOLERANCE = 48;
const W = 1024;
const H = 768;
let layer = new LayerView('wb:0');
let ops: SequencedOp[] = [];

function canvases(): [HTMLCanvasElement, HTMLCanvasElement, HTMLCanvasElement] {
  document.body.innerHTML = '';
  const make = () => {
    const c = document.createElement('canvas');
    c.style.position = 'absolute';
    c.style.left = '0';
    c.style.top = '0';
    document.body.appendChild(c);
    return c;
  };
  return [make(), make(), make()];
}

/** Reading one pixel makes the browser finish every drawing command queued before it. */
function settle(c: HTMLCanvasElement): void {
  c.getContext('2d')!.getImageData(0, 0, 1, 1);
}

function ink(c: HTMLCanvasElement): number {
  const d = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
  let n = 0;
  for (let i = 3; i < d.length; i += 4) if (d[i]! > 0) n++;
  return n;
}

const api = {
  /** Makes N operations (not timed). */
  make(n: number, workload: Workload): void {
    ops = Array.from({ length: n }, (_, i) => op(i, workload));
  },
  /** Applies them to a fresh layer in order, as the store does after getBoard; ms. */
  apply(): number {
    layer = new LayerView('wb:0');
    const t = performance.now();
    for (const o of ops) layer.applySequenced(o);
    return performance.now() - t;
  },
  /** The culling pass alone, on the grid the renderer picks; ms and the number of items it keeps. */
  cull(dpr: number): { ms: number; drawn: number } {
    const items = [...layer.view.values()];
    const t = performance.now();
    const grid = cullGrid(items, 1, 0, 0, W, H, dpr);
    const keep = grid ? visibleItems(items, grid) : new Uint8Array(items.length).fill(1);
    const ms = performance.now() - t;
    let drawn = 0;
    for (const k of keep) drawn += k;
    return { ms, drawn };
  },
  /** A full paint of the layer by the classroom renderer, finished; ms and inked pixels. */
  paint(dpr: number): { ms: number; inked: number } {
    const [paper, inkCanvas, overlay] = canvases();
    const r = new BoardRenderer(paper, inkCanvas, overlay, { imageUrl: () => null, stencilUrl: () => null });
    r.setSource(() => layer.view.values());
    const t = performance.now();
    r.resize(W, H, dpr);
    r.flush(); // everything painted now, not in the next frame
    settle(inkCanvas);
    const ms = performance.now() - t;
    const inked = ink(inkCanvas);
    r.dispose();
    return { ms, inked };
  },
  /** Pixels (device) that differ between the culled paint and a paint of every item. */
  cullDiff(dpr: number): number {
    const paintOnce = (cull: boolean) => {
      const [paper, inkCanvas, overlay] = canvases();
      const r = new BoardRenderer(paper, inkCanvas, overlay, { imageUrl: () => null, stencilUrl: () => null, cull });
      r.setSource(() => layer.view.values());
      r.resize(W, H, dpr);
      r.flush();
      const data = inkCanvas.getContext('2d')!.getImageData(0, 0, inkCanvas.width, inkCanvas.height).data;
      r.dispose();
      return data;
    };
    const a = paintOnce(true);
    const b = paintOnce(false);
    // Antialiased edges of lines batched differently blend a few levels apart: count pixels that
    // differ by more than that (a line missing or extra would differ by far more).
    let differ = 0;
    for (let i = 0; i < a.length; i += 4) {
      const d = Math.max(
        Math.abs(a[i]! - b[i]!),
        Math.abs(a[i + 1]! - b[i + 1]!),
        Math.abs(a[i + 2]! - b[i + 2]!),
        Math.abs(a[i + 3]! - b[i + 3]!),
      );
      if (d > TOLERANCE) differ++;
    }
    return differ;
  },
  /** Appending one stroke on top of the painted board (what drawing costs); ms. */
  append(dpr: number): number {
    const [paper, inkCanvas, overlay] = canvases();
    const r = new BoardRenderer(paper, inkCanvas, overlay, { imageUrl: () => null, stencilUrl: () => null });
    r.setSource(() => layer.view.values());
    r.resize(W, H, dpr);
    r.flush();
    settle(inkCanvas);
    const item: BoardItem = { id: 'new', uid: 'u1', data: strokeAt(7) };
    const t = performance.now();
    r.append([item]);
    settle(inkCanvas);
    const ms = performance.now() - t;
    r.dispose();
    return ms;
  },
  /** Reference: all the lines' points as straight segments, one path, one stroke(); ms. */
  referenceOnePath(dpr: number): number {
    const [, c] = canvases();
    c.width = W * dpr;
    c.height = H * dpr;
    const ctx = c.getContext('2d')!;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    const t = performance.now();
    ctx.lineWidth = 4;
    ctx.strokeStyle = '#e53935';
    ctx.beginPath();
    for (const o of ops) {
      const d = o.effects[0]!.kind === 'put' ? o.effects[0]!.items[0]!.data : null;
      const p = d && d.kind === 'stroke' ? d.points : [0, 0, 1, 1];
      ctx.moveTo(p[0]!, p[1]!);
      for (let k = 2; k < p.length; k += 2) ctx.lineTo(p[k]!, p[k + 1]!);
    }
    ctx.stroke();
    settle(c);
    return performance.now() - t;
  },
  /** Reference: one path and one stroke() per line, straight segments; ms. */
  referencePerLine(dpr: number): number {
    const [, c] = canvases();
    c.width = W * dpr;
    c.height = H * dpr;
    const ctx = c.getContext('2d')!;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    const t = performance.now();
    ctx.lineCap = 'round';
    ctx.lineJoin = 'round';
    for (const o of ops) {
      const d = o.effects[0]!.kind === 'put' ? o.effects[0]!.items[0]!.data : null;
      const p = d && d.kind === 'stroke' ? d.points : [0, 0, 1, 1];
      ctx.lineWidth = d && 'width' in d ? d.width : 4;
      ctx.strokeStyle = '#1e88e5';
      ctx.beginPath();
      ctx.moveTo(p[0]!, p[1]!);
      for (let k = 2; k < p.length; k += 2) ctx.lineTo(p[k]!, p[k + 1]!);
      ctx.stroke();
    }
    settle(c);
    return performance.now() - t;
  },
};

(window as unknown as { benchPaint: typeof api }).benchPaint = api;
