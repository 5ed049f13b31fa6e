/**
 * Same-origin writes (ADR 060): the session cookie is SameSite=Lax, and every port of a host is the
 * same site, so a page elsewhere on the host (or a sibling subdomain) could otherwise drive the
 * API, page actions and socket handshakes with the user's cookie. A request is accepted when the
 * browser says it comes from the product's own pages, or when it is not a browser's at all.
 */
import type { IncomingMessage } from 'node:http';
import { TOKEN_HEADER } from '#core/contracts/api.ts';

const first = (h: string | string[] | undefined): string | undefined => (Array.isArray(h) ? h[0] : h);

function originOf(url: string): string | null {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

export type OriginVerdict = 'same-origin' | 'api-client' | 'cross-origin';

/**
 * Who sent this request, as far as the browser tells:
 * - a `token` header: an API client (a page cannot add it cross-origin without a CORS preflight we never grant);
 * - `Sec-Fetch-Site` (set by the browser, not by the page): only `same-origin` and `none` (typed or bookmarked) pass;
 * - else `Origin`: must be PUBLIC_URL's origin (`null`, an opaque origin, never is);
 * - else `Referer`, for the old browsers that sent neither on a form post: its origin must be ours;
 * - else nothing: not a browser (browsers send Origin on every cross-origin POST and WebSocket handshake).
 */
export function originVerdict(req: IncomingMessage, publicUrl: string): OriginVerdict {
  const token = first(req.headers[TOKEN_HEADER]);
  if (token && token !== 'undefined' && token !== 'null') return 'api-client';
  const site = first(req.headers['sec-fetch-site']);
  if (site !== undefined) return site === 'same-origin' || site === 'none' ? 'same-origin' : 'cross-origin';
  const ours = originOf(publicUrl);
  const origin = first(req.headers['origin']);
  if (origin !== undefined) return origin === ours ? 'same-origin' : 'cross-origin';
  const referer = first(req.headers['referer']);
  if (referer !== undefined) return originOf(referer) === ours ? 'same-origin' : 'cross-origin';
  return 'api-client';
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Paths authenticated by a signature, not by the cookie (payment gateways' notices, signed object links). */
const SIGNED_PATHS = [/^\/payments\/notify\//, /^\/objects\//];

/** Must this request be refused as a cross-site write? (Reads are not checked: they change nothing.) */
export function isCrossSiteWrite(req: IncomingMessage, publicUrl: string): boolean {
  if (SAFE_METHODS.has(req.method ?? 'GET')) return false;
  const path = req.url ?? '/';
  if (SIGNED_PATHS.some((p) => p.test(path))) return false;
  return originVerdict(req, publicUrl) === 'cross-origin';
}

/** Text of the 403 answer, for people reading it in the network panel. */
export const CROSS_SITE_REFUSED = 'Cross-site request refused: writes are accepted from this site’s own pages only';
