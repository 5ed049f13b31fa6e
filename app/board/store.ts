/**
 * The board client store: one socket.io connection to `/board` (core/contracts/board.ts), the
 * layers this browser has loaded, its own operations until their sequenced version arrives, and
 * the strokes others are drawing right now. No React here: the renderer and the hook subscribe.
 *
 * Order: every operation, ours included, is applied to the server's state in the order the server
 * sequenced it; our own are shown at once (LayerView's echo). After a reconnect each loaded layer
 * asks for what came after the last sequence number it saw, and unacknowledged operations are
 * sent again with the same opId (the server applies an opId once).
 *
 * A local store (`local: true`, the recording studio) has no socket: this browser sequences its own
 * operations with the server's rules (core/board/model.ts, history.ts), so the same canvas and tools
 * work and nothing leaves the page.
 */
import { io, type Socket } from 'socket.io-client';
import { openChannel, type Channel, type ChannelProblem } from '#core/channel/open.ts';
import { LayerHistory, changesOfEffects } from '#core/board/history.ts';
import { checkItemData, effectsOf } from '#core/board/model.ts';
import {
  BOARD_NAMESPACE,
  BOARD_PROTOCOL_VERSION,
  boardChannel,
  type BType,
  type BoardItem,
  type BoardOp,
  type boardEvents,
  type boardRequests,
  type Effect,
  type ItemData,
  type LayerKey,
  type SequencedOp,
  type RoomViewEvent,
  type StrokeProgress,
} from '#core/contracts/board.ts';
import type { RoomCourseware } from '#core/contracts/courseware.ts';
import type { Ack } from '#core/contracts/room-events.ts';
import { channelLog } from '#app/lib/client-log.ts';
import { LayerView, mergeChanges as merge, NO_CHANGE, type Change } from '#core/board/draw/layer.ts';
import type { LiveStroke } from '#core/board/draw/renderer.ts';

/** The socket the store drives (its requests and events go through openChannel, core/channel/open.ts). */
export type BoardSocket = Socket;
type BoardChannelOf = Channel<typeof boardRequests, typeof boardEvents>;
export type BoardStatus = 'connecting' | 'live' | 'offline' | 'failed';

const ACK_TIMEOUT_MS = 10_000;
/** Others' strokes in progress are dropped if nothing arrives for this long (the author left). */
const LIVE_STALE_MS = 5_000;
const RETRY_REFUSED_MS = 2_000;
const REFUSALS_BEFORE_FAILED = 5;

export interface StoreEvents {
  /** A layer changed; `change` tells the renderer how much to repaint. */
  change: (page: LayerKey, change: Change) => void;
  /** Others' live strokes changed. */
  live: () => void;
  status: (status: BoardStatus) => void;
  /** The server refused one of our operations. */
  refused: (ack: Ack<unknown>, op: BoardOp) => void;
  /** The presenter's viewport of a layer came (a `move_by_presenter`, or a load that carries one). */
  viewport: (page: LayerKey) => void;
}

export interface StoreOptions {
  uid: string;
  /** A fresh board token (first the join answer's, later from /api/createWbToken). */
  token: () => Promise<string | null>;
  /** For tests: make the socket. */
  socket?: (token: string) => BoardSocket;
  /** No socket: operations are sequenced in this browser (the studio's board); `token` is not called. */
  local?: boolean;
  /** A room view's board (ADR 093): what it hears of the room besides the board. */
  onRoomView?: (event: RoomViewEvent) => void;
  /** Where a server message that broke its schema is told (default: the client log, ADR 108). */
  log?: (problem: ChannelProblem) => void;
}

let counter = 0;
/** A unique id for ops and items: time, randomness and a counter (64 characters at most). */
export function newId(prefix = ''): string {
  counter = (counter + 1) % 1_000_000;
  const rand = Math.random().toString(36).slice(2, 10);
  return `${prefix}${Date.now().toString(36)}${rand}${counter.toString(36)}`;
}

