/**
 * The media signaling connection and its comeback (ADR 097): join with the join answer's token;
 * after a drop, a fresh token from `/api/createAgoraToken` naming the node it lost (the web role
 * places the room again when that node is dead), on the node the answer names. The first tries
 * after a failure come quickly, then every 10 s; the browser coming back online tries at once.
 */
import type { PublishedTrack } from '#core/contracts/media-signaling.ts';
import { isOk, type api as realApi } from '#app/lib/api.ts';
import { currentLang } from '#app/lib/lang.ts';
import type { MediaSessionLike, MediaStatus } from './media-model.ts';

export const RECONNECT_FIRST_MS = 1000;
/** After a failed reconnect: the first few tries this soon (a room placed again is reached within 10 s, ADR 097). */
export const RECONNECT_RETRY_MS = 2000;
const QUICK_RETRIES = 2;
export const RECONNECT_EVERY_MS = 10_000;

/** What the connection tells the media client, and asks of it. */
export interface ConnectionHost {
  roomNumber: string;
  api: typeof realApi;
  status: () => MediaStatus;
  setStatus: (status: MediaStatus) => void;
  /** Joined (again): the rights are known; subscribe to what is there, publish and share again. */
  joined: (existing: PublishedTrack[]) => Promise<void>;
  /** The signaling dropped: what the session had is gone. */
  dropped: () => void;
}

export interface MediaConnection {
  /** The session's signaling dropped (its onDisconnect). */
  disconnected: () => void;
  /** No more tries. */
  stop: () => void;
}

/** Connects `session` now and comes back after every drop, until stop(). */
export function keepConnected(session: MediaSessionLike, token: string, host: ConnectionHost): MediaConnection {
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let firstToken: string | null = token;
  /** Failed tries in a row. */
  let failures = 0;

  const freshToken = async (): Promise<string | null> => {
    if (firstToken) {
      const tkn = firstToken;
      firstToken = null;
      return tkn;
    }
    // Every later token is for a reconnect: the node we had is named, so the web role checks it
    // answers and places the room again when it does not; the answer says where the room is.
    const env = await host.api(
      'createAgoraToken',
      { roomNumber: host.roomNumber, failedMediaUrl: session.url },
      { quietNetworkError: true },
    );
    if (!isOk(env)) return null;
    if (env.data.mediaUrl && env.data.mediaUrl !== session.url) session.moveTo(env.data.mediaUrl);
    return env.data.mediaToken;
  };

  const connect = async () => {
    if (stopped) return;
    host.setStatus(host.status() === 'offline' ? 'offline' : 'connecting');
    try {
      const tkn = await freshToken();
      if (!tkn) throw new Error('no token');
      const existing = await session.join(tkn, currentLang());
      if (stopped) return;
      failures = 0;
      await host.joined(existing);
    } catch {
      if (stopped) return;
      session.dropAll();
      host.setStatus('offline');
      failures += 1;
      schedule(failures <= QUICK_RETRIES ? RECONNECT_RETRY_MS : RECONNECT_EVERY_MS);
    }
  };
  const schedule = (ms: number) => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => void connect(), ms);
  };
  const online = () => {
    if (!session.connected) schedule(0);
  };
  if (typeof window !== 'undefined') window.addEventListener('online', online);
  void connect();
  return {
    disconnected: () => {
      if (stopped) return;
      host.setStatus('offline');
      session.dropAll();
      host.dropped();
      schedule(RECONNECT_FIRST_MS);
    },
    stop: () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      if (typeof window !== 'undefined') window.removeEventListener('online', online);
    },
  };
}
