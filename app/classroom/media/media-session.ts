/**
 * The browser's side of the media signaling (core/contracts/media-signaling.ts): one socket to the
 * room's media node, one RTCPeerConnection per published source and per subscription (ADR 027).
 * It keeps what it publishes so a reconnect can publish it again, and restarts ICE on a
 * connection that drops while the signaling is up (a network change).
 */
import { io, type Socket } from 'socket.io-client';
import { CHANNEL_OFFLINE, openChannel, type Channel, type ChannelProblem } from '#core/channel/open.ts';
import {
  MEDIA_NAMESPACE,
  mediaChannel,
  type IceServer,
  type Layer,
  type MediaCalls,
  type mediaEvents,
  type MediaNote,
  type mediaRequests,
  type MediaRequestType,
  type MediaSource,
  type PublishedTrack,
} from '#core/contracts/media-signaling.ts';
import { channelLog } from '#app/lib/client-log.ts';

const ACK_TIMEOUT_MS = 10_000;

export class MediaError extends Error {
  readonly code: string;
  constructor(code: string, msg: string) {
    super(msg);
    this.code = code;
  }
}

export interface RemoteTrack {
  info: PublishedTrack;
  subscriptionId: string;
  track: MediaStreamTrack;
  pc: RTCPeerConnection;
}

interface LocalPublication {
  source: MediaSource;
  trackId: string;
  pc: RTCPeerConnection;
  sender: RTCRtpSender;
  track: MediaStreamTrack;
  paused: boolean;
  simulcast: boolean;
}

/** A subscription that failed is asked for again this often, this many times in all. */
const SUBSCRIBE_RETRY_MS = 1000;
const SUBSCRIBE_ATTEMPTS = 3;

/** A publication the node lost is published again after this (a rights change that ended it arrives first). */
const REPUBLISH_DELAY_MS = 500;

export interface MediaSessionEvents {
  /** The set of remote tracks changed (added, removed, paused). */
  onRemote(tracks: RemoteTrack[]): void;
  onNote(note: MediaNote): void;
  /** The signaling socket dropped (the hook decides when to reconnect). */
  onDisconnect(): void;
}

/**
 * Simulcast for the camera: 320x180 (rid l) and the full 640x360 (rid h). Chromium sends at most
 * two layers at this size (it keeps the lowest ones), so a third would push 360p out; a
 * subscriber asking for 'm' gets the nearest lower layer.
 */
const CAMERA_ENCODINGS: RTCRtpEncodingParameters[] = [
  { rid: 'l', scaleResolutionDownBy: 2, maxBitrate: 200_000 },
  { rid: 'h', maxBitrate: 700_000 },
];

/** The socket a session connects (its requests and notes go through openChannel, core/channel/open.ts). */
export type MediaSocket = Socket;

export interface MediaSessionOptions {
  /** For tests: make the socket (the default connects to the node's `/media`). */
  socket?: (url: string, lang: string) => MediaSocket;
  /** Where a node message that broke its schema is told (default: the client log, ADR 108). */
  log?: (problem: ChannelProblem) => void;
}

function defaultSocket(url: string, lang: string): MediaSocket {
  return io(url, { transports: ['websocket'], reconnection: false, forceNew: true, query: { lang } });
}

export class MediaSession {
  #url: string;
  readonly #events: MediaSessionEvents;
  readonly #options: MediaSessionOptions;
  #socket: MediaSocket | null = null;
  #channel: Channel<typeof mediaRequests, typeof mediaEvents> | null = null;
  #iceServers: IceServer[] = [];
  readonly #local = new Map<MediaSource, LocalPublication>();
  readonly #remote = new Map<string, RemoteTrack>();
  /** Tracks announced by the node, by track id. */
  readonly #known = new Map<string, PublishedTrack>();
  /** Subscriptions being negotiated, by track id. */
  readonly #pending = new Set<string>();
  #myId = '';
  #closed = false;
  rights: MediaSource[] = [];

  constructor(url: string, events: MediaSessionEvents, options: MediaSessionOptions = {}) {
    this.#url = url;
    this.#events = events;
    this.#options = options;
  }

