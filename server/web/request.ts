/** Who is asking, in which language, from where: read once per request. */
import type { Request } from 'express';
import type { Lang } from '#core/platform/errors.ts';
import { LANG_COOKIE, SESSION_COOKIE, TOKEN_HEADER } from '#core/contracts/api.ts';

export function readCookie(req: Request, name: string): string | null {
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

export function requestLang(req: Request): Lang {
  const header = req.headers['lang'] ?? req.headers['language'];
  return (
    asLang(Array.isArray(header) ? header[0] : header) ??
    asLang(readCookie(req, LANG_COOKIE)) ??
    asLang(req.headers['accept-language']?.split(',')[0]) ??
    'zh'
  );
}

/** The API token header wins over the page cookie. */
export function requestToken(req: Request): string | null {
  const h = req.headers[TOKEN_HEADER];
  const header = Array.isArray(h) ? h[0] : h;
  if (header && header !== 'undefined' && header !== 'null') return header;
  return readCookie(req, SESSION_COOKIE);
}

export const requestIp = (req: Request): string => req.ip ?? req.socket.remoteAddress ?? 'unknown';
