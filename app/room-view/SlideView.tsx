/**
 * A room's shown page with its board layer, for a room view (ADR 093; state from useRoomView):
 * the slide image under the slide's ink, or the whiteboard page when no document is open. Page
 * n/N, a connection dot and, for anyone who may not draw, a "view only" badge; the creator gets a
 * pen, an eraser and page turns sized for touch. The board's own canvas draws everything, so the
 * ink looks as it does in the classroom; the server refuses a read-only view's writes anyway.
 */
import { useCallback, useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ChevronLeft, ChevronRight, Eraser, Eye, PenLine } from 'lucide-react';
import '#app/board/board.css';
import './slide-view.css';
import { BOARD_HEIGHT, BOARD_WIDTH, BOARD_LAST_PAGE } from '#core/contracts/board.ts';
import { BoardCanvas } from '#app/board/BoardCanvas.tsx';
import { DEFAULT_TOOLS, readExtend, type ToolState } from '#core/board/draw/tools.ts';
import { ImageUrls } from '#app/board/net.ts';
import type { BoardRenderer } from '#core/board/draw/renderer.ts';
import { useBoardTestHook } from '#app/board/useBoardTestHook.ts';
import { slideOffset } from '#core/courseware/paging.ts';
import { useSlideImage } from '#app/courseware/useSlideImage.ts';
import { toast } from '#app/lib/toast.ts';
import type { RoomViewState } from './useRoomView.ts';

export interface SlideViewProps {
  state: RoomViewState;
  /** Phone layout: the slide across the width, the tools below it. */
  phone?: boolean;
  /** The slide view says when it shows the whiteboard for want of slides; a board room need not. */
  boardNote?: boolean;
}

const NO_SELECTION: string[] = [];
const noop = () => undefined;

export function SlideView({ state, phone = false, boardNote = true }: SlideViewProps) {
  const { t } = useTranslation();
  const { view, store, boardStatus, layer, slide, shown } = state;
  const canDraw = !!view?.canDraw && view.state === 'open';
  const [tools, setTools] = useState<ToolState>(DEFAULT_TOOLS);
  const [zoom, setZoom] = useState(1);
  const [renderer, setRenderer] = useState<BoardRenderer | null>(null);

  const image = useSlideImage(slide?.url ?? '', state.refresh);
  const backdrop = useMemo(() => {
    if (image.status !== 'ready' || !slide) return null;
    const size = { width: image.image.naturalWidth, height: image.image.naturalHeight };
    return { image: image.image, offsetY: slideOffset(size, slide.scroll, BOARD_WIDTH, BOARD_HEIGHT) };
  }, [image, slide]);

  const extend = readExtend(view?.roomExtend ?? '{}');
  // Board pictures: signed links asked with the view's current token; they repaint when they come.
  const { token } = state;
  const imageUrls = useMemo(() => new ImageUrls(token), [token]);
  useEffect(() => imageUrls.onReady(() => renderer?.requestFull()), [imageUrls, renderer]);
  const imageUrl = useCallback((src: string) => imageUrls.get(src), [imageUrls]);
  const stencilUrl = useCallback(() => null, []);

  // The e2e tests' view of this board, in the board's own shape (test build only, ADR 110).
  const currentRenderer = useCallback(() => renderer, [renderer]);
  useBoardTestHook(store, layer, currentRenderer, token);

  const turn = async (page: number) => {
    const answer = await state.turnPage(page);
    if (answer.code !== '0') toast.error(answer.msg || t('slideView.turnFailed'));
  };

  const pageLabel = slide
    ? t('slideView.page', { n: slide.page, total: slide.total })
    : t('slideView.boardPage', { n: Math.min(extend.pageIndex, BOARD_LAST_PAGE) + 1 });

  return (
    <section
      className={`slide-view${phone ? ' slide-view--phone' : ''}${canDraw ? ' slide-view--tools' : ''}`}
      aria-label={pageLabel}
      data-testid="slide-view"
      data-shown={shown}
      data-layer={layer}
      data-page={slide?.page ?? ''}
      data-total={slide?.total ?? ''}
      data-can-draw={canDraw ? '1' : '0'}
      data-status={boardStatus}
      data-slide-ready={shown === 'slide' && backdrop ? '1' : '0'}
    >
      <div className="slide-view__head">
        <span className="slide-view__page" data-testid="slide-page">
          {pageLabel}
        </span>
        <span className={`slide-view__conn slide-view__conn--${boardStatus}`} role="status" data-testid="slide-conn">
          <span className="slide-view__dot" aria-hidden="true" />
          {t(`slideView.status.${boardStatus}`)}
        </span>
        {!canDraw ? (
          <span className="board__locked slide-view__badge" title={t('slideView.viewOnlyHint')} data-testid="view-only">
            <Eye size={14} aria-hidden="true" />
            {t('slideView.viewOnly')}
          </span>
        ) : null}
      </div>

      <div className="slide-view__stage">
        <div className="slide-view__paper board" data-testid="board">
          {store ? (
            <BoardCanvas
              store={store}
              page={layer}
              pageIndex={slide ? slide.page - 1 : extend.pageIndex}
              readOnly={!canDraw}
              tools={tools}
              background={extend.color}
              zoom={zoom}
              onZoom={setZoom}
              selection={NO_SELECTION}
              onSelection={noop}
              onText={noop}
              imageUrl={imageUrl}
              stencilUrl={stencilUrl}
              onRenderer={setRenderer}
              backdrop={shown === 'slide' ? backdrop : null}
            />
          ) : null}
        </div>
        {renderer === null ? <span className="visually-hidden">{t('slideView.loading')}</span> : null}
      </div>

      {boardNote && shown === 'board' && view && view.courseware.documentId === '' ? (
        <p className="slide-view__note muted">{t('slideView.noSlides')}</p>
      ) : null}

      {canDraw ? (
        <div className="slide-view__tools" role="toolbar" aria-label={t('slideView.tools.label')} data-testid="slide-tools">
          <button
            type="button"
            className="slide-view__tool"
            aria-pressed={tools.tool === 'brush'}
            aria-label={t('slideView.tools.pen')}
            title={t('slideView.tools.pen')}
            onClick={() => setTools({ ...tools, tool: 'brush' })}
            data-testid="slide-pen"
          >
            <PenLine size={22} aria-hidden="true" />
          </button>
          <button
            type="button"
            className="slide-view__tool"
            aria-pressed={tools.tool === 'eraser'}
            aria-label={t('slideView.tools.eraser')}
            title={t('slideView.tools.eraser')}
            onClick={() => setTools({ ...tools, tool: 'eraser' })}
            data-testid="slide-eraser"
          >
            <Eraser size={22} aria-hidden="true" />
          </button>
          {slide ? (
            <>
              <button
                type="button"
                className="slide-view__tool"
                disabled={slide.page <= 1}
                aria-label={t('slideView.tools.prev')}
                title={t('slideView.tools.prev')}
                onClick={() => void turn(slide.page - 1)}
                data-testid="slide-prev"
              >
                <ChevronLeft size={22} aria-hidden="true" />
              </button>
              <button
                type="button"
                className="slide-view__tool"
                disabled={slide.page >= slide.total}
                aria-label={t('slideView.tools.next')}
                title={t('slideView.tools.next')}
                onClick={() => void turn(slide.page + 1)}
                data-testid="slide-next"
              >
                <ChevronRight size={22} aria-hidden="true" />
              </button>
            </>
          ) : null}
        </div>
      ) : null}
    </section>
  );
}
