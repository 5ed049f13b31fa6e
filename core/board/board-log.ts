/**
 * The board's log and sequencer: an ordered log per room (ADR 014).
 *
 * Each room has one sequence counter in the database. An operation (already checked and authorised
 * by BoardService) is turned into effects against the layer as it stands, stored under the
 * room's next number by one statement that only succeeds if no one else took that number (another
 * socket or another node), then applied to the in-memory layer and handed to listeners (the
 * channel broadcasts it). Work for one room runs one task at a time, so effects are always computed
 * on the latest state. The database is the record; memory is a cache of it:
 * a layer loads from its snapshot plus the operations after it, and a snapshot is written whenever
 * the operations after the last one reach a third of the layer's items (and at every clear), so loading
 * costs O(items) however long the history was.
 */
import type { BoardOp, LayerKey, LayerState, SequencedOp } from '../contracts/board.ts';
import type { Clock } from '../platform/clock.ts';
import type { Config } from '../platform/config.ts';
import { DomainError } from '../platform/errors.ts';
import type { Logger } from '../platform/logger.ts';
import { LayerHistory, changesOfEffects } from './history.ts';
import { JsonText } from './json-text.ts';
import { type Layer, applySequencedOp, effectsOf, emptyLayer, layerFromState, layerToState } from './model.ts';
import type { BoardRepository, BoardRoomRow } from './board.repository.ts';
import type { BoardActor } from './board.service.ts';

type BoardLogConfig = Pick<Config, 'BOARD_SNAPSHOT_EVERY' | 'BOARD_MAX_ITEMS_PER_LAYER' | 'BOARD_UNDO_DEPTH'>;

/** What the log stores per operation: the broadcast op plus, for undo/redo, the entry it reversed. */
export type StoredOp = SequencedOp & { target?: number };

export interface LoadedLayer {
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

/** How an operation came to this node's listeners: stored here (`own`) or heard of (ADR 096). */
export interface OpTold {
  roomId: string;
  /** As stored (an undo or redo keeps the entry it reversed, which other nodes' histories need). */
  stored: StoredOp;
  own: boolean;
}

/** What `getBoard` answers: a layer's state (maybe still as its stored text) and operations after it. */
export interface LayerAnswer {
  state?: LayerState | JsonText;
  ops: SequencedOp[];
}

export interface RoomBoard {
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
const STALE_RETRIES = 100;

export class BoardLog {
  readonly #rooms = new Map<string, RoomBoard>();
  readonly #listeners = new Set<(room: string, op: SequencedOp, told: OpTold) => void>();
  readonly repo: BoardRepository;
  private readonly clock: Clock;
  private readonly config: BoardLogConfig;
  private readonly logger: Logger | null;

  constructor(repo: BoardRepository, clock: Clock, config: BoardLogConfig, logger: Logger | null) {
    this.repo = repo;
    this.clock = clock;
    this.config = config;
    this.logger = logger;
  }

