/**
 * What the recording shows of the room besides the cameras (ADR 075): the main area (960 x 720 in
 * the composed frame) as the students see it, and the tiles' name strips.
 *
 * The recorder may run on a machine with only PostgreSQL, Redis and the object store, so the scene
 * follows the room from the database: every 200 ms one statement reads the rooms row (view, board
 * page and colour, courseware page, scroll and video state), the room's board counter and the shown
 * document; only when the counter moved are the current layer's operations after the last one seen
 * read. The board is drawn by the product's own renderer (core/board/draw/renderer.ts) on @napi-rs/canvas,
 * from the same layer model the browser keeps (core/board/draw/layer.ts), so the file and the room show the
 * same ink. The main buffer is repainted, and converted to yuv420p once, only when something changed.
 */
import { Buffer } from 'node:buffer';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { createCanvas, GlobalFonts, loadImage, type Canvas, type Image } from '@napi-rs/canvas';
import { BoardRepository } from '#core/board/board.repository.ts';
import { SceneRepository, type RoomRead } from '#core/recording/scene.repository.ts';
import { BACKGROUND_COLOURS, BOARD_HEIGHT, BOARD_WIDTH, type LayerState, type SequencedOp, type Viewport } from '#core/contracts/board.ts';
import { SIGNED_URL_TTL_SECONDS, slideLayer, VIDEO_RESYNC_S } from '#core/contracts/courseware.ts';
import { pageKey, videoKey } from '#core/courseware/courseware-room.ts';
import type { Database } from '#core/platform/db/database.ts';
import type { Logger } from '#core/platform/logger.ts';
import type { ObjectStore } from '#core/platform/objects.ts';
import { LayerView, type Change } from '#core/board/draw/layer.ts';
import { BoardRenderer } from '#core/board/draw/renderer.ts';
import { readExtend, readFollow, wbLayer } from '#core/board/draw/tools.ts';
import { slideOffset } from '#core/courseware/paging.ts';
import type { Scene, SceneView } from './types.ts';

export type { Scene, SceneView };

export interface SceneOptions {
  db: Database;
  objects: ObjectStore;
  roomNumber: string;
  logger: Logger;
  /** The main area's size (960 x 720 in the contract's layout). */
  width: number;
  height: number;
  /** How often the room is read (default 200 ms). */
  pollMs?: number;
}

/** Default poll period: ink shows within ~300 ms of being stored (poll + draw + convert). */
export const SCENE_POLL_MS = 200;
/** Strip colours: the classroom's dark tile text background, white text. */
const STRIP_BACKGROUND = '#1f2329';
const STRIP_TEXT = '#ffffff';
const LABEL_FONT = '"Noto Sans CJK SC", "Noto Sans CJK JP", "DejaVu Sans", sans-serif';
/** Slide images and board pictures kept decoded. */
const IMAGE_CACHE = 8;
/** Name strips kept (people x tile sizes). */
const LABEL_CACHE = 256;
/** Layers kept with their items (the current one, the ones turned away from). */
const LAYER_CACHE = 8;
/** A slide image that did not load is asked for again after this long. */
const SLIDE_RETRY_MS = 5000;
/** A video link is signed again after half its lifetime. */
const VIDEO_RESIGN_MS = (SIGNED_URL_TTL_SECONDS * 1000) / 2;

let fontsReady = false;
/**
 * The board's text and the names ask for "Noto Sans CJK SC"; the distribution's collection
 * (fonts-noto-cjk, infra/setup) may register its faces under another region's name.
 */
export function registerSceneFonts(logger?: Logger): void {
  if (fontsReady) return;
  fontsReady = true;
  if (GlobalFonts.has('Noto Sans CJK SC')) return;
  for (const family of ['Noto Sans CJK JP', 'Noto Sans CJK TC', 'Noto Sans CJK KR', 'Noto Sans CJK HK']) {
    if (GlobalFonts.has(family) && GlobalFonts.setAlias(family, 'Noto Sans CJK SC')) return;
  }
  const key = GlobalFonts.registerFromPath('/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc', 'Noto Sans CJK SC');
  if (!key) logger?.warn('no CJK font found (fonts-noto-cjk): Chinese names and board text may not show in recordings');
}

