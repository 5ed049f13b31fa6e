/**
 * The board's canvas renderer. Three stacked canvases:
 * - paper: the background colour on the board's 1024 x 768 area (and grey around it);
 * - ink: the layer's items in drawing order; eraser strokes cut it with `destination-out`, so the
 *   paper (or a slide under it) stays;
 * - overlay: what is not stored yet: others' strokes in progress, our own stroke or shape being
 *   drawn, the selection and the drag box.
 *
 * Painting is incremental: a new item on top is painted over what is there; only a change under
 * other items (move, delete, undo, clear, an image that finished loading) repaints the ink, once
 * per animation frame. A full repaint skips lines buried under later ones (cull.ts) and batches
 * consecutive lines of one style into one path. Canvases are sized in device pixels.
 */
import { BOARD_HEIGHT, BOARD_WIDTH, type BoardItem, type BrushColour, type ItemData, type ShapeData } from '#core/contracts/board.ts';
import { cullGrid, visibleItems } from './cull.ts';
import { shapeOutline, smoothJoins, traceSmooth, wrapText, TEXT_LINE_HEIGHT, type PathSink, type Point, type Rect } from './geometry.ts';

export const CSS_COLOURS: Record<BrushColour, string> = {
  red: '#e53935',
  orange: '#fb8c00',
  yellow: '#fdd835',
  purple: '#8e24aa',
  blue: '#1e88e5',
  green: '#43a047',
  black: '#000000',
  deepgrey: '#808080',
};

export const MIN_ZOOM = 0.1;
export const MAX_ZOOM = 1.5;
const OUTSIDE = '#d6d9de';
const FONT_FAMILY = 'system-ui, -apple-system, "PingFang SC", "Noto Sans CJK SC", "Microsoft YaHei", sans-serif';

export interface LiveStroke {
  points: number[];
  color: BrushColour;
  width: number;
  eraser?: boolean;
}

export interface OverlayState {
  live: Iterable<LiveStroke>;
  /** Our own stroke being drawn. */
  draft?: LiveStroke | null;
  /** A shape being dragged out. */
  shape?: ShapeData | null;
  /** Boxes of selected items. */
  selection?: Rect[];
  /** The rubber band of a box selection. */
  band?: Rect | null;
}

export interface RendererOptions {
  /** URL to draw an image item from (its `src` is an object key). */
  imageUrl: (src: string) => string | null;
  /** URL of a stencil's SVG. */
  stencilUrl: (stencilId: string) => string | null;
  /** Skip lines buried under later ones on a full repaint (default on; off to check it). */
  cull?: boolean;
  /**
   * When outstanding painting runs: the browser's animation frames by default. A page-less host
   * (the recorder draws the board in Node, ADR 075) passes its own and calls the callback when it paints.
   */
  frames?: { request(paint: () => void): number; cancel(id: number): void };
  /** Loads a picture by URL: an HTMLImageElement by default; a page-less host decodes its own. */
  loadImage?: (url: string) => Promise<CanvasImageSource>;
}

type Ctx = CanvasRenderingContext2D;

interface ImageEntry {
  img: CanvasImageSource | null;
  ready: boolean;
  failed: boolean;
  /** Stops the callbacks of a load still under way (dispose). */
  drop: () => void;
}

const animationFrames = {
  request: (paint: () => void) => requestAnimationFrame(paint),
  cancel: (id: number) => cancelAnimationFrame(id),
};

export class BoardRenderer {
  readonly #paper: HTMLCanvasElement;
  readonly #ink: HTMLCanvasElement;
  readonly #overlay: HTMLCanvasElement;
  readonly #options: RendererOptions;
  #items: () => Iterable<BoardItem> = () => [];
  #overlayState: OverlayState = { live: [] };
  #cssW = 1;
  #cssH = 1;
  #dpr = 1;
  #zoom = 1;
  #pan: Point = { x: 0, y: 0 };
  #background = '#F2F2F2';
  /** A courseware slide under the ink (drawn on the paper, in the board area). */
  #backdrop: { image: CanvasImageSource & { width: number; height: number }; offsetY: number } | null = null;
  /**
   * How far a tall (portrait) slide is scrolled, in board units: the window shows board y from
   * scrollY to scrollY + BOARD_HEIGHT, so ink stays on the part of the page it was drawn on.
   */
  #scrollY = 0;
  #frame = 0;
  #needFull = false;
  #needOverlay = false;
  #needPaper = false;
  readonly #images = new Map<string, ImageEntry>();
  readonly #textLines = new WeakMap<ItemData, string[]>();
  /** Time the last full repaint took, in ms (shown to tests and the bench). */
  lastFullPaintMs = 0;
  /** Items the last full repaint drew (the rest were buried under later lines). */
  lastFullPaintDrawn = 0;
  fullPaints = 0;

