/**
 * What the classroom's media client (media-client.ts) shows the page: the people and their
 * streams, the local devices, the status, and the actions; how the remote tracks become people;
 * and whether this browser can share its screen.
 */
import type { Layer, MediaNote, MediaSource } from '#core/contracts/media-signaling.ts';
import type { api as realApi } from '#app/lib/api.ts';
import { parseUa } from '#app/lib/ua.ts';
import type { DeviceIssue } from './device-issue.ts';
import type { captureTrack } from './devices.ts';
import type { MediaSession, MediaSessionEvents, RemoteTrack } from './media-session.ts';

export interface MediaPerson {
  userId: string;
  video: MediaStream | null;
  videoPaused: boolean;
  audio: MediaStream | null;
  audioPaused: boolean;
  screen: MediaStream | null;
}

export type MediaStatus = 'off' | 'connecting' | 'live' | 'offline';

export interface MediaActions {
  toggleCam: () => void;
  toggleMic: () => void;
  startScreen: () => void;
  stopScreen: () => void;
  setLayer: (userId: string, layer: Layer) => void;
  /** The device dropdowns: store the choice and switch the live track (docs/product/02-live-classroom.md §4). */
  switchDevice: (kind: 'videoDeviceId' | 'audioDeviceId' | 'speakerId', deviceId: string) => void;
  /** The device-exception view's retry (and the silent microphone's): open the devices again and send them. */
  retryDevices: (source?: 'mic' | 'camera') => void;
  /** The device-exception view closed without a retry: the class goes on without that device. */
  dismissIssue: () => void;
}

/** A publication the media node received nothing on for 10 s (media-server/silence.ts). */
export interface SilentTrack {
  userId: string;
  source: MediaSource;
}

/** What the hook reads; a new object on every change (useSyncExternalStore compares identity). */
export interface MediaSnapshot {
  status: MediaStatus;
  rights: MediaSource[];
  local: {
    video: MediaStream | null;
    camOn: boolean;
    micOn: boolean;
    sharing: boolean;
    screen: MediaStream | null;
    /** The open microphone's name (the silent-microphone notice names it). */
    micLabel: string;
  };
  people: Record<string, MediaPerson>;
  levels: Record<string, number>;
  quality: Record<string, number>;
  /** The device exception the view shows (what happened, to which device); null when all is well. */
  issue: DeviceIssue | null;
  /** Publications without packets, by track id (the node's `trackSilent`). */
  silent: Record<string, SilentTrack>;
  screenBlocked: boolean;
  speakerId: string;
}

/** The part of MediaSession this class uses (the tests give a fake). */
export type MediaSessionLike = Pick<
  MediaSession,
  | 'rights'
  | 'connected'
  | 'url'
  | 'moveTo'
  | 'join'
  | 'refresh'
  | 'publish'
  | 'unpublish'
  | 'setPaused'
  | 'replaceTrack'
  | 'published'
  | 'subscribe'
  | 'setLayer'
  | 'layers'
  | 'stats'
  | 'remoteTracks'
  | 'dropAll'
  | 'close'
>;

/** The messages this class shows (react-i18next's `t` fits). */
export type MediaText = (key: 'media.failed' | 'media.screenFailed') => string;

export interface MediaClientOptions {
  roomNumber: string;
  /** For tests: make the session. */
  session?: (url: string, events: MediaSessionEvents) => MediaSessionLike;
  /** For tests: the /api client. */
  api?: typeof realApi;
  /** For tests: open a camera or microphone. */
  capture?: typeof captureTrack;
  /** For tests: wrap a track for a <video>/<audio> element. */
  stream?: (track: MediaStreamTrack) => MediaStream;
  /** The camera and microphone as the pre-join left them (ADR 089); both on when absent. */
  initial?: { cam: boolean; mic: boolean; micFailed?: boolean };
}

/** Chrome above 72 shares screens (docs/product/02-live-classroom.md §4). */

export function canShareScreen(ua: string, hasApi: boolean): boolean {
  const info = parseUa(ua);
  return hasApi && info.browser === 'chrome' && info.version[0] > 72;
}

/** The remote tracks, by person. */
export function peopleFrom(remote: RemoteTrack[], stream: (track: MediaStreamTrack) => MediaStream): Record<string, MediaPerson> {
  const out: Record<string, MediaPerson> = {};
  for (const r of remote) {
    const p = (out[r.info.userId] ??= {
      userId: r.info.userId,
      video: null,
      videoPaused: false,
      audio: null,
      audioPaused: false,
      screen: null,
    });
    const s = stream(r.track);
    if (r.info.source === 'camera') {
      p.video = s;
      p.videoPaused = r.info.paused;
    } else if (r.info.source === 'mic') {
      p.audio = s;
      p.audioPaused = r.info.paused;
    } else p.screen = s;
  }
  return out;
}

/**
 * What the SFU's notes on levels, quality and silence change in the snapshot (the notes that act
 * on the session are the client's own); null when nothing changes.
 */
export function noteChange(snapshot: MediaSnapshot, note: MediaNote): Partial<MediaSnapshot> | null {
  switch (note.type) {
    case 'audioLevels':
      return { levels: note.levels };
    case 'quality': {
      const quality = { ...snapshot.quality };
      for (const r of note.reports) quality[r.userId] = Math.max(r.up, r.down);
      return { quality };
    }
    case 'trackSilent': {
      const silent = { ...snapshot.silent };
      if (note.silent) silent[note.trackId] = { userId: note.userId, source: note.source };
      else delete silent[note.trackId];
      return { silent };
    }
    case 'trackRemoved': {
      if (!(note.trackId in snapshot.silent)) return null;
      const { [note.trackId]: _gone, ...silent } = snapshot.silent;
      return { silent };
    }
    case 'trackAdded':
    case 'rightsChanged':
    case 'closed':
    case 'trackPaused':
    case 'layerChanged':
      return null;
  }
}