export class BoardStore {
  readonly uid: string;
  readonly #options: StoreOptions;
  #socket: BoardSocket | null = null;
  #channel: BoardChannelOf | null = null;
  #status: BoardStatus = 'connecting';
  readonly #layers = new Map<LayerKey, LayerView>();
  /** Ops sent and not yet acknowledged, in order (sent again after a reconnect). */
  readonly #unacked = new Map<string, BoardOp>();
  /** Sequenced ops that arrived while their layer was loading. */
  readonly #buffer = new Map<LayerKey, SequencedOp[]>();
  readonly #loading = new Set<LayerKey>();
  readonly #live = new Map<string, LiveStroke & { uid: string; page: LayerKey; at: number }>();
  readonly #listeners: { [K in keyof StoreEvents]: Set<StoreEvents[K]> } = {
    change: new Set(),
    live: new Set(),
    status: new Set(),
    refused: new Set(),
    viewport: new Set(),
  };
  #closed = false;
  #refusals = 0;
  /** Undo depth per layer (own operations that changed something); redo depth after undos. */
  readonly #undo = new Map<LayerKey, number>();
  readonly #redo = new Map<LayerKey, number>();
  /** Local mode: each layer's undo and redo history, as the server keeps it. */
  readonly #histories = new Map<LayerKey, LayerHistory>();

  constructor(options: StoreOptions) {
    this.uid = options.uid;
    this.#options = options;
  }

  /** A board kept in this browser only: no socket, no token, nothing sent anywhere. */
  static local(uid = 'local'): BoardStore {
    return new BoardStore({ uid, token: () => Promise.resolve(null), local: true });
  }

  get local(): boolean {
    return this.#options.local === true;
  }

  on<K extends keyof StoreEvents>(event: K, listener: StoreEvents[K]): () => void {
    this.#listeners[event].add(listener);
    return () => this.#listeners[event].delete(listener);
  }

  #emit<K extends keyof StoreEvents>(event: K, ...args: Parameters<StoreEvents[K]>): void {
    for (const l of this.#listeners[event]) (l as (...a: Parameters<StoreEvents[K]>) => void)(...args);
  }

  get status(): BoardStatus {
    return this.#status;
  }

  #setStatus(status: BoardStatus): void {
    if (status === this.#status) return;
    this.#status = status;
    this.#emit('status', status);
  }

  async connect(): Promise<void> {
    if (this.local) {
      if (!this.#closed) this.#setStatus('live');
      return;
    }
    const token = await this.#options.token();
    if (this.#closed) return;
    if (!token) {
      this.#setStatus('failed');
      return;
    }
    const socket: BoardSocket = this.#options.socket
      ? this.#options.socket(token)
      : // Its own connection: the room channel's manager runs its own reconnect rules (no auto
        // reconnection, no auto connect), and the board must come back by itself.
        io(BOARD_NAMESPACE, {
          auth: { token, version: BOARD_PROTOCOL_VERSION },
          transports: ['websocket'],
          reconnectionDelayMax: 5000,
          forceNew: true,
        });
    this.#socket = socket;
    const channel = openChannel(boardChannel, socket, { log: this.#options.log ?? channelLog(), timeoutMs: ACK_TIMEOUT_MS });
    this.#channel = channel;
    socket.on('connect', () => {
      this.#refusals = 0;
      this.#setStatus('live');
      // Resync every loaded layer from its last sequence number, then resend what is unacked.
      for (const layer of this.#layers.values()) void this.#load(layer.page);
      for (const op of this.#unacked.values()) this.#send(op);
    });
    socket.on('disconnect', () => {
      if (!this.#closed) this.#setStatus('offline');
    });
    socket.on('connect_error', (error: Error) => {
      if (this.#closed) return;
      this.#setStatus('offline');
      if (socket.active) return; // a network failure: socket.io retries by itself
      // Refused by the server (expired token, room closed, left the room): a fresh token, then
      // one more try after a pause; a refusal that stays is shown as failed.
      const expired = error.message === '21001';
      if (!expired) this.#refusals += 1;
      if (this.#refusals > REFUSALS_BEFORE_FAILED) {
        this.#setStatus('failed');
        return;
      }
      setTimeout(() => {
        if (this.#closed || this.#socket !== socket) return;
        void this.#options.token().then((fresh) => {
          if (this.#closed || this.#socket !== socket) return;
          if (fresh) socket.auth = { token: fresh, version: BOARD_PROTOCOL_VERSION };
          socket.connect();
        });
      }, RETRY_REFUSED_MS);
    });
    // The board's events, each parsed by its schema first (one that breaks it is logged and dropped).
    channel.on('sync', (op) => this.#receive(op));
    channel.on('stroke', (progress) => this.#receiveStroke(progress));
    const onRoomView = this.#options.onRoomView;
    if (onRoomView) channel.on('roomView', onRoomView);
  }

  close(): void {
    this.#closed = true;
    this.#channel?.close();
    this.#channel = null;
    this.#socket?.removeAllListeners();
    this.#socket?.disconnect();
    this.#socket = null;
  }

  /** The creator's room view turns the room's courseware page (ADR 093); answered with the block as saved. */
  turnPage(page: number): Promise<Ack<RoomCourseware>> {
    return this.#request('turnPage', { page });
  }

  /** Simulates a dropped connection (tests): the socket reconnects by itself. */
  dropConnection(): void {
    this.#socket?.io.engine?.close();
  }

  layer(page: LayerKey): LayerView {
    let layer = this.#layers.get(page);
    if (!layer) {
      layer = new LayerView(page);
      this.#layers.set(page, layer);
    }
    return layer;
  }

  /** Makes sure a layer is loaded (or loading); resolves when it is. */
  async open(page: LayerKey): Promise<void> {
    const layer = this.layer(page);
    if (layer.loaded || this.#loading.has(page)) return;
    await this.#load(page);
  }

  async #load(page: LayerKey, fresh = false): Promise<void> {
    if (this.local) {
      this.layer(page).loaded = true;
      return;
    }
    const socket = this.#socket;
    if (!socket?.connected) return; // 'connect' loads it
    const layer = this.layer(page);
    this.#loading.add(page);
    const payload: { page: LayerKey; since?: number } = layer.loaded && !fresh ? { page, since: layer.seq } : { page };
    const ack = await this.#request('getBoard', payload);
    this.#loading.delete(page);
    if (ack.code !== '0' || !ack.data) {
      this.#emit('refused', ack, { opId: '', type: 'create', page });
      return;
    }
    let change: Change = NO_CHANGE;
    if (ack.data.state) change = layer.loadState(ack.data.state);
    layer.loaded = true;
    const buffered = this.#buffer.get(page) ?? [];
    this.#buffer.delete(page);
    const ops = [...ack.data.ops, ...buffered].sort((a, b) => a.seq - b.seq);
    for (const op of ops) change = merge(change, layer.applySequenced(op));
    this.#emit('change', page, change.kind === 'none' && ack.data.state ? { kind: 'full' } : change);
    if (layer.viewport) this.#emit('viewport', page);
  }

  #receive(op: SequencedOp): void {
    const layer = this.#layers.get(op.page);
    if (!layer) return; // a layer we do not show: loaded fresh when opened
    if (op.uid === this.uid) this.#unacked.delete(op.opId);
    if (this.#loading.has(op.page)) {
      const list = this.#buffer.get(op.page) ?? [];
      list.push(op);
      this.#buffer.set(op.page, list);
      return;
    }
    const change = layer.applySequenced(op);
    if (op.type === 'create' && op.id) this.#live.delete(op.id);
    if (change.kind !== 'none') this.#emit('change', op.page, change);
    if (op.type === 'move_by_presenter') this.#emit('viewport', op.page);
    this.#emit('live');
  }

  #receiveStroke(p: StrokeProgress & { uid: string }): void {
    if (p.uid === this.uid) return;
    const now = Date.now();
    // A stroke already stored (its create came first) is not drawn again.
    if (this.#layers.get(p.page)?.get(p.strokeId)) return;
    let live = this.#live.get(p.strokeId);
    if (!live || p.start) {
      live = { uid: p.uid, page: p.page, points: [], color: p.color, width: p.width, at: now, ...(p.eraser ? { eraser: true } : {}) };
      this.#live.set(p.strokeId, live);
    }
    for (const v of p.points) live.points.push(v);
    live.at = now;
    for (const [id, s] of this.#live) if (now - s.at > LIVE_STALE_MS) this.#live.delete(id);
    this.#emit('live');
  }

  /** Others' strokes in progress on a layer. */
  liveStrokes(page: LayerKey): LiveStroke[] {
    const out: LiveStroke[] = [];
    for (const s of this.#live.values()) if (s.page === page) out.push(s);
    return out;
  }

  /** A request of the board channel; 'network' when there is no connection or no answer in time. */
  #request: BoardChannelOf['request'] = (name, payload) =>
    this.#channel ? this.#channel.request(name, payload) : Promise.resolve({ code: 'network', msg: '' });

  #send(op: BoardOp): void {
    if (this.local) {
      this.#sequenceLocally(op);
      return;
    }
    void this.#request('sync', op).then((ack) => {
      if (ack.code === 'network') return; // sent again after the reconnect
      this.#unacked.delete(op.opId);
      if (ack.code !== '0') this.#refuse(ack, op);
    });
  }

  #refuse(ack: Ack<unknown>, op: BoardOp): void {
    const change = this.layer(op.page).reject(op.opId);
    if (change.kind !== 'none') this.#emit('change', op.page, change);
    if (op.type === 'undo') this.#undo.set(op.page, 0);
    if (op.type === 'redo') this.#redo.set(op.page, 0);
    // '32101': the operation could not apply to the server's layer (ADR 013): load it afresh.
    if (ack.code === '32101' && !this.local) void this.#load(op.page, true);
    this.#emit('refused', ack, op);
  }

  /** Local mode: what the server does with an operation (board-log.ts plan and replay), here. */
  #sequenceLocally(op: BoardOp): void {
    this.#unacked.delete(op.opId);
    const layer = this.layer(op.page).confirmed;
    let history = this.#histories.get(op.page);
    if (!history) this.#histories.set(op.page, (history = new LayerHistory()));
    let effects: Effect[];
    let target: number | undefined;
    if (op.type === 'undo' || op.type === 'redo') {
      const plan = op.type === 'undo' ? history.planUndo(layer, this.uid) : history.planRedo(layer, this.uid);
      if (!plan.ok) return this.#refuse({ code: '32101', msg: '' }, op);
      effects = plan.effects;
      target = plan.target;
    } else {
      const out = effectsOf(layer, op, this.uid);
      if (!out.ok) return this.#refuse({ code: '32101', msg: '' }, op);
      effects = out.effects;
    }
    const seq = layer.seq + 1;
    if (op.type === 'undo' && target !== undefined) history.undone(this.uid, target);
    else if (op.type === 'redo' && target !== undefined) history.redone(this.uid, target);
    else if (op.type === 'clear') history.clear();
    else if (op.type !== 'move_by_presenter') history.record(this.uid, seq, changesOfEffects(layer, effects));
    this.#receive({ ...op, seq, uid: this.uid, at: Date.now(), effects });
  }

  /** Submits an operation: shown at once, sent to the server, confirmed in its order. */
  submit(partial: Omit<BoardOp, 'opId'>): BoardOp {
    const op: BoardOp = { ...partial, opId: newId('o') };
    if (op.data && 'kind' in op.data) op.data = checkItemData(op.data);
    const layer = this.layer(op.page);
    const change = layer.applyLocal(op, this.uid);
    if (change.kind !== 'none') this.#emit('change', op.page, change);
    this.#unacked.set(op.opId, op);
    if (op.type === 'undo') {
      this.#undo.set(op.page, Math.max(0, (this.#undo.get(op.page) ?? 0) - 1));
      this.#redo.set(op.page, (this.#redo.get(op.page) ?? 0) + 1);
    } else if (op.type === 'redo') {
      this.#redo.set(op.page, Math.max(0, (this.#redo.get(op.page) ?? 0) - 1));
      this.#undo.set(op.page, (this.#undo.get(op.page) ?? 0) + 1);
    } else if (op.type !== 'move_by_presenter') {
      this.#undo.set(op.page, (this.#undo.get(op.page) ?? 0) + 1);
      this.#redo.set(op.page, 0);
    }
    this.#send(op);
    return op;
  }

  create(page: LayerKey, btype: BType, data: ItemData, id = newId('i')): BoardOp {
    return this.submit({ type: 'create', btype, id, data, page });
  }

  deleteItems(page: LayerKey, ids: string[]): BoardOp | null {
    return ids.length ? this.submit({ type: 'delete', btype: 'choose', ids, page }) : null;
  }

  move(page: LayerKey, ids: string[], dx: number, dy: number): BoardOp | null {
    if (!ids.length || (dx === 0 && dy === 0)) return null;
    return this.submit({ type: 'move', btype: 'choose', ids, data: { dx, dy }, page });
  }

  clear(page: LayerKey): BoardOp {
    return this.submit({ type: 'clear', btype: 'eraser', page });
  }

  undo(page: LayerKey): BoardOp | null {
    return this.canUndo(page) ? this.submit({ type: 'undo', page }) : null;
  }

  redo(page: LayerKey): BoardOp | null {
    return this.canRedo(page) ? this.submit({ type: 'redo', page }) : null;
  }

  canUndo(page: LayerKey): boolean {
    return (this.#undo.get(page) ?? 0) > 0;
  }

  canRedo(page: LayerKey): boolean {
    return (this.#redo.get(page) ?? 0) > 0;
  }

  /** A batch of our stroke in progress (volatile: a lost batch is not sent again). */
  streamStroke(progress: StrokeProgress): void {
    const socket = this.#socket;
    if (socket?.connected) socket.volatile.emit('stroke', progress);
  }

  /** For tests: what a layer shows, in drawing order. */
  snapshot(page: LayerKey): { seq: number; items: BoardItem[]; pending: number } {
    const layer = this.#layers.get(page);
    return { seq: layer?.seq ?? 0, items: layer?.items() ?? [], pending: layer?.pendingCount ?? 0 };
  }
}
