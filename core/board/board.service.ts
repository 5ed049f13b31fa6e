/**
 * The shared whiteboard: an ordered log per room (ADR 014).
 *
 * Each room has one sequence counter in the database. An operation is checked (model.ts),
 * authorised (permissions.ts), turned into effects against the layer as it stands, stored under the
 * room's next number by one statement that only succeeds if no one else took that number (another
 * socket or another node), then applied to the in-memory layer and handed to listeners (the
 * channel broadcasts it). Work for one room runs one task at a time, so effects are always computed
 * on the latest state. The database is the record; memory is a cache of it:
 * a layer loads from its snapshot plus the operations after it, and a snapshot is written whenever
 * the operations after the last one reach a third of the layer's items (and at every clear), so loading
 * costs O(items) however long the history was.
 */
import { randomUUID } from 'node:crypto';
import { BOARD_LAST_PAGE, type BoardOp, type BoardUpload, type LayerKey, type LayerState, type SequencedOp } from '../contracts/board.ts';
import type { Role } from '../contracts/room-events.ts';
import type { Clock } from '../platform/clock.ts';
import type { Config } from '../platform/config.ts';
import { DomainError, illegalParams, notAllowed, roomNotFound } from '../platform/errors.ts';
import type { EventBus } from '../platform/events.ts';
import type { Logger } from '../platform/logger.ts';
import type { ObjectStore } from '../platform/objects.ts';
import type { TokenSigner } from '../platform/secrets.ts';
import { ROOM_NUMBER_RULE } from '../rooms/room.schema.ts';
import { LayerHistory, changesOfEffects } from './history.ts';
import { JsonText } from './json-text.ts';
import {
  type Layer,
  applySequencedOp,
  checkOp,
  parseOp,
  effectsOf,
  emptyLayer,
  isLayerKey,
  layerFromState,
  layerToState,
  parseLayerKey,
} from './model.ts';
import { type BoardRoomFacts, mayDraw, mayOperate } from './permissions.ts';
import type { BoardRepository, BoardRoomRow } from './board.repository.ts';
import { stencilById } from './stencils.ts';

export interface BoardActor {
  room: string;
  uid: string;
  role: Role;
}

/** The parts of the live room service the board leans on. */
export interface BoardRoomsPort {
  admit(actor: BoardActor): Promise<void>;
  actorFor(viewer: { userId: string }, roomNumber: string): Promise<BoardActor>;
}

export interface BoardTokenPayload extends Record<string, unknown> {
  scope: 'board';
  room: string;
  uid: string;
  role: Role;
}

type BoardConfig = Pick<
  Config,
  | 'BOARD_TOKEN_TTL_SECONDS'
  | 'BOARD_SNAPSHOT_EVERY'
  | 'BOARD_MAX_ITEMS_PER_LAYER'
  | 'BOARD_UNDO_DEPTH'
  | 'BOARD_IMAGE_MAX_BYTES'
  | 'BOARD_PHONE_LINK_MINUTES'
  | 'publicUrl'
>;

/** The phone-photo link's token: who may send a photo to which room's board. */
interface PhoneUploadPayload extends Record<string, unknown> {
  scope: 'board-upload';
  room: string;
  uid: string;
  role: Role;
}

/** What the log stores per operation: the broadcast op plus, for undo/redo, the entry it reversed. */
type StoredOp = SequencedOp & { target?: number };

interface LoadedLayer {
  layer: Layer;
  history: LayerHistory;
  /** The layer's latest operations; together they are every operation after `recentFrom`. */
  recent: SequencedOp[];
  recentFrom: number;
  /** Operations stored after the layer's database snapshot. */
  tail: number;
}

interface PendingLayer {
  snapshot: { seq: number; state: string } | null;
  /** The stored operations after the snapshot, in order. */
  tail: StoredOp[];
}

/** What `getBoard` answers: a layer's state (maybe still as its stored text) and operations after it. */
export interface LayerAnswer {
  state?: LayerState | JsonText;
  ops: SequencedOp[];
}

