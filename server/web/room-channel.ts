/**
 * The room channel adapter: socket.io namespace `/room`. A connection proves who it is with the
 * join answer's signed token; each request is parsed, handed to one RoomLiveService method and
 * acknowledged with {code, msg, data}. Broadcasts come from the event bus, never from a client.
 */
import type { Namespace, Server, Socket } from 'socket.io';
import { isDomainError, messageFor, type ErrorCode, type Lang } from '#core/platform/errors.ts';
import { ROOM_NAMESPACE, type Ack, type ClientToServer, type ServerToClient } from '#core/contracts/room-events.ts';
import type { Actor } from '#core/rooms/live.service.ts';
import type { Platform } from '../platform.ts';
import { requestLang } from './request.ts';
import { roomKey, socketRouteOf } from './bus-routes.ts';

interface SocketData {
  actor: Actor;
  lang: Lang;
  networkQuality: number;
  joined: boolean;
  /** The member's name as of their join (chat lines carry it). */
  name: string;
  /** Requests in the current one-second window (a flood guard). */
  burst: { at: number; n: number };
}

type RoomSocket = Socket<ClientToServer, ServerToClient, Record<string, never>, SocketData>;
type RoomNamespace = Namespace<ClientToServer, ServerToClient, Record<string, never>, SocketData>;

const MAX_REQUESTS_PER_SECOND = 20;
const seatKey = (room: string, uid: string) => `seat:${room}:${uid}`;

function ackOf(lang: Lang, err: unknown): Ack<never> {
  if (isDomainError(err)) return { code: err.code, msg: messageFor(err.code, lang) };
  return { code: '9', msg: messageFor('9', lang) };
}

