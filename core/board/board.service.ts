/**
 * The shared whiteboard's rules (ADR 014): who may do what on a room's board. An operation is
 * checked (model.ts) and authorised (permissions.ts) here against the room as it stands, then
 * handed to the room's log (board-log.ts), which sequences, stores and publishes it. Board tokens,
 * images and the phone-photo link live here too.
 */
import { randomUUID } from 'node:crypto';
import { type BoardOp, type BoardUpload, type LayerKey, type LayerState, type SequencedOp } from '../contracts/board.ts';
import { z } from 'zod';
import { roleSchema, type Role } from '../contracts/room-events.ts';
import { readRoomExtend } from '../contracts/room-extend.ts';
import type { Clock } from '../platform/clock.ts';
import type { Config } from '../platform/config.ts';
import { DomainError, illegalParams, notAllowed, roomNotFound } from '../platform/errors.ts';
import type { Logger } from '../platform/logger.ts';
import type { ObjectStore } from '../platform/objects.ts';
import type { TokenSigner } from '../platform/secrets.ts';
import { ROOM_NUMBER_RULE } from '../rooms/room.schema.ts';
import { demoEnded, demoOver } from '../rooms/demo-rules.ts';
import { RoomCache, type RoomChanges } from '../rooms/room-state.ts';
import { BoardLog, type LayerAnswer } from './board-log.ts';
import { checkOp, isLayerKey, layerToState, parseLayerKey } from './model.ts';
import { type BoardGroupFacts, type BoardRoomFacts, mayDraw, mayOperate } from './permissions.ts';
import type { BoardRepository, BoardRoomRow } from './board.repository.ts';
import { stencilById } from './stencils.ts';

export type { LayerAnswer } from './board-log.ts';

export interface BoardActor {
  room: string;
  uid: string;
  role: Role;
  /**
   * A room view's token (`/api/getRoomView`, ADR 093): its connections hear `roomView` events.
   * 'read': seatless and read-only, every write refused; 'draw': the creator's own view, a creator.
   */
  view?: 'read' | 'draw';
}

/** The parts of the live room service the board leans on. */
export interface BoardRoomsPort {
  admit(actor: BoardActor): Promise<void>;
  actorFor(viewer: { userId: string }, roomNumber: string): Promise<BoardActor>;
}

/** The running breakout groups (core/groups, ADR 116) as the board's rules read them, fresh after every move. */
export interface BoardGroupsPort {
  boardFacts(roomNumber: string, uid: string): Promise<BoardGroupFacts | null>;
}

export interface BoardTokenPayload extends Record<string, unknown> {
  scope: 'board';
  room: string;
  uid: string;
  role: Role;
  view?: 'read' | 'draw';
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

/** What a verified board token and phone-link token must carry (a signed token of another scope is refused). */
const boardClaim = z.object({
  scope: z.literal('board'),
  room: z.string(),
  uid: z.string(),
  role: roleSchema,
  view: z.enum(['read', 'draw']).optional(),
});
const phoneClaim = z.object({ scope: z.literal('board-upload'), room: z.string(), uid: z.string(), role: roleSchema });

/** Rooms held in memory. */
const ROOMS_CACHED = 2000;
const ROOM_ROW_TTL_MS = 1000;

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
export function checkSlideLayer(row: BoardRoomRow, page: string): void {
  const layer = parseLayerKey(page);
  if (layer?.kind === 'doc' && layer.documentId !== row.document_id) throw illegalParams('a slide of a document this room does not show');
}

export class BoardService {
  readonly #rows: RoomCache<BoardRoomRow>;
  readonly #uploadListeners = new Set<(room: string, uid: string, file: BoardUpload) => void>();
  private readonly repo: BoardRepository;
  private readonly roomsPort: BoardRoomsPort;
  private readonly signer: TokenSigner;
  private readonly objects: ObjectStore;
  private readonly clock: Clock;
  private readonly config: BoardConfig;
  private readonly logger: Logger | null;
  /** The room's log: sequencing, storage, snapshots and loading. */
  readonly log: BoardLog;
  /** The breakout groups' rules (ADR 116); set by the composition, none without it. */
  groups: BoardGroupsPort | null = null;
  readonly #unsubscribe: () => void;