/**
 * RGBA (straight or premultiplied opaque) to yuv420p, BT.601 limited range (what x264 takes by
 * default): Y 16..235, U and V 16..240 around 128, chroma the mean of each 2 x 2 block. Odd sizes
 * round the chroma planes up, as ffmpeg does.
 */
export function rgbaToYuv420p(rgba: Uint8Array, width: number, height: number, out?: Buffer): Buffer {
  const cw = (width + 1) >> 1;
  const ch = (height + 1) >> 1;
  const ySize = width * height;
  const size = ySize + 2 * cw * ch;
  const yuv = out && out.length === size ? out : Buffer.allocUnsafe(size);
  let u = ySize;
  let v = ySize + cw * ch;
  for (let y = 0; y < height; y += 2) {
    // The row below (the same row again at an odd bottom edge).
    const down = y + 1 < height ? width : 0;
    for (let x = 0; x < width; x += 2) {
      const right = x + 1 < width ? 1 : 0;
      const p0 = y * width + x;
      const p1 = p0 + right;
      const p2 = p0 + down;
      const p3 = p2 + right;
      const i0 = p0 << 2;
      const i1 = p1 << 2;
      const i2 = p2 << 2;
      const i3 = p3 << 2;
      const r0 = rgba[i0]!;
      const g0 = rgba[i0 + 1]!;
      const b0 = rgba[i0 + 2]!;
      const r1 = rgba[i1]!;
      const g1 = rgba[i1 + 1]!;
      const b1 = rgba[i1 + 2]!;
      const r2 = rgba[i2]!;
      const g2 = rgba[i2 + 1]!;
      const b2 = rgba[i2 + 2]!;
      const r3 = rgba[i3]!;
      const g3 = rgba[i3 + 1]!;
      const b3 = rgba[i3 + 2]!;
      yuv[p0] = ((66 * r0 + 129 * g0 + 25 * b0 + 128) >> 8) + 16;
      yuv[p1] = ((66 * r1 + 129 * g1 + 25 * b1 + 128) >> 8) + 16;
      yuv[p2] = ((66 * r2 + 129 * g2 + 25 * b2 + 128) >> 8) + 16;
      yuv[p3] = ((66 * r3 + 129 * g3 + 25 * b3 + 128) >> 8) + 16;
      const r = (r0 + r1 + r2 + r3) >> 2;
      const g = (g0 + g1 + g2 + g3) >> 2;
      const b = (b0 + b1 + b2 + b3) >> 2;
      yuv[u++] = ((-38 * r - 74 * g + 112 * b + 128) >> 8) + 128;
      yuv[v++] = ((112 * r - 94 * g - 18 * b + 128) >> 8) + 128;
    }
  }
  return yuv;
}

interface HeldLayer {
  view: LayerView;
  /** The room's counter up to which this layer's operations were read. */
  checked: number;
}

/** The main area's content as decided from one read (compared with the last one to find changes). */
interface MainPlan {
  kind: 'wb' | 'ppt' | 'screen' | 'video' | 'cameras';
  layer: string | null;
  background: string;
  /** The slide image's object key ('ppt' with a converted page), else null. */
  slideKey: string | null;
  scroll: number;
  follow: boolean;
}

type Decoded = Image;

