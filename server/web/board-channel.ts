/**
 * The board channel adapter: socket.io namespace `/board` (core/contracts/board.ts). A connection
 * proves who it is with a board token; each request is handed to one BoardService method and
 * acknowledged with {code, msg, data}. Accepted operations reach everyone on the room's board
 * (author included) in sequence order; live strokes are relayed, volatile and unstored, to the
 * others only, and only from someone who may draw.
 */
import type { Namespace, Server, Socket } from 'socket.io';
import { DomainError, isDomainError, messageFor, type ErrorCode, type Lang } from '#core/platform/errors.ts';
import type { Ack } from '#core/contracts/room-events.ts';
import {
  BRUSH_COLOURS,
  BOARD_NAMESPACE,
  type BoardClientToServer,
  type BoardServerToClient,
  type StrokeProgress,
} from '#core/contracts/board.ts';
import type { BoardActor } from '#core/board/board.service.ts';
import { BOARD_LIMITS, checkProgressPoints, isBoardId, isLayerKey } from '#core/board/model.ts';
import type { Platform } from '../platform.ts';
import { requestLang } from './request.ts';

interface SocketData {
  actor: BoardActor;
  lang: Lang;
  /** Requests and stroke batches in the current one-second window. */
  burst: { at: number; ops: number; strokes: number; loads: number };
  /** Whether this socket may draw, as last read (refreshed every second) for the stroke relay. */
  draw: { at: number; ok: boolean; pending: Promise<boolean> | null };
}

type BoardSocket = Socket<BoardClientToServer, BoardServerToClient, Record<string, never>, SocketData>;
type BoardNamespace = Namespace<BoardClientToServer, BoardServerToClient, Record<string, never>, SocketData>;

const boardKey = (room: string) => `board:${room}`;
const seatKey = (room: string, uid: string) => `board-seat:${room}:${uid}`;
const DRAW_RECHECK_MS = 1000;
const LOADS_PER_SECOND = 5;

function ackOf(lang: Lang, err: unknown): Ack<never> {
  if (isDomainError(err)) return { code: err.code, msg: messageFor(err.code, lang) };
  return { code: '9', msg: messageFor('9', lang) };
}

/** A live stroke batch rebuilt field by field, or null when anything is off. */
function cleanProgress(p: unknown): StrokeProgress | null {
  if (typeof p !== 'object' || p === null) return null;
  const o = p as Record<string, unknown>;
  if (!isBoardId(o['strokeId']) || !isLayerKey(o['page'])) return null;
  if (!(BRUSH_COLOURS as readonly unknown[]).includes(o['color'])) return null;
  const width = o['width'];
  if (typeof width !== 'number' || !(width >= BOARD_LIMITS.minWidth && width <= BOARD_LIMITS.maxWidth)) return null;
  const points = checkProgressPoints(o['points']);
  if (!points.ok) return null;
  const out: StrokeProgress = {
    strokeId: o['strokeId'],
    page: o['page'],
    points: points.value,
    color: o['color'] as StrokeProgress['color'],
    width,
  };
  if (o['eraser'] === true) out.eraser = true;
  if (o['start'] === true) out.start = true;
  return out;
}

