/**
 * The board channel adapter: socket.io namespace `/board` (core/contracts/board.ts). A connection
 * proves who it is with a board token; each request is handed to one BoardService method and
 * acknowledged with {code, msg, data}. Accepted operations reach everyone on the room's board
 * (author included) in sequence order; live strokes are relayed, volatile and unstored, to the
 * others only, and only from someone who may draw.
 */
import type { Namespace, Server, Socket } from 'socket.io';
import { notAllowed, tokenInvalid, type Lang } from '#core/platform/errors.ts';
import {
  BOARD_NAMESPACE,
  BOARD_PROTOCOL_VERSION,
  boardAuthSchema,
  boardRequests,
  strokeProgressSchema,
  type RoomViewEvent,
  type BoardClientToServer,
  type BoardServerToClient,
} from '#core/contracts/board.ts';
import type { BoardActor } from '#core/board/board.service.ts';
import { admitConnections, BurstWindow, checkVersion, Dispatcher } from '#core/channel/dispatch.ts';
import type { Platform } from '../platform.ts';
import { requestLang } from './request.ts';

interface SocketData {
  actor: BoardActor;
  lang: Lang;
  /** Whether this socket may draw, as last read (refreshed every second) for the stroke relay. */
  draw: { at: number; ok: boolean; pending: Promise<boolean> | null; page?: string };
}

type BoardSocket = Socket<BoardClientToServer, BoardServerToClient, Record<string, never>, SocketData>;
type BoardNamespace = Namespace<BoardClientToServer, BoardServerToClient, Record<string, never>, SocketData>;

const boardKey = (room: string) => `board:${room}`;
const seatKey = (room: string, uid: string) => `board-seat:${room}:${uid}`;
/** Connections of room view tokens (ADR 093): they hear the room's page and view changes. */
const viewKey = (room: string) => `board-view:${room}`;
const DRAW_RECHECK_MS = 1000;
const LOADS_PER_SECOND = 5;

export function attachBoardChannel(io: Server, platform: Platform): { close(): void } {
  const { services, logger, events, config, clock } = platform;
  const { board } = services;
  const nsp = io.of(BOARD_NAMESPACE) as unknown as BoardNamespace;

  admitConnections(
    nsp as unknown as Namespace,
    (socket) => requestLang(socket.request),
    async (socket, lang): Promise<SocketData> => {
      const auth = boardAuthSchema.safeParse(socket.handshake.auth);
      const actor = auth.success ? board.verifyToken(auth.data.token) : null;
      if (!auth.success || !actor) throw tokenInvalid();
      checkVersion(auth.data.version, BOARD_PROTOCOL_VERSION);
      await board.admit(actor);
      return { actor, lang, draw: { at: Number.NEGATIVE_INFINITY, ok: false, pending: null } };
    },
  );

  nsp.on('connection', (socket: BoardSocket) => {
    const { actor } = socket.data;
    void socket.join([boardKey(actor.room), seatKey(actor.room, actor.uid), ...(actor.view ? [viewKey(actor.room)] : [])]);

    const dispatcher = new Dispatcher(
      boardRequests,
      {
        // A whole large board is megabytes: a few loads a second is what a reconnect or page turn needs.
        // The state may be the stored snapshot's text (core/board/json-text.ts), sent as it is.
        getBoard: { perSecond: LOADS_PER_SECOND, run: ({ page, since }) => board.load(actor, page, since ?? undefined) as never },
        sync: { run: (op) => board.submit(actor, op) },
        clear: { run: ({ opId, page }) => board.submit(actor, { opId, type: 'clear', page }) },
        delItem: { run: ({ opId, page, ids }) => board.submit(actor, { opId, type: 'delete', page, ids }) },
        // The creator's slide view turns pages here (ADR 093); the courseware rule checks the creator again.
        turnPage: {
          run: ({ page }) => {
            if (actor.view !== 'draw') throw notAllowed("turnPage is for the creator's room view");
            return services.courseware.setPage(actor, page);
          },
        },
      },
      {
        channel: 'board channel',
        clock,
        logger,
        lang: socket.data.lang,
        perSecond: config.BOARD_OPS_PER_SECOND,
        floodCode: '32104',
        context: () => ({ room: actor.room }),
      },
    );
    dispatcher.bind(socket);

    // Per page: while breakout groups run a student may draw on their group's page only (ADR 116).
    const mayDraw = (page: string): Promise<boolean> => {
      const d = socket.data.draw;
      if (d.page === page && clock.now().getTime() - d.at < DRAW_RECHECK_MS) return Promise.resolve(d.ok);
      if (d.page === page && d.pending) return d.pending;
      const pending = board.mayDraw(actor, page).then((ok) => {
        socket.data.draw = { at: clock.now().getTime(), ok, pending: null, page };
        return ok;
      });
      socket.data.draw = { at: Number.NEGATIVE_INFINITY, ok: false, pending, page };
      return pending;
    };

    // Live strokes are volatile and unanswered, but parsed all the same; batches of one socket
    // leave in the order they came, even while the permission is re-read.
    const strokes = new BurstWindow(clock);
    let relay: Promise<void> = Promise.resolve();
    socket.on('stroke', (p: unknown) => {
      if (actor.view === 'read') return;
      if (!strokes.hit('stroke', config.BOARD_STROKES_PER_SECOND)) return;
      const parsed = strokeProgressSchema.safeParse(p);
      if (!parsed.success) return;
      const progress = parsed.data;
      if (progress.eraser === false) delete progress.eraser;
      if (progress.start === false) delete progress.start;
      relay = relay
        .then(async () => {
          if (await mayDraw(progress.page)) socket.to(boardKey(actor.room)).volatile.emit('stroke', { ...progress, uid: actor.uid });
        })
        .catch((err: unknown) => logger.warn({ err, room: actor.room }, 'stroke relay failed'));
    });
  });

  // This node's sockets only: every node hears each operation of the room once, in order, and
  // sends it to its own (ADR 096); through the adapter two nodes' emits could cross.
  const offOps = board.onOperation((room, op) => {
    nsp.local.to(boardKey(room)).emit('sync', op);
  });
  const offUploads = board.onUpload((room, uid, file) => {
    nsp.to(seatKey(room, uid)).emit('upFile', file);
  });

  // A kicked person leaves the board too; a closed room's board closes a moment after the notice.
  const offBus = events.subscribe((m) => {
    if (!('room' in m.target)) return;
    const room = m.target.room;
    const forView = viewEventOf(m.event, m.payload);
    if (forView) nsp.to(viewKey(room)).emit('roomView', forView);
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

/** What a room view hears of a room message (ADR 093), or null for messages it does not need. */
function viewEventOf(event: string, payload: unknown): RoomViewEvent | null {
  const p = (typeof payload === 'object' && payload !== null ? payload : {}) as Record<string, unknown>;
  if (event === 'roomClosed') return { closed: true };
  if (event === 'courseware' && typeof p['courseware'] === 'object' && p['courseware'] !== null)
    return { courseware: p['courseware'] as NonNullable<RoomViewEvent['courseware']> };
  if (event !== 'customRoomEvent') return null;
  const out: RoomViewEvent = {};
  if (typeof p['showState'] === 'string') out.showState = p['showState'];
  if (typeof p['roomExtend'] === 'string') out.roomExtend = p['roomExtend'];
  if (p['wbPower'] === '0' || p['wbPower'] === '1') out.wbPower = p['wbPower'];
  return Object.keys(out).length ? out : null;
}