export function attachRoomChannel(io: Server, platform: Platform): { close(): void } {
  const { services, logger, events } = platform;
  const { live, rooms } = services;
  const nsp = io.of(ROOM_NAMESPACE) as unknown as RoomNamespace;

  nsp.use((socket, next) => {
    const lang = requestLang(socket.request);
    const token = (socket.handshake.auth as { token?: unknown } | undefined)?.token;
    const claim = typeof token === 'string' ? rooms.verifyRoomToken(token, 'room') : null;
    const refuse = (code: ErrorCode) => {
      const err = new Error(code) as Error & { data: Ack<never> };
      err.data = { code, msg: messageFor(code, lang) };
      next(err);
    };
    if (!claim) return refuse('21001');
    const actor: Actor = { room: claim.room, uid: claim.uid, role: claim.role };
    live.admit(actor).then(
      () => {
        socket.data = { actor, lang, networkQuality: 0, joined: false, name: '', burst: { at: 0, n: 0 } };
        next();
      },
      (err: unknown) => refuse(isDomainError(err) ? err.code : '9'),
    );
  });

  const online = async (roomNumber: string) => {
    // Across nodes with REDIS_URL (the adapter asks every web node); Redis down: this node's own.
    const sockets = await nsp
      .in(roomKey(roomNumber))
      .fetchSockets()
      .catch((err: unknown) => {
        logger.error({ err, room: roomNumber }, 'presence across nodes failed; answering this node only');
        return nsp.local.in(roomKey(roomNumber)).fetchSockets();
      });
    const seen = new Map<string, number>();
    for (const s of sockets) {
      const d = s.data;
      if (d.actor.role === 'observer' || d.actor.role === 'recorder') continue;
      seen.set(d.actor.uid, Math.max(seen.get(d.actor.uid) ?? 0, d.networkQuality));
    }
    return [...seen].map(([userId, networkQuality]) => ({ userId, networkQuality }));
  };
  platform.presence.source = { online };

  const publishMembers = (room: string) =>
    live.publishMembers(room).catch((err: unknown) => logger.warn({ err, room }, 'members broadcast failed'));

  nsp.on('connection', (socket: RoomSocket) => {
    const { actor } = socket.data;

    const handle = <E extends keyof ClientToServer>(
      event: E,
      run: (payload: Record<string, unknown>) => Promise<unknown>,
      opts: { beforeJoin?: boolean } = {},
    ) => {
      socket.on(event, ((payload: unknown, ack: unknown) => {
        if (typeof ack !== 'function') return; // every request is acknowledged; none without a callback
        const reply = ack as (a: Ack<unknown>) => void;
        const now = Date.now();
        const b = socket.data.burst;
        if (now - b.at > 1000) socket.data.burst = { at: now, n: 0 };
        if (++socket.data.burst.n > MAX_REQUESTS_PER_SECOND) return reply({ code: '8', msg: messageFor('8', socket.data.lang) });
        if (!opts.beforeJoin && !socket.data.joined) return reply({ code: '31004', msg: messageFor('31004', socket.data.lang) });
        const body = typeof payload === 'object' && payload !== null && !Array.isArray(payload) ? (payload as Record<string, unknown>) : {};
        run(body).then(
          (data) => reply({ code: '0', msg: socket.data.lang === 'en' ? 'success' : '成功', data: data ?? null }),
          (err: unknown) => {
            if (!isDomainError(err)) logger.error({ err, event, room: actor.room }, 'room channel request failed');
            reply(ackOf(socket.data.lang, err));
          },
        );
      }) as never);
    };

    handle(
      'joinRoom',
      async () => {
        await live.seat(actor);
        await socket.join([roomKey(actor.room), seatKey(actor.room, actor.uid)]);
        socket.data.joined = true;
        void publishMembers(actor.room);
        const snapshot = await live.snapshot(actor);
        socket.data.name = snapshot.you.name;
        return snapshot;
      },
      { beforeJoin: true },
    );
    handle('leaveRoom', async () => {
      await live.leave(actor);
      socket.data.joined = false;
      await socket.leave(roomKey(actor.room));
      void publishMembers(actor.room);
      return null;
    });
    handle('customRoomEvent', async (p) => {
      if ('networkQuality' in p && typeof p['networkQuality'] === 'number') socket.data.networkQuality = p['networkQuality'];
      return live.patch(actor, p);
    });
    handle('chat', (p) => live.chat(actor, p['text'], { name: socket.data.name }));
    handle('inviteMic', (p) => live.inviteMic(actor, p['userId']));
    handle('answerMic', (p) => live.answerMic(actor, p['agree']));
    handle('stopMic', () => live.stopMic(actor));
    handle('kickout', async (p) => {
      await live.kick(actor, p['userId']);
      nsp.in(seatKey(actor.room, String(p['userId']))).disconnectSockets(true);
      void publishMembers(actor.room);
      return null;
    });
    handle('endRoom', async () => {
      await live.end(actor);
      // After everyone had the roomClosed event and this answer; a closed room admits nobody.
      setTimeout(() => nsp.in(roomKey(actor.room)).disconnectSockets(true), 1000).unref();
      return null;
    });
    handle('startTrial', () => live.startTrial(actor));
    handle('setCoursewarePage', (p) => services.courseware.setPage(actor, p['page'], p['scroll']));
    handle('videoControl', (p) => services.courseware.videoControl(actor, p['type'], p['currentTime']));

    socket.on('disconnect', () => {
      if (!socket.data.joined) return;
      void (async () => {
        // Another tab of the same person keeps the seat.
        const others = await nsp.in(seatKey(actor.room, actor.uid)).fetchSockets();
        if (others.length === 0) await live.disconnected(actor);
        await publishMembers(actor.room);
      })().catch((err: unknown) => logger.warn({ err, room: actor.room }, 'disconnect handling failed'));
    });
  });

  const unsubscribe = events.subscribe((m) => {
    const r = socketRouteOf(m);
    if (r.nsp !== ROOM_NAMESPACE) return;
    (nsp.to(r.room).emit as (event: string, payload: unknown) => boolean)(r.event, r.payload);
  });

  return {
    close() {
      unsubscribe();
      platform.presence.source = null;
    },
  };
}
