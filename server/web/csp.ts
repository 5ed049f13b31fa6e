/**
 * The Content-Security-Policy of every response (ADR 067). Pages: scripts only from this origin
 * and with the request's nonce (React Router's inline hydration scripts carry it), no plugins, no
 * framing, forms and <base> to this origin only; connections to this origin (socket.io over ws/wss
 * too), the media nodes and the object store; images and media also from blob:, data: and the
 * object store. API answers are JSON and never rendered: they allow nothing at all.
 */
import { randomBytes } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import type { Config } from '#core/platform/config.ts';
import type { Database } from '#core/platform/db/database.ts';
import type { Logger } from '#core/platform/logger.ts';
import { MediaNodeRepository } from '#core/rooms/media-node.repository.ts';

export const CSP_HEADER = 'Content-Security-Policy';

/** For /api answers: JSON is data, nothing in it may load, run or be framed. */
export const API_POLICY = "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** A fresh nonce per page response (128 bits, base64). */
export function newNonce(): string {
  return randomBytes(16).toString('base64');
}

/** The http(s) origin of a URL and its ws(s) twin (socket.io upgrades to a websocket); [] for anything else. */
export function originsOf(url: string | undefined | null): string[] {
  if (!url) return [];
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return [];
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return [];
  return [u.origin, `${u.protocol === 'https:' ? 'wss:' : 'ws:'}//${u.host}`];
}

export interface PageSources {
  /** Where this site is reached (PUBLIC_URL); 'self' covers the request's own origin. */
  site?: string | undefined;
  /** Media node URLs (MEDIA_PUBLIC_URL, the registry's nodes). */
  media: readonly string[];
  /** The object store's endpoint for presigned uploads and downloads (S3_ENDPOINT); the disk store is this origin. */
  objects?: string | undefined;
  /**
   * Development (Vite middleware): Vite injects the CSS as <style> elements without a nonce and
   * talks to its HMR server over a websocket on another port.
   */
  dev?: boolean;
}

/** The page policy for one response. */
export function pagePolicy(nonce: string, s: PageSources): string {
  const unique = (xs: string[]) => [...new Set(xs)];
  const store = s.objects ? originsOf(s.objects).slice(0, 1) : [];
  // The disk store signs its links with PUBLIC_URL, which need not be the origin the page was reached on.
  const disk = originsOf(s.site).slice(0, 1);
  const connect = unique(["'self'", ...originsOf(s.site), ...s.media.flatMap(originsOf), ...store, ...(s.dev ? ['ws:'] : [])]);
  const directives: Array<[string, string[]]> = [
    ['default-src', ["'self'"]],
    ['script-src', ["'self'", `'nonce-${nonce}'`]],
    ['style-src', s.dev ? ["'self'", "'unsafe-inline'"] : ["'self'", `'nonce-${nonce}'`]],
    ['img-src', ["'self'", 'blob:', 'data:', ...store]],
    ['media-src', unique(["'self'", 'blob:', 'data:', ...disk, ...store])],
    ['connect-src', connect],
    ['worker-src', ["'self'"]],
    ['object-src', ["'none'"]],
    ['base-uri', ["'self'"]],
    ['frame-ancestors', ["'none'"]],
    ['form-action', ["'self'"]],
  ];
  return directives.map(([name, values]) => `${name} ${values.join(' ')}`).join('; ');
}

export interface PagePolicies {
  /** The policy for a page answer with this nonce. */
  page(nonce: string): string;
  /** Express middleware: a nonce in `res.locals.cspNonce` and the page policy on the response. */
  middleware: (req: Request, res: Response, next: NextFunction) => void;
  close(): void;
}

/**
 * The page policy of this web node. With the registry (MEDIA_PLACEMENT=registry) the media nodes
 * report their URLs in the database: the list is read at start and every MEDIA_REPORT_SECONDS,
 * so a node that joins is allowed within one report period.
 */
export async function pagePolicies(config: Config, db: Database | null, logger: Logger, dev = false): Promise<PagePolicies> {
  const fixed = config.MEDIA_PUBLIC_URL ? [config.MEDIA_PUBLIC_URL] : [];
  let registry: string[] = [];
  let timer: NodeJS.Timeout | null = null;
  if (config.MEDIA_PLACEMENT === 'registry' && db) {
    const nodes = new MediaNodeRepository(db);
    const read = () =>
      nodes
        .urls()
        .then((urls) => {
          registry = urls;
        })
        .catch((err: unknown) => logger.warn({ err }, 'csp: media nodes not read'));
    await read();
    timer = setInterval(() => void read(), config.MEDIA_REPORT_SECONDS * 1000);
    timer.unref();
  }
  const page = (nonce: string) =>
    pagePolicy(nonce, { site: config.PUBLIC_URL, media: [...fixed, ...registry], objects: config.S3_ENDPOINT, dev });
  return {
    page,
    middleware: (_req, res, next) => {
      const nonce = newNonce();
      res.locals['cspNonce'] = nonce;
      res.set(CSP_HEADER, page(nonce));
      next();
    },
    close() {
      if (timer) clearInterval(timer);
    },
  };
}
