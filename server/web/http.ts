/**
 * The web role: one Node HTTP server carrying the pages (React Router), the /api contract, signed
 * object downloads and the realtime channel (socket.io).
 */
import { existsSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import express, { type Request, type Response } from 'express';
import { RouterContextProvider, type ServerBuild } from 'react-router';
import { Server as SocketServer } from 'socket.io';
import { appContext, type AppContext } from '#app/context.ts';
import type { Platform } from '../platform.ts';
import { createApiHandler } from './api.ts';
import { attachRoomChannel } from './room-channel.ts';
import { attachUserChannel } from './user-channel.ts';
import { mountPayments } from './payments.ts';
import { mountSiteRoutes } from './site-routes.ts';
import { createPageHandler } from './pages.ts';
import { requestIp, requestLang, requestToken } from './request.ts';
import { attachBoardChannel } from './board-channel.ts';
import { boardImageRoutes } from './board-images.ts';
import { socketParser } from './socket-parser.ts';
import { MEDIA_CONTROL_PATH } from '#core/contracts/media-control.ts';
import { ObjectTooLarge, attachmentDisposition, diskPartOf, parseRange } from '#core/platform/objects.ts';
import { messageFor } from '#core/platform/errors.ts';
import { connectRedisAdapter } from '../redis.ts';
import { connectBoardOpRelay } from '../board-relay.ts';
import { attachClosedRooms } from '../closed-rooms.ts';
import { CROSS_SITE_REFUSED, isCrossSiteWrite, originVerdict } from './same-origin.ts';

/** 403 before anything is read: the /api envelope (code '8', illegal request) or plain text. */
function refuseCrossSite(req: IncomingMessage, res: ServerResponse, api: boolean): void {
  req.resume();
  const lang = requestLang(req);
  const body = api ? JSON.stringify({ code: '8', msg: messageFor('8', lang), data: null }) : CROSS_SITE_REFUSED;
  res.writeHead(403, {
    'Content-Type': api ? 'application/json; charset=utf-8' : 'text/plain; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
    Connection: 'close',
  });
  res.end(body);
}
import { API_POLICY, CSP_HEADER, pagePolicies } from './csp.ts';

export interface WebServer {
  http: HttpServer;
  /** Serves the media control endpoint (ADR 032) when the SFU shares this port (ROLE=all). */
  setMediaControl(handler: (req: IncomingMessage, res: ServerResponse) => void): void;
  io: SocketServer;
  url: string;
  close(): Promise<void>;
}

export interface WebOptions {
  /** Production: the built server bundle. Development: Vite in middleware mode. None: API only (tests, benchmarks). */
  mode: 'build' | 'dev' | 'none';
  buildDir?: string;
}

async function loadContext(platform: Platform, req: Request, nonce?: string): Promise<AppContext> {
  const token = requestToken(req);
  const viewer = token ? await platform.services.account.authenticate(token).catch(() => null) : null;
  return {
    services: platform.services,
    viewer,
    sessionToken: viewer ? token : null,
    lang: requestLang(req),
    site: { publicUrl: platform.config.publicUrl, devOutbox: platform.config.devOutbox, production: platform.config.production },
    ip: requestIp(req, platform.config.TRUST_PROXY),
    nonce,
  };
}

/**
 * A browser's upload to the disk store with a URL signed by createUpyunSign (ADR 040): the key,
 * expiry, exact size and content type are signed; the body is streamed to the store and refused
 * as soon as it passes the size; an object is written once, and only while its document awaits
 * the upload (a signed link cannot replace or add a file once it was registered or cancelled).
 */
async function putObject(platform: Platform, req: Request, res: Response): Promise<void> {
  const disk = platform.diskObjects;
  const refuse = (status: number, text: string) => {
    req.resume();
    res.status(status).set('Connection', 'close').type('text/plain').send(text);
  };
  let key: string;
  try {
    key = decodeURIComponent((req.params as Record<string, string>)[0] ?? '');
  } catch {
    return refuse(400, 'bad key');
  }
  const { exp, size, sig } = req.query;
  const contentType = String(req.headers['content-type'] ?? '');
  if (
    !disk ||
    typeof exp !== 'string' ||
    typeof size !== 'string' ||
    typeof sig !== 'string' ||
    !disk.verifyPut(key, exp, size, contentType, sig)
  ) {
    return refuse(403, 'link expired or invalid');
  }
  const max = Number(size);
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > max) return refuse(413, 'larger than signed');
  if (declared !== undefined && Number(declared) !== max) return refuse(400, 'not the signed size');
  // A part of a studio upload (ADR 086) may be sent again (a retry whose answer was lost), as S3
  // allows, while its upload is open; a courseware file is written once, while its document awaits it.
  const part = diskPartOf(key);
  if (part) {
    if (!(await disk.multipartOf(part.uploadId))) return refuse(410, 'upload closed');
  } else {
    if (await disk.head(key)) return refuse(409, 'already uploaded');
    // Registered or cancelled: the link is spent even before it expires (ADR 056).
    if (!(await platform.services.courseware.awaitsUpload(key))) return refuse(410, 'upload closed');
  }
  let written: { size: number; md5: string };
  try {
    written = await disk.putStream(key, req, contentType, max);
  } catch (err) {
    if (err instanceof ObjectTooLarge) {
      if (!res.headersSent) res.status(413).set('Connection', 'close').type('text/plain').send('larger than signed');
      return;
    }
    if (!res.headersSent) res.status(400).set('Connection', 'close').type('text/plain').send('upload interrupted');
    return;
  }
  if (written.size !== max) {
    await disk.delete(key);
    return refuse(400, 'not the signed size');
  }
  res.status(200).set('ETag', `"${written.md5}"`).type('text/plain').send('ok');
}

