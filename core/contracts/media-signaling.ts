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
import { z } from 'zod';
import { call, channelContract, noAnswer, noPayload, whole, type Ack, type SameType } from './channel.ts';

export const MEDIA_NAMESPACE = '/media';
/** Every request carries it as `v`; an older one is answered '10' (reload the page). */
export const MEDIA_PROTOCOL_VERSION = 1;

/** What a person may send: the microphone, the camera, the shared screen. */
export const MEDIA_SOURCES = ['mic', 'camera', 'screen'] as const;
export type MediaSource = (typeof MEDIA_SOURCES)[number];
export const mediaSourceSchema = z.enum(MEDIA_SOURCES);
export const kindOf = (s: MediaSource): 'audio' | 'video' => (s === 'mic' ? 'audio' : 'video');

/** Simulcast layers, low to high (the browser sends rids l, m, h). */
export const LAYERS = ['l', 'm', 'h'] as const;
export type Layer = (typeof LAYERS)[number];
export const layerSchema = z.enum(LAYERS);

/** The user id in a recorder's token: not a person's id (those are digits), so no revocation or kick-out meant for a person reaches it. */
export const RECORDER_USER_ID = 'recorder';

/** The signed claim a web node puts in the join answer (`mediaToken`). */
export interface MediaTokenPayload extends Record<string, unknown> {
  scope: 'media';
  room: string;
  uid: string;
  /** 'recorder': the cloud recorder, a hidden peer that only subscribes (never listed, never publishes). */
  role: 'creator' | 'member' | 'tourist' | 'observer' | 'recorder';
  /** The room type (docs/product/decisions.md), so the node can apply revocations without the database. */
  rt: 1 | 2 | 3 | 4;
  /** What the room type lets this person publish (the room's mode may hold the microphone, ADR 099). */
  pub: MediaSource[];
  /** The room's mode when the token was signed: the node's word on it until the web side says otherwise. */
  mode?: 'discuss' | 'lecture';
  /** The person held the microphone by invitation when the token was signed. */
  mic?: boolean;
  /**
   * The breakout group (issue 31) the person was in when the token was signed; 0 or absent: the
   * main room. The node forwards media only within a space; the web side's `groups` control
   * command is its word on it once said.
   */
  grp?: number;
}

export const publishedTrackSchema = z.strictObject({
  trackId: z.string(),
  userId: z.string(),
  source: mediaSourceSchema,
  kind: z.enum(['audio', 'video']),
  paused: z.boolean(),
  /** Simulcast layers the publisher sends (empty: one plain stream). */
  layers: z.array(layerSchema),
});
export type PublishedTrack = z.infer<typeof publishedTrackSchema>;

export const iceServerSchema = z.strictObject({
  urls: z.array(z.string()),
  username: z.string().optional(),
  credential: z.string().optional(),
});
export type IceServer = z.infer<typeof iceServerSchema>;

/** A session description as a peer sends it (the node's own checks of its m-lines follow). */
const sdpSchema = z
  .string()
  .min(21)
  .max(64 * 1024 - 1)
  .startsWith('v=0');
const tokenSchema = z.string().min(1).max(4096);
const idSchema = z.string().min(1).max(64);

export const PROBE_KINDS = ['ping', 'download', 'upload', 'config', 'rtc', 'rtcClose'] as const;