export function attachBoardChannel(io: Server, platform: Platform): { close(): void } {
  const { services, logger, events, config } = platform;
  const { board } = services;
  const nsp = io.of(BOARD_NAMESPACE) as unknown as BoardNamespace;

  nsp.use((socket, next) => {
    const lang = requestLang(socket.request);
    const refuse = (code: ErrorCode) => {
      const err = new Error(code) as Error & { data: Ack<never> };
      err.data = { code, msg: messageFor(code, lang) };
      next(err);
    };
    const actor = board.verifyToken((socket.handshake.auth as { token?: unknown } | undefined)?.token);
    if (!actor) return refuse('21001');
    board.admit(actor).then(
      () => {
        socket.data = { actor, lang, burst: { at: 0, ops: 0, strokes: 0, loads: 0 }, draw: { at: 0, ok: false, pending: null } };
        next();
      },
      (err: unknown) => refuse(isDomainError(err) ? err.code : '9'),
    );
  });

  nsp.on('connection', (socket: BoardSocket) => {
    const { actor } = socket.data;
    void socket.join([boardKey(actor.room), seatKey(actor.room, actor.uid)]);

    const window = () => {
      const now = Date.now();
      if (now - socket.data.burst.at > 1000) socket.data.burst = { at: now, ops: 0, strokes: 0, loads: 0 };
      return socket.data.burst;
    };

    const handle = <E extends Exclude<keyof BoardClientToServer, 'stroke'>>(event: E, run: (payload: unknown) => Promise<unknown>) => {
      socket.on(event, ((payload: unknown, ack: unknown) => {
        if (typeof ack !== 'function') return;
        const reply = ack as (a: Ack<unknown>) => void;
        if (++window().ops > config.BOARD_OPS_PER_SECOND) return reply({ code: '32104', msg: messageFor('32104', socket.data.lang) });
        run(payload).then(
          (data) => reply({ code: '0', msg: socket.data.lang === 'en' ? 'success' : '成功', data: data ?? null }),
          (err: unknown) => {
            if (!isDomainError(err)) logger.error({ err, event, room: actor.room }, 'board channel request failed');
            reply(ackOf(socket.data.lang, err));
          },
        );
      }) as never);
    };

    const field = (p: unknown, k: string): unknown => (typeof p === 'object' && p !== null ? (p as Record<string, unknown>)[k] : undefined);

    // A whole large board is megabytes: a few loads a second is what a reconnect or page turn needs.
    handle('getBoard', (p) => {
      if (++window().loads > LOADS_PER_SECOND) return Promise.reject(new DomainError('32104', 'getBoard'));
      return board.load(actor, field(p, 'page'), field(p, 'since'));
    });
    handle('sync', (p) => board.submit(actor, p));
    handle('clear', (p) => board.submit(actor, { opId: field(p, 'opId'), type: 'clear', page: field(p, 'page') }));
    handle('delItem', (p) => board.submit(actor, { opId: field(p, 'opId'), type: 'delete', page: field(p, 'page'), ids: field(p, 'ids') }));

    const mayDraw = (): Promise<boolean> => {
      const d = socket.data.draw;
      if (Date.now() - d.at < DRAW_RECHECK_MS) return Promise.resolve(d.ok);
      d.pending ??= board.mayDraw(actor).then((ok) => {
        socket.data.draw = { at: Date.now(), ok, pending: null };
        return ok;
      });
      return d.pending;
    };

    // Batches of one socket leave in the order they came, even while the permission is re-read.
    let relay: Promise<void> = Promise.resolve();
    socket.on('stroke', (p: unknown) => {
      if (++window().strokes > config.BOARD_STROKES_PER_SECOND) return;
      const progress = cleanProgress(p);
      if (!progress) return;
      relay = relay
        .then(async () => {
          if (await mayDraw()) socket.to(boardKey(actor.room)).volatile.emit('stroke', { ...progress, uid: actor.uid });
        })
        .catch((err: unknown) => logger.warn({ err, room: actor.room }, 'stroke relay failed'));
    });
  });

  const offOps = board.onOperation((room, op) => {
    nsp.to(boardKey(room)).emit('sync', op);
  });
  const offUploads = board.onUpload((room, uid, file) => {
    nsp.to(seatKey(room, uid)).emit('upFile', file);
  });

  // A kicked person leaves the board too; a closed room's board closes a moment after the notice.
  const offBus = events.subscribe((m) => {
    if (!('room' in m.target)) return;
    const room = m.target.room;
    if (m.event === 'kickout') {
      const uid = (m.payload as { userId?: unknown } | null)?.userId;
      if (typeof uid === 'string') nsp.in(seatKey(room, uid)).disconnectSockets(true);
    } else if (m.event === 'roomClosed') {
      setTimeout(() => nsp.in(boardKey(room)).disconnectSockets(true), 1000).unref();
    }
  });

  return {
    close() {
      offOps();
      offUploads();
      offBus();
    },
  };
}
