/**
 * Media signaling: the browser (or a test peer) and a media node, over the node's own socket
 * (socket.io namespace `/media` at the join answer's `mediaUrl`). Shared by both ends.
 *
 * Every request is one `req` event carrying `{ v, type, ...fields }` and is acknowledged with
 * `{code, msg, data?}` (code '0' or a code of core/platform/errors.ts). The node tells the peer
 * about changes with `note` events. Each published source travels on its own peer connection
 * (ADR 027): the browser offers to publish, the node offers to subscribe, so no negotiation ever
 * needs both sides to offer at once.
 */
import type { Ack } from './room-events.ts';

export const MEDIA_NAMESPACE = '/media';
export const MEDIA_PROTOCOL_VERSION = 1;

/** What a person may send: the microphone, the camera, the shared screen. */
export type MediaSource = 'mic' | 'camera' | 'screen';
export const MEDIA_SOURCES: readonly MediaSource[] = ['mic', 'camera', 'screen'];
export const kindOf = (s: MediaSource): 'audio' | 'video' => (s === 'mic' ? 'audio' : 'video');

/** Simulcast layers, low to high (the browser sends rids l, m, h). */
export type Layer = 'l' | 'm' | 'h';
export const LAYERS: readonly Layer[] = ['l', 'm', 'h'];

/** The signed claim a web node puts in the join answer (`mediaToken`). */
export interface MediaTokenPayload extends Record<string, unknown> {
  scope: 'media';
  room: string;
  uid: string;
  role: 'creator' | 'member' | 'tourist' | 'observer';
  /** The room type (DECISIONS.md), so the node can apply revocations without the database. */
  rt: 1 | 2 | 3 | 4;
  /** What this person may publish now. */
  pub: MediaSource[];
}

export interface PublishedTrack {
  trackId: string;
  userId: string;
  source: MediaSource;
  kind: 'audio' | 'video';
  paused: boolean;
  /** Simulcast layers the publisher sends (empty: one plain stream). */
  layers: Layer[];
}

export interface IceServer {
  urls: string[];
  username?: string;
  credential?: string;
}

/** type -> [request fields, answer data]. */
export interface MediaCalls {
  join: [
    { token: string },
    { peerId: string; room: string; userId: string; rights: MediaSource[]; tracks: PublishedTrack[]; iceServers: IceServer[] },
  ];
  /** A new token (e.g. after a microphone invitation): same room and person, new rights. */
  refresh: [{ token: string }, { rights: MediaSource[] }];
  /** `sdp` is the browser's offer with one send-only m-line; the answer comes back. */
  publish: [{ source: MediaSource; sdp: string }, { trackId: string; sdp: string }];
  unpublish: [{ trackId: string }, null];
  /** Mute or unmute a published track: the node stops or resumes forwarding it. */
  pause: [{ trackId: string; paused: boolean }, null];
  /** The node offers a receive-only connection carrying that track; the peer replies with `answer`. */
  subscribe: [{ trackId: string; layer?: Layer }, { subscriptionId: string; sdp: string }];
  answer: [{ subscriptionId: string; sdp: string }, null];
  unsubscribe: [{ subscriptionId: string }, null];
  setLayer: [{ subscriptionId: string; layer: Layer }, { layer: Layer }];
  /**
   * ICE restart. For a publication the peer sends its restart offer (`sdp`) and gets the answer;
   * for a subscription the node answers with a restart offer and the peer replies with `answer`.
   */
  restartIce: [{ trackId?: string; subscriptionId?: string; sdp?: string }, { sdp: string }];
  leave: [Record<string, never>, null];
  /**
   * The network check (spec 01 §2), allowed before `join`: 'ping' answers at once (round trip),
   * 'download' answers with `bytes` of filler, 'upload' carries `data` and answers its size,
   * 'config' answers the ICE servers, 'rtc' takes an offer with one data channel and answers it:
   * the node then echoes every packet sent on that channel (the UDP loss and round trip), until
   * 'rtcClose', another 'rtc' or the socket closes, or PROBE_RTC_LIFETIME_MS.
   */
  probe: [
    { kind: 'ping' | 'download' | 'upload' | 'config' | 'rtc' | 'rtcClose'; bytes?: number; data?: string; sdp?: string },
    { bytes: number; data?: string; sdp?: string; iceServers?: IceServer[] },
  ];
}

/** The largest probe payload, and what one connection may move in probes altogether. */
export const PROBE_MAX_BYTES = 256 * 1024;
export const PROBE_BUDGET_BYTES = 4 * 1024 * 1024;
/** The largest data-channel packet the node echoes in a network check. */
export const PROBE_PACKET_MAX_BYTES = 1200;
export const PROBE_RTC_LIFETIME_MS = 20_000;

export type MediaRequestType = keyof MediaCalls;
export type MediaRequest = { [K in MediaRequestType]: { v: number; type: K } & MediaCalls[K][0] }[MediaRequestType];
export type MediaAnswer<K extends MediaRequestType> = Ack<MediaCalls[K][1]>;

/** Network quality per person, 0 unknown, 1 best to 6 worst (DECISIONS.md bands). */
export interface QualityReport {
  userId: string;
  up: number;
  down: number;
}

/** Node -> peer notes. */
export type MediaNote =
  | { type: 'trackAdded'; track: PublishedTrack }
  | { type: 'trackRemoved'; trackId: string; userId: string }
  | { type: 'trackPaused'; trackId: string; userId: string; paused: boolean }
  /** Levels 0-100 of people speaking now (active-speaker highlight). */
  | { type: 'audioLevels'; levels: Record<string, number> }
  | { type: 'quality'; reports: QualityReport[] }
  /** The web side changed what this person may publish (microphone stopped, new token). */
  | { type: 'rightsChanged'; rights: MediaSource[] }
  | { type: 'layerChanged'; subscriptionId: string; layer: Layer }
  | { type: 'closed'; reason: 'kicked' | 'roomClosed' | 'replaced' | 'shutdown' };

export const MEDIA_REQUEST_EVENT = 'req';
export const MEDIA_NOTE_EVENT = 'note';