  /**
   * The channel hears every accepted operation here, in sequence order per room, once each: those
   * this node stored (`own`) and those it heard of or caught up on from other nodes (ADR 096).
   */
  onOperation(listener: (room: string, op: SequencedOp, told: OpTold) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Drops a room's board from memory (the next use reads it from the database). */
  forget(roomNumber: string): void {
    this.#rooms.delete(roomNumber);
  }

  /** Stores and publishes one checked, authorised operation. A known opId answers its first seq. */
  async append(actor: BoardActor, row: BoardRoomRow, op: BoardOp): Promise<{ seq: number }> {
    const board = await this.board(row);
    return this.serial(board, () => this.#apply(actor, board, op));
  }

  /** A layer for a client (see BoardService.load), once the rules let it read. */
  async load(room: string, row: BoardRoomRow, page: LayerKey, since?: number): Promise<LayerAnswer> {
    const board = await this.board(row);
    return this.serial(board, async () => {
      // Another node may have written to this room (ADR 014): one small read keeps a load exact.
      if ((await this.repo.roomSeq(board.roomId)) > board.seq) await this.catchUp(room, board);
      if (!board.layers.has(page)) {
        const cold = await this.#loadCold(board, page, since);
        if (cold) return cold;
      }
      const l = await this.layer(board, page);
      if (typeof since === 'number' && since >= l.recentFrom && since <= l.layer.seq) {
        return { ops: opsAfter(l.recent, since) };
      }
      return { state: layerToState(l.layer), ops: [] };
    });
  }

  /** The room's board in memory; a room number reused by a new room starts a new board. */
  async board(row: BoardRoomRow): Promise<RoomBoard> {
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
  serial<T>(board: RoomBoard, task: () => Promise<T>): Promise<T> {
    const run = board.queue.then(task, task);
    board.queue = run.catch(() => undefined);
    return run;
  }

  async layer(board: RoomBoard, page: LayerKey): Promise<LoadedLayer> {
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
    for (const op of tail) this.replay(loaded, op);
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
  replay(l: LoadedLayer, op: StoredOp): void {
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
  async catchUp(room: string, board: RoomBoard): Promise<void> {
    const bodies = await this.repo.opsAfter(board.roomId, board.seq);
    const ops = bodies.map((b) => JSON.parse(b) as StoredOp);
    // The other writer may have compacted some of them into a snapshot: then this node's layers
    // cannot be brought forward op by op and are read again from the database when next used.
    if (ops.some((op, i) => op.seq !== board.seq + 1 + i)) {
      board.layers.clear();
      board.pending.clear();
    }
    for (const op of ops) this.#take(room, board, op);
    if (!bodies.length) board.seq = await this.repo.roomSeq(board.roomId);
  }

  /** An operation another node stored, applied to this node's memory and told to its listeners. */
  #take(room: string, board: RoomBoard, op: StoredOp): void {
    // A layer read but not built is read again when needed (it would miss this operation).
    board.pending.delete(op.page);
    const l = board.layers.get(op.page);
    if (l) this.replay(l, op);
    board.seq = Math.max(board.seq, op.seq);
    this.rememberOpId(board, op.opId, op.seq);
    const { target: _t, ...plain } = op;
    this.#publish(room, plain, { roomId: board.roomId, stored: op, own: false });
  }

  /**
   * An operation another node stored and relayed (ADR 096): taken in the room's order. One this
   * node already has is ignored; one after a gap (a relayed message not yet here, or lost in a
   * Redis outage) makes the node catch up from the database, which holds everything up to it.
   * A room not in memory starts here, just before this operation: its layers load when used.
   */
  async heard(room: string, roomId: string, op: StoredOp): Promise<void> {
    let board = this.#rooms.get(room);
    if (!board || board.roomId !== roomId) {
      board = { roomId, seq: op.seq - 1, layers: new Map(), pending: new Map(), opIds: new Map(), queue: Promise.resolve() };
      this.#rooms.set(room, board);
      if (this.#rooms.size > ROOMS_CACHED) this.#rooms.delete(this.#rooms.keys().next().value!);
    }
    const held = board;
    await this.serial(held, async () => {
      if (op.seq <= held.seq) return;
      if (op.seq === held.seq + 1) this.#take(room, held, op);
      else await this.catchUp(room, held);
    });
  }

  rememberOpId(board: RoomBoard, opId: string, seq: number): void {
    board.opIds.set(opId, seq);
    if (board.opIds.size > RECENT_OP_IDS) board.opIds.delete(board.opIds.keys().next().value!);
  }

  #publish(room: string, op: SequencedOp, told: OpTold): void {
    for (const l of this.#listeners) {
      try {
        l(room, op, told);
      } catch (err) {
        this.logger?.error({ err, room }, 'board listener failed');
      }
    }
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

  async #apply(actor: BoardActor, board: RoomBoard, op: BoardOp): Promise<{ seq: number }> {
    const known = board.opIds.get(op.opId);
    if (known !== undefined) return { seq: known };
    for (let attempt = 0; attempt < STALE_RETRIES; attempt++) {
      const l = await this.layer(board, op.page);
      const stored = this.plan(l, op, actor.uid, board.seq + 1);
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
        this.rememberOpId(board, op.opId, seq);
        return { seq };
      }
      if (result.kind === 'stale') {
        await this.catchUp(actor.room, board);
        const again = board.opIds.get(op.opId);
        if (again !== undefined) return { seq: again };
        continue;
      }
      this.replay(l, stored);
      board.seq = result.seq;
      this.rememberOpId(board, op.opId, result.seq);
      l.tail++;
      const { target: _t, ...plain } = stored;
      this.#publish(actor.room, plain, { roomId: board.roomId, stored, own: true });
      if (op.type === 'clear' || this.snapshotDue(l)) {
        void this.serial(board, () => this.snapshot(board, l)).catch((err: unknown) =>
          this.logger?.warn({ err, room: actor.room, page: op.page }, 'board snapshot failed'),
        );
      }
      return { seq: result.seq };
    }
    throw new DomainError('32101', 'too many concurrent writers');
  }

  /** The operation as it would be stored under `seq` on this layer now, or why it cannot be. */
  plan(l: LoadedLayer, op: BoardOp, uid: string, seq: number): StoredOp | { error: string } {
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
    this.rememberOpId(board, op.opId, seq);
    return { seq };
  }

  /**
   * A snapshot costs about the layer's size to write, replaying costs about the operations after
   * it: write one once those are at least a third of the items (and BOARD_SNAPSHOT_EVERY), so a
   * cold load reads at most about 1.33 x the items whatever the history, and writing stays O(1) per
   * operation (snapshot sizes grow geometrically on a growing board).
   */
  snapshotDue(l: LoadedLayer): boolean {
    return l.tail >= this.config.BOARD_SNAPSHOT_EVERY && l.tail * 3 >= l.layer.items.size;
  }

  async snapshot(board: RoomBoard, l: LoadedLayer): Promise<void> {
    if (board.layers.get(l.layer.page) !== l || l.tail === 0) return;
    const seq = l.layer.seq;
    const tail = l.tail;
    await this.repo.saveSnapshot(board.roomId, l.layer.page, seq, JSON.stringify(layerToState(l.layer)));
    l.tail -= tail;
  }
}

/** A stored operation as clients get it (without the entry an undo or redo reversed). */
function plainOp(op: StoredOp): SequencedOp {
  if (op.target === undefined) return op;
  const { target: _t, ...plain } = op;
  return plain;
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
