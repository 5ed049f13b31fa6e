/**
 * The recorder in the room (ADR 109): a hidden participant (role 'recorder', never listed, never
 * seated, refused every write) of the room's room channel and board channel, through the same
 * contracts and client half the browser uses (`openChannel`, ADR 108): every answer and event is
 * parsed by its schema before the scene sees it.
 *
 * The room channel's join answers the room's snapshot (room info, courseware block); after that its
 * events tell each change. The board channel tells every stored operation of the room, and answers
 * a layer's state on request. A connection lost is made again by socket.io (a refused one again
 * after RETRY_REFUSED_MS, with fresh tokens); each new room join hands a fresh snapshot to
 * `onSnapshot`, and each new board connection calls `onBoardConnect` (held layers are stale then).
 */
import { io, type Socket } from 'socket.io-client';
import { openChannel, type Channel, type ChannelProblem } from '#core/channel/open.ts';
import { BOARD_NAMESPACE, BOARD_PROTOCOL_VERSION, boardChannel } from '#core/contracts/board.ts';
import { ROOM_NAMESPACE, ROOM_PROTOCOL_VERSION, roomChannel, type RoomSnapshot } from '#core/contracts/room-events.ts';
import type { Logger } from './types.ts';

/** A connection the server refused (a token gone stale, a room not open yet) is tried again after this long. */
const RETRY_REFUSED_MS = 1500;
/** A join or layer load waits this long for its answer (as the browser's). */
const REQUEST_TIMEOUT_MS = 10_000;

export type RoomChannel = Channel<typeof roomChannel.requests, typeof roomChannel.events>;
export type BoardChannel = Channel<typeof boardChannel.requests, typeof boardChannel.events>;

export interface RoomLinkOptions {
  /** The web tier's address (PUBLIC_URL): where the room and board channels are. */
  webUrl: string;
  roomNumber: string;
  /** Fresh recorder tokens for a connection (RoomService.recorderTokens). */
  tokens: () => { room: string; board: string } | Promise<{ room: string; board: string }>;
  logger: Logger;
}

export class RoomLink {
  readonly room: RoomChannel;
  readonly board: BoardChannel;
  readonly #o: RoomLinkOptions;
  readonly #roomSocket: Socket;
  readonly #boardSocket: Socket;
  readonly #snapshots = new Set<(s: RoomSnapshot) => void>();
  readonly #boardConnects = new Set<() => void>();
  readonly #timers = new Set<NodeJS.Timeout>();
  #closed = false;
  /** The last snapshot the join answered (null until the first join). */
  snapshot: RoomSnapshot | null = null;
  /** Joins and board connections made (the first of each, and one per reconnect). */
  joins = 0;
  boardConnects = 0;

  private constructor(o: RoomLinkOptions) {
    this.#o = o;
    const log = (problem: ChannelProblem) =>
      o.logger.warn({ ...problem, room: o.roomNumber }, 'recorder: a server message broke its schema');
    const token = (which: 'room' | 'board') => (cb: (auth: Record<string, unknown>) => void) => {
      void Promise.resolve(o.tokens()).then(
        (t) => cb(which === 'room' ? { token: t.room } : { token: t.board, version: BOARD_PROTOCOL_VERSION }),
        (err: unknown) => {
          o.logger.warn({ err, room: o.roomNumber }, 'recorder: no token for the room');
          cb({});
        },
      );
    };
    const options = { transports: ['websocket'], forceNew: true, reconnectionDelayMax: 5000, autoConnect: false };
    this.#roomSocket = io(`${o.webUrl}${ROOM_NAMESPACE}`, { ...options, auth: token('room') });
    this.#boardSocket = io(`${o.webUrl}${BOARD_NAMESPACE}`, { ...options, auth: token('board') });
    this.room = openChannel(roomChannel, this.#roomSocket, { log, timeoutMs: REQUEST_TIMEOUT_MS });
    this.board = openChannel(boardChannel, this.#boardSocket, { log, timeoutMs: REQUEST_TIMEOUT_MS });
    this.#roomSocket.on('connect', () => void this.#join());
    this.#boardSocket.on('connect', () => {
      this.boardConnects++;
      for (const f of this.#boardConnects) f();
    });
    for (const socket of [this.#roomSocket, this.#boardSocket]) {
      socket.on('connect_error', (err: Error) => {
        if (this.#closed || socket.active) return; // a network failure: socket.io tries again by itself
        this.#later(() => socket.connect());
        o.logger.debug({ err: err.message, room: o.roomNumber }, 'recorder: a room connection was refused');
      });
    }
    // The server ends a closed room's connections; anything else is the network's, and socket.io retries.
    this.#roomSocket.on('disconnect', (reason) => {
      if (!this.#closed && reason === 'io server disconnect')
        o.logger.info({ room: o.roomNumber }, 'recorder: the room ended the connection');
    });
  }

  /**
   * Joins the room as its hidden recorder; resolves once the room answered its first snapshot and
   * the board is connected (or rejects after `timeoutMs`). It stays in the room until `close()`.
   */
  static async open(o: RoomLinkOptions, timeoutMs = 20_000): Promise<RoomLink> {
    const link = new RoomLink(o);
    link.#roomSocket.connect();
    link.#boardSocket.connect();
    try {
      // Both channels up: the room's snapshot answered, the board connected (its layers can be asked for).
      await new Promise<void>((resolve, reject) => {
        const t = setTimeout(() => reject(new Error(`recorder: room ${o.roomNumber} not joined in ${timeoutMs} ms`)), timeoutMs);
        const check = () => {
          if (!link.snapshot || link.boardConnects === 0) return;
          clearTimeout(t);
          offSnapshot();
          offBoard();
          resolve();
        };
        const offSnapshot = link.onSnapshot(check);
        const offBoard = link.onBoardConnect(check);
      });
    } catch (err) {
      link.close();
      throw err;
    }
    return link;
  }

  async #join(): Promise<void> {
    const answer = await this.room.request('joinRoom', { version: ROOM_PROTOCOL_VERSION });
    if (this.#closed) return;
    const snapshot = answer.data;
    if (answer.code !== '0' || !snapshot) {
      this.#o.logger.warn({ code: answer.code, msg: answer.msg, room: this.#o.roomNumber }, 'recorder: the room join was refused');
      if (this.#roomSocket.connected) this.#later(() => void this.#join());
      return;
    }
    this.joins++;
    this.snapshot = snapshot;
    for (const f of this.#snapshots) f(snapshot);
  }

  #later(f: () => void): void {
    const t = setTimeout(() => {
      this.#timers.delete(t);
      if (!this.#closed) f();
    }, RETRY_REFUSED_MS);
    t.unref();
    this.#timers.add(t);
  }

  /** Each snapshot the room's join answers (the first, and one after every reconnect); returns the unsubscribe. */
  onSnapshot(f: (s: RoomSnapshot) => void): () => void {
    this.#snapshots.add(f);
    return () => this.#snapshots.delete(f);
  }

  /** Each new board connection (after the first: a reconnect, when operations may have been missed). */
  onBoardConnect(f: () => void): () => void {
    this.#boardConnects.add(f);
    return () => this.#boardConnects.delete(f);
  }

  /** Leaves both channels. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const t of this.#timers) clearTimeout(t);
    this.#snapshots.clear();
    this.#boardConnects.clear();
    this.room.close();
    this.board.close();
    this.#roomSocket.close();
    this.#boardSocket.close();
  }
}
