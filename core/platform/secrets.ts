import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** A 256-bit random token, hex encoded (64 characters). */
export const newToken = (): string => randomBytes(32).toString('hex');
export const TOKEN_RULE = /^[0-9a-f]{64}$/;
export const sha256 = (s: string): string => createHash('sha256').update(s).digest('hex');
export const hmac = (secret: string, s: string): string => createHmac('sha256', secret).update(s).digest('base64url');

export function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * Compact signed tokens (payload.signature, both base64url) for the room channel, the board and
 * later the media node. Not a session: short-lived, scoped, verified without the database.
 */
export class TokenSigner {
  private readonly secret: string;
  constructor(secret: string) {
    this.secret = secret;
  }

  sign(payload: Record<string, unknown>, ttlSeconds: number, nowMs = Date.now()): string {
    const body = Buffer.from(JSON.stringify({ ...payload, exp: Math.floor(nowMs / 1000) + ttlSeconds })).toString('base64url');
    return `${body}.${hmac(this.secret, body)}`;
  }

  verify<T extends Record<string, unknown>>(token: string, nowMs = Date.now()): (T & { exp: number }) | null {
    if (typeof token !== 'string' || token.length > 4096) return null;
    const [body, sig, extra] = token.split('.');
    if (!body || !sig || extra !== undefined) return null;
    if (!safeEqual(hmac(this.secret, body), sig)) return null;
    try {
      const payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as T & { exp: number };
      if (typeof payload.exp !== 'number' || payload.exp * 1000 < nowMs) return null;
      return payload;
    } catch {
      return null;
    }
  }
}
