/**
 * What the recording shows of the room besides the cameras (ADR 075): the main area (960 x 720 in
 * the composed frame) as the students see it, and the tiles' name strips.
 *
 * The scene hears the room (ADR 109) as its hidden recorder on the room and board channels
 * (room-link.ts): the join snapshot and the room's events (view, board page and colour, 'follow
 * me', courseware page, scroll, conversion, video controls) kept as the heard room (scene-room.ts);
 * a layer's state from `getBoard` when first shown, then every stored operation. Nothing is polled:
 * each change schedules one update, at most every SCENE_MIN_GAP_MS; a reconnect resyncs from a
 * fresh snapshot and fresh layer loads. The database is read only for what no channel carries: a
 * shown document's object prefix (once per document) and names (scene-labels.ts).
 *
 * The board is drawn by the product's own renderer and layer model (core/board/draw/) on
 * @napi-rs/canvas, so the file and the room show the same ink; the main buffer is repainted, and
 * converted to yuv420p once, only when something changed.
 */
import type { Buffer } from 'node:buffer';
import { createCanvas, type Canvas } from '@napi-rs/canvas';
import { DocumentRepository } from '#core/courseware/document.repository.ts';
import { SceneRepository } from '#core/recording/scene.repository.ts';
import { BACKGROUND_COLOURS, BOARD_HEIGHT, BOARD_WIDTH, type SequencedOp, type Viewport } from '#core/contracts/board.ts';
import { slideLayer } from '#core/contracts/courseware.ts';
import { pageKey, videoKey } from '#core/courseware/courseware-room.ts';
import type { Database } from '#core/platform/db/database.ts';
import type { Logger } from '#core/platform/logger.ts';
import type { ObjectStore } from '#core/platform/objects.ts';
import { LayerView, type Change } from '#core/board/draw/layer.ts';
import { BoardRenderer } from '#core/board/draw/renderer.ts';
import { readExtend, readFollow, wbLayer } from '#core/board/draw/tools.ts';
import { slideOffset } from '#core/courseware/paging.ts';
import type { Scene, SceneView } from './types.ts';
import { registerSceneFonts, rgbaToYuv420p } from './scene-pixels.ts';
import { ScenePictures } from './scene-pictures.ts';
import { SceneLabels } from './scene-labels.ts';
import { SceneVideo } from './scene-video.ts';
import { HeardRoom, type RoomRead } from './scene-room.ts';
import { SceneTools } from './scene-tools.ts';
import { RoomLink, type RoomLinkOptions } from './room-link.ts';

export type { Scene, SceneView };
export { drawLabel, registerSceneFonts, rgbaToYuv420p } from './scene-pixels.ts';

export interface SceneOptions {
  db: Database;
  objects: ObjectStore;
  roomNumber: string;
  logger: Logger;
  /** The main area's size (960 x 720 in the contract's layout). */
  width: number;
  height: number;
  /** The web tier's address (PUBLIC_URL) and the recorder's tokens for the room (RoomService.recorderTokens). */
  webUrl: string;
  tokens: RoomLinkOptions['tokens'];
}

/** Updates come at most this often: a burst of strokes is painted together (ink shows within ~100-150 ms). */
export const SCENE_MIN_GAP_MS = 100;
/** An update that failed (a layer that did not load) is tried again after this long. */
const RETRY_MS = 1000;
/** Layers kept with their items (the current one, the ones turned away from). */
const LAYER_CACHE = 8;

interface HeldLayer {
  view: LayerView;
  /** Its load from the board channel (getBoard); operations heard meanwhile wait in `early`. */
  ready: Promise<void>;
  early: SequencedOp[] | null;
}

/** The main area's content as decided from what was heard (compared with the last one to find changes). */
interface MainPlan {
  kind: 'wb' | 'ppt' | 'screen' | 'video' | 'cameras';
  layer: string | null;
  background: string;
  /** The slide image's object key ('ppt' with a converted page), else null. */
  slideKey: string | null;
  scroll: number;
  follow: boolean;
}

