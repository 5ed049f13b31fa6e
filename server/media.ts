/**
 * The media role: the SFU of media-server/ on its own socket (namespace `/media`). With ROLE=all
 * it shares the web role's HTTP server and port; with ROLE=media it listens on MEDIA_PORT. In one
 * process it also hears the room channel's events, so a stopped microphone, a kick-out or an ended
 * class take effect on the media at once; from other processes they arrive as signed control calls
 * (server/media-control.ts, ADR 032).
 */
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import { Server as SocketServer } from 'socket.io';
import { MEDIA_NAMESPACE, type IceServer } from '#core/contracts/media-signaling.ts';
import type { Config } from '#core/platform/config.ts';
import type { EventBus } from '#core/platform/events.ts';
import type { Clock } from '#core/platform/clock.ts';
import type { Logger } from '#core/platform/logger.ts';
import { TokenSigner } from '#core/platform/secrets.ts';
import type { MediaNodes } from '#core/rooms/media.service.ts';
import type { Database } from '#core/platform/db/database.ts';
import { MediaNodeRepository } from '#core/rooms/media-node.repository.ts';
import { randomUUID } from 'node:crypto';
import { MEDIA_CONTROL_PATH } from '#core/contracts/media-control.ts';
import { commandFromBus, mediaControlHandler, recentKicks } from './media-control.ts';
import { MediaServer } from '../media-server/server.ts';
import { attachSignaling } from '../media-server/signaling.ts';
import { ProbeEchoes } from '../media-server/probe.ts';
import type { RtcSettings } from '../media-server/rtc.ts';

export interface MediaRole {
  server: MediaServer;
  /** The UDP half of the network check (open probe connections). */
  probes: ProbeEchoes;
  url: string;
  nodeId: string;
  /** The signed control endpoint (ADR 032); the web role serves it when they share a port. */
  control(req: IncomingMessage, res: ServerResponse): void;
  close(): Promise<void>;
}

/** TURN/STUN for browsers, from MEDIA_ICE_SERVERS (a JSON array of RTCIceServer). */
export function iceServersFrom(config: Pick<Config, 'MEDIA_ICE_SERVERS'>): IceServer[] {
  if (!config.MEDIA_ICE_SERVERS) return [];
  const parsed = JSON.parse(config.MEDIA_ICE_SERVERS) as unknown;
  if (!Array.isArray(parsed)) throw new Error('MEDIA_ICE_SERVERS must be a JSON array');
  return parsed.map((s: { urls?: unknown; username?: unknown; credential?: unknown }) => {
    const urls = typeof s.urls === 'string' ? [s.urls] : Array.isArray(s.urls) ? s.urls.map(String) : [];
    if (!urls.length) throw new Error('MEDIA_ICE_SERVERS: every entry needs urls');
    return {
      urls,
      ...(typeof s.username === 'string' ? { username: s.username } : {}),
      ...(typeof s.credential === 'string' ? { credential: s.credential } : {}),
    };
  });
}

/** One media node for every room: this process (ROLE=all) or the node at MEDIA_PUBLIC_URL. */
export function singleMediaNode(config: Config): MediaNodes {
  const node = () => Promise.resolve({ nodeId: 'embedded', url: config.MEDIA_PUBLIC_URL ?? config.publicUrl });
  return { place: node, locate: node, all: async () => [await node()] };
}

export interface MediaDeps {
  config: Config;
  secret: string;
  logger: Logger;
  events: EventBus | null;
  /** With MEDIA_PLACEMENT=registry the node reports its load here. */
  db: Database | null;
  /** The signaling's rate windows (tests pass a ManualClock). */
  clock?: Clock;
}

export async function startMedia(deps: MediaDeps, shared: SocketServer | null): Promise<MediaRole> {
  const { config, logger } = deps;
  const rtc: RtcSettings = {
    listenIp: config.MEDIA_LISTEN_IP,
    announcedAddress: config.MEDIA_ANNOUNCED_ADDRESS ?? config.MEDIA_LISTEN_IP,
    portRange: [config.MEDIA_RTC_MIN_PORT, config.MEDIA_RTC_MAX_PORT],
  };
  // The process's one clock: the web side signs media tokens by it, so the node must read their
  // expiry by it too (on Date.now a test's standing clock made every token expired 120 s in).
  const now = deps.clock ? () => deps.clock!.now().getTime() : Date.now;
  const server = new MediaServer({ signer: new TokenSigner(deps.secret), tokenTtlSeconds: config.MEDIA_TOKEN_TTL_SECONDS, rtc, now });
  // Revocations from web nodes in other processes (ADR 032).
  const control = mediaControlHandler(server, deps.secret, logger);
  let http: HttpServer | null = null;
  let io = shared;
  let url = config.MEDIA_PUBLIC_URL ?? config.publicUrl;
  if (!io) {
    http = createServer((req, res) => {
      if ((req.url ?? '').split('?')[0] === MEDIA_CONTROL_PATH) return control(req, res);
      res.writeHead(404).end();
    });
    io = new SocketServer(http, { serveClient: false, maxHttpBufferSize: 256 * 1024, cors: { origin: true } });
    await new Promise<void>((resolve, reject) => {
      http!.once('error', reject);
      http!.listen(config.MEDIA_PORT, config.HOST, () => resolve());
    });
    const address = http.address();
    const port = typeof address === 'object' && address ? address.port : config.MEDIA_PORT;
    const host = config.HOST === '0.0.0.0' || config.HOST === '::' ? '127.0.0.1' : config.HOST;
    url = config.MEDIA_PUBLIC_URL ?? `http://${host}:${port}`;
  }
  const probes = new ProbeEchoes(rtc);
  const signaling = attachSignaling(io.of(MEDIA_NAMESPACE), server, logger, iceServersFrom(config), probes, deps.clock);

  // A node (re)starting in a registry shares the database: it holds the recent kick-outs at once (ADR 066).
  if (config.MEDIA_PLACEMENT === 'registry' && deps.db) {
    for (const cmd of await recentKicks(deps.db, new Date(now() - config.MEDIA_TOKEN_TTL_SECONDS * 1000))) server.apply(cmd);
  }

  const unsubscribe = deps.events?.subscribe((m) => {
    const cmd = commandFromBus(m);
    if (cmd) server.apply(cmd);
  });

  // Registry: report this node's load every MEDIA_REPORT_SECONDS; leave the registry on close.
  let report: NodeJS.Timeout | null = null;
  let nodes: MediaNodeRepository | null = null;
  const nodeId = config.MEDIA_NODE_ID ?? `media-${randomUUID().slice(0, 8)}`;
  if (config.MEDIA_PLACEMENT === 'registry' && deps.db) {
    const repo = (nodes = new MediaNodeRepository(deps.db));
    const send = () => {
      const load = server.load();
      return repo
        .report({ id: nodeId, url, peers: load.peers, rooms: load.rooms, capacity: config.MEDIA_CAPACITY, at: new Date() })
        .catch((err: unknown) => logger.warn({ err }, 'media node report failed'));
    };
    await send();
    report = setInterval(() => void send(), config.MEDIA_REPORT_SECONDS * 1000);
    report.unref();
  }

  return {
    server,
    probes,
    url,
    nodeId,
    control,
    async close() {
      if (report) clearInterval(report);
      await nodes?.remove(nodeId).catch(() => undefined);
      unsubscribe?.();
      signaling.close();
      probes.close();
      server.close();
      if (http) {
        await new Promise<void>((resolve) => {
          void io.close(() => resolve());
        });
        http.closeAllConnections();
      }
    },
  };
}
