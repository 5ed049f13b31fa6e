/**
 * The media node's socket: socket.io namespace `/media`. Each `req` is parsed, handed to one
 * room or server method and acknowledged with {code, msg, data}. The signaling connection is the
 * peer's life: when it closes, the peer and all its media go at once (ICE would notice only after
 * about 26 s).
 */
import type { Namespace, Socket } from 'socket.io';
import {
  MEDIA_NOTE_EVENT,
  MEDIA_PROTOCOL_VERSION,
  MEDIA_REQUEST_EVENT,
  PROBE_BUDGET_BYTES,
  mediaEnvelopeSchema,
  mediaRequests,
  type IceServer,
} from '#core/contracts/media-signaling.ts';
import { systemClock, type Clock } from '#core/platform/clock.ts';
import { DomainError, illegalParams, type Lang } from '#core/platform/errors.ts';
import type { Logger } from '#core/platform/logger.ts';
import { checkVersion, Dispatcher } from '#core/channel/dispatch.ts';
import type { Peer } from './peer.ts';
import type { Room } from './room.ts';
import type { MediaServer } from './server.ts';
import type { OpenProbe, ProbeEchoes } from './probe.ts';

const MAX_REQUESTS_PER_SECOND = 50;

function langOf(socket: Socket): Lang {
  const h = socket.handshake.headers['lang'] ?? socket.handshake.query['lang'];
  return h === 'en' ? 'en' : 'zh';
}

/** `{v, type, ...payload}`: the request's name and payload; an older `v` is told to reload. */
function envelope(body: unknown): [string, unknown] {
  const env = mediaEnvelopeSchema.safeParse(body);
  if (!env.success) throw illegalParams('envelope');
  checkVersion(env.data.v, MEDIA_PROTOCOL_VERSION);
  if (env.data.v !== MEDIA_PROTOCOL_VERSION) throw illegalParams('version');
  const { v: _v, type: _type, ...payload } = body as Record<string, unknown>;
  return [env.data.type, payload];
}

export function attachSignaling(
  nsp: Namespace,
  server: MediaServer,
  logger: Logger,
  iceServers: IceServer[],
  probes: ProbeEchoes | null = null,
  clock: Clock = systemClock,
): { close(): void } {
  nsp.on('connection', (socket: Socket) => {
    const lang = langOf(socket);
    let joined: { peer: Peer; room: Room } | null = null;
    let probed = 0;
    let udpProbe: OpenProbe | null = null;
    const closeProbe = () => {
      udpProbe?.close();
      udpProbe = null;
    };

    const need = () => {
      if (!joined || joined.peer.closed) throw illegalParams('join first');
      return joined;
    };

    const dispatcher = new Dispatcher(
      mediaRequests,
      {
        join: {
          run: ({ token }) => {
            if (joined) throw illegalParams('already joined');
            const j = server.join(token, (note) => socket.emit(MEDIA_NOTE_EVENT, note));
            joined = j;
            // For diagnostics: who is on this socket.
            (socket.data as { userId?: string }).userId = j.peer.userId;
            j.peer.once('closed', () => {
              // Closed by the node (kick-out, room closed): the socket goes too.
              setImmediate(() => socket.disconnect(true));
            });
            return {
              peerId: j.peer.id,
              room: j.room.number,
              userId: j.peer.userId,
              rights: j.peer.rights,
              tracks: j.room.tracks(j.peer),
              iceServers,
            };
          },
        },
        refresh: {
          run: ({ token }) => {
            const j = need();
            return { rights: server.refresh(j.peer, j.room, token) };
          },
        },
        publish: {
          run: ({ source, sdp }) => {
            const j = need();
            return j.room.publish(j.peer, source, sdp);
          },
        },
        unpublish: {
          run: ({ trackId }) => {
            const j = need();
            j.room.unpublish(j.peer, trackId);
            return null;
          },
        },
        pause: {
          run: ({ trackId, paused }) => {
            const j = need();
            j.room.pause(j.peer, trackId, paused);
            return null;
          },
        },
        subscribe: {
          run: ({ trackId, layer }) => {
            const j = need();
            return j.room.subscribe(j.peer, trackId, layer);
          },
        },
        answer: {
          run: async ({ subscriptionId, sdp }) => {
            const j = need();
            await j.room.answer(j.peer, subscriptionId, sdp);
            return null;
          },
        },
        unsubscribe: {
          run: ({ subscriptionId }) => {
            const j = need();
            j.room.unsubscribe(j.peer, subscriptionId);
            return null;
          },
        },
        setLayer: {
          run: ({ subscriptionId, layer }) => {
            const j = need();
            return { layer: j.room.setLayer(j.peer, subscriptionId, layer) };
          },
        },
        restartIce: {
          run: ({ trackId, subscriptionId, sdp }) => {
            const j = need();
            if (trackId !== undefined && sdp !== undefined) return j.room.restartIce(j.peer, { trackId, sdp });
            if (subscriptionId !== undefined) return j.room.restartIce(j.peer, { subscriptionId });
            throw illegalParams('restartIce');
          },
        },
        leave: {
          run: () => {
            joined?.peer.close();
            return null;
          },
        },
        probe: {
          run: ({ kind, bytes, data, sdp }) => {
            if (kind === 'ping') return { bytes: 0 };
            if (kind === 'download' && bytes !== undefined) {
              if ((probed += bytes) > PROBE_BUDGET_BYTES) throw new DomainError('8', 'probe budget spent');
              return { bytes, data: 'x'.repeat(bytes) };
            }
            if (kind === 'upload' && data !== undefined) {
              if ((probed += data.length) > PROBE_BUDGET_BYTES) throw new DomainError('8', 'probe budget spent');
              return { bytes: data.length };
            }
            if (kind === 'config') return { bytes: 0, iceServers };
            if (kind === 'rtc' && sdp !== undefined) {
              if (!probes) throw illegalParams('kind');
              closeProbe();
              return probes.open(sdp).then((opened) => {
                if (!socket.connected) {
                  opened.close();
                  return { bytes: 0 };
                }
                closeProbe(); // one per socket, even when two offers crossed
                udpProbe = opened;
                return { bytes: 0, sdp: opened.sdp };
              });
            }
            if (kind === 'rtcClose') {
              closeProbe();
              return { bytes: 0 };
            }
            throw illegalParams('kind');
          },
        },
      },
      {
        channel: 'media signaling',
        clock,
        logger,
        lang,
        perSecond: MAX_REQUESTS_PER_SECOND,
        floodCode: '8',
        context: () => ({ userId: joined?.peer.userId }),
      },
    );

    socket.on(MEDIA_REQUEST_EVENT, (payload: unknown, ack: unknown) => dispatcher.handle(ack, () => envelope(payload)));
    // Any other event that asks for an answer is answered '5'.
    socket.onAny((event: unknown, ...args: unknown[]) => {
      const ack = args.at(-1);
      if (event !== MEDIA_REQUEST_EVENT && typeof ack === 'function') dispatcher.handle(ack, () => [`!${String(event)}`, undefined]);
    });

    socket.on('disconnect', () => {
      closeProbe();
      joined?.peer.close();
      joined = null;
    });
  });

  return {
    close() {
      // This node's peers only: with REDIS_URL (ADR 053) a plain disconnectSockets reaches every node.
      nsp.local.disconnectSockets(true);
    },
  };
}
