/**
 * The composed picture and the mixed sound, made in Node (ADR 074). The picture is one yuv420p
 * canvas kept between frames: each frame only the parts whose source changed are copied in (row
 * by row, Buffer.copy), then the canvas is copied out whole for the encoder. The room's video view
 * ('cameras') is a gallery of the cameras over the whole frame; the other views put the main area
 * beside the tiles column. The sound is every audio track summed with clipping.
 */
import { MEDIA_HOLD_MS, type AudioIn, type VideoIn } from './intake.ts';
import { LAYOUT, galleryCells, type Scene, type SceneView } from './types.ts';

const BLACK = { y: 16, u: 128, v: 128 };
/** The background of a tile whose person shows no camera. */
const DARK = { y: 40, u: 128, v: 128 };

/** A yuv420p picture: Y plane then U then V, each row packed. */
export class Yuv {
  readonly width: number;
  readonly height: number;
  readonly data: Buffer;

  constructor(width: number, height: number, data?: Buffer) {
    this.width = width;
    this.height = height;
    this.data = data ?? Buffer.alloc((width * height * 3) / 2);
  }

  /** Copies `src` (w x h yuv420p) in at (x, y); x, y, w and h even. */
  blit(src: Buffer, w: number, h: number, x: number, y: number): void {
    const W = this.width;
    const H = this.height;
    for (let r = 0; r < h; r++) src.copy(this.data, (y + r) * W + x, r * w, r * w + w);
    const cw = w >> 1;
    const cW = W >> 1;
    const srcU = w * h;
    const srcV = srcU + (w * h) / 4;
    const dstU = W * H;
    const dstV = dstU + (W * H) / 4;
    for (let r = 0; r < h >> 1; r++) {
      const s = r * cw;
      const d = ((y >> 1) + r) * cW + (x >> 1);
      src.copy(this.data, dstU + d, srcU + s, srcU + s + cw);
      src.copy(this.data, dstV + d, srcV + s, srcV + s + cw);
    }
  }

  fill(x: number, y: number, w: number, h: number, c: { y: number; u: number; v: number }): void {
    const W = this.width;
    const H = this.height;
    for (let r = 0; r < h; r++) this.data.fill(c.y, (y + r) * W + x, (y + r) * W + x + w);
    const cW = W >> 1;
    const dstU = W * H;
    const dstV = dstU + (W * H) / 4;
    for (let r = 0; r < h >> 1; r++) {
      const d = ((y >> 1) + r) * cW + (x >> 1);
      this.data.fill(c.u, dstU + d, dstU + d + (w >> 1));
      this.data.fill(c.v, dstV + d, dstV + d + (w >> 1));
    }
  }

  /** The luma of the pixel at (x, y) (tests). */
  luma(x: number, y: number): number {
    return this.data[y * this.width + x]!;
  }
}

/** A w x h yuv420p picture halved (each output pixel the mean of a 2x2 block); w and h multiples of 4. */
export function halve(src: Buffer, w: number, h: number): Buffer {
  const out = Buffer.allocUnsafe((w * h * 3) / 8);
  let o = 0;
  const plane = (at: number, pw: number, ph: number) => {
    for (let y = 0; y < ph; y += 2) {
      const r0 = at + y * pw;
      const r1 = r0 + pw;
      for (let x = 0; x < pw; x += 2) out[o++] = (src[r0 + x]! + src[r0 + x + 1]! + src[r1 + x]! + src[r1 + x + 1]! + 2) >> 2;
    }
  };
  plane(0, w, h);
  plane(w * h, w >> 1, h >> 1);
  plane(w * h + (w * h) / 4, w >> 1, h >> 1);
  return out;
}

/** A w x h yuv420p picture doubled (each pixel twice across, each row twice down). */
export function double(src: Buffer, w: number, h: number): Buffer {
  const out = Buffer.allocUnsafe(w * h * 6);
  let i = 0;
  let o = 0;
  const plane = (pw: number, ph: number) => {
    for (let y = 0; y < ph; y++) {
      const row = o;
      for (let x = 0; x < pw; x++) {
        const v = src[i++]!;
        out[o++] = v;
        out[o++] = v;
      }
      out.copyWithin(o, row, o);
      o += pw * 2;
    }
  };
  plane(w, h);
  plane(w >> 1, h >> 1);
  plane(w >> 1, h >> 1);
  return out;
}

/** The picture of the main area for 'video' courseware (a file source), when there is one. */
export interface MainVideo {
  frame: Buffer | null;
}

