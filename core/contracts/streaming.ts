/**
 * Live streaming of a class to a video platform (issue 14, ADR 084): the stream key's rule, shared
 * by the teacher's dialog and the server, and how a platform's ingest address and a key make the
 * address the recorder pushes to. liveState: '0' idle, '2' starting, '1' live.
 */
import { z } from 'zod';

export type LiveState = '0' | '1' | '2';

/** The dialog's messages (docs/product: the live stream key). */
export const STREAM_KEY_EMPTY = 'Key can not null';
export const STREAM_KEY_MALFORMED = 'The secret key was filled out incorrectly. Please re-enter it.';

/**
 * Groups of 4 letters or digits joined by hyphens: at least two groups (a single group is not a
 * platform's key), at most eight (YouTube's keys have four or five). Spaces around it are the
 * paste's, not the key's.
 */
const STREAM_KEY = /^[A-Za-z0-9]{4}(?:-[A-Za-z0-9]{4}){1,7}$/;

export type StreamKeyProblem = 'empty' | 'malformed';

export function streamKeyProblem(raw: string): StreamKeyProblem | null {
  const key = raw.trim();
  if (key === '') return 'empty';
  return STREAM_KEY.test(key) ? null : 'malformed';
}

export const streamKeySchema = z
  .string()
  .max(64)
  .transform((s) => s.trim())
  .refine((s) => streamKeyProblem(s) === null, { message: STREAM_KEY_MALFORMED });

/** An operator's ingest address: rtmp:// or rtmps://, a host, an application path, no query, no credentials. */
export function ingestUrlProblem(raw: string): string | null {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return 'not a URL';
  }
  if (u.protocol !== 'rtmp:' && u.protocol !== 'rtmps:') return 'not rtmp:// or rtmps://';
  if (!u.hostname) return 'no host';
  if (u.username || u.password) return 'credentials in the URL';
  if (u.search || u.hash) return 'a query or fragment';
  if (u.pathname.split('/').filter(Boolean).length === 0) return 'no application path';
  return null;
}

/**
 * A full push address pasted for the 'custom' platform, as the dialog and the server check it: an
 * ingest address (ingestUrlProblem) with the key as its last part, so at least two path parts.
 */
export function customPushUrlProblem(raw: string): 'empty' | 'malformed' | null {
  const url = raw.trim();
  if (url === '') return 'empty';
  if (ingestUrlProblem(url) !== null) return 'malformed';
  return new URL(url).pathname.split('/').filter(Boolean).length >= 2 ? null : 'malformed';
}

/** The address the recorder pushes to: the platform's ingest address and the key as its last part. */
export function pushUrl(ingest: string, key: string): string {
  return `${ingest.replace(/\/+$/, '')}/${encodeURIComponent(key.trim())}`;
}

/** What the dialog offers: the operator's platforms by name, and 'custom' (a full address) when allowed. */
export const CUSTOM_PLATFORM = 'custom';

/** The client's waits before a start or an end call (docs/product: live start 300 ms, end 200 ms). */
export const LIVE_START_DEBOUNCE_MS = 300;
export const LIVE_END_DEBOUNCE_MS = 200;

/** How a push ended without the teacher: the platform refused the key, it stayed unreachable, no recorder took it. */
export type LiveFailure = 'refused' | 'unreachable' | 'timeout' | 'failed';

/**
 * The live push of a room as everyone in it sees it (never the key nor the address). startedAt:
 * when it went live (ms epoch, server time), null before; kbps: the push's bitrate lately, 0 when
 * unknown; reconnecting: the platform was lost and the recorder is trying again; failure: set with
 * liveState '0' when it ended on its own.
 */
export interface LiveStatus {
  taskId: string;
  liveState: LiveState;
  platform: string;
  startedAt: number | null;
  kbps: number;
  reconnecting: boolean;
  failure?: LiveFailure;
}

export interface LiveApiAnswers {
  /** The creator starts the push: liveState '2' until a recorder is live on the platform. */
  startLive: { taskId: string };
  /** The creator ends it: liveState '0'. */
  endLive: Record<string, never>;
  /** Anyone in the room: the push as it is now (a reloaded page's progress dialog). */
  getLiveState: LiveStatus;
  /** The creator's dialog: the platforms to choose from, and whether a full address may be pasted. */
  getLivePlatforms: { platforms: string[]; custom: boolean };
}

const taskId = z.string().regex(/^\d{1,19}$/);

/** Room channel: every change of the push (started, live, bitrate, reconnecting, ended, failed). */
export const liveRoomEvents = {
  roomLive: z.strictObject({
    taskId,
    liveState: z.enum(['0', '1', '2']),
    platform: z.string().max(64),
    startedAt: z.number().int().nonnegative().nullable(),
    kbps: z.number().int().min(0).max(1_000_000),
    reconnecting: z.boolean(),
    failure: z.enum(['refused', 'unreachable', 'timeout', 'failed']).optional(),
  }),
};
