/**
 * The one name rule of docs/product/decisions.md: trimmed, 1 to 10 characters of Chinese or Latin letters,
 * digits and single spaces.
 */
const NAME_RE = /^[\p{Script=Han}A-Za-z0-9]+(?: [\p{Script=Han}A-Za-z0-9]+)*$/u;
export const NAME_MAX = 10;

export type NameCheck = { ok: true; name: string } | { ok: false; reason: 'empty' | 'invalid' };

export function checkName(raw: string): NameCheck {
  const name = raw.trim();
  if (name === '') return { ok: false, reason: 'empty' };
  if ([...name].length > NAME_MAX || !NAME_RE.test(name)) return { ok: false, reason: 'invalid' };
  return { ok: true, name };
}

/** Join box: keep letters and digits only, at most 10 (docs/product/01-account-and-lobby.md §5, newer join box). */
export function cleanRoomNumber(raw: string): string {
  return raw.replace(/[^A-Za-z0-9]/g, '').slice(0, 10);
}

export function isValidRoomNumber(value: string): boolean {
  return /^[A-Za-z0-9]{6,10}$/.test(value);
}

/** Route ids: 1 to 10 digits (docs/product/01-account-and-lobby.md §5). */
export function isRouteRoomId(value: string | undefined): value is string {
  return value !== undefined && /^\d{1,10}$/.test(value);
}

/** Only same-site paths are remembered as a login target (no //host, no scheme). */
export function safeRedirect(target: string | null | undefined, fallback = '/'): string {
  if (!target || !target.startsWith('/') || target.startsWith('//') || target.startsWith('/\\')) return fallback;
  try {
    const url = new URL(target, 'http://same.site');
    if (url.origin !== 'http://same.site') return fallback;
    return url.pathname + url.search + url.hash;
  } catch {
    return fallback;
  }
}

/** The recording studio's number: 8 random digits made in the browser (docs/product/01-account-and-lobby.md §4). */
export function studioNumber(): string {
  const bytes = crypto.getRandomValues(new Uint32Array(8));
  let out = String(1 + (bytes[0]! % 9));
  for (let i = 1; i < 8; i++) out += String(bytes[i]! % 10);
  return out;
}

/** /login remembering a same-site target; slashes stay readable in the address bar. */
export function loginPath(target: string): string {
  return `/login?redirect=${encodeURIComponent(target).replace(/%2F/gi, '/')}`;
}