export interface Tracks {
  videos: Map<string, VideoIn>;
  audios: Map<string, AudioIn>;
}

/**
 * Tile order (the contract): the creator first, then the others by the time their camera track
 * appeared; a person with a microphone but no camera gets a slot too. The first four.
 */
export function tileOrder(t: Tracks, creatorId: string): Array<{ userId: string; camera: VideoIn | null }> {
  const people = new Map<string, { camera: VideoIn | null; at: number }>();
  for (const v of t.videos.values()) {
    if (v.source !== 'camera') continue;
    const p = people.get(v.userId);
    if (!p || !p.camera || v.appearedAt < p.camera.appearedAt) people.set(v.userId, { camera: v, at: v.appearedAt });
  }
  for (const a of t.audios.values()) {
    const p = people.get(a.userId);
    if (!p) people.set(a.userId, { camera: null, at: a.appearedAt });
  }
  return [...people]
    .sort(([ua, a], [ub, b]) => (ua === creatorId ? -1 : ub === creatorId ? 1 : a.at - b.at))
    .slice(0, LAYOUT.tile.slots)
    .map(([userId, p]) => ({ userId, camera: p.camera }));
}

export class Compositor {
  readonly canvas: Yuv;
  readonly #scene: Scene;
  readonly #tracks: Tracks;
  readonly #video: MainVideo | null;
  /** What each region shows now: a source compared by identity, so unchanged parts are not copied again. */
  #mainKey: unknown = undefined;
  #mainKind = '';
  #tileKeys: unknown[][] = [];
  /** The gallery is on the canvas (the room's video view), and what each of its cells shows. */
  #gallery = false;
  #cellKeys: unknown[][] = [];
  /**
   * Cameras arrive at gallery size: their halves for the tiles column and their doubles for a
   * gallery of one, made once per decoded picture (a new picture is a new Buffer).
   */
  readonly #halves = new WeakMap<Buffer, Buffer>();
  readonly #doubles = new WeakMap<Buffer, Buffer>();
  /** Where the class tools' panels sit now ('' for none): a change of places uncovers what was under them. */
  #overlayPlaces = '';

  /** Always the layout's 1280x720: the encoder scales to another output size. */
  constructor(o: { scene: Scene; tracks: Tracks; video?: MainVideo | null }) {
    const { w, h } = LAYOUT.frame;
    this.canvas = new Yuv(w, h);
    this.canvas.fill(0, 0, w, h, BLACK);
    this.#scene = o.scene;
    this.#tracks = o.tracks;
    this.#video = o.video ?? null;
  }

  /** Brings the canvas up to date and returns a copy of it for the encoder. */
  compose(): Buffer {
    const view = this.#scene.current();
    const shown = performance.now() - MEDIA_HOLD_MS;
    const overlay = view.overlay ?? [];
    const places = overlay.map((p) => `${String(p.x)},${String(p.y)},${String(p.w)},${String(p.h)}`).join('|');
    if (places !== this.#overlayPlaces) {
      // A panel gone, moved or resized: every region is drawn again, so nothing of it stays behind.
      if (this.#overlayPlaces !== '') this.#clear();
      this.#overlayPlaces = places;
    }
    if (view.showState === 'cameras') this.#drawGallery(view, shown);
    else {
      if (this.#gallery) this.#clear();
      this.#drawMain(view, shown);
      this.#drawTiles(view, shown);
    }
    // The class tools over everything (ADR 115): copied each frame, as a region under them may have been drawn again.
    for (const p of overlay) this.canvas.blit(p.yuv, p.w, p.h, p.x, p.y);
    const out = Buffer.allocUnsafe(this.canvas.data.length);
    this.canvas.data.copy(out);
    return out;
  }

  /** The whole canvas black, every region to be drawn again. */
  #clear(): void {
    this.canvas.fill(0, 0, this.canvas.width, this.canvas.height, BLACK);
    this.#gallery = false;
    this.#mainKind = '';
    this.#mainKey = undefined;
    this.#tileKeys = [];
    this.#cellKeys = [];
  }

  #drawGallery(view: SceneView, shown: number): void {
    const c = this.canvas;
    const slots = tileOrder(this.#tracks, view.creatorId);
    const cells = galleryCells(slots.length);
    // Switching in, or a person more or less: the cells move, so everything is drawn again.
    if (!this.#gallery || this.#cellKeys.length !== cells.length) {
      this.#clear();
      this.#gallery = true;
    }
    const cam = LAYOUT.camera;
    for (const [i, cell] of cells.entries()) {
      const slot = slots[i]!;
      let frame = slot.camera && !slot.camera.paused ? slot.camera.pictureAt(shown) : null;
      if (frame && cell.w !== cam.w) frame = this.#cached(this.#doubles, frame, double);
      const label = this.#scene.label(slot.userId, cell.w, cell.strip);
      const key = [slot.userId, frame, label];
      const old = this.#cellKeys[i] ?? [];
      if (key.every((k, j) => k === old[j])) continue;
      this.#cellKeys[i] = key;
      if (frame) c.blit(frame, cell.w, cell.h, cell.x, cell.y);
      else c.fill(cell.x, cell.y, cell.w, cell.h, DARK);
      c.blit(label, cell.w, cell.strip, cell.x, cell.y + cell.h - cell.strip);
    }
  }

  #cached(cache: WeakMap<Buffer, Buffer>, frame: Buffer, make: (src: Buffer, w: number, h: number) => Buffer): Buffer {
    let out = cache.get(frame);
    if (!out) {
      out = make(frame, LAYOUT.camera.w, LAYOUT.camera.h);
      cache.set(frame, out);
    }
    return out;
  }