interface RoomBoard {
  roomId: string;
  /** The room's last sequence number as this node knows it. */
  seq: number;
  layers: Map<LayerKey, LoadedLayer>;
  /**
   * Layers read from the database for a load but not built yet (ADR 015): a cold load answers the
   * snapshot's text as it is stored; the layer is built from it when an operation or a `since`
   * needs it, inside the room's queue, so operations still apply in order.
   */
  pending: Map<LayerKey, PendingLayer>;
  opIds: Map<string, number>;
  queue: Promise<unknown>;
}

/** Recent operations per layer kept for `getBoard({since})`. */
const RECENT_OPS = 2000;
/** opIds remembered per room for idempotent retries without a database read. */
const RECENT_OP_IDS = 20_000;
/** Layers held in memory per room (least recently used leaves first; the database keeps it). */
const LAYERS_PER_ROOM = 64;
/** Layers held as read but not built, per room (a snapshot text each). */
const PENDING_PER_ROOM = 8;
/** Rooms held in memory. */
const ROOMS_CACHED = 2000;
const ROOM_ROW_TTL_MS = 1000;
const STALE_RETRIES = 100;

/** Signed image links live as long as the spec's storage links (3600 s). */
const IMAGE_URL_TTL_SECONDS = 3600;

/** 'image/png' or 'image/jpeg' by the file's magic bytes; null for anything else. */
export function imageType(b: Uint8Array): 'image/png' | 'image/jpeg' | null {
  const png = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  if (b.length > png.length && png.every((v, i) => b[i] === v)) return 'image/png';
  if (b.length > 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'image/jpeg';
  return null;
}

const IMAGE_KEY_RULE = /^board\/\d+\/[0-9a-f-]{36}\.(?:png|jpg)$/;

export const boardImagePrefix = (roomId: string) => `board/${roomId}/`;

/** A slide's layer is written only while the room shows that document (ADR 043). */
function checkSlideLayer(row: BoardRoomRow, page: string): void {
  const layer = parseLayerKey(page);
  if (layer?.kind === 'doc' && layer.documentId !== row.document_id) throw illegalParams('a slide of a document this room does not show');
}

export class BoardService {
  readonly #rooms = new Map<string, RoomBoard>();
  readonly #rows = new Map<string, { at: number; row: BoardRoomRow }>();
  readonly #listeners = new Set<(room: string, op: SequencedOp) => void>();
  readonly #uploadListeners = new Set<(room: string, uid: string, file: BoardUpload) => void>();
  private readonly repo: BoardRepository;
  private readonly roomsPort: BoardRoomsPort;
  private readonly signer: TokenSigner;
  private readonly objects: ObjectStore;
  private readonly clock: Clock;
  private readonly config: BoardConfig;
  private readonly logger: Logger | null;
  readonly #unsubscribe: () => void;

  constructor(
    repo: BoardRepository,
    roomsPort: BoardRoomsPort,
    signer: TokenSigner,
    objects: ObjectStore,
    bus: EventBus,
    clock: Clock,
    config: BoardConfig,
    logger: Logger | null = null,
  ) {
    this.repo = repo;
    this.roomsPort = roomsPort;
    this.signer = signer;
    this.objects = objects;
    this.clock = clock;
    this.config = config;
    this.logger = logger;
    // A permission change or a closed room must count from the next operation, not a second later.
    this.#unsubscribe = bus.subscribe((m) => {
      if (!('room' in m.target)) return;
      const p = m.payload as Record<string, unknown> | null;
      if (m.event === 'roomClosed' || m.event === 'courseware' || (m.event === 'customRoomEvent' && p && 'wbPower' in p))
        this.#rows.delete(m.target.room);
      if (m.event === 'roomClosed') this.#rooms.delete(m.target.room);
    });
  }

  close(): void {
    this.#unsubscribe();
  }

  /** The channel hears every accepted operation here, in sequence order per room. */
  onOperation(listener: (room: string, op: SequencedOp) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** The channel hears here of photos sent from a phone, to tell that user's own connections. */
  onUpload(listener: (room: string, uid: string, file: BoardUpload) => void): () => void {
    this.#uploadListeners.add(listener);
    return () => this.#uploadListeners.delete(listener);
  }

  // ---- tokens --------------------------------------------------------------------------------

  /** `/api/createWbToken`: a short-lived board token for someone who is in the room. */
  async createToken(
    viewer: { userId: string },
    input: { userId: string; channelId: string },
  ): Promise<{ token: string; bucketId: string }> {
    if (input.userId !== viewer.userId) throw notAllowed('token for another user');
    const actor = await this.roomsPort.actorFor(viewer, input.channelId);
    const row = await this.#row(actor.room);
    const payload: BoardTokenPayload = { scope: 'board', room: actor.room, uid: actor.uid, role: actor.role };
    return { token: this.signer.sign(payload, this.config.BOARD_TOKEN_TTL_SECONDS, this.clock.now().getTime()), bucketId: row.id };
  }

  /** A board token (from createWbToken or the join answer's `wbtoken`) or null. */
  verifyToken(token: unknown): BoardActor | null {
    if (typeof token !== 'string') return null;
    const p = this.signer.verify<BoardTokenPayload>(token, this.clock.now().getTime());
    if (!p || p.scope !== 'board' || typeof p.room !== 'string' || typeof p.uid !== 'string' || typeof p.role !== 'string') return null;
    return { room: p.room, uid: p.uid, role: p.role };
  }

  /** May this actor connect now (open room, still a member)? */
  admit(actor: BoardActor): Promise<void> {
    return this.roomsPort.admit(actor);
  }

  /** For the stroke relay: may this actor draw right now? */
  async mayDraw(actor: BoardActor): Promise<boolean> {
    const row = await this.#row(actor.room).catch(() => null);
    return !!row && row.state === 'open' && mayDraw(actor, facts(row));
  }

  // ---- images ----------------------------------------------------------------------------------

  /**
   * Stores a board image (jpg or png, told by its first bytes, at most BOARD_IMAGE_MAX_BYTES) for
   * someone who may draw; answers its object key (for the `image` item) and a signed URL.
   */
  async storeImage(actor: BoardActor, bytes: Uint8Array): Promise<{ key: string; url: string; page: number }> {
    const row = await this.#row(actor.room);
    if (row.state !== 'open') throw new DomainError('31009');
    if (!mayDraw(actor, facts(row))) throw notAllowed('board image');
    if (bytes.byteLength > this.config.BOARD_IMAGE_MAX_BYTES) throw new DomainError('32103');
    const type = imageType(bytes);
    if (!type) throw new DomainError('32102');
    const key = `${boardImagePrefix(row.id)}${randomUUID()}.${type === 'image/png' ? 'png' : 'jpg'}`;
    await this.objects.put(key, bytes, type);
    // The whiteboard page everyone is on now (ADR 034): read fresh, the page may have turned a moment ago.
    const fresh = await this.repo.room(actor.room);
    const page = extendPage(fresh && fresh.id === row.id ? fresh.room_extend : row.room_extend);
    return { key, url: await this.objects.signedGetUrl(key, IMAGE_URL_TTL_SECONDS), page };
  }

  /** Signed URLs for images of this actor's room (anyone on the board may see them). */
  async imageUrls(actor: BoardActor, keys: unknown): Promise<Record<string, string>> {
    if (!Array.isArray(keys) || keys.length > 500) throw illegalParams('keys');
    const row = await this.#row(actor.room);
    const out: Record<string, string> = {};
    for (const k of keys) {
      if (
        typeof k !== 'string' ||
        k.length > 256 ||
        !IMAGE_KEY_RULE.test(k) ||
        !k.startsWith(boardImagePrefix(row.id)) ||
        k.includes('..')
      ) {
        throw illegalParams('key');
      }
      out[k] = await this.objects.signedGetUrl(k, IMAGE_URL_TTL_SECONDS);
    }
    return out;
  }

  /**
   * `/api/createPhoneUploadLink`: the QR code's address for sending a photo from a phone to this
   * user's board (`/upload/{userId}/{roomNumber}?t=<signed token>`), for someone who may draw now.
   */
  async phoneUploadLink(viewer: { userId: string }, roomNumber: string): Promise<{ url: string; expiresAt: number }> {
    const actor = await this.roomsPort.actorFor(viewer, roomNumber);
    const row = await this.#row(actor.room);
    if (!mayDraw(actor, facts(row))) throw notAllowed('phone upload');
    const ttl = this.config.BOARD_PHONE_LINK_MINUTES * 60;
    const now = this.clock.now().getTime();
    const payload: PhoneUploadPayload = { scope: 'board-upload', room: actor.room, uid: actor.uid, role: actor.role };
    const token = this.signer.sign(payload, ttl, now);
    return { url: `${this.config.publicUrl}/upload/${actor.uid}/${actor.room}?t=${token}`, expiresAt: now + ttl * 1000 };
  }

  /** A photo from the phone link: stored like a board image, then announced to the user's board. */
  async phoneUpload(token: unknown, bytes: Uint8Array, size: { width: number; height: number }): Promise<BoardUpload> {
    const p = typeof token === 'string' ? this.signer.verify<PhoneUploadPayload>(token, this.clock.now().getTime()) : null;
    if (!p || p.scope !== 'board-upload' || typeof p.room !== 'string' || typeof p.uid !== 'string' || typeof p.role !== 'string') {
      throw new DomainError('21001');
    }
    const actor: BoardActor = { room: p.room, uid: p.uid, role: p.role };
    await this.roomsPort.admit(actor);
    const stored = await this.storeImage(actor, bytes);
    const fine = (n: number) => (Number.isInteger(n) && n > 0 && n <= 100_000 ? n : 0);
    const file: BoardUpload = { ...stored, width: fine(size.width), height: fine(size.height) };
    for (const l of this.#uploadListeners) l(actor.room, actor.uid, file);
    return file;
  }

  // ---- rooms and layers ----------------------------------------------------------------------

  async #row(roomNumber: string): Promise<BoardRoomRow> {
    if (typeof roomNumber !== 'string' || !ROOM_NUMBER_RULE.test(roomNumber)) throw roomNotFound();
    const now = this.clock.now().getTime();
    const hit = this.#rows.get(roomNumber);
    if (hit && now - hit.at < ROOM_ROW_TTL_MS && now >= hit.at) return hit.row;
    const row = await this.repo.room(roomNumber);
    if (!row) throw roomNotFound();
    this.#rows.set(roomNumber, { at: now, row });
    if (this.#rows.size > ROOMS_CACHED) this.#rows.delete(this.#rows.keys().next().value!);
    return row;
  }

  /** The room's board in memory; a room number reused by a new room starts a new board. */
  async #board(row: BoardRoomRow): Promise<RoomBoard> {
    const cached = this.#rooms.get(row.room_number);
    if (cached && cached.roomId === row.id) {
      this.#rooms.delete(row.room_number);
      this.#rooms.set(row.room_number, cached);
      return cached;
    }
    const board: RoomBoard = {
      roomId: row.id,
      seq: await this.repo.roomSeq(row.id),
      layers: new Map(),
      pending: new Map(),
      opIds: new Map(),
      queue: Promise.resolve(),
    };
    const raced = this.#rooms.get(row.room_number);
    if (raced && raced.roomId === row.id) return raced;
    this.#rooms.set(row.room_number, board);
    if (this.#rooms.size > ROOMS_CACHED) this.#rooms.delete(this.#rooms.keys().next().value!);
    return board;
  }

  /** Runs `task` after every earlier task of this room (one at a time per room). */
  #serial<T>(board: RoomBoard, task: () => Promise<T>): Promise<T> {
    const run = board.queue.then(task, task);
    board.queue = run.catch(() => undefined);
    return run;
  }

  async #layer(board: RoomBoard, page: LayerKey): Promise<LoadedLayer> {
    const hit = board.layers.get(page);
    if (hit) {
      board.layers.delete(page);
      board.layers.set(page, hit);
      return hit;
    }
    const read = board.pending.get(page) ?? (await this.#read(board, page));
    board.pending.delete(page);
    const { snapshot, tail } = read;
    const layer = snapshot ? layerFromState(JSON.parse(snapshot.state) as LayerState) : emptyLayer(page);
    const loaded: LoadedLayer = {
      layer,
      history: new LayerHistory(this.config.BOARD_UNDO_DEPTH),
      recent: [],
      recentFrom: layer.seq,
      tail: 0,
    };
    for (const op of tail) this.#replay(loaded, op);
    loaded.tail = tail.length;
    board.layers.set(page, loaded);
    if (board.layers.size > LAYERS_PER_ROOM) board.layers.delete(board.layers.keys().next().value!);
    return loaded;
  }

  /** A layer's snapshot (text) and the stored operations after it. */
  async #read(board: RoomBoard, page: LayerKey): Promise<PendingLayer> {
    const { snapshot, ops } = await this.repo.loadLayer(board.roomId, page);
    return { snapshot, tail: JSON.parse(ops) as StoredOp[] };
  }

  /** Applies a stored operation to a loaded layer, keeping its history as the live path would. */
  #replay(l: LoadedLayer, op: StoredOp): void {
    if (op.seq <= l.layer.seq) return;
    switch (op.type) {
      case 'undo':
        if (op.target !== undefined) l.history.undone(op.uid, op.target);
        break;
      case 'redo':
        if (op.target !== undefined) l.history.redone(op.uid, op.target);
        break;
      case 'clear':
        l.history.clear();
        break;
      case 'move_by_presenter':
        break;
      case 'create':
      case 'update':
      case 'delete':
      case 'move':
        l.history.record(op.uid, op.seq, changesOfEffects(l.layer, op.effects));
        break;
    }
    const { target: _t, ...plain } = op;
    applySequencedOp(l.layer, plain);
    this.#remember(l, plain);
  }

  #remember(l: LoadedLayer, op: SequencedOp): void {
    l.recent.push(op);
    if (l.recent.length > RECENT_OPS) {
      const dropped = l.recent.splice(0, l.recent.length - RECENT_OPS / 2);
      l.recentFrom = dropped[dropped.length - 1]!.seq;
    }
  }

  /** Another writer took numbers after ours: read what it stored and apply it here too. */
  async #catchUp(room: string, board: RoomBoard): Promise<void> {
    const bodies = await this.repo.opsAfter(board.roomId, board.seq);
    const ops = bodies.map((b) => JSON.parse(b) as StoredOp);
    // The other writer may have compacted some of them into a snapshot: then this node's layers
    // cannot be brought forward op by op and are read again from the database when next used.
    if (ops.some((op, i) => op.seq !== board.seq + 1 + i)) {
      board.layers.clear();
      board.pending.clear();
    }
    for (const op of ops) {
      // A layer read but not built is read again when needed (it would miss this operation).
      board.pending.delete(op.page);
      const l = board.layers.get(op.page);
      if (l) this.#replay(l, op);
      board.seq = Math.max(board.seq, op.seq);
      this.#rememberOpId(board, op.opId, op.seq);
      const { target: _t, ...plain } = op;
      this.#publish(room, plain);
    }
    if (!bodies.length) board.seq = await this.repo.roomSeq(board.roomId);
  }

  #rememberOpId(board: RoomBoard, opId: string, seq: number): void {
    board.opIds.set(opId, seq);
    if (board.opIds.size > RECENT_OP_IDS) board.opIds.delete(board.opIds.keys().next().value!);
  }

  #publish(room: string, op: SequencedOp): void {
    for (const l of this.#listeners) {
      try {
        l(room, op);
      } catch (err) {
        this.logger?.error({ err, room }, 'board listener failed');
      }
    }
  }

  // ---- reading -------------------------------------------------------------------------------

  /**
   * A layer for a client: with `since` (the last sequence number it applied to this layer) the
   * operations after it while this node still has them in order; otherwise the layer's state.
   */
  async load(actor: BoardActor, page: LayerKey, since?: number): Promise<LayerAnswer> {
    const row = await this.#row(actor.room);
    const board = await this.#board(row);
    return this.#serial(board, async () => {
      // Another node may have written to this room (ADR 014): one small read keeps a load exact.
      if ((await this.repo.roomSeq(board.roomId)) > board.seq) await this.#catchUp(actor.room, board);
      if (!board.layers.has(page)) {
        const cold = await this.#loadCold(board, page, since);
        if (cold) return cold;
      }
      const l = await this.#layer(board, page);
      if (typeof since === 'number' && since >= l.recentFrom && since <= l.layer.seq) {
        return { ops: opsAfter(l.recent, since) };
      }
      return { state: layerToState(l.layer), ops: [] };
    });
  }

  /**
   * A layer not in memory that has a snapshot: answered from the snapshot's stored text and the
   * operations after it, without parsing and re-serialising the snapshot (ADR 015); the layer is
   * kept as read and built when first needed. Null for a layer without a snapshot (built at once).
   */
  async #loadCold(board: RoomBoard, page: LayerKey, since: number | undefined): Promise<LayerAnswer | null> {
    const read = board.pending.get(page) ?? (await this.#read(board, page));
    board.pending.delete(page);
    board.pending.set(page, read);
    if (board.pending.size > PENDING_PER_ROOM) board.pending.delete(board.pending.keys().next().value!);
    // Without a snapshot the layer is small (built now from what was just read).
    if (!read.snapshot) return null;
    const ops = read.tail.map(plainOp);
    const last = ops.length ? ops[ops.length - 1]!.seq : read.snapshot.seq;
    if (typeof since === 'number' && since >= read.snapshot.seq && since <= last) return { ops: opsAfter(ops, since) };
    return { state: new JsonText(read.snapshot.state), ops };
  }

  /**
   * The read-only review of a board (`/wbreview/{id}`): the creator reads any page of their room,
   * open or closed, and the list of pages that hold something.
   */
  async review(
    viewer: { userId: string },
    roomNumber: string,
    page: unknown,
  ): Promise<{ pages: string[]; state: LayerState; images: Record<string, string> }> {
    if (!isLayerKey(page)) throw illegalParams('page');
    const row = await this.#row(roomNumber);
    if (row.create_user !== viewer.userId) throw notAllowed("review of another teacher's board");
    const board = await this.#board(row);
    return this.#serial(board, async () => {
      if ((await this.repo.roomSeq(board.roomId)) > board.seq) await this.#catchUp(roomNumber, board);
      const l = await this.#layer(board, page);
      // Pages written on and cleared since hold nothing to review: they are not listed.
      const pages: string[] = [];
      for (const p of await this.repo.pages(board.roomId)) {
        if (isLayerKey(p) && layerToState((await this.#layer(board, p)).layer).items.length > 0) pages.push(p);
      }
      const state = layerToState(l.layer);
      // The review has no board token (the room may be closed): the page's image links come along.
      const images: Record<string, string> = {};
      for (const item of state.items) {
        if (item.data.kind === 'image' && !(item.data.src in images))
          images[item.data.src] = await this.objects.signedGetUrl(item.data.src, IMAGE_URL_TTL_SECONDS);
      }
      return { pages: pages.sort(comparePages), state, images };
    });
  }

  /**
   * What the review page (`/wbreview/{id}`) needs before reading pages: the room, open or closed,
   * its type and roomExtend (background colour), and whether this viewer created it.
   */
  async reviewRoom(
    viewer: { userId: string },
    roomNumber: string,
  ): Promise<{ roomNumber: string; roomType: number; roomExtend: string; state: 'open' | 'closed'; allowed: boolean }> {
    const row = await this.repo.room(typeof roomNumber === 'string' && ROOM_NUMBER_RULE.test(roomNumber) ? roomNumber : '');
    if (!row) throw roomNotFound();
    return {
      roomNumber: row.room_number,
      roomType: row.room_type,
      roomExtend: row.room_extend,
      state: row.state,
      allowed: row.create_user === viewer.userId,
    };
  }

  // ---- writing -------------------------------------------------------------------------------

  /** Checks, authorises, stores and publishes one operation. A known opId answers its first seq. */
  async submit(actor: BoardActor, input: BoardOp): Promise<{ seq: number }> {
    const checked = checkOp(input);
    if (!checked.ok) throw illegalParams(checked.error);
    const op = checked.value;
    const row = await this.#row(actor.room);
    if (row.state !== 'open') throw new DomainError('31009');
    if (!mayOperate(actor, facts(row), op.type)) throw notAllowed(`board ${op.type}`);
    checkSlideLayer(row, op.page);
    await this.#checkContent(row, op);
    const board = await this.#board(row);
    return this.#serial(board, () => this.#apply(actor, board, op));
  }

  async #checkContent(row: BoardRoomRow, op: BoardOp): Promise<void> {
    const data = op.data;
    if ((op.type !== 'create' && op.type !== 'update') || !data || !('kind' in data)) return;
    if (data.kind === 'stencil' && !stencilById(data.stencilId)) throw illegalParams('unknown stencil');
    if (data.kind === 'image') {
      if (!IMAGE_KEY_RULE.test(data.src) || !data.src.startsWith(boardImagePrefix(row.id))) throw illegalParams('image of another room');
      if (!(await this.objects.head(data.src))) throw illegalParams('image not uploaded');
    }
  }

  async #apply(actor: BoardActor, board: RoomBoard, op: BoardOp): Promise<{ seq: number }> {
    const known = board.opIds.get(op.opId);
    if (known !== undefined) return { seq: known };
    for (let attempt = 0; attempt < STALE_RETRIES; attempt++) {
      const l = await this.#layer(board, op.page);
      const stored = this.#plan(l, op, actor.uid, board.seq + 1);
      if ('error' in stored) {
        if (stored.error === 'layer full') throw new DomainError('32101', stored.error);
        return this.#refuse(board, op, stored.error);
      }
      const result = await this.repo.insertOp(board.roomId, board.seq, {
        page: op.page,
        opId: op.opId,
        uid: actor.uid,
        body: JSON.stringify(stored),
      });
      if (result.kind === 'duplicate') {
        const seq = await this.repo.seqOfOpId(board.roomId, op.opId);
        if (seq === null) throw new DomainError('32101', 'duplicate opId');
        this.#rememberOpId(board, op.opId, seq);
        return { seq };
      }
      if (result.kind === 'stale') {
        await this.#catchUp(actor.room, board);
        const again = board.opIds.get(op.opId);
        if (again !== undefined) return { seq: again };
        continue;
      }
      this.#replay(l, stored);
      board.seq = result.seq;
      this.#rememberOpId(board, op.opId, result.seq);
      l.tail++;
      const { target: _t, ...plain } = stored;
      this.#publish(actor.room, plain);
      if (op.type === 'clear' || this.#snapshotDue(l)) {
        void this.#serial(board, () => this.#snapshot(board, l)).catch((err: unknown) =>
          this.logger?.warn({ err, room: actor.room, page: op.page }, 'board snapshot failed'),
        );
      }
      return { seq: result.seq };
    }
    throw new DomainError('32101', 'too many concurrent writers');
  }

  /** The operation as it would be stored under `seq` on this layer now, or why it cannot be. */
  #plan(l: LoadedLayer, op: BoardOp, uid: string, seq: number): StoredOp | { error: string } {
    const { layer, history } = l;
    const base = { ...op, seq, uid, at: this.clock.now().getTime() };
    if (op.type === 'undo' || op.type === 'redo') {
      const plan = op.type === 'undo' ? history.planUndo(layer, uid) : history.planRedo(layer, uid);
      if (!plan.ok) return { error: plan.error };
      return { ...base, effects: plan.effects, target: plan.target };
    }
    const out = effectsOf(layer, op, uid);
    if (!out.ok) return { error: out.error };
    if (op.type === 'create' && layer.items.size >= this.config.BOARD_MAX_ITEMS_PER_LAYER) return { error: 'layer full' };
    return { ...base, effects: out.effects };
  }

  /** A refused operation may be a retry of one stored before this node's cache began: answer its seq. */
  async #refuse(board: RoomBoard, op: BoardOp, why: string): Promise<{ seq: number }> {
    const seq = await this.repo.seqOfOpId(board.roomId, op.opId);
    if (seq === null) throw new DomainError('32101', why);
    this.#rememberOpId(board, op.opId, seq);
    return { seq };
  }

  /**
   * A snapshot costs about the layer's size to write, replaying costs about the operations after
   * it: write one once those are at least a third of the items (and BOARD_SNAPSHOT_EVERY), so a
   * cold load reads at most about 1.33 x the items whatever the history, and writing stays O(1) per
   * operation (snapshot sizes grow geometrically on a growing board).
   */
  #snapshotDue(l: LoadedLayer): boolean {
    return l.tail >= this.config.BOARD_SNAPSHOT_EVERY && l.tail * 3 >= l.layer.items.size;
  }

  async #snapshot(board: RoomBoard, l: LoadedLayer): Promise<void> {
    if (board.layers.get(l.layer.page) !== l || l.tail === 0) return;
    const seq = l.layer.seq;
    const tail = l.tail;
    await this.repo.saveSnapshot(board.roomId, l.layer.page, seq, JSON.stringify(layerToState(l.layer)));
    l.tail -= tail;
  }

  /**
   * Writes many operations of one author into the log at once (benchmarks and paint tests build a
   * board of 100,000 operations this way): the same checks, effects, history and snapshot rule as
   * `submit`, stored in batches of `batch` rows per statement, not broadcast. Returns the last seq.
   */
  async seed(actor: BoardActor, ops: readonly BoardOp[], batch = 1000): Promise<number> {
    const row = await this.#row(actor.room);
    const board = await this.#board(row);
    return this.#serial(board, async () => {
      try {
        return await this.#seedAll(actor, row, board, ops, batch);
      } catch (err) {
        // Memory may be ahead of the log now: start this room again from the database.
        this.#rooms.delete(row.room_number);
        throw err;
      }
    });
  }

  async #seedAll(actor: BoardActor, row: BoardRoomRow, board: RoomBoard, ops: readonly BoardOp[], batch: number): Promise<number> {
    {
      let pending: Array<{ page: string; opId: string; uid: string; body: string }> = [];
      const touched = new Set<LoadedLayer>();
      const flush = async () => {
        if (!pending.length) return;
        await this.repo.insertMany(board.roomId, board.seq - pending.length, pending);
        pending = [];
        for (const l of touched) {
          if (this.#snapshotDue(l)) await this.#snapshot(board, l);
        }
        touched.clear();
      };
      for (const raw of ops) {
        const checked = parseOp(raw);
        if (!checked.ok) throw illegalParams(checked.error);
        const op = checked.value;
        if (!mayOperate(actor, facts(row), op.type)) throw notAllowed(`board ${op.type}`);
        checkSlideLayer(row, op.page);
        const l = await this.#layer(board, op.page);
        const stored = this.#plan(l, op, actor.uid, board.seq + 1);
        if ('error' in stored) throw new DomainError('32101', stored.error);
        pending.push({ page: op.page, opId: op.opId, uid: actor.uid, body: JSON.stringify(stored) });
        this.#rememberOpId(board, op.opId, stored.seq);
        this.#replay(l, stored);
        board.seq = stored.seq;
        l.tail++;
        touched.add(l);
        if (pending.length >= batch || op.type === 'clear') await flush();
      }
      await flush();
      return board.seq;
    }
  }

  /** Drops the in-memory board of a room (tests: force a cold load from the database). */
  forget(roomNumber: string): void {
    this.#rooms.delete(roomNumber);
    this.#rows.delete(roomNumber);
  }
}

