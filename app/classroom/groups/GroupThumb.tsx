/**
 * A group board's live thumbnail for the teacher's overview (issue 31, ADR 118): the board's own
 * renderer drawing the group's page (`wb:{page}`) small, from one board connection shared by the
 * overview's thumbnails (the board client loads a layer and keeps it current from the socket).
 * Pictures are not fetched for thumbnails; the ink and shapes are what show the group's work.
 */
import { useEffect, useRef } from 'react';
import { BACKGROUND_COLOURS } from '#core/contracts/board.ts';
import { BoardRenderer } from '#core/board/draw/renderer.ts';
import { wbLayer } from '#core/board/draw/tools.ts';
import type { BoardStore } from '#app/board/store.ts';

export const THUMB_W = 160;
export const THUMB_H = 120;

export function GroupThumb({
  store,
  page,
  background,
  label,
}: {
  store: BoardStore | null;
  page: number;
  background: number;
  label: string;
}) {
  const paper = useRef<HTMLCanvasElement>(null);
  const ink = useRef<HTMLCanvasElement>(null);
  const overlay = useRef<HTMLCanvasElement>(null);
  const renderer = useRef<BoardRenderer | null>(null);

  useEffect(() => {
    if (!paper.current || !ink.current || !overlay.current) return;
    const r = new BoardRenderer(paper.current, ink.current, overlay.current, { imageUrl: () => null, stencilUrl: () => null });
    r.resize(THUMB_W, THUMB_H, window.devicePixelRatio);
    renderer.current = r;
    return () => {
      r.dispose();
      renderer.current = null;
    };
  }, []);

  useEffect(() => {
    renderer.current?.setBackground(BACKGROUND_COLOURS[background] ?? BACKGROUND_COLOURS[0]);
  }, [background]);

  useEffect(() => {
    const r = renderer.current;
    if (!r || !store) return;
    const layer = wbLayer(page);
    r.setSource(() => store.layer(layer).view.values());
    const offChange = store.on('change', (changed, change) => {
      if (changed !== layer) return;
      if (change.kind === 'append') r.append(change.items);
      else if (change.kind === 'full') r.requestFull();
    });
    void store.open(layer);
    const offStatus = store.on('status', (s) => {
      if (s === 'live') void store.open(layer);
    });
    return () => {
      offChange();
      offStatus();
    };
  }, [store, page]);

  return (
    <div className="group-thumb" role="img" aria-label={label} data-testid="group-thumb" data-page={page}>
      <canvas ref={paper} className="group-thumb__layer" />
      <canvas ref={ink} className="group-thumb__layer" />
      <canvas ref={overlay} className="group-thumb__layer" />
    </div>
  );
}