/** type -> payload and answer schemas (each request also carries `v` and `type`). */
export const mediaRequests = {
  join: call(
    z.strictObject({ token: tokenSchema }),
    z.strictObject({
      peerId: z.string(),
      room: z.string(),
      userId: z.string(),
      rights: z.array(mediaSourceSchema),
      tracks: z.array(publishedTrackSchema),
      iceServers: z.array(iceServerSchema),
    }),
  ),
  /** A new token (e.g. after a microphone invitation): same room and person, new rights. */
  refresh: call(z.strictObject({ token: tokenSchema }), z.strictObject({ rights: z.array(mediaSourceSchema) })),
  /** `sdp` is the browser's offer with one send-only m-line; the answer comes back. */
  publish: call(z.strictObject({ source: mediaSourceSchema, sdp: sdpSchema }), z.strictObject({ trackId: z.string(), sdp: z.string() })),
  unpublish: call(z.strictObject({ trackId: idSchema }), noAnswer),
  /** Mute or unmute a published track: the node stops or resumes forwarding it. */
  pause: call(z.strictObject({ trackId: idSchema, paused: z.boolean() }), noAnswer),
  /** The node offers a receive-only connection carrying that track; the peer replies with `answer`. */
  subscribe: call(
    z.strictObject({ trackId: idSchema, layer: layerSchema.optional() }),
    z.strictObject({ subscriptionId: z.string(), sdp: z.string() }),
  ),
  answer: call(z.strictObject({ subscriptionId: idSchema, sdp: sdpSchema }), noAnswer),
  unsubscribe: call(z.strictObject({ subscriptionId: idSchema }), noAnswer),
  setLayer: call(z.strictObject({ subscriptionId: idSchema, layer: layerSchema }), z.strictObject({ layer: layerSchema })),
  /**
   * ICE restart. For a publication the peer sends its restart offer (`sdp`) and gets the answer;
   * for a subscription the node answers with a restart offer and the peer replies with `answer`.
   */
  restartIce: call(
    z
      .strictObject({ trackId: idSchema.optional(), subscriptionId: idSchema.optional(), sdp: sdpSchema.optional() })
      .refine(
        (r) => (r.trackId !== undefined ? r.sdp !== undefined : r.subscriptionId !== undefined),
        'trackId and sdp, or subscriptionId',
      ),
    z.strictObject({ sdp: z.string() }),
  ),
  leave: call(noPayload, noAnswer),
  /**
   * The network check (docs/product/01-account-and-lobby.md §2), allowed before `join`: 'ping' answers at once (round trip),
   * 'download' answers with `bytes` of filler, 'upload' carries `data` and answers its size,
   * 'config' answers the ICE servers, 'rtc' takes an offer with one data channel and answers it:
   * the node then echoes every packet sent on that channel (the UDP loss and round trip), until
   * 'rtcClose', another 'rtc' or the socket closes, or PROBE_RTC_LIFETIME_MS.
   */
  probe: call(
    z
      .strictObject({
        kind: z.enum(PROBE_KINDS),
        bytes: whole(1, 256 * 1024).optional(),
        data: z
          .string()
          .max(256 * 1024)
          .optional(),
        sdp: sdpSchema.optional(),
      })
      .refine(
        (p) =>
          p.kind === 'download'
            ? p.bytes !== undefined
            : p.kind === 'upload'
              ? p.data !== undefined
              : p.kind === 'rtc'
                ? p.sdp !== undefined
                : true,
        'the fields of this kind',
      ),
    z.strictObject({
      bytes: z.number(),
      data: z.string().optional(),
      sdp: z.string().optional(),
      iceServers: z.array(iceServerSchema).optional(),
    }),
  ),
};

/** type -> [request fields, answer data]. */
export type MediaCalls = {
  [K in keyof typeof mediaRequests]: [z.input<(typeof mediaRequests)[K]['payload']>, z.output<(typeof mediaRequests)[K]['answer']>];
};

/** The envelope every request shares; the rest of it is the type's payload. */
export const mediaEnvelopeSchema = z.object({ v: z.number(), type: z.string().max(32) });

/** The largest probe payload, and what one connection may move in probes altogether. */
export const PROBE_MAX_BYTES = 256 * 1024; // the probe schema's bound
export const PROBE_BUDGET_BYTES = 4 * 1024 * 1024;
/** The largest data-channel packet the node echoes in a network check. */
export const PROBE_PACKET_MAX_BYTES = 1200;
export const PROBE_RTC_LIFETIME_MS = 20_000;