export class RoomScene implements Scene {
  readonly #o: SceneOptions;
  readonly #repo: BoardRepository;
  readonly #rooms: SceneRepository;
  readonly #roomId: string;
  #creatorId: string;
  readonly #paper: Canvas;
  readonly #ink: Canvas;
  readonly #overlay: Canvas;
  readonly #out: Canvas;
  readonly #renderer: BoardRenderer;
  /** The renderer's outstanding paint (its 'animation frame'), run by the scene when it draws. */
  #frame: (() => void) | null = null;
  #dirty = true;
  readonly #layers = new Map<string, HeldLayer>();
  #plan: MainPlan | null = null;
  /** The layer the renderer draws (null: none). */
  #source: string | null = null;
  #viewKey = '';
  /** The presenter viewport shown ('' for the whole page). */
  #viewport = '';
  readonly #images = new Map<string, Promise<Decoded>>();
  readonly #slides = new Map<string, Decoded>();
  /** Slide images that failed to load, and when (tried again after SLIDE_RETRY_MS). */
  readonly #slideFailed = new Map<string, number>();
  #backdropKey = '';
  #view: SceneView;
  #videoSigned: { key: string; url: string; at: number } | null = null;
  /** The video state last given, kept while controls only confirm it. */
  #videoState: { key: string; view: NonNullable<SceneView['video']> } | null = null;
  readonly #names = new Map<string, string>();
  readonly #asking = new Set<string>();
  readonly #labels = new Map<string, Buffer>();
  #timer: NodeJS.Timeout | null = null;
  #closed = false;
  #failures = 0;
  /** Time spent painting new items on top since the last update (counted in lastUpdateMs). */
  #appendMs = 0;
  /** Time the last update took (ms): painting, composing and converting; for the bench and the logs. */
  lastUpdateMs = 0;
  updates = 0;

