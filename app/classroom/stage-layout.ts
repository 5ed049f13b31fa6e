/**
 * The video stage's geometry (ADR 088): the largest 16:9 tiles for n people in a box, and the
 * speaker layout's big tile above a strip. Pure, so the figures in the ADR come from here.
 */
export const RATIO = 16 / 9;
export const GAP = 8;
/** The filmstrip's and the speaker strip's tile: at least 200 x 112 (issue 16). */
export const STRIP_W = 224;
export const STRIP_H = 126;

export interface GridFit {
  cols: number;
  rows: number;
  w: number;
  h: number;
}

/** The column count that gives the largest 16:9 tile for n tiles in width x height. */
export function gridFit(n: number, width: number, height: number, gap = GAP): GridFit {
  let best: GridFit = { cols: 1, rows: 1, w: 0, h: 0 };
  const count = Math.max(1, n);
  for (let cols = 1; cols <= count; cols++) {
    const rows = Math.ceil(count / cols);
    const byWidth = (width - gap * (cols - 1)) / cols;
    const byHeight = ((height - gap * (rows - 1)) / rows) * RATIO;
    const w = Math.floor(Math.max(0, Math.min(byWidth, byHeight)));
    // A tie goes to more columns: side by side suits a landscape stage.
    if (w >= best.w && w > 0) best = { cols, rows, w, h: Math.floor(w / RATIO) };
  }
  return best;
}

export interface SpeakerFit {
  main: { w: number; h: number };
  strip: { w: number; h: number };
}

/** The speaker layout: one big 16:9 tile, the others in a strip of STRIP_W x STRIP_H under it. */
export function speakerFit(n: number, width: number, height: number, gap = GAP): SpeakerFit {
  const stripH = n > 1 ? STRIP_H : 0;
  const mainH = Math.max(0, height - (stripH ? stripH + gap : 0));
  const w = Math.floor(Math.min(width, mainH * RATIO));
  return { main: { w, h: Math.floor(w / RATIO) }, strip: { w: STRIP_W, h: STRIP_H } };
}

export type StageLayout = 'grid' | 'speaker';
const KEY = 'banshu.stageLayout';
const listeners = new Set<() => void>();

/** The remembered layout (localStorage), as a store for useSyncExternalStore. */
export function readLayout(): StageLayout {
  try {
    return localStorage.getItem(KEY) === 'speaker' ? 'speaker' : 'grid';
  } catch {
    return 'grid';
  }
}

export function writeLayout(layout: StageLayout): void {
  try {
    localStorage.setItem(KEY, layout);
  } catch {
    // Private mode: the choice is not kept.
  }
  for (const l of listeners) l();
}

export function subscribeLayout(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The server does not know the choice: grid until hydrated. */
export const serverLayout = (): StageLayout => 'grid';