  constructor(paper: HTMLCanvasElement, ink: HTMLCanvasElement, overlay: HTMLCanvasElement, options: RendererOptions) {
    this.#paper = paper;
    this.#ink = ink;
    this.#overlay = overlay;
    this.#options = options;
  }

  /** Where full repaints read the layer's items from (in drawing order). */
  setSource(items: () => Iterable<BoardItem>): void {
    this.#items = items;
    this.requestFull();
  }

  resize(cssW: number, cssH: number, dpr: number): void {
    this.#cssW = Math.max(1, Math.round(cssW));
    this.#cssH = Math.max(1, Math.round(cssH));
    this.#dpr = Math.max(1, Math.min(3, dpr || 1));
    for (const c of [this.#paper, this.#ink, this.#overlay]) {
      c.width = Math.round(this.#cssW * this.#dpr);
      c.height = Math.round(this.#cssH * this.#dpr);
      // A canvas outside a page (Node) has no style to size.
      if (c.style) {
        c.style.width = `${this.#cssW}px`;
        c.style.height = `${this.#cssH}px`;
      }
    }
    this.#clampPan();
    // Resizing clears the canvases; the repaint comes in the next frame (one per burst of resizes).
    this.requestFull();
  }

  get zoom(): number {
    return this.#zoom;
  }

  get pan(): Point {
    return this.#pan;
  }

  setView(zoom: number, pan: Point = this.#pan): void {
    this.#zoom = Math.min(MAX_ZOOM, Math.max(MIN_ZOOM, zoom));
    this.#pan = { ...pan };
    this.#clampPan();
    this.requestFull();
  }

  /** Pans by a pointer movement in CSS pixels. */
  panBy(dxCss: number, dyCss: number): void {
    const s = this.scale;
    this.#pan = { x: this.#pan.x - dxCss / s, y: this.#pan.y - dyCss / s };
    this.#clampPan();
    this.requestFull();
  }

  #clampPan(): void {
    // Keep at least a quarter of the board in view.
    const limX = BOARD_WIDTH * 0.75;
    const limY = BOARD_HEIGHT * 0.75;
    this.#pan = { x: Math.max(-limX, Math.min(limX, this.#pan.x)), y: Math.max(-limY, Math.min(limY, this.#pan.y)) };
  }

  setBackground(color: string): void {
    if (color === this.#background) return;
    this.#background = color;
    this.#needPaper = true;
    this.#schedule();
  }

  /**
   * A slide image under the ink: fitted into the board area (a portrait page the board's width
   * wide, scrolled by offsetY board units, the ink with it); null for the plain background.
   */
  setBackdrop(backdrop: { image: CanvasImageSource & { width: number; height: number }; offsetY: number } | null): void {
    const same =
      backdrop === this.#backdrop ||
      (backdrop && this.#backdrop && backdrop.image === this.#backdrop.image && backdrop.offsetY === this.#backdrop.offsetY);
    if (same) return;
    this.#backdrop = backdrop;
    this.#needPaper = true;
    const scrollY = backdrop?.offsetY ?? 0;
    if (scrollY !== this.#scrollY) {
      this.#scrollY = scrollY;
      this.requestFull();
    }
    this.#schedule();
  }

  /** CSS pixels per board unit. */
  get scale(): number {
    return Math.min(this.#cssW / BOARD_WIDTH, this.#cssH / BOARD_HEIGHT) * this.#zoom;
  }

  /** Board origin in CSS pixels. */
  get origin(): Point {
    const s = this.scale;
    return {
      x: (this.#cssW - BOARD_WIDTH * s) / 2 - this.#pan.x * s,
      y: (this.#cssH - BOARD_HEIGHT * s) / 2 - (this.#pan.y + this.#scrollY) * s,
    };
  }

  toBoard(cssX: number, cssY: number): Point {
    const s = this.scale;
    const o = this.origin;
    return { x: (cssX - o.x) / s, y: (cssY - o.y) / s };
  }

  toCss(p: Point): Point {
    const s = this.scale;
    const o = this.origin;
    return { x: o.x + p.x * s, y: o.y + p.y * s };
  }

  /** The board area in view, in board units (the presenter's viewport, `move_by_presenter`). */
  viewport(): { x: number; y: number; width: number; height: number } {
    const a = this.toBoard(0, 0);
    const b = this.toBoard(this.#cssW, this.#cssH);
    const r = (n: number) => Math.round(n * 10) / 10;
    return { x: r(a.x), y: r(a.y), width: r(Math.max(1, b.x - a.x)), height: r(Math.max(1, b.y - a.y)) };
  }

  /** Shows a presenter's viewport: its area fitted into this surface, centred (any screen size). */
  showViewport(v: { x: number; y: number; width: number; height: number }): void {
    const base = Math.min(this.#cssW / BOARD_WIDTH, this.#cssH / BOARD_HEIGHT);
    const fit = Math.min(this.#cssW / v.width, this.#cssH / v.height);
    this.setView(fit / base, { x: v.x + v.width / 2 - BOARD_WIDTH / 2, y: v.y + v.height / 2 - BOARD_HEIGHT / 2 - this.#scrollY });
  }

  /** The board area in view, in board units (where a new image goes). */
  visibleCentre(): Point {
    return this.toBoard(this.#cssW / 2, this.#cssH / 2);
  }

  #boardCtx(canvas: HTMLCanvasElement): Ctx {
    const ctx = canvas.getContext('2d');
    if (!ctx) throw new Error('no 2d context');
    const s = this.scale * this.#dpr;
    const o = this.origin;
    ctx.setTransform(s, 0, 0, s, o.x * this.#dpr, o.y * this.#dpr);
    return ctx;
  }

  requestFull(): void {
    this.#needFull = true;
    this.#needPaper = true;
    this.#needOverlay = true;
    this.#schedule();
  }

  setOverlay(state: OverlayState): void {
    this.#overlayState = state;
    this.#needOverlay = true;
    this.#schedule();
  }

  #schedule(): void {
    if (this.#frame) return;
    this.#frame = (this.#options.frames ?? animationFrames).request(() => {
      this.#frame = 0;
      this.flush();
    });
  }

  /** Paints whatever is outstanding now. */
  flush(): void {
    if (this.#needPaper) this.#paintPaper();
    if (this.#needFull) this.#paintInk();
    if (this.#needOverlay) this.#paintOverlay();
  }

  /** A full repaint at once (after a resize, in the bench). */
  paintAllNow(): void {
    this.#needFull = this.#needPaper = this.#needOverlay = true;
    this.flush();
  }

  /** New items on top of the layer: painted over what is there, nothing repainted. */
  append(items: readonly BoardItem[]): void {
    if (this.#needFull) return; // the coming repaint draws them
    const ctx = this.#boardCtx(this.#ink);
    this.#onPage(ctx, () => this.#drawItems(ctx, items));
  }

  /**
   * Ink stays on the page: what is drawn past its edge (a pen that left the page, an item moved
   * partly off it) is cut at the edge, as on paper, instead of painting the margin around it.
   */
  #onPage(ctx: Ctx, draw: () => void): void {
    ctx.save();
    ctx.beginPath();
    ctx.rect(0, this.#scrollY, BOARD_WIDTH, BOARD_HEIGHT);
    ctx.clip();
    try {
      draw();
    } finally {
      ctx.restore();
    }
  }

  #paintPaper(): void {
    this.#needPaper = false;
    const ctx = this.#paper.getContext('2d');
    if (!ctx) return;
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.fillStyle = OUTSIDE;
    ctx.fillRect(0, 0, this.#paper.width, this.#paper.height);
    const b = this.#boardCtx(this.#paper);
    b.fillStyle = this.#background;
    const top = this.#scrollY;
    b.fillRect(0, top, BOARD_WIDTH, BOARD_HEIGHT);
    const backdrop = this.#backdrop;
    if (backdrop && backdrop.image.width > 0 && backdrop.image.height > 0) {
      const { width, height } = backdrop.image;
      b.save();
      b.beginPath();
      b.rect(0, top, BOARD_WIDTH, BOARD_HEIGHT);
      b.clip();
      if (width / height < 1) {
        // The page from board y 0 down; the window (and the ink) scrolled by offsetY.
        const h = (BOARD_WIDTH * height) / width;
        b.drawImage(backdrop.image, 0, 0, BOARD_WIDTH, h);
      } else {
        const fit = Math.min(BOARD_WIDTH / width, BOARD_HEIGHT / height);
        const w = width * fit;
        const h = height * fit;
        b.drawImage(backdrop.image, (BOARD_WIDTH - w) / 2, top + (BOARD_HEIGHT - h) / 2, w, h);
      }
      b.restore();
    }
  }

  #paintInk(): void {
    this.#needFull = false;
    const started = performance.now();
    const ctx = this.#ink.getContext('2d');
    if (!ctx) return;
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.globalCompositeOperation = 'source-over';
    ctx.clearRect(0, 0, this.#ink.width, this.#ink.height);
    const items = [...this.#items()];
    const o = this.origin;
    const grid = this.#options.cull === false ? null : cullGrid(items, this.scale, o.x, o.y, this.#cssW, this.#cssH, this.#dpr);
    const keep = grid ? visibleItems(items, grid) : undefined;
    const board = this.#boardCtx(this.#ink);
    this.#onPage(board, () => this.#drawItems(board, items, keep));
    let drawn = items.length;
    if (keep) for (const k of keep) drawn -= 1 - k;
    this.lastFullPaintDrawn = drawn;
    this.lastFullPaintMs = performance.now() - started;
    this.fullPaints += 1;
  }

  /**
   * Draws items in order. Lines of one colour, width and kind that follow each other share one
   * path and one stroke() call: the result is the same for opaque colours and far cheaper. Freehand
   * lines whose joins cannot show are stroked with miter joins (smoothJoins, ADR 054).
   */
  #drawItems(ctx: Ctx, items: Iterable<BoardItem>, keep?: Uint8Array): void {
    let batchKey = '';
    /** Whether every line in the batch can take miter joins (read when it is stroked). */
    let miter = true;
    const flush = () => {
      if (batchKey !== '') {
        ctx.lineJoin = miter ? 'miter' : 'round';
        ctx.stroke();
      }
      batchKey = '';
      miter = true;
    };
    ctx.lineCap = 'round';
    ctx.lineJoin = 'round';
    ctx.setLineDash([]);
    ctx.globalCompositeOperation = 'source-over';
    let index = -1;
    for (const item of items) {
      index += 1;
      if (keep && keep[index] === 0) continue;
      const data = item.data;
      if (data.kind === 'stroke' || (data.kind === 'shape' && data.shape !== 'dottedline')) {
        const eraser = data.kind === 'stroke' && data.eraser === true;
        const key = `${eraser ? 'e' : data.color}|${data.width}`;
        if (key !== batchKey) {
          flush();
          batchKey = key;
          ctx.globalCompositeOperation = eraser ? 'destination-out' : 'source-over';
          ctx.strokeStyle = eraser ? '#000' : CSS_COLOURS[data.color];
          ctx.lineWidth = data.width;
          ctx.beginPath();
        }
        // Shapes have corners; most freehand lines have no join that shows (the same picture).
        if (data.kind === 'stroke') {
          traceSmooth(ctx, data.points);
          if (miter && !smoothJoins(data.points)) miter = false;
        } else {
          traceShape(ctx, data);
          miter = false;
        }
        continue;
      }
      flush();
      ctx.globalCompositeOperation = 'source-over';
      ctx.lineJoin = 'round';
      this.#drawOther(ctx, data);
    }
    flush();
    ctx.globalCompositeOperation = 'source-over';
    ctx.lineJoin = 'round';
  }

  #drawOther(ctx: Ctx, data: ItemData): void {
    switch (data.kind) {
      case 'shape':
        // Dotted lines only (the others are batched).
        ctx.strokeStyle = CSS_COLOURS[data.color];
        ctx.lineWidth = data.width;
        ctx.setLineDash([3, 3]);
        ctx.beginPath();
        traceShape(ctx, data);
        ctx.stroke();
        ctx.setLineDash([]);
        return;
      case 'text': {
        let lines = this.#textLines.get(data);
        ctx.font = `${data.fontSize}px ${FONT_FAMILY}`;
        if (!lines) {
          lines = wrapText(data.text, data.width, (s) => ctx.measureText(s).width);
          this.#textLines.set(data, lines);
        }
        ctx.fillStyle = CSS_COLOURS[data.color];
        ctx.textBaseline = 'top';
        const lh = data.fontSize * TEXT_LINE_HEIGHT;
        lines.forEach((line, i) => ctx.fillText(line, data.x, data.y + i * lh + (lh - data.fontSize) / 2));
        return;
      }
      case 'image':
      case 'stencil': {
        const url = data.kind === 'image' ? this.#options.imageUrl(data.src) : this.#options.stencilUrl(data.stencilId);
        const entry = url ? this.#image(url) : null;
        if (entry?.ready && entry.img) ctx.drawImage(entry.img, data.x, data.y, data.w, data.h);
        else {
          // Until it arrives (or if it cannot): a light frame where it goes.
          ctx.save();
          ctx.strokeStyle = entry?.failed ? '#e53935' : '#b0b6c0';
          ctx.lineWidth = 1;
          ctx.setLineDash([6, 4]);
          ctx.strokeRect(data.x, data.y, data.w, data.h);
          ctx.restore();
        }
        return;
      }
      case 'stroke':
        return;
    }
  }

  #image(url: string): ImageEntry {
    let entry = this.#images.get(url);
    if (entry) return entry;
    const load = this.#options.loadImage;
    if (load) {
      let live = true;
      const e: ImageEntry = { img: null, ready: false, failed: false, drop: () => (live = false) };
      this.#images.set(url, e);
      load(url).then(
        (img) => {
          if (!live) return;
          e.img = img;
          e.ready = true;
          this.requestFull();
        },
        () => {
          if (!live) return;
          e.failed = true;
          this.requestFull();
        },
      );
      return e;
    }
    const img = new Image();
    img.decoding = 'async';
    entry = {
      img,
      ready: false,
      failed: false,
      drop: () => {
        img.onload = null;
        img.onerror = null;
      },
    };
    this.#images.set(url, entry);
    const e = entry;
    img.onload = () => {
      e.ready = true;
      this.requestFull();
    };
    img.onerror = () => {
      e.failed = true;
      this.requestFull();
    };
    img.src = url;
    return entry;
  }

  /**
   * Whether every image and stencil now on the layer has loaded (or failed) and been painted: a
   * repaint still waiting for its frame may be the one that first asks for an image, or the one
   * that draws it.
   */
  imagesSettled(): boolean {
    if (this.#frame || this.#needFull) return false;
    for (const e of this.#images.values()) if (!e.ready && !e.failed) return false;
    return true;
  }

  #paintOverlay(): void {
    this.#needOverlay = false;
    const ctx = this.#overlay.getContext('2d');
    if (!ctx) return;
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.clearRect(0, 0, this.#overlay.width, this.#overlay.height);
    const b = this.#boardCtx(this.#overlay);
    b.lineCap = 'round';
    b.lineJoin = 'round';
    const st = this.#overlayState;
    const drawStroke = (s: LiveStroke) => {
      // An eraser in progress shows as the paper colour; the stored stroke really cuts the ink.
      b.strokeStyle = s.eraser ? this.#background : CSS_COLOURS[s.color];
      b.lineWidth = s.width;
      b.beginPath();
      traceSmooth(b, s.points);
      b.stroke();
    };
    for (const s of st.live) drawStroke(s);
    if (st.draft) drawStroke(st.draft);
    if (st.shape) {
      b.strokeStyle = CSS_COLOURS[st.shape.color];
      b.lineWidth = st.shape.width;
      b.setLineDash(st.shape.shape === 'dottedline' ? [3, 3] : []);
      b.beginPath();
      traceShape(b, st.shape);
      b.stroke();
      b.setLineDash([]);
    }
    const px = 1 / this.scale;
    b.lineWidth = px;
    b.strokeStyle = '#1e88e5';
    b.setLineDash([4 * px, 3 * px]);
    for (const r of st.selection ?? []) b.strokeRect(r.x - 3 * px, r.y - 3 * px, r.w + 6 * px, r.h + 6 * px);
    if (st.band) {
      b.fillStyle = 'rgba(30, 136, 229, 0.08)';
      b.fillRect(st.band.x, st.band.y, st.band.w, st.band.h);
      b.strokeRect(st.band.x, st.band.y, st.band.w, st.band.h);
    }
    b.setLineDash([]);
  }

  dispose(): void {
    if (this.#frame) (this.#options.frames ?? animationFrames).cancel(this.#frame);
    this.#frame = 0;
    for (const e of this.#images.values()) e.drop();
  }
}

/** Adds a shape's outline to the current path. */
export function traceShape(sink: PathSink & { ellipse?: Ctx['ellipse'] }, data: ShapeData): void {
  const o = shapeOutline(data.shape, data.x1, data.y1, data.x2, data.y2, data.width);
  if (o.kind === 'ellipse') {
    sink.moveTo(o.cx + o.rx, o.cy);
    sink.ellipse?.(o.cx, o.cy, Math.max(0, o.rx), Math.max(0, o.ry), 0, 0, Math.PI * 2);
    return;
  }
  const [first, ...rest] = o.points;
  if (!first) return;
  sink.moveTo(first.x, first.y);
  for (const p of rest) sink.lineTo(p.x, p.y);
  if (o.closed) sink.lineTo(first.x, first.y);
  if (o.head) {
    sink.moveTo(o.head[0].x, o.head[0].y);
    sink.lineTo(o.head[1].x, o.head[1].y);
    sink.lineTo(o.head[2].x, o.head[2].y);
  }
}