  /** One request; its answer parsed by the contract (a refusal or a broken answer throws a MediaError). */
  async #req<K extends MediaRequestType>(type: K, body: MediaCalls[K][0]): Promise<MediaCalls[K][1]> {
    const channel = this.#channel;
    if (!channel?.connected) throw new MediaError('33005', 'media offline');
    const ack = await channel.request(type, body);
    // No answer in time, or the socket dropped meanwhile.
    if (ack.code === CHANNEL_OFFLINE) throw new Error(`media request ${type} got no answer`);
    if (ack.code !== '0') throw new MediaError(ack.code, ack.msg);
    return ack.data as MediaCalls[K][1];
  }

  /** Connects and joins with the token; resolves with the tracks already published. */
  async join(token: string, lang: string): Promise<PublishedTrack[]> {
    this.#channel?.close();
    this.#socket?.close();
    const base = this.#url.replace(/\/+$/, '');
    const socket = (this.#options.socket ?? defaultSocket)(`${base}${MEDIA_NAMESPACE}`, lang);
    this.#socket = socket;
    const channel = openChannel(mediaChannel, socket, { log: this.#options.log ?? channelLog(), timeoutMs: ACK_TIMEOUT_MS });
    this.#channel = channel;
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', () => resolve());
      socket.once('connect_error', (e) => reject(new MediaError('33005', e.message)));
    });
    // Each note parsed by its schema first (one that breaks it is logged and dropped).
    channel.on('note', (note) => this.#onNote(note));
    socket.on('disconnect', () => {
      if (this.#socket === socket && !this.#closed) this.#events.onDisconnect();
    });
    const joined = await this.#req('join', { token });
    this.#myId = joined.userId;
    this.#iceServers = joined.iceServers;
    this.rights = joined.rights;
    for (const t of joined.tracks) this.#known.set(t.trackId, t);
    return joined.tracks;
  }

  get connected(): boolean {
    return !!this.#socket?.connected;
  }

  /** The media node this session joins. */
  get url(): string {
    return this.#url;
  }

  /** The room was placed on another node (its node died, ADR 097): the next join goes there. */
  moveTo(url: string): void {
    this.#url = url;
  }

  #pc(): RTCPeerConnection {
    return new RTCPeerConnection({ iceServers: this.#iceServers.map((s) => ({ ...s })), bundlePolicy: 'max-bundle' });
  }

  #watchIce(pc: RTCPeerConnection, restart: () => Promise<void>): void {
    let restarting = false;
    pc.addEventListener('iceconnectionstatechange', () => {
      if ((pc.iceConnectionState === 'disconnected' || pc.iceConnectionState === 'failed') && !restarting && this.connected) {
        restarting = true;
        void restart()
          .catch(() => undefined)
          .finally(() => (restarting = false));
      }
    });
  }

  async refresh(token: string): Promise<MediaSource[]> {
    this.rights = (await this.#req('refresh', { token })).rights;
    return this.rights;
  }

  /** `paused`: published muted (no packet leaves until it is unpaused), as a muted track published again. */
  async publish(source: MediaSource, track: MediaStreamTrack, simulcast = false, paused = false): Promise<string> {
    await this.unpublish(source);
    const pc = this.#pc();
    const transceiver = pc.addTransceiver(paused ? track.kind : track, {
      direction: 'sendonly',
      ...(simulcast && source === 'camera' ? { sendEncodings: CAMERA_ENCODINGS } : {}),
    });
    try {
      await pc.setLocalDescription(await pc.createOffer());
      const answer = await this.#req('publish', { source, sdp: pc.localDescription!.sdp });
      await pc.setRemoteDescription({ type: 'answer', sdp: answer.sdp });
      const pub: LocalPublication = { source, trackId: answer.trackId, pc, sender: transceiver.sender, track, paused, simulcast };
      this.#local.set(source, pub);
      if (paused) await this.#req('pause', { trackId: pub.trackId, paused: true });
      this.#watchIce(pc, async () => {
        await pc.setLocalDescription(await pc.createOffer({ iceRestart: true }));
        const r = await this.#req('restartIce', { trackId: pub.trackId, sdp: pc.localDescription!.sdp });
        await pc.setRemoteDescription({ type: 'answer', sdp: r.sdp });
      });
      return answer.trackId;
    } catch (err) {
      pc.close();
      throw err;
    }
  }

  #republish(pub: LocalPublication): void {
    setTimeout(() => {
      // Unpublished, replaced or no longer allowed meanwhile, or the session is gone: nothing to do.
      if (this.#closed || !this.connected || this.#local.get(pub.source) !== pub || !this.rights.includes(pub.source)) return;
      this.publish(pub.source, pub.track, pub.simulcast, pub.paused).catch(() => undefined);
    }, REPUBLISH_DELAY_MS);
  }

  async unpublish(source: MediaSource): Promise<void> {
    const pub = this.#local.get(source);
    if (!pub) return;
    this.#local.delete(source);
    pub.pc.close();
    await this.#req('unpublish', { trackId: pub.trackId }).catch(() => undefined);
  }

  /** Mute: stop sending (no packets at all) and tell the node, which stops forwarding and tells everyone. */
  async setPaused(source: MediaSource, paused: boolean): Promise<void> {
    const pub = this.#local.get(source);
    if (!pub || pub.paused === paused) return;
    pub.paused = paused;
    await pub.sender.replaceTrack(paused ? null : pub.track);
    await this.#req('pause', { trackId: pub.trackId, paused });
  }

  /** A device switch: the new track goes out on the same connection. */
  async replaceTrack(source: MediaSource, track: MediaStreamTrack): Promise<void> {
    const pub = this.#local.get(source);
    if (!pub) return;
    pub.track = track;
    if (!pub.paused) await pub.sender.replaceTrack(track);
  }

  published(source: MediaSource): boolean {
    return this.#local.has(source);
  }

  async subscribe(info: PublishedTrack, layer?: Layer): Promise<void> {
    if (info.userId === this.#myId && this.#local.get(info.source)?.trackId === info.trackId) return;
    if (this.#remote.has(info.trackId) || this.#pending.has(info.trackId)) return;
    this.#known.set(info.trackId, this.#known.get(info.trackId) ?? info);
    this.#pending.add(info.trackId);
    try {
      // A request lost or refused while the node is busy is asked again (a tile that never fills
      // is worse than a late one); a track gone meanwhile, or a closed session, ends it.
      for (let attempt = 1; ; attempt++) {
        try {
          await this.#subscribe(info, layer);
          return;
        } catch (err) {
          if (attempt >= SUBSCRIBE_ATTEMPTS) throw err;
          await new Promise((r) => setTimeout(r, SUBSCRIBE_RETRY_MS));
          if (this.#closed || !this.#known.has(info.trackId) || !this.connected) throw err;
        }
      }
    } finally {
      this.#pending.delete(info.trackId);
    }
  }

  async #subscribe(info: PublishedTrack, layer?: Layer): Promise<void> {
    const offer = await this.#req('subscribe', { trackId: info.trackId, ...(layer ? { layer } : {}) });
    const pc = this.#pc();
    const gotTrack = new Promise<MediaStreamTrack>((resolve) => pc.addEventListener('track', (e) => resolve(e.track), { once: true }));
    try {
      await pc.setRemoteDescription({ type: 'offer', sdp: offer.sdp });
      await pc.setLocalDescription(await pc.createAnswer());
      await this.#req('answer', { subscriptionId: offer.subscriptionId, sdp: pc.localDescription!.sdp });
    } catch (err) {
      pc.close();
      throw err;
    }
    const track = await gotTrack;
    if (!this.#known.has(info.trackId) || this.#closed) {
      // Unpublished while we were subscribing: the node closed its side already.
      pc.close();
      return;
    }
    const remote: RemoteTrack = { info: this.#known.get(info.trackId) ?? info, subscriptionId: offer.subscriptionId, track, pc };
    this.#remote.set(info.trackId, remote);
    this.#watchIce(pc, async () => {
      const r = await this.#req('restartIce', { subscriptionId: remote.subscriptionId });
      await pc.setRemoteDescription({ type: 'offer', sdp: r.sdp });
      await pc.setLocalDescription(await pc.createAnswer());
      await this.#req('answer', { subscriptionId: remote.subscriptionId, sdp: pc.localDescription!.sdp });
    });
    this.#emitRemote();
  }

  readonly #layers = new Map<string, Layer>();

  async setLayer(trackId: string, layer: Layer): Promise<void> {
    const r = this.#remote.get(trackId);
    if (!r || this.#layers.get(trackId) === layer) return;
    this.#layers.set(trackId, layer);
    await this.#req('setLayer', { subscriptionId: r.subscriptionId, layer });
  }

  /** The layer asked for per remote user's camera (diagnostics). */
  layers(): Record<string, Layer> {
    const out: Record<string, Layer> = {};
    for (const [trackId, layer] of this.#layers) {
      const r = this.#remote.get(trackId);
      if (r) out[r.info.userId] = layer;
    }
    return out;
  }

  /** Receive statistics per subscription (diagnostics, the end-to-end tests). */
  async stats(): Promise<
    Array<{
      userId: string;
      source: MediaSource;
      framesDecoded: number;
      totalSamplesReceived: number;
      packetsReceived: number;
      frameWidth: number;
      framesReceived: number;
      framesDropped: number;
      keyFramesDecoded: number;
      pliCount: number;
      firCount: number;
      nackCount: number;
    }>
  > {
    const out = [];
    for (const r of this.#remote.values()) {
      const report = await r.pc.getStats();
      let row = {
        framesDecoded: 0,
        totalSamplesReceived: 0,
        packetsReceived: 0,
        frameWidth: 0,
        framesReceived: 0,
        framesDropped: 0,
        keyFramesDecoded: 0,
        pliCount: 0,
        firCount: 0,
        nackCount: 0,
      };
      report.forEach((s: Record<string, unknown>) => {
        if (s['type'] !== 'inbound-rtp') return;
        row = {
          framesDecoded: Number(s['framesDecoded'] ?? 0),
          totalSamplesReceived: Number(s['totalSamplesReceived'] ?? 0),
          packetsReceived: Number(s['packetsReceived'] ?? 0),
          frameWidth: Number(s['frameWidth'] ?? 0),
          framesReceived: Number(s['framesReceived'] ?? 0),
          framesDropped: Number(s['framesDropped'] ?? 0),
          keyFramesDecoded: Number(s['keyFramesDecoded'] ?? 0),
          pliCount: Number(s['pliCount'] ?? 0),
          firCount: Number(s['firCount'] ?? 0),
          nackCount: Number(s['nackCount'] ?? 0),
        };
      });
      out.push({ userId: r.info.userId, source: r.info.source, ...row });
    }
    return out;
  }

  remoteTracks(): RemoteTrack[] {
    return [...this.#remote.values()];
  }

  #emitRemote(): void {
    this.#events.onRemote(this.remoteTracks());
  }

  #onNote(note: MediaNote): void {
    switch (note.type) {
      case 'trackAdded':
        this.#known.set(note.track.trackId, note.track);
        break;
      case 'trackRemoved': {
        this.#known.delete(note.trackId);
        // One of ours, ended by the node (its connection to us failed there): the others would see
        // no camera or hear nothing for the rest of the class, so it goes out again.
        for (const pub of this.#local.values()) if (pub.trackId === note.trackId) this.#republish(pub);
        const r = this.#remote.get(note.trackId);
        if (r) {
          r.pc.close();
          this.#remote.delete(note.trackId);
          this.#emitRemote();
        }
        break;
      }
      case 'trackPaused': {
        const known = this.#known.get(note.trackId);
        if (known) known.paused = note.paused;
        const r = this.#remote.get(note.trackId);
        if (r) {
          r.info = { ...r.info, paused: note.paused };
          this.#emitRemote();
        }
        break;
      }
      case 'rightsChanged':
        this.rights = note.rights;
        for (const [source, pub] of this.#local) {
          if (!note.rights.includes(source)) {
            pub.pc.close();
            this.#local.delete(source);
          }
        }
        break;
      case 'audioLevels':
      case 'quality':
      case 'layerChanged':
      case 'trackSilent':
      case 'closed':
        break;
    }
    this.#events.onNote(note);
  }

  /** Drops every connection (the signaling went away); local tracks stay for the next join. */
  dropAll(): void {
    for (const pub of this.#local.values()) pub.pc.close();
    for (const r of this.#remote.values()) r.pc.close();
    this.#local.clear();
    this.#remote.clear();
    this.#known.clear();
    this.#channel?.close();
    this.#channel = null;
    this.#socket?.close();
    this.#socket = null;
    this.#emitRemote();
  }

  close(): void {
    if (this.#closed) return;
    this.#channel?.send('leave', {});
    this.#closed = true;
    this.dropAll();
  }
}
