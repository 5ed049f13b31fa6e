/**
 * The board's viewport: the renderer once the canvas made it, the zoom, and 'follow me'
 * (move_by_presenter, ADR 034): the creator sends the viewport when it changed (at most 4 a
 * second); everyone else shows the layer's presenter viewport, fitted to their screen.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import type { BoardRenderer } from '#core/board/draw/renderer.ts';
import type { BoardStore } from './store.ts';

export function useBoardViewport(store: BoardStore | null, page: string, follow: boolean, isCreator: boolean) {
  const [zoom, setZoom] = useState(1);
  // The handlers read the ref; the render (the text editor's place and size) reads the state.
  const rendererRef = useRef<BoardRenderer | null>(null);
  const [renderer, setRenderer] = useState<BoardRenderer | null>(null);
  const onRenderer = useCallback((r: BoardRenderer | null) => {
    rendererRef.current = r;
    setRenderer(r);
  }, []);

  // The creator, while 'follow me' is on: the viewport goes out when it changed (at most 4 a second).
  useEffect(() => {
    if (!store || !follow || !isCreator) return;
    let last = '';
    const send = () => {
      const r = rendererRef.current;
      if (!r || store.status !== 'live') return;
      const v = r.viewport();
      const key = JSON.stringify(v);
      if (key === last) return;
      last = key;
      store.submit({ type: 'move_by_presenter', page, data: v });
    };
    send();
    const timer = setInterval(send, 250);
    return () => clearInterval(timer);
  }, [store, follow, isCreator, page]);

  // Everyone else, while it is on: the layer's presenter viewport, fitted to this screen.
  useEffect(() => {
    if (!store || !follow || isCreator) return;
    const apply = () => {
      const v = store.layer(page).viewport;
      const r = rendererRef.current;
      if (!v || !r) return;
      r.showViewport(v);
      setZoom(r.zoom);
    };
    apply();
    return store.on('viewport', (changed) => {
      if (changed === page) apply();
    });
  }, [store, follow, isCreator, page]);

  return { zoom, setZoom, rendererRef, renderer, onRenderer };
}
