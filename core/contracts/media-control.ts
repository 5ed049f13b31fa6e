/**
 * Media control: the web side (or a worker) tells the media node serving a room that rights were
 * taken back (ADR 032). One signed HTTP POST to `${nodeUrl}${MEDIA_CONTROL_PATH}` per command; the
 * body is JSON, the signature an HMAC-SHA256 of the exact body under a key derived from the shared
 * SESSION_SECRET. Commands are idempotent; a fresh `id` and `at` keep a captured call from being
 * replayed later.
 */
import { z } from 'zod';
import { hmac, safeEqual } from '../platform/secrets.ts';
import { GROUPS_MAX } from './groups.ts';

export const MEDIA_CONTROL_PATH = '/media/control';
export const MEDIA_CONTROL_VERSION = 1;
export const MEDIA_CONTROL_SIGNATURE_HEADER = 'x-banshu-signature';
/** A call older (or further in the future) than this is refused. */
export const MEDIA_CONTROL_WINDOW_MS = 60_000;
/** A whole class's breakout-group map (issue 31) fits: 16 students in each of 12 groups and the teacher, with room to spare. */
export const MEDIA_CONTROL_MAX_BYTES = 32 * 1024;

const room = z.string().regex(/^[A-Za-z0-9]{6,10}$/);
const userId = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/);

export const mediaControlCommandSchema = z.discriminatedUnion('op', [
  /** Kick-out: every peer of that person leaves the room. */
  z.strictObject({ op: z.literal('removeUser'), room, userId }),
  /** The class ended: the room closes. */
  z.strictObject({ op: z.literal('closeRoom'), room }),
  /** The class mode changed (ADR 099): lecture holds the students' microphones, discuss gives them back. */
  z.strictObject({ op: z.literal('mode'), room, mode: z.enum(['discuss', 'lecture']) }),
  /**
   * Who is on the room's stage now (ADR 112), the whole set: they may speak in lecture mode, and a
   * large class's students among them send. `off`: those who just left it; their rights go back at
   * once and a token they hold from before cannot bring them back (held like a revocation).
   */
  z.strictObject({ op: z.literal('stage'), room, userIds: z.array(userId).max(64), off: z.array(userId).max(64) }),
  /**
   * The room's breakout groups (issue 31, ADR 117), the whole map: each person in a group and its
   * number (the teacher too while visiting one); everyone else is in the main room (0). Empty
   * when no groups run. The node forwards media only within a space. `serverTime` is the groups
   * event's: calls to a remote node may cross (two changes a moment apart, or retries), so a map
   * older than the last one applied is ignored.
   */
  z.strictObject({
    op: z.literal('groups'),
    room,
    serverTime: z.number(),
    spaces: z.array(z.tuple([userId, z.number().int().min(1).max(GROUPS_MAX)])).max(1000),
  }),
]);
export type MediaControlCommand = z.infer<typeof mediaControlCommandSchema>;

const envelope = { v: z.literal(MEDIA_CONTROL_VERSION), id: z.string().regex(/^[A-Za-z0-9-]{8,64}$/), at: z.number() };

/** A whole call: the command with its version, id and time. */
export const mediaControlMessageSchema = z.discriminatedUnion('op', [
  mediaControlCommandSchema.options[0].extend(envelope),
  mediaControlCommandSchema.options[1].extend(envelope),
  mediaControlCommandSchema.options[2].extend(envelope),
  mediaControlCommandSchema.options[3].extend(envelope),
  mediaControlCommandSchema.options[4].extend(envelope),
]);
export type MediaControlMessage = z.infer<typeof mediaControlMessageSchema>;

export const controlKey = (secret: string): string => hmac(secret, 'media-control');
export const signControl = (secret: string, body: string): string => hmac(controlKey(secret), body);

/** The command of a signed, fresh, well-formed body; null otherwise. */
export function verifyControl(secret: string, body: string, signature: unknown, nowMs: number): MediaControlMessage | null {
  if (typeof signature !== 'string' || body.length > MEDIA_CONTROL_MAX_BYTES) return null;
  if (!safeEqual(signControl(secret, body), signature)) return null;
  let raw: unknown;
  try {
    raw = JSON.parse(body);
  } catch {
    return null;
  }
  const m = mediaControlMessageSchema.safeParse(raw);
  if (!m.success || Math.abs(nowMs - m.data.at) > MEDIA_CONTROL_WINDOW_MS) return null;
  return m.data;
}
