/**
 * The read-only review of a class's board (`/wbreview/{id}`), open or ended: the pages that hold
 * something come from `/api/getWbReview` (creator only), one page at a time, drawn by the board's
 * renderer with no socket and no tools. Previous/next buttons, the arrow keys (and Page Up/Down)
 * page through them; dragging pans, the zoom buttons and Ctrl+wheel zoom.
 */
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import './board.css';
import { BACKGROUND_COLOURS, type LayerState } from '#core/contracts/board.ts';
import { parseLayerKey } from '#core/board/model.ts';
import { api, isOk } from '#app/lib/api.ts';
import { codeMessage } from '#app/lib/messages.ts';
import { currentLang } from '#app/lib/lang.ts';
import { loadStencils } from './net.ts';
import { BoardRenderer } from '#core/board/draw/renderer.ts';
import { readExtend } from '#core/board/draw/tools.ts';
import { ZoomControl } from './ZoomControl.tsx';
import { ChevronLeft, ChevronRight } from 'lucide-react';

interface ReviewPage {
  state: LayerState;
  images: Record<string, string>;
}

type Loaded = { kind: 'loading' } | { kind: 'failed'; message: string } | { kind: 'ready'; pages: string[] };

export interface ReviewBoardProps {
  roomNumber: string;
  roomExtend: string;
}

/** Index after a key press, or null when the key does not page. */
export function reviewStep(key: string, index: number, count: number): number | null {
  if (key === 'ArrowLeft' || key === 'PageUp') return index > 0 ? index - 1 : null;
  if (key === 'ArrowRight' || key === 'PageDown') return index < count - 1 ? index + 1 : null;
  if (key === 'Home') return count > 0 && index !== 0 ? 0 : null;
  if (key === 'End') return count > 0 && index !== count - 1 ? count - 1 : null;
  return null;
}

