/**
 * The pictures on the board: signed image addresses (they repaint the board when they come) and
 * the stencil list, loaded once something needs it (the shapes menu, or a stencil already drawn).
 * Also what follows the store: a repaint of the toolbar's undo/redo on change, a toast on refusal.
 */
import { useCallback, useEffect, useMemo, useRef, useState, type RefObject } from 'react';
import { useTranslation } from 'react-i18next';
import type { BoardRenderer } from '#core/board/draw/renderer.ts';
import { codeMessage } from '#app/lib/messages.ts';
import { currentLang } from '#app/lib/lang.ts';
import { toast } from '#app/lib/toast.ts';
import { ImageUrls, loadStencils, type Stencil } from './net.ts';
import type { BoardStore } from './store.ts';

export function useBoardPictures(
  store: BoardStore | null,
  page: string,
  token: () => string,
  rendererRef: RefObject<BoardRenderer | null>,
) {
  const { t } = useTranslation();
  const [stencils, setStencils] = useState<Stencil[] | null>(null);
  const [, setTick] = useState(0);

  const imageUrls = useMemo(() => new ImageUrls(token), [token]);
  // New addresses arrived: the renderer repaints with the pictures.
  useEffect(() => imageUrls.onReady(() => rendererRef.current?.requestFull()), [imageUrls, rendererRef]);
  const stencilById = useMemo(() => new Map((stencils ?? []).map((s) => [s.id, s.imageUrl])), [stencils]);
  const stencilUrl = useCallback((id: string) => stencilById.get(id) ?? null, [stencilById]);
  // Stencils already on the board need their pictures: load the list once something needs it.
  const needStencils = useRef(false);
  const openStencils = useCallback(() => {
    if (needStencils.current) return;
    needStencils.current = true;
    void loadStencils().then((list) => {
      setStencils(list);
      rendererRef.current?.requestFull();
    });
  }, [rendererRef]);

  // Undo/redo availability and refusals follow the store.
  useEffect(() => {
    if (!store) return;
    const offChange = store.on('change', (changed) => {
      if (changed === page) setTick((n) => n + 1);
      if (!needStencils.current && [...store.layer(page).view.values()].some((i) => i.data.kind === 'stencil')) openStencils();
    });
    const offRefused = store.on('refused', (ack) => {
      toast.error(ack.msg || codeMessage(ack.code, currentLang()) || t('board.refused'));
    });
    return () => {
      offChange();
      offRefused();
    };
  }, [store, page, t, openStencils]);

  return { imageUrls, stencils, stencilUrl, openStencils };
}
