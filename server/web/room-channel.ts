/**
 * The room channel adapter: socket.io namespace `/room`. A connection proves who it is with the
 * join answer's signed token; each request is parsed, handed to one RoomLiveService method and
 * acknowledged with {code, msg, data}. Broadcasts come from the event bus, never from a client.
 */
import type { Namespace, Server, Socket } from 'socket.io';
import { notAllowed, tokenInvalid, type Lang } from '#core/platform/errors.ts';
import {
  ROOM_NAMESPACE,
  ROOM_PROTOCOL_VERSION,
  roomRequests,
  type ClientToServer,
  type ServerToClient,
} from '#core/contracts/room-events.ts';
import type { Actor } from '#core/rooms/live.service.ts';
import { admitConnections, checkVersion, Dispatcher } from '#core/channel/dispatch.ts';
import type { Platform } from '../platform.ts';
import { requestLang } from './request.ts';
import { roomKey, seatKey, socketRouteOf } from './bus-routes.ts';

interface SocketData {
  actor: Actor;
  lang: Lang;
  /** As last reported and accepted (0 unknown); shown in the members list. */
  networkQuality: number;
  joined: boolean;
  /** The member's name as of their join (chat lines carry it). */
  name: string;
}

type RoomSocket = Socket<ClientToServer, ServerToClient, Record<string, never>, SocketData>;
type RoomNamespace = Namespace<ClientToServer, ServerToClient, Record<string, never>, SocketData>;

const MAX_REQUESTS_PER_SECOND = 20;

