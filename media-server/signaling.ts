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
  MEDIA_SOURCES,
  PROBE_BUDGET_BYTES,
  PROBE_MAX_BYTES,
  type IceServer,
  type MediaCalls,
  type MediaRequestType,
  type MediaSource,
} from '#core/contracts/media-signaling.ts';
import type { Ack } from '#core/contracts/room-events.ts';
import { DomainError, illegalParams, isDomainError, messageFor, type Lang } from '#core/platform/errors.ts';
import type { Logger } from '#core/platform/logger.ts';
import type { Peer } from './peer.ts';
import type { Room } from './room.ts';
import type { MediaServer } from './server.ts';
import type { OpenProbe, ProbeEchoes } from './probe.ts';

const MAX_REQUESTS_PER_SECOND = 50;

function langOf(socket: Socket): Lang {
  const h = socket.handshake.headers['lang'] ?? socket.handshake.query['lang'];
  return h === 'en' ? 'en' : 'zh';
}

type Handlers = { [K in MediaRequestType]: (body: Record<string, unknown>) => Promise<MediaCalls[K][1]> | MediaCalls[K][1] };

export function attachSignaling(
  nsp: Namespace,
  server: MediaServer,
  logger: Logger,
  iceServers: IceServer[],
  probes: ProbeEchoes | null = null,
): { close(): void } {
  nsp.on('connection', (socket: Socket) => {
    const lang = langOf(socket);
    let joined: { peer: Peer; room: Room } | null = null;
    let burst = { at: 0, n: 0 };
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

    const handlers: Handlers = {
      join: (b) => {
        if (joined) throw illegalParams('already joined');
        const j = server.join(b['token'], (note) => socket.emit(MEDIA_NOTE_EVENT, note));
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
      refresh: (b) => {
        const j = need();
        return { rights: server.refresh(j.peer, j.room, b['token']) };
      },
      publish: (b) => {
        const j = need();
        const source = b['source'];
        if (!(MEDIA_SOURCES as readonly unknown[]).includes(source)) throw illegalParams('source');
        return j.room.publish(j.peer, source as MediaSource, b['sdp']);
      },
      unpublish: (b) => {
        const j = need();
        j.room.unpublish(j.peer, b['trackId']);
        return null;
      },
      pause: (b) => {
        const j = need();
        j.room.pause(j.peer, b['trackId'], b['paused']);
        return null;
      },
      subscribe: (b) => {
        const j = need();
        return j.room.subscribe(j.peer, b['trackId'], b['layer']);
      },
      answer: async (b) => {
        const j = need();
        await j.room.answer(j.peer, b['subscriptionId'], b['sdp']);
        return null;
      },
      unsubscribe: (b) => {
        const j = need();
        j.room.unsubscribe(j.peer, b['subscriptionId']);
        return null;
      },
      setLayer: (b) => {
        const j = need();
        return { layer: j.room.setLayer(j.peer, b['subscriptionId'], b['layer']) };
      },
      restartIce: (b) => {
        const j = need();
        return j.room.restartIce(j.peer, b);
      },
      leave: () => {
        joined?.peer.close();
        return null;
      },
      probe: (b) => {
        const kind = b['kind'];
        if (kind === 'ping') return { bytes: 0 };
        if (kind === 'download') {
          const bytes = b['bytes'];
          if (typeof bytes !== 'number' || !Number.isInteger(bytes) || bytes < 1 || bytes > PROBE_MAX_BYTES) throw illegalParams('bytes');
          if ((probed += bytes) > PROBE_BUDGET_BYTES) throw new DomainError('8', 'probe budget spent');
          return { bytes, data: 'x'.repeat(bytes) };
        }
        if (kind === 'upload') {
          const data = b['data'];
          if (typeof data !== 'string' || data.length > PROBE_MAX_BYTES) throw illegalParams('data');
          if ((probed += data.length) > PROBE_BUDGET_BYTES) throw new DomainError('8', 'probe budget spent');
          return { bytes: data.length };
        }
        if (kind === 'config') return { bytes: 0, iceServers };
        if (kind === 'rtc') {
          if (!probes) throw illegalParams('kind');
          closeProbe();
          return probes.open(b['sdp']).then((opened) => {
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
    };

    socket.on(MEDIA_REQUEST_EVENT, (payload: unknown, ack: unknown) => {
      if (typeof ack !== 'function') return;
      const reply = ack as (a: Ack<unknown>) => void;
      const now = Date.now();
      if (now - burst.at > 1000) burst = { at: now, n: 0 };
      if (++burst.n > MAX_REQUESTS_PER_SECOND) return reply({ code: '8', msg: messageFor('8', lang) });
      const body = typeof payload === 'object' && payload !== null && !Array.isArray(payload) ? (payload as Record<string, unknown>) : {};
      const type = body['type'];
      if (body['v'] !== MEDIA_PROTOCOL_VERSION || typeof type !== 'string' || !Object.hasOwn(handlers, type)) {
        return reply({ code: '5', msg: messageFor('5', lang) });
      }
      Promise.resolve()
        .then(() => handlers[type as MediaRequestType](body))
        .then(
          (data) => reply({ code: '0', msg: lang === 'en' ? 'success' : '成功', data: data ?? null }),
          (err: unknown) => {
            if (isDomainError(err)) return reply({ code: err.code, msg: messageFor(err.code, lang) });
            logger.error({ err, type }, 'media request failed');
            reply({ code: '9', msg: messageFor('9', lang) });
          },
        );
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
