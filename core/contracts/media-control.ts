/**
 * Media control: the web side (or a worker) tells the media node serving a room that rights were
 * taken back (ADR 032). One signed HTTP POST to `${nodeUrl}${MEDIA_CONTROL_PATH}` per command; the
 * body is JSON, the signature an HMAC-SHA256 of the exact body under a key derived from the shared
 * SESSION_SECRET. Commands are idempotent; a fresh `id` and `at` keep a captured call from being
 * replayed later.
 */
import { hmac, safeEqual } from '../platform/secrets.ts';

export const MEDIA_CONTROL_PATH = '/media/control';
export const MEDIA_CONTROL_VERSION = 1;
export const MEDIA_CONTROL_SIGNATURE_HEADER = 'x-banshu-signature';
/** A call older (or further in the future) than this is refused. */
export const MEDIA_CONTROL_WINDOW_MS = 60_000;
export const MEDIA_CONTROL_MAX_BYTES = 4096;

export type MediaControlCommand =
  /** A large-class student's microphone went back: they stop publishing (teacher unaffected). */
  | { op: 'micBack'; room: string; userId: string }
  /** Kick-out: every peer of that person leaves the room. */
  | { op: 'removeUser'; room: string; userId: string }
  /** The class ended: the room closes. */
  | { op: 'closeRoom'; room: string };

export type MediaControlMessage = MediaControlCommand & { v: typeof MEDIA_CONTROL_VERSION; id: string; at: number };

const ROOM = /^[A-Za-z0-9]{6,10}$/;
const USER = /^[A-Za-z0-9_-]{1,64}$/;
const ID = /^[A-Za-z0-9-]{8,64}$/;

export const controlKey = (secret: string): string => hmac(secret, 'media-control');
export const signControl = (secret: string, body: string): string => hmac(controlKey(secret), body);

/** The command of a signed, fresh, well-formed body; null otherwise. */
export function verifyControl(secret: string, body: string, signature: unknown, nowMs: number): MediaControlMessage | null {
  if (typeof signature !== 'string' || body.length > MEDIA_CONTROL_MAX_BYTES) return null;
  if (!safeEqual(signControl(secret, body), signature)) return null;
  let m: Record<string, unknown>;
  try {
    m = JSON.parse(body) as Record<string, unknown>;
  } catch {
    return null;
  }
  if (!m || typeof m !== 'object' || m['v'] !== MEDIA_CONTROL_VERSION) return null;
  if (typeof m['id'] !== 'string' || !ID.test(m['id'])) return null;
  if (typeof m['at'] !== 'number' || Math.abs(nowMs - m['at']) > MEDIA_CONTROL_WINDOW_MS) return null;
  if (typeof m['room'] !== 'string' || !ROOM.test(m['room'])) return null;
  if (m['op'] === 'closeRoom') return { v: 1, id: m['id'], at: m['at'], op: 'closeRoom', room: m['room'] };
  if ((m['op'] === 'micBack' || m['op'] === 'removeUser') && typeof m['userId'] === 'string' && USER.test(m['userId'])) {
    return { v: 1, id: m['id'], at: m['at'], op: m['op'], room: m['room'], userId: m['userId'] };
  }
  return null;
}