export function ReviewBoard({ roomNumber, roomExtend }: ReviewBoardProps) {
  const { t } = useTranslation();
  const [loaded, setLoaded] = useState<Loaded>({ kind: 'loading' });
  const [index, setIndex] = useState(0);
  const [shown, setShown] = useState<{ key: string; page: ReviewPage } | null>(null);
  /** A page that failed to load, with its key: shown only while that page is the one asked for. */
  const [failed, setFailed] = useState<{ key: string; error: string } | null>(null);
  const [zoom, setZoom] = useState(1);
  const cache = useRef(new Map<string, ReviewPage>());
  const wrapRef = useRef<HTMLDivElement>(null);
  const paperRef = useRef<HTMLCanvasElement>(null);
  const inkRef = useRef<HTMLCanvasElement>(null);
  const overlayRef = useRef<HTMLCanvasElement>(null);
  const rendererRef = useRef<BoardRenderer | null>(null);
  const stencils = useRef(new Map<string, string>());
  const shownRef = useRef(shown);
  // The renderer's image lookup reads the page shown now.
  useLayoutEffect(() => {
    shownRef.current = shown;
  });
  const background = readExtend(roomExtend).color;

  const fetchPage = useCallback(
    async (key: string): Promise<{ pages: string[]; page: ReviewPage } | { error: string }> => {
      const envelope = await api('getWbReview', { roomNumber, page: key }, { quietNetworkError: true });
      if (!isOk(envelope)) return { error: envelope.msg || codeMessage(envelope.code, currentLang()) || t('board.review.failed') };
      const page = { state: envelope.data.state, images: envelope.data.images ?? {} };
      cache.current.set(key, page);
      return { pages: envelope.data.pages, page };
    },
    [roomNumber, t],
  );

  // The list of pages (and the first page's content, which usually is wb:0).
  useEffect(() => {
    let live = true;
    void fetchPage('wb:0').then(async (first) => {
      if (!live) return;
      if ('error' in first) return setLoaded({ kind: 'failed', message: first.error });
      setLoaded({ kind: 'ready', pages: first.pages });
    });
    return () => {
      live = false;
    };
  }, [fetchPage]);

  const pages = loaded.kind === 'ready' ? loaded.pages : [];
  const key = pages[index] ?? null;
  const pageError = failed && failed.key === key ? failed.error : null;

  // The page shown: from the cache or the server.
  useEffect(() => {
    if (!key) return;
    const hit = cache.current.get(key);
    let live = true;
    void (hit ? Promise.resolve({ page: hit }) : fetchPage(key)).then((answer) => {
      if (!live) return;
      if ('error' in answer) setFailed({ key, error: answer.error });
      else setShown({ key, page: answer.page });
    });
    return () => {
      live = false;
    };
  }, [key, fetchPage]);

  // The renderer lives as long as the surface.
  useEffect(() => {
    const wrap = wrapRef.current;
    if (!wrap || !paperRef.current || !inkRef.current || !overlayRef.current) return;
    const renderer = new BoardRenderer(paperRef.current, inkRef.current, overlayRef.current, {
      imageUrl: (src) => shownRef.current?.page.images[src] ?? null,
      stencilUrl: (id) => stencils.current.get(id) ?? null,
    });
    rendererRef.current = renderer;
    const observer = new ResizeObserver(() => {
      const r = wrap.getBoundingClientRect();
      renderer.resize(r.width, r.height, window.devicePixelRatio);
    });
    observer.observe(wrap);
    const r = wrap.getBoundingClientRect();
    renderer.resize(r.width, r.height, window.devicePixelRatio);
    // Drag pans; Ctrl+wheel zooms, the wheel pans.
    const overlay = overlayRef.current;
    let last: { x: number; y: number } | null = null;
    const down = (e: PointerEvent) => {
      overlay.setPointerCapture(e.pointerId);
      last = { x: e.clientX, y: e.clientY };
    };
    const move = (e: PointerEvent) => {
      if (!last) return;
      renderer.panBy(e.clientX - last.x, e.clientY - last.y);
      last = { x: e.clientX, y: e.clientY };
    };
    const up = () => {
      last = null;
    };
    const wheel = (e: WheelEvent) => {
      e.preventDefault();
      if (e.ctrlKey || e.metaKey) setZoom((z) => Math.min(1.5, Math.max(0.1, z * (e.deltaY < 0 ? 1.1 : 1 / 1.1))));
      else renderer.panBy(-e.deltaX, -e.deltaY);
    };
    overlay.addEventListener('pointerdown', down);
    overlay.addEventListener('pointermove', move);
    overlay.addEventListener('pointerup', up);
    overlay.addEventListener('pointercancel', up);
    overlay.addEventListener('wheel', wheel, { passive: false });
    return () => {
      observer.disconnect();
      overlay.removeEventListener('pointerdown', down);
      overlay.removeEventListener('pointermove', move);
      overlay.removeEventListener('pointerup', up);
      overlay.removeEventListener('pointercancel', up);
      overlay.removeEventListener('wheel', wheel);
      renderer.dispose();
      rendererRef.current = null;
    };
  }, []);

  useEffect(() => {
    rendererRef.current?.setBackground(BACKGROUND_COLOURS[background] ?? BACKGROUND_COLOURS[0]);
  }, [background]);

  useEffect(() => {
    const r = rendererRef.current;
    if (r && Math.abs(r.zoom - zoom) > 1e-6) r.setView(zoom);
  }, [zoom]);

  // A new page: its items, and the stencil pictures if it has stencils.
  useEffect(() => {
    const renderer = rendererRef.current;
    if (!renderer) return;
    const items = shown?.page.state.items ?? [];
    renderer.setSource(() => items);
    renderer.requestFull();
    if (items.some((i) => i.data.kind === 'stencil') && stencils.current.size === 0) {
      void loadStencils().then((list) => {
        for (const s of list) stencils.current.set(s.id, s.imageUrl);
        rendererRef.current?.requestFull();
      });
    }
  }, [shown]);

  // Keyboard: arrows and Page Up/Down page, Home/End jump.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const el = e.target as HTMLElement | null;
      if (el && (el.tagName === 'INPUT' || el.tagName === 'TEXTAREA' || el.tagName === 'SELECT' || el.isContentEditable)) return;
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      const next = reviewStep(e.key, index, pages.length);
      if (next === null) return;
      e.preventDefault();
      setIndex(next);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [index, pages.length]);

  const label = (k: string) => {
    const p = parseLayerKey(k);
    if (!p) return k;
    return p.kind === 'wb' ? t('board.review.wbPage', { n: p.page + 1 }) : t('board.review.slide', { n: p.slide });
  };
  const ready = loaded.kind === 'ready' && shown !== null && shown.key === key;
  const state =
    loaded.kind === 'failed' || pageError
      ? 'failed'
      : loaded.kind === 'ready' && pages.length === 0
        ? 'empty'
        : ready
          ? 'ready'
          : 'loading';

  return (
    <div
      className="board"
      data-testid="review-board"
      data-state={state}
      data-page={shown?.key ?? ''}
      data-items={shown ? shown.page.state.items.length : 0}
      data-background={background}
      aria-busy={state === 'loading'}
    >
      {/* The review pans and zooms only: the pan cursor, from the style sheet (the site's CSP refuses style attributes in the page's HTML). */}
      <div ref={wrapRef} className="board__surface board__surface--pan" data-testid="board-surface">
        <canvas ref={paperRef} className="board__canvas" aria-hidden="true" />
        <canvas ref={inkRef} className="board__canvas" data-testid="board-ink" aria-hidden="true" />
        <canvas
          ref={overlayRef}
          className="board__canvas board__canvas--overlay"
          role="img"
          tabIndex={0}
          aria-label={key ? label(key) : t('board.review.title')}
        />
      </div>

      {pages.length > 0 ? (
        <div className="board__review-pages" role="group" aria-label={t('board.review.pages')}>
          <button
            type="button"
            className="board-tool"
            onClick={() => setIndex(index - 1)}
            disabled={index <= 0}
            aria-label={t('board.tools.prev')}
            data-testid="page-prev"
          >
            <ChevronLeft size={18} aria-hidden="true" />
          </button>
          <span data-testid="page-label" aria-live="polite">
            {key ? label(key) : ''} · {t('board.review.counter', { n: index + 1, total: pages.length })}
          </span>
          <button
            type="button"
            className="board-tool"
            onClick={() => setIndex(index + 1)}
            disabled={index >= pages.length - 1}
            aria-label={t('board.tools.next')}
            data-testid="page-next"
          >
            <ChevronRight size={18} aria-hidden="true" />
          </button>
        </div>
      ) : null}

      <ZoomControl zoom={zoom} onZoom={setZoom} />

      {state === 'loading' ? (
        <div className="board__status" role="status" data-testid="review-loading">
          <span className="spinner" aria-hidden="true" /> {t('board.loading')}
        </div>
      ) : state === 'failed' ? (
        <div className="board__status" role="alert" data-testid="review-error">
          {pageError ?? (loaded.kind === 'failed' ? loaded.message : '')}
        </div>
      ) : state === 'empty' ? (
        <div className="board__status" role="status" data-testid="review-empty">
          {t('board.review.empty')}
        </div>
      ) : null}
    </div>
  );
}