  constructor(
    repo: BoardRepository,
    roomsPort: BoardRoomsPort,
    signer: TokenSigner,
    objects: ObjectStore,
    changes: RoomChanges,
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
    this.log = new BoardLog(repo, clock, config, logger);
    // A permission change or a closed room must count from the next operation, not a second later,
    // on every node (RoomState tells each change of the room, ADR 062).
    this.#rows = new RoomCache(changes, ROOM_ROW_TTL_MS, ROOMS_CACHED, () => clock.now().getTime());
    this.#unsubscribe = changes.onChange((c) => {
      if (c.fields.includes('state')) this.log.forget(c.roomNumber);
    });
  }

  close(): void {
    this.#unsubscribe();
    this.#rows.close();
  }
  /** The channel hears every accepted operation here, in sequence order per room. */
  onOperation(listener: (room: string, op: SequencedOp) => void): () => void {
    return this.log.onOperation(listener);
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

  /** A board token (from createWbToken, the join answer's `wbtoken` or getRoomView) or null. */
  verifyToken(token: string): BoardActor | null {
    const p = boardClaim.safeParse(this.signer.verify(token, this.clock.now().getTime()));
    if (!p.success) return null;
    const actor: BoardActor = { room: p.data.room, uid: p.data.uid, role: p.data.role };
    if (p.data.view) actor.view = p.data.view;
    return actor;
  }

  /** May this actor connect now (open room, still a member; a read-only view: not removed)? */
  async admit(actor: BoardActor): Promise<void> {
    if (actor.view === 'read') return this.#admitViewer(actor.uid, actor.room);
    return this.roomsPort.admit(actor);
  }

  /**
   * A room view (ADR 093) is for anyone with a session who was not removed from this open room:
   * a member or not. The room's rules (open, a demo not over, removed) are the live room's.
   */
  async #admitViewer(uid: string, roomNumber: string): Promise<void> {
    try {
      await this.roomsPort.actorFor({ userId: uid }, roomNumber);
    } catch (e) {
      // '31004' without the 'removed' reason: not a member, which a view does not need.
      if (e instanceof DomainError && e.code === '31004' && e.reason !== 'removed') return;
      throw e;
    }
  }

  /**
   * `/api/getRoomView`'s board token (ADR 093). The creator, asking for their own view (no `uid`
   * or their own id), gets a creator's token that also follows the room; anyone else admitted a
   * read-only view token: role observer, `view: 'read'`, refused every write.
   */
  async viewToken(viewer: { userId: string }, roomNumber: string, uid?: string): Promise<{ token: string; canDraw: boolean }> {
    const row = await this.#row(roomNumber);
    if (row.state !== 'open') throw new DomainError('31009');
    const creator = row.create_user === viewer.userId;
    const canDraw = creator && (uid === undefined || uid === viewer.userId);
    if (creator) await this.roomsPort.actorFor(viewer, roomNumber);
    else await this.#admitViewer(viewer.userId, roomNumber);
    const payload: BoardTokenPayload = canDraw
      ? { scope: 'board', room: roomNumber, uid: viewer.userId, role: 'creator', view: 'draw' }
      : { scope: 'board', room: roomNumber, uid: viewer.userId, role: 'observer', view: 'read' };
    return { token: this.signer.sign(payload, this.config.BOARD_TOKEN_TTL_SECONDS, this.clock.now().getTime()), canDraw };
  }

  /** For the stroke relay: may this actor draw right now (on `page`, when given)? */
  async mayDraw(actor: BoardActor, page?: string): Promise<boolean> {
    if (actor.view === 'read') return false;
    const row = await this.#row(actor.room).catch(() => null);
    if (!row || row.state !== 'open' || demoOver(row, this.clock.now())) return false;
    const group = await this.#groupFacts(actor);
    return page === undefined ? mayDraw(actor, facts(row), group) : mayOperate(actor, facts(row), 'create', page, group);
  }

  /** The running groups as they concern this person now (null: none run, or a creator or viewer). */
  async #groupFacts(actor: BoardActor): Promise<BoardGroupFacts | null> {
    if (!this.groups || actor.role === 'creator' || actor.view) return null;
    return this.groups.boardFacts(actor.room, actor.uid);
  }

  /**
   * The whiteboard pages (numbers) that hold anything now, read fresh from the log: the breakout
   * groups take pages after these (ADR 116).
   */
  async usedWhiteboardPages(roomNumber: string): Promise<number[]> {
    const row = await this.#row(roomNumber);
    const board = await this.log.board(row);
    return this.log.serial(board, async () => {
      if ((await this.repo.roomSeq(board.roomId)) > board.seq) await this.log.catchUp(roomNumber, board);
      const used: number[] = [];
      for (const p of await this.repo.pages(board.roomId)) {
        const parsed = parseLayerKey(p);
        if (parsed?.kind === 'wb' && layerToState((await this.log.layer(board, p)).layer).items.length > 0) used.push(parsed.page);
      }
      return used.sort((a, b) => a - b);
    });
  }

  // ---- images ----------------------------------------------------------------------------------

  /**
   * Stores a board image (jpg or png, told by its first bytes, at most BOARD_IMAGE_MAX_BYTES) for
   * someone who may draw; answers its object key (for the `image` item) and a signed URL.
   */
  async storeImage(actor: BoardActor, bytes: Uint8Array): Promise<{ key: string; url: string; page: number }> {
    const row = await this.#row(actor.room);
    if (row.state !== 'open') throw new DomainError('31009');
    if (actor.view === 'read' || !mayDraw(actor, facts(row), await this.#groupFacts(actor))) throw notAllowed('board image');
    if (bytes.byteLength > this.config.BOARD_IMAGE_MAX_BYTES) throw new DomainError('32103');
    const type = imageType(bytes);
    if (!type) throw new DomainError('32102');
    const key = `${boardImagePrefix(row.id)}${randomUUID()}.${type === 'image/png' ? 'png' : 'jpg'}`;
    await this.objects.put(key, bytes, type);
    // The whiteboard page everyone is on now (ADR 034): read fresh, the page may have turned a moment ago.
    const fresh = await this.repo.room(actor.room);
    const page = readRoomExtend(fresh && fresh.id === row.id ? fresh.room_extend : row.room_extend).pageIndex;
    return { key, url: await this.objects.signedGetUrl(key, IMAGE_URL_TTL_SECONDS), page };
  }

  /** Signed URLs for images of this actor's room (anyone on the board may see them). */
  async imageUrls(actor: BoardActor, keys: readonly string[]): Promise<Record<string, string>> {
    const row = await this.#row(actor.room);
    const out: Record<string, string> = {};
    for (const k of keys) {
      if (!IMAGE_KEY_RULE.test(k) || !k.startsWith(boardImagePrefix(row.id)) || k.includes('..')) throw illegalParams('key');
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
    if (!mayDraw(actor, facts(row), await this.#groupFacts(actor))) throw notAllowed('phone upload');
    const ttl = this.config.BOARD_PHONE_LINK_MINUTES * 60;
    const now = this.clock.now().getTime();
    const payload: PhoneUploadPayload = { scope: 'board-upload', room: actor.room, uid: actor.uid, role: actor.role };
    const token = this.signer.sign(payload, ttl, now);
    return { url: `${this.config.publicUrl}/upload/${actor.uid}/${actor.room}?t=${token}`, expiresAt: now + ttl * 1000 };
  }

  /** The phone link's token (from phoneUploadLink) or null: checked before an upload's body is read. */
  phoneActor(token: string): BoardActor | null {
    const p = phoneClaim.safeParse(this.signer.verify(token, this.clock.now().getTime()));
    return p.success ? { room: p.data.room, uid: p.data.uid, role: p.data.role } : null;
  }

  /** A photo from the phone link: stored like a board image, then announced to the user's board. */
  async phoneUpload(token: string, bytes: Uint8Array, size: { width: number; height: number }): Promise<BoardUpload> {
    const actor = this.phoneActor(token);
    if (!actor) throw new DomainError('21001');
    await this.roomsPort.admit(actor);
    const stored = await this.storeImage(actor, bytes);
    const fine = (n: number) => (Number.isInteger(n) && n > 0 && n <= 100_000 ? n : 0);
    const file: BoardUpload = { ...stored, width: fine(size.width), height: fine(size.height) };
    for (const l of this.#uploadListeners) l(actor.room, actor.uid, file);
    return file;
  }

  // ---- rooms and layers ----------------------------------------------------------------------

  async #row(roomNumber: string): Promise<BoardRoomRow> {
    if (!ROOM_NUMBER_RULE.test(roomNumber)) throw roomNotFound();
    return this.#rows.get(roomNumber, async () => {
      const row = await this.repo.room(roomNumber);
      if (!row) throw roomNotFound();
      return row;
    });
  }

  /** The room's row as the rules see it (cached for a moment), for code that writes to the log directly. */
  roomRow(roomNumber: string): Promise<BoardRoomRow> {
    return this.#row(roomNumber);
  }

  // ---- reading -------------------------------------------------------------------------------

  /**
   * A layer for a client: with `since` (the last sequence number it applied to this layer) the
   * operations after it while this node still has them in order; otherwise the layer's state.
   */
  async load(actor: BoardActor, page: LayerKey, since?: number): Promise<LayerAnswer> {
    const row = await this.#row(actor.room);
    return this.log.load(actor.room, row, page, since);
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
    const board = await this.log.board(row);
    return this.log.serial(board, async () => {
      if ((await this.repo.roomSeq(board.roomId)) > board.seq) await this.log.catchUp(roomNumber, board);
      const l = await this.log.layer(board, page);
      // Pages written on and cleared since hold nothing to review: they are not listed.
      const pages: string[] = [];
      for (const p of await this.repo.pages(board.roomId)) {
        if (isLayerKey(p) && layerToState((await this.log.layer(board, p)).layer).items.length > 0) pages.push(p);
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
    const row = await this.repo.room(ROOM_NUMBER_RULE.test(roomNumber) ? roomNumber : '');
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
    if (actor.view === 'read') throw notAllowed('a read-only room view');
    const row = await this.#row(actor.room);
    if (row.state !== 'open') throw new DomainError('31009');
    if (demoOver(row, this.clock.now())) throw demoEnded();
    if (!mayOperate(actor, facts(row), op.type, op.page, await this.#groupFacts(actor))) throw notAllowed(`board ${op.type}`);
    checkSlideLayer(row, op.page);
    await this.#checkContent(row, op);
    return this.log.append(actor, row, op);
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

  /** Drops the in-memory board of a room (tests: force a cold load from the database). */
  forget(roomNumber: string): void {
    this.log.forget(roomNumber);
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

export function facts(row: BoardRoomRow): BoardRoomFacts {
  return { roomType: row.room_type, createUser: row.create_user, wbPower: row.wb_power };
}