export function attachRoomChannel(io: Server, platform: Platform): { close(): void } {
  const { services, logger, events, clock } = platform;
  const { live, rooms, tools, groups } = services;
  const nsp = io.of(ROOM_NAMESPACE) as unknown as RoomNamespace;

  admitConnections(
    nsp as unknown as Namespace,
    (socket) => requestLang(socket.request),
    async (socket, lang): Promise<SocketData> => {
      const token = (socket.handshake.auth as { token?: unknown } | undefined)?.token;
      const claim = typeof token === 'string' ? rooms.verifyRoomToken(token, 'room') : null;
      if (!claim) throw tokenInvalid();
      const actor: Actor = { room: claim.room, uid: claim.uid, role: claim.role };
      await live.admit(actor);
      return { actor, lang, networkQuality: 0, joined: false, name: '' };
    },
  );

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
  const detachPresence = platform.presence.attach({ online });
  // Each web node sets its own nudge for the groups' next deadline (ADR 116).
  const unwatchGroups = groups.watch();

  const publishMembers = (room: string) =>
    live.publishMembers(room).catch((err: unknown) => logger.warn({ err, room }, 'members broadcast failed'));

  nsp.on('connection', (socket: RoomSocket) => {
    const { actor } = socket.data;

    const joined = () => {
      if (!socket.data.joined) throw notAllowed('join first');
    };
    const dispatcher = new Dispatcher(
      roomRequests,
      {
        joinRoom: {
          run: async ({ version }) => {
            checkVersion(version, ROOM_PROTOCOL_VERSION);
            await live.seat(actor);
            // A student new to running breakout groups is placed before the snapshot (ADR 116).
            await groups.arrive(actor);
            await socket.join([roomKey(actor.room), seatKey(actor.room, actor.uid)]);
            socket.data.joined = true;
            void publishMembers(actor.room);
            const [own, classTools, breakout] = await Promise.all([live.snapshot(actor), tools.snapshot(actor), groups.snapshot(actor)]);
            const snapshot = { ...own, ...classTools, ...breakout };
            socket.data.name = snapshot.you.name;
            return snapshot;
          },
        },
        leaveRoom: {
          gate: joined,
          run: async () => {
            await live.leave(actor);
            socket.data.joined = false;
            await socket.leave(roomKey(actor.room));
            void publishMembers(actor.room);
            return null;
          },
        },
        customRoomEvent: {
          gate: joined,
          run: async (patch) => {
            const applied = await live.patch(actor, patch);
            // Kept with the connection only once the whole patch was accepted, then shown.
            if (patch.networkQuality !== undefined) {
              socket.data.networkQuality = patch.networkQuality;
              await live.publishMembers(actor.room);
            }
            return applied;
          },
        },
        chat: { gate: joined, run: ({ text }) => live.chat(actor, text, { name: socket.data.name }) },
        // The stage and hands (ADR 112).
        raiseHand: { gate: joined, run: () => live.raiseHand(actor) },
        lowerHand: { gate: joined, run: ({ userId }) => live.lowerHand(actor, userId) },
        inviteStage: { gate: joined, run: ({ userId }) => live.inviteStage(actor, userId) },
        answerStage: { gate: joined, run: ({ agree }) => live.answerStage(actor, agree) },
        stageDown: { gate: joined, run: ({ userId }) => live.stageDown(actor, userId) },
        stageAllDown: { gate: joined, run: () => live.stageAllDown(actor) },
        setCarousel: { gate: joined, run: ({ seconds }) => live.setCarousel(actor, seconds) },
        kickout: {
          gate: joined,
          run: async ({ userId }) => {
            await live.kick(actor, userId);
            nsp.in(seatKey(actor.room, userId)).disconnectSockets(true);
            void publishMembers(actor.room);
            return null;
          },
        },
        endRoom: {
          gate: joined,
          run: async () => {
            await live.end(actor);
            // After everyone had the roomClosed event and this answer; a closed room admits nobody.
            setTimeout(() => nsp.in(roomKey(actor.room)).disconnectSockets(true), 1000).unref();
            return null;
          },
        },
        startTrial: { gate: joined, run: () => live.startTrial(actor) },
        setMode: { gate: joined, run: ({ mode }) => live.setMode(actor, mode) },
        setCoursewarePage: { gate: joined, run: ({ page, scroll }) => services.courseware.setPage(actor, page, scroll) },
        videoControl: { gate: joined, run: ({ type, currentTime }) => services.courseware.videoControl(actor, type, currentTime) },
        quizStart: { gate: joined, run: (p) => tools.quizStart(actor, p) },
        quizAnswer: { gate: joined, run: (p) => tools.quizAnswer(actor, p) },
        quizCollect: { gate: joined, run: (p) => tools.quizCollect(actor, p) },
        quizPublish: { gate: joined, run: (p) => tools.quizPublish(actor, p) },
        quizClose: { gate: joined, run: (p) => tools.quizClose(actor, p) },
        pollStart: { gate: joined, run: (p) => tools.pollStart(actor, p) },
        pollVote: { gate: joined, run: (p) => tools.pollVote(actor, p) },
        pollClose: { gate: joined, run: (p) => tools.pollClose(actor, p) },
        pollPublish: { gate: joined, run: (p) => tools.pollPublish(actor, p) },
        pollDismiss: { gate: joined, run: (p) => tools.pollDismiss(actor, p) },
        timerSet: { gate: joined, run: (p) => tools.timerSet(actor, p) },
        timerStart: { gate: joined, run: () => tools.timerStart(actor) },
        timerPause: { gate: joined, run: () => tools.timerPause(actor) },
        timerReset: { gate: joined, run: () => tools.timerReset(actor) },
        timerClear: { gate: joined, run: () => tools.timerClear(actor) },
        buzzerOpen: { gate: joined, run: () => tools.buzzerOpen(actor) },
        buzzerPress: { gate: joined, run: (p) => tools.buzzerPress(actor, p) },
        buzzerClose: { gate: joined, run: () => tools.buzzerClose(actor) },
        pickRandom: { gate: joined, run: () => tools.pickRandom(actor) },
        reward: { gate: joined, run: (p) => tools.reward(actor, p) },
        // Breakout groups (ADR 116).
        groupsStart: { gate: joined, run: (p) => groups.start(actor, p) },
        groupsMove: { gate: joined, run: (p) => groups.move(actor, p) },
        groupsChoose: { gate: joined, run: (p) => groups.choose(actor, p) },
        groupsVisit: { gate: joined, run: (p) => groups.visit(actor, p) },
        groupsLeader: { gate: joined, run: (p) => groups.leader(actor, p) },
        groupsBroadcast: { gate: joined, run: (p) => groups.broadcast(actor, p) },
        groupsHelp: { gate: joined, run: (p) => groups.help(actor, p) },
        groupsEnd: { gate: joined, run: (p) => groups.end(actor, p) },
        groupsState: { gate: joined, run: () => groups.state(actor) },
      },
      {
        channel: 'room channel',
        clock,
        logger,
        lang: socket.data.lang,
        perSecond: MAX_REQUESTS_PER_SECOND,
        floodCode: '8',
        context: () => ({ room: actor.room }),
      },
    );
    dispatcher.bind(socket);

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
      detachPresence();
      unwatchGroups();
    },
  };
}
