/**
 * The board surface: the renderer's canvases and the pointer tools on them. Pointer work stays
 * out of React state (refs and the overlay), so drawing never re-renders the page; React only
 * hears about results (a selection, a text box to open).
 */
import { useEffect, useLayoutEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { BACKGROUND_COLOURS, type BoardItem, type StrokeData } from '#core/contracts/board.ts';
import {
  itemBounds,
  itemsInBox,
  normRect,
  passedThreshold,
  roundCoord,
  shapeData,
  shouldKeepPoint,
  topItemAt,
  type Point,
  type Rect,
} from '#core/board/draw/geometry.ts';
import { BoardRenderer } from '#core/board/draw/renderer.ts';
import { newId, type BoardStore } from './store.ts';
import { shapeBtype, type ToolState } from '#core/board/draw/tools.ts';

/** Live stroke batches go out this often (spec: every 30-50 ms). */
export const STROKE_BATCH_MS = 40;
const STENCIL_DEFAULT = 120;

export interface BoardCanvasProps {
  store: BoardStore;
  page: string;
  /** Page number for the label (0-based). */
  pageIndex: number;
  readOnly: boolean;
  tools: ToolState;
  background: number;
  zoom: number;
  onZoom: (zoom: number) => void;
  selection: string[];
  onSelection: (ids: string[]) => void;
  /** Open the text editor at a board point (or on an existing text item). */
  onText: (at: Point, item: BoardItem | null) => void;
  imageUrl: (src: string) => string | null;
  stencilUrl: (id: string) => string | null;
  /** The renderer once the surface is up (null when it goes), for the parent's own drawing and tests. */
  onRenderer?: (renderer: BoardRenderer | null) => void;
  /** A courseware slide under the ink (app/courseware). */
  backdrop?: { image: CanvasImageSource & { width: number; height: number }; offsetY: number } | null;
}

type Gesture =
  | { kind: 'none' }
  | { kind: 'pan'; last: Point }
  | { kind: 'stroke'; id: string; stroke: StrokeData; sent: number; started: boolean }
  | { kind: 'shape'; from: Point; to: Point }
  | { kind: 'press'; from: Point; fromCss: Point; ids: string[]; moving: boolean; delta: Point }
  | { kind: 'band'; from: Point; to: Point };

/** The boxes of the selected items, moved by the drag in progress. */
function selectedRects(p: BoardCanvasProps, ids: readonly string[], delta: Point = { x: 0, y: 0 }): Rect[] {
  const layer = p.store.layer(p.page);
  const rects: Rect[] = [];
  for (const id of ids) {
    const item = layer.get(id);
    if (!item) continue;
    const b = itemBounds(item.data);
    rects.push({ ...b, x: b.x + delta.x, y: b.y + delta.y });
  }
  return rects;
}

/** The overlay canvas: others' live strokes, our draft, the shape being dragged, the selection, the rubber band. */
function drawOverlay(renderer: BoardRenderer | null, p: BoardCanvasProps, g: Gesture): void {
  if (!renderer) return;
  const delta = g.kind === 'press' && g.moving ? g.delta : { x: 0, y: 0 };
  const ids = g.kind === 'press' && g.moving ? g.ids : p.selection;
  renderer.setOverlay({
    live: p.store.liveStrokes(p.page),
    draft: g.kind === 'stroke' ? g.stroke : null,
    shape:
      g.kind === 'shape' && p.tools.pick.kind === 'shape'
        ? shapeData(p.tools.pick.shape, g.from, g.to, p.tools.color, p.tools.width)
        : null,
    selection: selectedRects(p, ids, delta),
    band:
      g.kind === 'band'
        ? normRect(g.from.x, g.from.y, g.to.x, g.to.y)
        : g.kind === 'shape' && p.tools.pick.kind === 'stencil'
          ? normRect(g.from.x, g.from.y, g.to.x, g.to.y)
          : null,
  });
}

export function BoardCanvas(props: BoardCanvasProps) {
  const { t } = useTranslation();
  const wrapRef = useRef<HTMLDivElement>(null);
  const paperRef = useRef<HTMLCanvasElement>(null);
  const inkRef = useRef<HTMLCanvasElement>(null);
  const overlayRef = useRef<HTMLCanvasElement>(null);
  const rendererRef = useRef<BoardRenderer | null>(null);
  const propsRef = useRef(props);
  // The latest props for the handlers and the renderer's callbacks, before any effect reads them.
  useLayoutEffect(() => {
    propsRef.current = props;
  });
  const gestureRef = useRef<Gesture>({ kind: 'none' });
  const spaceRef = useRef(false);

  // The renderer lives as long as the surface.
  useEffect(() => {
    const wrap = wrapRef.current;
    if (!wrap || !paperRef.current || !inkRef.current || !overlayRef.current) return;
    const renderer = new BoardRenderer(paperRef.current, inkRef.current, overlayRef.current, {
      imageUrl: (src) => propsRef.current.imageUrl(src),
      stencilUrl: (id) => propsRef.current.stencilUrl(id),
    });
    rendererRef.current = renderer;
    propsRef.current.onRenderer?.(renderer);
    const observer = new ResizeObserver(() => {
      const r = wrap.getBoundingClientRect();
      renderer.resize(r.width, r.height, window.devicePixelRatio);
    });
    observer.observe(wrap);
    const r = wrap.getBoundingClientRect();
    renderer.resize(r.width, r.height, window.devicePixelRatio);
    return () => {
      observer.disconnect();
      renderer.dispose();
      rendererRef.current = null;
      propsRef.current.onRenderer?.(null);
    };
  }, []);

  // The layer shown, and its changes.
  const { store, page } = props;
  useEffect(() => {
    const renderer = rendererRef.current;
    if (!renderer) return;
    renderer.setSource(() => store.layer(page).view.values());
    const paintOverlay = () => drawOverlay(rendererRef.current, propsRef.current, gestureRef.current);
    const offChange = store.on('change', (changed, change) => {
      if (changed !== page) return;
      if (change.kind === 'append') renderer.append(change.items);
      else if (change.kind === 'full') renderer.requestFull();
      paintOverlay();
    });
    const offLive = store.on('live', paintOverlay);
    void store.open(page);
    const offStatus = store.on('status', (s) => {
      if (s === 'live') void store.open(page);
    });
    return () => {
      offChange();
      offLive();
      offStatus();
    };
  }, [store, page]);

  useEffect(() => {
    rendererRef.current?.setBackground(BACKGROUND_COLOURS[props.background] ?? BACKGROUND_COLOURS[0]);
  }, [props.background]);

  const { backdrop } = props;
  useEffect(() => {
    rendererRef.current?.setBackdrop(backdrop ?? null);
  }, [backdrop]);

  useEffect(() => {
    const r = rendererRef.current;
    if (r && Math.abs(r.zoom - props.zoom) > 1e-6) r.setView(props.zoom);
  }, [props.zoom]);

  useEffect(() => {
    drawOverlay(rendererRef.current, propsRef.current, gestureRef.current);
  }, [props.selection]);

  // Pointer and keyboard handling.
  useEffect(() => {
    const overlay = overlayRef.current;
    if (!overlay) return;
    let timer: ReturnType<typeof setInterval> | null = null;

    const local = (e: PointerEvent): Point => {
      const r = overlay.getBoundingClientRect();
      return { x: e.clientX - r.left, y: e.clientY - r.top };
    };
    const boardPoint = (e: PointerEvent): Point => {
      const renderer = rendererRef.current;
      const c = local(e);
      const b = renderer ? renderer.toBoard(c.x, c.y) : c;
      return { x: roundCoord(b.x), y: roundCoord(b.y) };
    };

    const flushStroke = () => {
      const g = gestureRef.current;
      if (g.kind !== 'stroke') return;
      const p = propsRef.current;
      const fresh = g.stroke.points.slice(g.sent);
      if (fresh.length === 0 && g.started) return;
      p.store.streamStroke({
        strokeId: g.id,
        page: p.page,
        points: fresh,
        color: g.stroke.color,
        width: g.stroke.width,
        ...(g.stroke.eraser ? { eraser: true } : {}),
        ...(g.started ? {} : { start: true }),
      });
      g.sent = g.stroke.points.length;
      g.started = true;
    };

    const down = (e: PointerEvent) => {
      const p = propsRef.current;
      if (e.button !== 0 && e.pointerType === 'mouse') return;
      overlay.setPointerCapture(e.pointerId);
      overlay.focus({ preventScroll: true });
      const at = boardPoint(e);
      if (spaceRef.current || e.button === 1) {
        gestureRef.current = { kind: 'pan', last: local(e) };
        return;
      }
      if (p.readOnly) {
        gestureRef.current = { kind: 'pan', last: local(e) };
        return;
      }
      switch (p.tools.tool) {
        case 'brush':
        case 'eraser': {
          const eraser = p.tools.tool === 'eraser';
          const stroke: StrokeData = {
            kind: 'stroke',
            points: [at.x, at.y],
            color: p.tools.color,
            width: eraser ? 20 : p.tools.width,
            ...(eraser ? { eraser: true } : {}),
          };
          gestureRef.current = { kind: 'stroke', id: newId('s'), stroke, sent: 0, started: false };
          flushStroke();
          timer = setInterval(flushStroke, STROKE_BATCH_MS);
          break;
        }
        case 'shape':
          gestureRef.current = { kind: 'shape', from: at, to: at };
          break;
        case 'text': {
          const hit = topItemAt(p.store.layer(p.page).view.values(), at.x, at.y);
          p.onText(at, hit?.data.kind === 'text' ? hit : null);
          gestureRef.current = { kind: 'none' };
          break;
        }
        case 'choose': {
          const hit = topItemAt(p.store.layer(p.page).view.values(), at.x, at.y);
          if (hit) {
            const ids = p.selection.includes(hit.id) ? p.selection : [hit.id];
            if (ids !== p.selection) p.onSelection(ids);
            gestureRef.current = { kind: 'press', from: at, fromCss: local(e), ids, moving: false, delta: { x: 0, y: 0 } };
          } else {
            if (p.selection.length) p.onSelection([]);
            gestureRef.current = { kind: 'band', from: at, to: at };
          }
          break;
        }
      }
      drawOverlay(rendererRef.current, propsRef.current, gestureRef.current);
    };

    const move = (e: PointerEvent) => {
      const g = gestureRef.current;
      if (g.kind === 'none') return;
      if (g.kind === 'pan') {
        const c = local(e);
        rendererRef.current?.panBy(c.x - g.last.x, c.y - g.last.y);
        g.last = c;
        return;
      }
      if (g.kind === 'stroke') {
        // Every sample the browser collected since the last event, not just the last one.
        const events = typeof e.getCoalescedEvents === 'function' ? e.getCoalescedEvents() : [];
        for (const ev of events.length ? events : [e]) {
          const at = boardPoint(ev);
          if (shouldKeepPoint(g.stroke.points, at.x, at.y)) g.stroke.points.push(at.x, at.y);
        }
      } else if (g.kind === 'shape' || g.kind === 'band') {
        g.to = boardPoint(e);
      } else {
        const c = local(e);
        if (!g.moving && passedThreshold(c.x - g.fromCss.x, c.y - g.fromCss.y)) g.moving = true;
        const at = boardPoint(e);
        g.delta = { x: roundCoord(at.x - g.from.x), y: roundCoord(at.y - g.from.y) };
      }
      drawOverlay(rendererRef.current, propsRef.current, gestureRef.current);
    };

    const up = (e: PointerEvent) => {
      const p = propsRef.current;
      const g = gestureRef.current;
      gestureRef.current = { kind: 'none' };
      if (timer) clearInterval(timer);
      timer = null;
      if (overlay.hasPointerCapture(e.pointerId)) overlay.releasePointerCapture(e.pointerId);
      if (g.kind === 'stroke') {
        gestureRef.current = g;
        flushStroke();
        gestureRef.current = { kind: 'none' };
        p.store.create(p.page, g.stroke.eraser ? 'eraser' : 'brush', g.stroke, g.id);
      } else if (g.kind === 'shape') {
        const r = normRect(g.from.x, g.from.y, g.to.x, g.to.y);
        if (p.tools.pick.kind === 'stencil') {
          // A click places the stencil at its default size; a drag sets its box.
          const box =
            r.w < 8 || r.h < 8
              ? { x: g.from.x - STENCIL_DEFAULT / 2, y: g.from.y - STENCIL_DEFAULT / 2, w: STENCIL_DEFAULT, h: STENCIL_DEFAULT }
              : r;
          p.store.create(p.page, 'graph', {
            kind: 'stencil',
            stencilId: p.tools.pick.stencilId,
            x: roundCoord(box.x),
            y: roundCoord(box.y),
            w: roundCoord(box.w),
            h: roundCoord(box.h),
          });
        } else if (Math.max(r.w, r.h) >= 3) {
          const shape = p.tools.pick.shape;
          p.store.create(p.page, shapeBtype(shape), shapeData(shape, g.from, g.to, p.tools.color, p.tools.width));
        }
      } else if (g.kind === 'band') {
        const r = normRect(g.from.x, g.from.y, g.to.x, g.to.y);
        if (r.w > 2 || r.h > 2) p.onSelection(itemsInBox(p.store.layer(p.page).view.values(), r));
      } else if (g.kind === 'press' && g.moving) {
        p.store.move(p.page, g.ids, g.delta.x, g.delta.y);
      }
      drawOverlay(rendererRef.current, propsRef.current, gestureRef.current);
    };

    const dblclick = (e: MouseEvent) => {
      const p = propsRef.current;
      if (p.readOnly || p.tools.tool !== 'choose') return;
      const renderer = rendererRef.current;
      const r = overlay.getBoundingClientRect();
      const at = renderer ? renderer.toBoard(e.clientX - r.left, e.clientY - r.top) : { x: 0, y: 0 };
      const hit = topItemAt(p.store.layer(p.page).view.values(), at.x, at.y);
      if (hit?.data.kind === 'text') p.onText(at, hit);
    };

    const wheel = (e: WheelEvent) => {
      const renderer = rendererRef.current;
      if (!renderer) return;
      e.preventDefault();
      if (e.ctrlKey || e.metaKey) {
        const next = Math.min(1.5, Math.max(0.1, renderer.zoom * (e.deltaY < 0 ? 1.1 : 1 / 1.1)));
        renderer.setView(next);
        propsRef.current.onZoom(next);
      } else renderer.panBy(-e.deltaX, -e.deltaY);
    };

    overlay.addEventListener('pointerdown', down);
    overlay.addEventListener('pointermove', move);
    overlay.addEventListener('pointerup', up);
    overlay.addEventListener('pointercancel', up);
    overlay.addEventListener('dblclick', dblclick);
    overlay.addEventListener('wheel', wheel, { passive: false });
    return () => {
      if (timer) clearInterval(timer);
      overlay.removeEventListener('pointerdown', down);
      overlay.removeEventListener('pointermove', move);
      overlay.removeEventListener('pointerup', up);
      overlay.removeEventListener('pointercancel', up);
      overlay.removeEventListener('dblclick', dblclick);
      overlay.removeEventListener('wheel', wheel);
    };
  }, []);

  // Spacebar: pan while held (not while typing).
  useEffect(() => {
    const typing = (e: KeyboardEvent) => {
      const el = e.target as HTMLElement | null;
      return !!el && (el.tagName === 'INPUT' || el.tagName === 'TEXTAREA' || el.isContentEditable);
    };
    const keydown = (e: KeyboardEvent) => {
      if (e.code === 'Space' && !typing(e)) {
        spaceRef.current = true;
        wrapRef.current?.classList.add('board__surface--pan');
        if (e.target === overlayRef.current) e.preventDefault();
      }
    };
    const keyup = (e: KeyboardEvent) => {
      if (e.code === 'Space') {
        spaceRef.current = false;
        wrapRef.current?.classList.remove('board__surface--pan');
      }
    };
    window.addEventListener('keydown', keydown);
    window.addEventListener('keyup', keyup);
    return () => {
      window.removeEventListener('keydown', keydown);
      window.removeEventListener('keyup', keyup);
    };
  }, []);

  const cursor = props.readOnly ? 'grab' : props.tools.tool === 'choose' ? 'default' : props.tools.tool === 'text' ? 'text' : 'crosshair';
  return (
    <div ref={wrapRef} className="board__surface" data-testid="board-surface">
      <canvas ref={paperRef} className="board__canvas" aria-hidden="true" />
      <canvas ref={inkRef} className="board__canvas" data-testid="board-ink" aria-hidden="true" />
      <canvas
        ref={overlayRef}
        className="board__canvas board__canvas--overlay"
        data-testid="board-overlay"
        role="img"
        tabIndex={0}
        aria-label={t('board.canvas', { page: props.pageIndex + 1 })}
        style={{ cursor }}
      />
    </div>
  );
}
