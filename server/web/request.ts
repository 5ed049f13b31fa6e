/** Who is asking, in which language, from where: read once per request. */
import type { IncomingMessage } from 'node:http';
import type { Lang } from '#core/platform/errors.ts';
import { LANG_COOKIE, SESSION_COOKIE, TOKEN_HEADER } from '#core/contracts/api.ts';

export function readCookie(req: IncomingMessage, name: string): string | null {
  const header = req.headers.cookie;
  if (!header || header.length > 8192) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) {
      try {
        return decodeURIComponent(part.slice(eq + 1).trim());
      } catch {
        return null;
      }
    }
  }
  return null;
}

const asLang = (v: string | null | undefined): Lang | null => {
  if (!v) return null;
  const s = v.toLowerCase();
  if (s.startsWith('en')) return 'en';
  if (s.startsWith('zh')) return 'zh';
  return null;
};

const first = (h: string | string[] | undefined): string | undefined => (Array.isArray(h) ? h[0] : h);

export function requestLang(req: IncomingMessage): Lang {
  return (
    asLang(first(req.headers['lang'] ?? req.headers['language'])) ??
    asLang(readCookie(req, LANG_COOKIE)) ??
    asLang(req.headers['accept-language']?.split(',')[0]) ??
    'zh'
  );
}

/** The API token header wins over the page cookie. */
export function requestToken(req: IncomingMessage): string | null {
  const header = first(req.headers[TOKEN_HEADER]);
  if (header && header !== 'undefined' && header !== 'null') return header;
  return readCookie(req, SESSION_COOKIE);
}

/** The client address; behind a proxy we trust (TRUST_PROXY), the address it reports in X-Real-IP. */
export function requestIp(req: IncomingMessage, trustProxy: boolean): string {
  if (trustProxy) {
    const real = first(req.headers['x-real-ip'])?.trim();
    if (real && real.length <= 64) return real;
  }
  return req.socket.remoteAddress ?? 'unknown';
}