export type MediaRequestType = keyof MediaCalls;
export type MediaRequest = { [K in MediaRequestType]: { v: number; type: K } & MediaCalls[K][0] }[MediaRequestType];
export type MediaAnswer<K extends MediaRequestType> = Ack<MediaCalls[K][1]>;

/** Network quality per person, 0 unknown, 1 best to 6 worst (docs/product/decisions.md bands). */
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
  /** No packet arrived on an unpaused publication for SILENT_AFTER_MS (`silent`), or they came back; to the publisher and the creator (ADR 101). */
  | { type: 'trackSilent'; trackId: string; userId: string; source: MediaSource; silent: boolean }
  /** Levels 0-100 of people speaking now (active-speaker highlight). */
  | { type: 'audioLevels'; levels: Record<string, number> }
  | { type: 'quality'; reports: QualityReport[] }
  /** The web side changed what this person may publish (microphone stopped, new token). */
  | { type: 'rightsChanged'; rights: MediaSource[] }
  | { type: 'layerChanged'; subscriptionId: string; layer: Layer }
  | { type: 'closed'; reason: 'kicked' | 'roomClosed' | 'replaced' | 'shutdown' };

export const MEDIA_REQUEST_EVENT = 'req';
/** A publication that sends no packet for this long, unpaused, is reported (`trackSilent`). */
export const SILENT_AFTER_MS = 10_000;
export const MEDIA_NOTE_EVENT = 'note';

/** MediaNote as a schema: what the peer parses each `note` by (checked equal to the type above). */
export const mediaNoteSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('trackAdded'), track: publishedTrackSchema }),
  z.strictObject({ type: z.literal('trackRemoved'), trackId: z.string(), userId: z.string() }),
  z.strictObject({ type: z.literal('trackPaused'), trackId: z.string(), userId: z.string(), paused: z.boolean() }),
  z.strictObject({
    type: z.literal('trackSilent'),
    trackId: z.string(),
    userId: z.string(),
    source: mediaSourceSchema,
    silent: z.boolean(),
  }),
  z.strictObject({ type: z.literal('audioLevels'), levels: z.record(z.string(), z.number()) }),
  z.strictObject({
    type: z.literal('quality'),
    reports: z.array(z.strictObject({ userId: z.string(), up: z.number(), down: z.number() })),
  }),
  z.strictObject({ type: z.literal('rightsChanged'), rights: z.array(mediaSourceSchema) }),
  z.strictObject({ type: z.literal('layerChanged'), subscriptionId: z.string(), layer: layerSchema }),
  z.strictObject({ type: z.literal('closed'), reason: z.enum(['kicked', 'roomClosed', 'replaced', 'shutdown']) }),
]);
type _MediaNoteChecked = [SameType<z.output<typeof mediaNoteSchema>, MediaNote>] extends [true] ? true : never;
export const MEDIA_NOTE_SCHEMA_CHECKED: _MediaNoteChecked = true;

/** Node -> peer: every note is one `note` event. */
export const mediaEvents = { [MEDIA_NOTE_EVENT]: mediaNoteSchema };

/**
 * The one envelope of a media request: `{v, type}` around the payload's fields. The channel's
 * `wire` below is its only production user; a test that sends an older `v` or a broken body builds
 * it here too, so the envelope's shape is written once.
 */
export const mediaEnvelope = (type: string, payload: unknown, v: number = MEDIA_PROTOCOL_VERSION): Record<string, unknown> => ({
  ...(payload as object),
  v,
  type,
});

/**
 * Both halves of the media signaling: a request travels as the one `req` event, its envelope
 * `{v, type}` around the payload's fields (the node's dispatcher unwraps it); notes are `note` events.
 */
export const mediaChannel = channelContract({
  name: 'media',
  requests: mediaRequests,
  events: mediaEvents,
  wire: (type, payload) => [MEDIA_REQUEST_EVENT, mediaEnvelope(type, payload)],
});