/** The 4xx status a body parser (or Express) gave an error it raised for the client's request, else null. */
function clientErrorStatus(err: unknown): number | null {
  if (typeof err !== 'object' || err === null) return null;
  const { status, expose } = err as { status?: unknown; expose?: unknown };
  // http-errors marks client errors `expose`; the router's undecodable parameter only sets its status.
  return typeof status === 'number' && status >= 400 && status < 500 && expose !== false ? status : null;
}

function clientErrorText(status: number): string {
  if (status === 413) return 'Request body too large';
  if (status === 415) return 'Unsupported content type or charset';
  return 'Malformed request (bad key or body)';
}

export async function startWeb(platform: Platform, opts: WebOptions): Promise<WebServer> {
  const { config, logger } = platform;
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', config.TRUST_PROXY ? 'loopback, linklocal, uniquelocal' : false);
  app.use((_req, res, next) => {
    res.set('X-Content-Type-Options', 'nosniff');
    res.set('Referrer-Policy', 'same-origin');
    res.set('X-Frame-Options', 'SAMEORIGIN');
    next();
  });
  // Content-Security-Policy with a per-response nonce (ADR 067).
  const csp = await pagePolicies(config, platform.database.db, logger, opts.mode === 'dev');
  app.use(csp.middleware);

  app.get('/healthz', (_req, res) => {
    res.json({ ok: true, database: platform.database.kind, role: config.ROLE });
  });

  app.get(/^\/objects\/(.+)$/, async (req: Request, res: Response) => {
    const disk = platform.diskObjects;
    let key: string;
    try {
      key = decodeURIComponent((req.params as Record<string, string>)[0] ?? '');
    } catch {
      res.status(400).type('text/plain').send('bad key');
      return;
    }
    const { exp, sig, dl } = req.query;
    const downloadName = typeof dl === 'string' ? dl : undefined;
    if (
      !disk ||
      typeof exp !== 'string' ||
      typeof sig !== 'string' ||
      (dl !== undefined && downloadName === undefined) ||
      !disk.verify(key, exp, sig, downloadName)
    ) {
      res.status(403).type('text/plain').send('link expired or invalid');
      return;
    }
    const info = await disk.head(key);
    if (!info) {
      res.status(404).type('text/plain').send('not found');
      return;
    }
    res.set('Content-Type', info.contentType).set('Cache-Control', 'private, max-age=300').set('Accept-Ranges', 'bytes');
    if (downloadName !== undefined) res.set('Content-Disposition', attachmentDisposition(downloadName));
    // One byte range (a player seeking in a recording); anything else gets the whole object.
    const range = parseRange(req.headers.range, info.size);
    if (range === 'bad') {
      res.status(416).set('Content-Range', `bytes */${info.size}`).end();
      return;
    }
    if (range) {
      res
        .status(206)
        .set('Content-Range', `bytes ${range.start}-${range.end}/${info.size}`)
        .set('Content-Length', String(range.end - range.start + 1));
      await pipeline(disk.getRange(key, range.start, range.end), res).catch(() => res.destroy());
      return;
    }
    const obj = await disk.get(key);
    if (!obj) {
      res.status(404).type('text/plain').send('not found');
      return;
    }
    res.set('Content-Length', String(obj.info.size));
    await pipeline(obj.stream, res).catch(() => res.destroy());
  });
  app.put(/^\/objects\/(.+)$/, (req: Request, res: Response, next: express.NextFunction) => {
    putObject(platform, req, res).catch(next);
  });

  mountPayments(app, platform);
  mountSiteRoutes(app, platform);
  app.use(boardImageRoutes(platform));

  const getLoadContext = async (req: Request, res: Response) => {
    const provider = new RouterContextProvider();
    provider.set(appContext, await loadContext(platform, req, res.locals['cspNonce'] as string));
    return provider;
  };

  let closeVite: (() => Promise<void>) | null = null;
  if (opts.mode === 'dev') {
    const vite = await import('vite');
    const server = await vite.createServer({ server: { middlewareMode: true }, appType: 'custom' });
    closeVite = () => server.close();
    app.use(server.middlewares);
    const build = async () => (await server.ssrLoadModule('virtual:react-router/server-build')) as ServerBuild;
    app.all(/.*/, createPageHandler({ build, getLoadContext, mode: 'development' }));
  } else if (opts.mode === 'build') {
    const buildDir = path.resolve(opts.buildDir ?? 'build');
    const entry = path.join(buildDir, 'server/index.js');
    if (!existsSync(entry)) throw new Error(`The pages are not built (${entry} is missing): run \`npm run build\` (npm start does it).`);
    const build = (await import(entry)) as ServerBuild;
    app.use('/assets', express.static(path.join(buildDir, 'client/assets'), { immutable: true, maxAge: '1y', index: false }));
    app.use(express.static(path.join(buildDir, 'client'), { maxAge: '1h', index: false }));
    // Page actions' bodies are checked before any route runs (ADR 098).
    app.all(/.*/, createPageHandler({ build, getLoadContext, mode: config.production ? 'production' : 'development' }));
  }

  // Last resort: never a stack trace to the client. A body parser's refusal (too large, not
  // decodable, unsupported charset) is the client's mistake: its 4xx with a plain sentence.
  app.use((err: unknown, _req: Request, res: Response, _next: express.NextFunction) => {
    const status = clientErrorStatus(err);
    if (status) {
      if (!res.headersSent) res.status(status).set('Connection', 'close').type('text/plain').send(clientErrorText(status));
      return;
    }
    logger.error({ err }, 'request failed');
    if (!res.headersSent) res.status(500).type('text/plain').send('Internal error');
  });

  // /api/* is most of the traffic: it is served on bare node:http, pages and files by Express.
  const api = createApiHandler(platform.services, config, logger);
  let mediaControl: ((req: IncomingMessage, res: ServerResponse) => void) | null = null;
  const http = createServer((req, res) => {
    const url = req.url ?? '/';
    if (mediaControl && url.split('?')[0] === MEDIA_CONTROL_PATH) return mediaControl(req, res);
    // Before any body is read or any cookie is believed (ADR 060).
    if (isCrossSiteWrite(req, config.publicUrl)) return refuseCrossSite(req, res, url.startsWith('/api/'));
    if (url.startsWith('/api/')) {
      res.setHeader(CSP_HEADER, API_POLICY);
      const q = url.indexOf('?');
      const name = url.slice(5, q < 0 ? undefined : q);
      api(req, res, name, new URLSearchParams(q < 0 ? '' : url.slice(q + 1))).catch((err: unknown) => {
        logger.error({ err }, 'api transport failed');
        if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'application/json' });
        res.end('{"code":"9","msg":"Service exception","data":null}');
      });
      return;
    }
    app(req, res);
  });
  // Distributed (REDIS_URL, ADR 053): rooms, fetchSockets and disconnects span every web node.
  const redis = config.REDIS_URL ? await connectRedisAdapter(config.REDIS_URL, logger) : null;
  const io = new SocketServer(http, {
    serveClient: false,
    maxHttpBufferSize: 1_000_000,
    parser: socketParser,
    // Every namespace's handshake (polling and WebSocket): a page of another origin cannot open the user's sockets (ADR 060).
    allowRequest: (req, callback) => callback(null, originVerdict(req, config.publicUrl) !== 'cross-origin'),
    ...(redis ? { adapter: redis.adapter } : {}),
  });
  const channel = attachRoomChannel(io, platform);
  const userChannel = attachUserChannel(io, platform);
  const boardChannel = attachBoardChannel(io, platform);
  // Distributed: each node hears the board operations the others store, in order (ADR 096), and
  // disconnects its own sockets of a room another process closed.
  const boardRelay = config.REDIS_URL ? await connectBoardOpRelay(config.REDIS_URL, platform.services.board.log, logger) : null;
  const closedRooms = attachClosedRooms(io, platform);

  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(config.PORT, config.HOST, () => {
      http.off('error', reject);
      resolve();
    });
  });
  const address = http.address();
  const port = typeof address === 'object' && address ? address.port : config.PORT;
  const shownHost = config.HOST === '0.0.0.0' || config.HOST === '::' ? '127.0.0.1' : config.HOST;
  const url = `http://${shownHost}:${port}`;

  return {
    http,
    io,
    url,
    setMediaControl(handler) {
      mediaControl = handler;
    },
    async close() {
      csp.close();
      channel.close();
      userChannel.close();
      boardChannel.close();
      closedRooms.close();
      await boardRelay?.close();
      await new Promise<void>((resolve) => {
        void io.close(() => resolve());
      });
      await redis?.close();
      http.closeAllConnections();
      await closeVite?.();
    },
  };
}