export class RoomScene implements Scene {
  readonly #o: SceneOptions;
  readonly #link: RoomLink;
  readonly #room = new HeardRoom();
  readonly #documents: DocumentRepository;
  readonly #pictures: ScenePictures;
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
  #backdropKey = '';
  /** The shown document's object prefix, read once per document. */
  #prefix: { id: string; prefix: string | null } | null = null;
  #view: SceneView;
  readonly #labelsOf: SceneLabels;
  readonly #videoOf: SceneVideo;
  /** The class tools heard (ADR 115): the overlay over the frame. */
  readonly #toolsOf: SceneTools;
  readonly #offs: Array<() => void> = [];
  #timer: NodeJS.Timeout | null = null;
  #timerAt = 0;
  #running = false;
  #again = false;
  #lastRunAt = 0;
  #closed = false;
  #failures = 0;
  /** Time spent painting new items on top since the last update (counted in lastUpdateMs). */
  #appendMs = 0;
  /** Time the last update took (ms): painting, composing and converting; for the bench and the logs. */
  lastUpdateMs = 0;
  updates = 0;
  /** Room and board messages heard (tests and diagnostics). */
  heard = 0;

  constructor(o: SceneOptions, link: RoomLink) {
    this.#o = o;
    this.#link = link;
    this.#labelsOf = new SceneLabels(new SceneRepository(o.db), o.logger, () => {
      this.#view = { ...this.#view, version: this.#view.version + 1 };
    });
    this.#videoOf = new SceneVideo(o.objects);
    this.#toolsOf = new SceneTools({ w: o.width, h: o.height });
    this.#documents = new DocumentRepository(o.db);
    this.#pictures = new ScenePictures(o.objects, o.logger, (inMs) => this.#schedule(inMs));
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
          this.#schedule();
          return 1;
        },
        cancel: () => {
          this.#frame = null;
        },
      },
      loadImage: (url) => this.#pictures.loadBoardImage(url) as Promise<unknown> as Promise<CanvasImageSource>,
    });
    this.#renderer.resize(o.width, o.height, 1);
    // The overlay (others' strokes in progress, selections) is never part of the recording.
    this.#overlay.width = 1;
    this.#overlay.height = 1;
    this.#view = { version: 0, showState: 'cameras', main: null, video: null, creatorId: '' };
    if (link.snapshot) this.#heardSnapshot(link.snapshot);
    this.#creatorId = this.#room.createUser;
    this.#view = { version: 0, showState: 'cameras', main: null, video: null, creatorId: this.#creatorId };
    this.#listen();
  }

  current(): SceneView {
    // The class tools' panels: the same array until something shown changes (an event, the timer's second).
    const overlay = this.#toolsOf.panels();
    if (overlay !== this.#view.overlay) this.#view = { ...this.#view, version: this.#view.version + 1, overlay };
    return this.#view;
  }

  /** The class tools as heard (tests and diagnostics). */
  get tools(): SceneTools {
    return this.#toolsOf;
  }

  close(): void {
    this.#closed = true;
    for (const off of this.#offs.splice(0)) off();
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    this.#link.close();
    this.#renderer.dispose();
  }

  /** Follows the room from now on (the first update was made by the opener). */
  start(): void {
    this.#schedule();
  }

  // ---- hearing the room -------------------------------------------------------------------------

  #listen(): void {
    const { room, board } = this.#link;
    this.#offs.push(
      ...(['customRoomEvent', 'courseware', 'documentConvert', 'videoControl', 'members', 'tools', 'rewarded', 'groups'] as const).map(
        (e) => room.on(e, () => void this.heard++),
      ),
      board.on('sync', () => void this.heard++),
      this.#link.onSnapshot((s) => {
        this.#heardSnapshot(s);
        this.#schedule();
      }),
      room.on('customRoomEvent', (p) => {
        if (this.#room.patch(p)) this.#schedule();
      }),
      room.on('courseware', ({ courseware }) => {
        this.#room.setCourseware(courseware);
        this.#schedule();
      }),
      room.on('documentConvert', ({ courseware }) => {
        this.#room.setCourseware(courseware);
        this.#schedule();
      }),
      room.on('videoControl', (c) => {
        this.#room.videoControl(c);
        this.#schedule();
      }),
      room.on('members', ({ members }) => this.#labelsOf.heard(members)),
      // The class tools (ADR 115): the whole public state each time, with the server's time; a reward's banner.
      room.on('tools', ({ serverTime, ...tools }) => {
        this.#toolsOf.heard(tools, serverTime);
        this.#labelsOf.trophies(tools.rewards);
      }),
      room.on('rewarded', ({ names, at }) => this.#toolsOf.rewarded(names, at)),
      // Breakout groups (issue 31): the recording follows the main room and says groups are running.
      room.on('groups', (g) => this.#toolsOf.heardGroups(g, g.serverTime)),
      board.on('sync', (op) => this.#heardOp(op)),
      // A new board connection may have missed operations: every layer loads again.
      this.#link.onBoardConnect(() => {
        this.#layers.clear();
        this.#source = null;
        this.#schedule();
      }),
    );
  }

  #heardSnapshot(s: NonNullable<RoomLink['snapshot']>): void {
    this.#room.fromSnapshot(s);
    this.#labelsOf.heard(s.members);
    this.#toolsOf.heard(s.tools, s.serverTime);
    this.#labelsOf.trophies(s.tools.rewards);
    this.#toolsOf.heardGroups(s.groups, s.groups.serverTime);
  }

  /** A stored operation of the room: applied to its layer if held here, painted if shown. */
  #heardOp(op: SequencedOp): void {
    const held = this.#layers.get(op.page);
    if (!held) return;
    if (held.early) {
      held.early.push(op);
      return;
    }
    const change = held.view.applySequenced(op);
    if (this.#source === op.page && change.kind !== 'none') {
      this.#paint(change);
      this.#schedule();
    }
  }

  /** One update now, or as soon as the last is SCENE_MIN_GAP_MS old (`inMs`: not before then). */
  #schedule(inMs = 0): void {
    if (this.#closed) return;
    if (this.#running && inMs === 0) {
      this.#again = true;
      return;
    }
    const at = Math.max(Date.now() + inMs, this.#lastRunAt + SCENE_MIN_GAP_MS);
    if (this.#timer && this.#timerAt <= at) return;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timerAt = at;
    this.#timer = setTimeout(() => this.#run(), Math.max(0, at - Date.now()));
  }

  #run(): void {
    this.#timer = null;
    if (this.#closed) return;
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.#running = true;
    this.refresh()
      .then(
        () => {
          this.#failures = 0;
        },
        (err: unknown) => {
          // A layer that did not load (the web tier away a moment): keep the last picture and try again.
          if (this.#failures++ % 50 === 0) this.#o.logger.warn({ err, room: this.#o.roomNumber }, 'recording scene: an update failed');
          this.#schedule(RETRY_MS);
        },
      )
      .finally(() => {
        this.#running = false;
        this.#lastRunAt = Date.now();
        if (this.#again) {
          this.#again = false;
          this.#schedule();
        }
      });
  }

  // ---- following the room -----------------------------------------------------------------------

  /** One update from what was heard; repaints and converts the main area only when something changed. */
  async refresh(): Promise<void> {
    const row = this.#room.row(await this.#prefixOf(this.#room.documentId));
    this.#creatorId = row.create_user;
    const plan = this.#planOf(row);
    let viewChanged = false;

    if (plan.layer) {
      const held = await this.#layer(plan.layer);
      if (plan.layer !== this.#source) {
        this.#source = plan.layer;
        this.#renderer.setSource(() => held.view.view.values());
        this.#renderer.requestFull();
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
    const backdrop = plan.kind === 'ppt' && plan.slideKey ? this.#pictures.slideOf(plan.slideKey) : undefined;
    if (plan.kind === 'ppt' && plan.slideKey && !backdrop) void this.#pictures.slide(plan.slideKey);
    const offsetY = backdrop ? slideOffset({ width: backdrop.width, height: backdrop.height }, plan.scroll, BOARD_WIDTH, BOARD_HEIGHT) : 0;
    const backdropKey = backdrop ? `${plan.slideKey}|${offsetY}` : '';
    if (backdropKey !== this.#backdropKey) {
      this.#backdropKey = backdropKey;
      this.#renderer.setBackdrop(backdrop ? { image: backdrop as unknown as HTMLImageElement, offsetY } : null);
    }
    if (plan.kind === 'ppt' && row.document_id && row.pages_prefix && row.page_count) {
      const pages = row.page_count;
      this.#pictures.preload(row.pages_prefix, Math.min(Math.max(1, row.ppt_current_page), pages), pages, plan.slideKey);
    }

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
      this.#view = { ...this.#view, version: this.#view.version + 1, showState: plan.kind, main, video, creatorId: this.#creatorId };
    }
  }

  /** The shown document's object prefix (its pages and video are under it): no channel carries it, so it is read once per document. */
  async #prefixOf(documentId: string): Promise<string | null> {
    if (!documentId) return null;
    if (this.#prefix?.id !== documentId) {
      const doc = await this.#documents.byId(documentId);
      this.#prefix = { id: documentId, prefix: doc?.pages_prefix ?? null };
    }
    return this.#prefix.prefix;
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
   * The layer as the board channel tells it: loaded with `getBoard` the first time it is shown (the
   * operations heard meanwhile applied after), then kept up by each operation heard. Kept while it
   * is among the last LAYER_CACHE shown.
   */
  async #layer(page: string): Promise<HeldLayer> {
    let held = this.#layers.get(page);
    if (held) {
      // Most recently used last.
      this.#layers.delete(page);
      this.#layers.set(page, held);
    } else {
      const fresh: HeldLayer = { view: new LayerView(page), ready: Promise.resolve(), early: [] };
      fresh.ready = this.#loadLayer(fresh);
      this.#layers.set(page, fresh);
      if (this.#layers.size > LAYER_CACHE) this.#layers.delete(this.#layers.keys().next().value!);
      held = fresh;
    }
    await held.ready;
    return held;
  }

  async #loadLayer(held: HeldLayer): Promise<void> {
    const page = held.view.page;
    const answer = await this.#link.board.request('getBoard', { page });
    const data = answer.data;
    if (answer.code !== '0' || !data) {
      if (this.#layers.get(page) === held) this.#layers.delete(page);
      throw new Error(`recording scene: layer ${page} did not load (${answer.code} ${answer.msg})`);
    }
    if (data.state) held.view.loadState(data.state);
    for (const op of data.ops) held.view.applySequenced(op);
    for (const op of held.early ?? []) held.view.applySequenced(op);
    held.early = null;
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

  /** The video courseware's state (scene-video.ts). */
  #video(row: RoomRead): Promise<SceneView['video']> {
    return this.#videoOf.view(videoKey(row.pages_prefix!), row.doc_video);
  }

  // ---- names ------------------------------------------------------------------------------------

  /** Names of everyone who has sat in the room (read once, at open: the member list holds only who is online). */
  loadSeatedNames(): Promise<void> {
    return this.#labelsOf.loadSeated(this.#o.roomNumber);
  }

  /** Names of people the room's member list did not tell (someone who came later, a tile seen first). */
  loadNames(userIds: readonly string[]): Promise<void> {
    return this.#labelsOf.load(userIds);
  }

  label(userId: string, w: number, h: number): Buffer {
    return this.#labelsOf.label(userId, w, h);
  }
}

/** Opens the scene of a room: joins it as its hidden recorder, makes the first picture from the join's snapshot, then follows it until `close()`. */
export async function openRoomScene(o: SceneOptions): Promise<RoomScene> {
  registerSceneFonts(o.logger);
  const link = await RoomLink.open({ webUrl: o.webUrl, roomNumber: o.roomNumber, tokens: o.tokens, logger: o.logger });
  const scene = new RoomScene(o, link);
  try {
    await scene.refresh();
  } catch (err) {
    scene.close();
    throw err;
  }
  await scene.loadSeatedNames().catch((err: unknown) => o.logger.warn({ err }, 'recording scene: names could not be read'));
  scene.start();
  return scene;
}
