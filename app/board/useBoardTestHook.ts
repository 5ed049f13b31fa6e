/**
 * Test observation: the board's store, layer, renderer and token for the end-to-end tests
 * (`window.__banshuBoard`), in the test build only (app/lib/test-hooks.ts, ADR 110). The classroom
 * board (BoardView) and the room view's slide (SlideView) give the same shape.
 */
import { useEffect, type RefObject } from 'react';
import type { BoardRenderer } from '#core/board/draw/renderer.ts';
import { exposeForTests } from '#app/lib/test-hooks.ts';
import type { BoardStore } from './store.ts';

/** What end-to-end tests read (window.__banshuBoard, test build only). */
export interface BoardTestHook {
  store: BoardStore;
  page: () => string;
  renderer: () => BoardRenderer | null;
  /** The board token in use (the phone upload address carries it). */
  token: () => string;
}

/** The last board shown stays readable (it is not taken off when the board goes, as before). */
export function useBoardTestHook(
  store: BoardStore | null,
  page: string,
  renderer: RefObject<BoardRenderer | null> | (() => BoardRenderer | null),
  token: () => string,
): void {
  useEffect(() => {
    if (!store) return;
    const current = typeof renderer === 'function' ? renderer : () => renderer.current;
    const hook: BoardTestHook = { store, page: () => page, renderer: current, token };
    exposeForTests('board', hook);
  }, [store, page, renderer, token]);
}