/** Whiteboard pages by number first, then slides by document and number. */
function comparePages(a: string, b: string): number {
  const pa = parseLayerKey(a);
  const pb = parseLayerKey(b);
  if (!pa || !pb) return a < b ? -1 : 1;
  if (pa.kind !== pb.kind) return pa.kind === 'wb' ? -1 : 1;
  if (pa.kind === 'wb' && pb.kind === 'wb') return pa.page - pb.page;
  if (pa.kind === 'doc' && pb.kind === 'doc')
    return pa.documentId === pb.documentId ? pa.slide - pb.slide : pa.documentId < pb.documentId ? -1 : 1;
  return 0;
}

/** The whiteboard page of a room's roomExtend (`pageIndex`, 0-based), 0 when missing or odd. */
export function extendPage(roomExtend: string): number {
  let parsed: unknown;
  try {
    parsed = JSON.parse(roomExtend || '{}');
  } catch {
    parsed = null;
  }
  const n = typeof parsed === 'object' && parsed !== null ? Number((parsed as Record<string, unknown>)['pageIndex']) : 0;
  return Number.isInteger(n) && n >= 0 && n <= BOARD_LAST_PAGE ? n : 0;
}

/** A stored operation as clients get it (without the entry an undo or redo reversed). */
function plainOp(op: StoredOp): SequencedOp {
  if (op.target === undefined) return op;
  const { target: _t, ...plain } = op;
  return plain;
}

function facts(row: BoardRoomRow): BoardRoomFacts {
  return { roomType: row.room_type, createUser: row.create_user, wbPower: row.wb_power };
}

/** Operations after `since` (ops ascending by seq), by binary search. */
function opsAfter(ops: SequencedOp[], since: number): SequencedOp[] {
  let lo = 0;
  let hi = ops.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ops[mid]!.seq <= since) lo = mid + 1;
    else hi = mid;
  }
  return ops.slice(lo);
}