  #drawMain(view: SceneView, shown: number): void {
    const c = this.canvas;
    const m = LAYOUT.main;
    const s = LAYOUT.screen;
    if (view.main) {
      if (this.#mainKind === 'main' && this.#mainKey === view.main) return;
      c.blit(view.main, m.w, m.h, m.x, m.y);
      this.#mainKind = 'main';
      this.#mainKey = view.main;
      return;
    }
    let frame: Buffer | null = null;
    if (view.showState === 'screen') {
      for (const v of this.#tracks.videos.values()) if (v.source === 'screen' && !v.paused) frame = v.pictureAt(shown) ?? frame;
    } else if (view.showState === 'video') frame = this.#video?.frame ?? null;
    const kind = frame ? 'letterbox' : 'black';
    if (kind === this.#mainKind && this.#mainKey === frame) return;
    // Switching in: the whole area goes black first (the bars of the letterbox).
    if (this.#mainKind !== kind || !frame) c.fill(m.x, m.y, m.w, m.h, BLACK);
    if (frame) c.blit(frame, s.w, s.h, s.x, s.y);
    this.#mainKind = kind;
    this.#mainKey = frame;
  }

  #drawTiles(view: SceneView, shown: number): void {
    const c = this.canvas;
    const t = LAYOUT.tile;
    const slots = tileOrder(this.#tracks, view.creatorId);
    for (let i = 0; i < t.slots; i++) {
      const y = i * t.h;
      const slot = slots[i];
      const camera = slot?.camera && !slot.camera.paused ? slot.camera.pictureAt(shown) : null;
      const frame = camera ? this.#cached(this.#halves, camera, halve) : null;
      const label = slot ? this.#scene.label(slot.userId, t.w, LAYOUT.strip) : null;
      const key = [slot?.userId ?? null, frame, label];
      const old = this.#tileKeys[i] ?? [];
      if (old.length > 0 && key.every((k, j) => k === old[j])) continue;
      this.#tileKeys[i] = key;
      if (!slot) {
        c.fill(t.x, y, t.w, t.h, BLACK);
        continue;
      }
      if (frame) c.blit(frame, t.w, t.h, t.x, y);
      else c.fill(t.x, y, t.w, t.h, DARK);
      if (label) c.blit(label, t.w, LAYOUT.strip, t.x, y + t.h - LAYOUT.strip);
    }
  }
}

/** Sums every audio track's next `n` samples with clipping; silence when nobody sends. */
export class Mixer {
  readonly #tracks: Tracks;
  #acc = new Int32Array(0);

  constructor(tracks: Tracks) {
    this.#tracks = tracks;
  }

  /** The sound of `n` samples from `fromMs` on the tracks' clock (MEDIA_HOLD_MS behind the session's). */
  mix(fromMs: number, n: number): Buffer {
    if (this.#acc.length < n) this.#acc = new Int32Array(n);
    const acc = this.#acc;
    acc.fill(0, 0, n);
    let any = false;
    for (const a of this.#tracks.audios.values()) if (a.mixInto(acc, fromMs, n)) any = true;
    const out = Buffer.alloc(n * 2);
    if (!any) return out;
    for (let i = 0; i < n; i++) {
      const v = acc[i]!;
      out.writeInt16LE(v > 32767 ? 32767 : v < -32768 ? -32768 : v, i * 2);
    }
    return out;
  }
}