  constructor(o: SceneOptions, roomId: string, creatorId: string) {
    this.#o = o;
    this.#repo = new BoardRepository(o.db);
    this.#rooms = new SceneRepository(o.db);
    this.#roomId = roomId;
    this.#creatorId = creatorId;
    this.#paper = createCanvas(o.width, o.height);
    this.#ink = createCanvas(o.width, o.height);
    this.#overlay = createCanvas(1, 1);
    this.#out = createCanvas(o.width, o.height);
    const asDom = (c: Canvas) => c as unknown as HTMLCanvasElement;
    this.#renderer = new BoardRenderer(asDom(this.#paper), asDom(this.#ink), asDom(this.#overlay), {
      imageUrl: (src) => `object:${src}`,
      stencilUrl: (id) => (/^[a-z0-9-]{1,64}$/.test(id) ? `stencil:${id}` : null),
      frames: {
        request: (paint) => {
          this.#frame = paint;
          return 1;
        },
        cancel: () => {
          this.#frame = null;
        },
      },
      loadImage: (url) => this.#loadBoardImage(url) as Promise<unknown> as Promise<CanvasImageSource>,
    });
    this.#renderer.resize(o.width, o.height, 1);
    // The overlay (others' strokes in progress, selections) is never part of the recording.
    this.#overlay.width = 1;
    this.#overlay.height = 1;
    this.#view = { version: 0, showState: 'cameras', main: null, video: null, creatorId };
  }

  current(): SceneView {
    return this.#view;
  }

  close(): void {
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    this.#renderer.dispose();
  }

  start(): void {
    const loop = () => {
      if (this.#closed) return;
      this.poll()
        .then(
          () => {
            this.#failures = 0;
          },
          (err: unknown) => {
            // The database may be away for a moment: keep the last picture and try again.
            if (this.#failures++ % 50 === 0)
              this.#o.logger.warn({ err, room: this.#o.roomNumber }, 'recording scene: reading the room failed');
          },
        )
        .finally(() => {
          if (!this.#closed) this.#timer = setTimeout(loop, this.#o.pollMs ?? SCENE_POLL_MS);
        });
    };
    this.#timer = setTimeout(loop, this.#o.pollMs ?? SCENE_POLL_MS);
  }

  // ---- following the room -----------------------------------------------------------------------

  /** One read of the room; repaints and converts the main area only when something changed. */
  async poll(): Promise<void> {
    const row = await this.#read();
    if (!row) return;
    this.#creatorId = row.create_user;
    const boardSeq = row.board_seq === null ? 0 : Number(row.board_seq);
    const plan = this.#planOf(row);
    let viewChanged = false;

    if (plan.layer) {
      const held = await this.#layer(plan.layer, boardSeq);
      if (plan.layer !== this.#source) {
        this.#source = plan.layer;
        this.#renderer.setSource(() => held.view.view.values());
        this.#dirty = true;
      }
      this.#follow(plan.follow ? held.view.viewport : undefined);
    } else if (this.#source !== null) {
      // No layer shown (a document not converted yet): no ink either.
      this.#source = null;
      this.#renderer.setSource(() => []);
      this.#follow(undefined);
    }
    if (plan.background !== this.#plan?.background) this.#renderer.setBackground(plan.background);
    const backdrop = plan.kind === 'ppt' && plan.slideKey ? this.#slides.get(plan.slideKey) : undefined;
    if (plan.kind === 'ppt' && plan.slideKey && !backdrop) void this.#slide(plan.slideKey);
    const offsetY = backdrop ? slideOffset({ width: backdrop.width, height: backdrop.height }, plan.scroll, BOARD_WIDTH, BOARD_HEIGHT) : 0;
    const backdropKey = backdrop ? `${plan.slideKey}|${offsetY}` : '';
    if (backdropKey !== this.#backdropKey) {
      this.#backdropKey = backdropKey;
      this.#renderer.setBackdrop(backdrop ? { image: backdrop as unknown as HTMLImageElement, offsetY } : null);
    }
    if (plan.kind === 'ppt' && row.document_id && row.pages_prefix && row.page_count) this.#preload(row, plan);

    const video = plan.kind === 'video' ? await this.#video(row) : null;
    const viewKey = `${plan.kind}|${JSON.stringify(video)}`;
    if (viewKey !== this.#viewKey) {
      this.#viewKey = viewKey;
      viewChanged = true;
    }
    const wasMain = this.#plan !== null && (this.#plan.kind === 'wb' || this.#plan.kind === 'ppt');
    this.#plan = plan;

    const hasMain = plan.kind === 'wb' || plan.kind === 'ppt';
    let main = this.#view.main;
    if (hasMain && (this.#dirty || this.#frame || !wasMain || !main)) {
      main = this.#draw();
      viewChanged = true;
    } else if (!hasMain && main) {
      main = null;
      viewChanged = true;
    }
    if (viewChanged || this.#creatorId !== this.#view.creatorId) {
      this.#view = { version: this.#view.version + 1, showState: plan.kind, main, video, creatorId: this.#creatorId };
    }
  }

  #read(): Promise<RoomRead | undefined> {
    return this.#rooms.read(this.#roomId);
  }

  /** The view the students' stage shows (app/classroom/views.ts shownView, core/courseware/paging.ts coursewareView). */
  #planOf(row: RoomRead): MainPlan {
    const extend = readExtend(row.room_extend);
    const background = BACKGROUND_COLOURS[extend.color] ?? BACKGROUND_COLOURS[0];
    const follow = readFollow(row.room_extend);
    const base = { background, follow, slideKey: null, scroll: 0 };
    const show = row.room_type === 2 ? 'wb' : row.show_state === 'image' ? 'wb' : row.show_state;
    if (show === 'wb') return { ...base, kind: 'wb', layer: wbLayer(extend.pageIndex) };
    if (show === 'screen') return { ...base, kind: 'screen', layer: null };
    if (show !== 'ppt') return { ...base, kind: 'cameras', layer: null };
    const docId = row.document_id;
    if (docId && row.document_type === 3 && row.doc_status === 3 && row.pages_prefix) return { ...base, kind: 'video', layer: null };
    const pages = row.page_count ?? 0;
    if (!docId || !row.pages_prefix || pages <= 0) return { ...base, kind: 'ppt', layer: null };
    const page = Math.min(Math.max(1, row.ppt_current_page), pages);
    return {
      ...base,
      kind: 'ppt',
      layer: slideLayer(docId, page),
      slideKey: pageKey(row.pages_prefix, page),
      scroll: row.doc_scroll / 10,
    };
  }

  /** Members who follow the creator ('follow me', ADR 034) see the presenter's viewport; otherwise the whole page. */
  #follow(viewport: Viewport | undefined): void {
    const key = viewport ? JSON.stringify(viewport) : '';
    if (key === this.#viewport) return;
    this.#viewport = key;
    if (viewport) this.#renderer.showViewport(viewport);
    else this.#renderer.setView(1, { x: 0, y: 0 });
    this.#dirty = true;
  }

  /**
   * The layer, brought up to the room's counter: loaded from its snapshot and the operations after
   * it the first time; after that only its operations past the last counter seen, and only when the
   * counter moved. A snapshot written past what this layer holds (compaction deleted operations it
   * had not read) loads it again.
   */
  async #layer(page: string, boardSeq: number): Promise<HeldLayer> {
    let held = this.#layers.get(page);
    if (held) {
      // Most recently used last.
      this.#layers.delete(page);
      this.#layers.set(page, held);
    }
    if (!held) {
      held = { view: new LayerView(page), checked: boardSeq };
      await this.#loadLayer(held);
      this.#layers.set(page, held);
      if (this.#layers.size > LAYER_CACHE) this.#layers.delete(this.#layers.keys().next().value!);
      return held;
    }
    if (boardSeq <= held.checked) return held;
    const bodies = await this.#repo.pageOpsAfter(this.#roomId, page, held.checked);
    let change: Change = { kind: 'none' };
    for (const body of bodies)
      change = merge(change, held.view.applySequenced(plain(JSON.parse(body) as SequencedOp & { target?: number })));
    const snapSeq = await this.#repo.snapshotSeq(this.#roomId, page);
    if (snapSeq !== null && snapSeq > held.view.seq) {
      held.view = new LayerView(page);
      held.checked = boardSeq;
      await this.#loadLayer(held);
      if (this.#source === page) this.#renderer.setSource(() => held.view.view.values());
      return held;
    }
    held.checked = boardSeq;
    if (this.#source === page) this.#paint(change);
    return held;
  }

  async #loadLayer(held: HeldLayer): Promise<void> {
    const { snapshot, ops } = await this.#repo.loadLayer(this.#roomId, held.view.page);
    if (snapshot) held.view.loadState(JSON.parse(snapshot.state) as LayerState);
    for (const op of JSON.parse(ops) as Array<SequencedOp & { target?: number }>) held.view.applySequenced(plain(op));
    held.view.loaded = true;
    this.#renderer.requestFull();
    this.#dirty = true;
  }

  #paint(change: Change): void {
    if (change.kind === 'append') {
      const started = performance.now();
      this.#renderer.append(change.items);
      this.#appendMs += performance.now() - started;
      this.#dirty = true;
    } else if (change.kind === 'full') {
      this.#renderer.requestFull();
      this.#dirty = true;
    }
  }

  // ---- drawing ----------------------------------------------------------------------------------

  /** The renderer's outstanding paint, then paper + ink into one picture, converted once. */
  #draw(): Buffer {
    const started = performance.now();
    const paint = this.#frame;
    this.#frame = null;
    paint?.();
    this.#dirty = false;
    const ctx = this.#out.getContext('2d');
    ctx.globalCompositeOperation = 'copy';
    ctx.drawImage(this.#paper, 0, 0);
    ctx.globalCompositeOperation = 'source-over';
    ctx.drawImage(this.#ink, 0, 0);
    // A new buffer each time: the compositor may still hold the previous view.
    const yuv = rgbaToYuv420p(this.#out.data(), this.#o.width, this.#o.height);
    this.lastUpdateMs = performance.now() - started + this.#appendMs;
    this.#appendMs = 0;
    this.updates += 1;
    return yuv;
  }

  /** The main area as RGBA PNG (tests and diagnostics). */
  snapshotPng(): Buffer {
    return this.#out.toBuffer('image/png');
  }

  // ---- pictures ---------------------------------------------------------------------------------

  async #objectBytes(key: string): Promise<Buffer> {
    const got = await this.#o.objects.get(key);
    if (!got) throw new Error(`object ${key} not found`);
    const chunks: Buffer[] = [];
    for await (const chunk of got.stream) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array));
    return Buffer.concat(chunks);
  }

  #decode(key: string, read: () => Promise<Buffer | string>): Promise<Decoded> {
    let p = this.#images.get(key);
    if (!p) {
      p = read().then((src) => loadImage(src));
      this.#images.set(key, p);
      p.catch(() => this.#images.delete(key));
      if (this.#images.size > IMAGE_CACHE) this.#images.delete(this.#images.keys().next().value!);
    }
    return p;
  }

  /** A board picture: an uploaded image (its object key) or a stencil (our own SVG). */
  #loadBoardImage(url: string): Promise<Decoded> {
    if (url.startsWith('object:')) return this.#decode(url, () => this.#objectBytes(url.slice('object:'.length)));
    const id = url.slice('stencil:'.length);
    return this.#decode(url, () => readFile(path.resolve(import.meta.dirname, '../../server/static/stencils', `${id}.svg`)));
  }

  /** Loads a slide image; the next poll puts it under the ink. */
  async #slide(key: string): Promise<Decoded | null> {
    const failed = this.#slideFailed.get(key);
    if (failed !== undefined && Date.now() - failed < SLIDE_RETRY_MS) return null;
    try {
      const img = await this.#decode(key, () => this.#objectBytes(key));
      this.#slideFailed.delete(key);
      this.#slides.set(key, img);
      if (this.#slides.size > IMAGE_CACHE) this.#slides.delete(this.#slides.keys().next().value!);
      return img;
    } catch (err) {
      // The slide stays away (the board's colour under the ink) until a later try finds it.
      if (!this.#slideFailed.has(key)) this.#o.logger.warn({ err, key }, 'recording scene: a slide image did not load');
      this.#slideFailed.set(key, Date.now());
      return null;
    }
  }

  /** The pages next to the shown one, so a page turn shows at once (the browser does the same). */
  #preload(row: RoomRead, plan: MainPlan): void {
    const pages = row.page_count ?? 0;
    const page = Math.min(Math.max(1, row.ppt_current_page), pages);
    for (const n of [page + 1, page - 1]) {
      if (n < 1 || n > pages) continue;
      const key = pageKey(row.pages_prefix!, n);
      if (key !== plan.slideKey && !this.#slides.has(key) && !this.#images.has(key)) void this.#slide(key);
    }
  }

  /**
   * The video courseware's link and the creator's last control, as viewers follow it (ADR 051): a
   * control that puts the video within 1 s of where it already is (the heartbeat every 5 s while it
   * plays) keeps the state as it was, so the compositor's reader is not restarted; a play, a pause
   * or a seek gives a new state. The link is signed when a new state needs it and is older than
   * half its lifetime.
   */
  async #video(row: RoomRead): Promise<SceneView['video']> {
    const key = videoKey(row.pages_prefix!);
    const now = Date.now();
    let control: { type?: unknown; currentTime?: unknown; at?: unknown } = {};
    try {
      control = row.doc_video ? (JSON.parse(row.doc_video) as typeof control) : {};
    } catch {
      control = {};
    }
    const position = Number(control.currentTime);
    const at = Number(control.at);
    const playing = control.type === 'play';
    const positionSec = Number.isFinite(position) && position > 0 ? position : 0;
    const last = this.#videoState;
    if (last && last.key === key && last.view.playing === playing) {
      const atMs = Number.isFinite(at) && at > 0 ? at : last.view.atMs;
      // Where each says the video is at one instant (server times on both sides, so no clock skew).
      const drift = playing ? positionSec - last.view.positionSec - (atMs - last.view.atMs) / 1000 : positionSec - last.view.positionSec;
      if (Math.abs(drift) <= (playing ? VIDEO_RESYNC_S : 0)) return last.view;
    }
    if (!this.#videoSigned || this.#videoSigned.key !== key || now - this.#videoSigned.at > VIDEO_RESIGN_MS) {
      this.#videoSigned = { key, url: await this.#o.objects.signedGetUrl(key, SIGNED_URL_TTL_SECONDS), at: now };
    }
    const view = { url: this.#videoSigned.url, playing, positionSec, atMs: Number.isFinite(at) && at > 0 ? at : now };
    this.#videoState = { key, view };
    return view;
  }

  // ---- names ------------------------------------------------------------------------------------

  /** Names of the people seated in the room (the tiles' labels are drawn from these). */
  async loadNames(userIds?: readonly string[]): Promise<void> {
    const rows = await this.#rooms.names(this.#roomId, userIds);
    // Someone asked for who has no account row keeps a blank strip, and is not asked for again.
    const found = new Set(rows.map((r) => r.id));
    for (const id of userIds ?? []) if (!found.has(id) && !this.#names.has(id)) this.#names.set(id, '');
    let changed = false;
    for (const r of rows) {
      if (this.#names.get(r.id) === r.name) continue;
      this.#names.set(r.id, r.name);
      for (const k of [...this.#labels.keys()]) if (k.startsWith(`${r.id}|`)) this.#labels.delete(k);
      changed = true;
    }
    if (changed) this.#view = { ...this.#view, version: this.#view.version + 1 };
  }

  label(userId: string, w: number, h: number): Buffer {
    const key = `${userId}|${w}|${h}`;
    const hit = this.#labels.get(key);
    if (hit) return hit;
    const name = this.#names.get(userId);
    if (name === undefined && /^\d{1,19}$/.test(userId) && !this.#asking.has(userId)) {
      // Someone not seen yet: a blank strip now, their name as soon as it is read (the version moves).
      this.#asking.add(userId);
      this.loadNames([userId]).then(
        () => this.#asking.delete(userId),
        (err: unknown) => {
          this.#asking.delete(userId);
          this.#o.logger.warn({ err, userId }, 'recording scene: a name could not be read');
        },
      );
    }
    // A name not read yet shares one blank strip per size: the compositor compares strips by identity.
    const cacheKey = name === undefined ? `|${w}|${h}` : key;
    const blank = this.#labels.get(cacheKey);
    if (blank) return blank;
    const strip = drawLabel(name ?? '', w, h);
    this.#labels.set(cacheKey, strip);
    if (this.#labels.size > LABEL_CACHE) this.#labels.delete(this.#labels.keys().next().value!);
    return strip;
  }
}

/** An operation as the log stores it, without the undo bookkeeping (`target`) clients never see. */
function plain(op: SequencedOp & { target?: number }): SequencedOp {
  if (op.target === undefined) return op;
  const { target: _t, ...rest } = op;
  return rest;
}

function merge(a: Change, b: Change): Change {
  if (a.kind === 'full' || b.kind === 'full') return { kind: 'full' };
  if (a.kind === 'none') return b;
  if (b.kind === 'none') return a;
  return { kind: 'append', items: [...a.items, ...b.items] };
}

/** A dark strip with the name in white, cut with an ellipsis when too long. */
export function drawLabel(name: string, w: number, h: number): Buffer {
  const canvas = createCanvas(w, h);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = STRIP_BACKGROUND;
  ctx.fillRect(0, 0, w, h);
  const text = name.trim();
  if (text) {
    const size = Math.max(8, Math.round(h * 0.58));
    const pad = Math.max(4, Math.round(h / 3));
    ctx.font = `${size}px ${LABEL_FONT}`;
    ctx.fillStyle = STRIP_TEXT;
    ctx.textBaseline = 'middle';
    const room = w - 2 * pad;
    let shown = text;
    if (ctx.measureText(shown).width > room) {
      const chars = [...text];
      while (chars.length > 0 && ctx.measureText(`${chars.join('')}…`).width > room) chars.pop();
      shown = `${chars.join('')}…`;
    }
    ctx.fillText(shown, pad, h / 2);
  }
  return rgbaToYuv420p(canvas.data(), w, h);
}

/** Opens the scene of a room: reads it once (so `current()` is right at once), then follows it until `close()`. */
export async function openRoomScene(o: SceneOptions): Promise<RoomScene> {
  registerSceneFonts(o.logger);
  const room = await new SceneRepository(o.db).latestRoom(o.roomNumber);
  if (!room) throw new Error(`room ${o.roomNumber} not found`);
  const scene = new RoomScene(o, room.id, room.create_user);
  await scene.poll();
  await scene.loadNames().catch((err: unknown) => o.logger.warn({ err }, 'recording scene: names could not be read'));
  scene.start();
  return scene;
}
