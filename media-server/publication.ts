/**
 * One published source (a microphone, a camera with up to three simulcast layers, a screen) on its
 * own peer connection. RTP is handed to the subscriptions as it arrives, never decoded. Keyframe
 * requests from subscribers come back here and go to the publisher as PLI; REMB tells the
 * publisher how much it may send; audio levels and loss are counted for the room's notes.
 */
import { EventEmitter } from 'node:events';
import {
  ReceiverEstimatedMaxBitrate,
  RtcpPayloadSpecificFeedback,
  RTP_EXTENSION_URI,
  type MediaStreamTrack,
  type RTCPeerConnection,
  type RTCRtpTransceiver,
  type RtpPacket,
} from 'werift';
import type { Layer, MediaSource, PublishedTrack } from '#core/contracts/media-signaling.ts';
import { kindOf, LAYERS } from '#core/contracts/media-signaling.ts';
import { levelFromDbov, rembParts } from './rtp.ts';

/** The key of a layer: its rid, or '' for a stream without simulcast. */
export type LayerKey = Layer | '';

export interface RtpSink {
  push(layer: LayerKey, rtp: RtpPacket): void;
}

interface LayerState {
  track: MediaStreamTrack;
  ssrc: number | undefined;
  lastKeyframeAsk: number;
  keyframeTimer: NodeJS.Timeout | null;
  lastPacketAt: number;
  /** Counters for loss: highest sequence seen (extended) and packets seen in the window. */
  highest: number;
  base: number;
  received: number;
}

const KEYFRAME_ASK_GAP_MS = 300;
/**
 * Whether RTCP can go to the publisher: connected, or 'disconnected' (consent checks were missed,
 * seen when the node's event loop ran a second late, and media still flows). Waiting for
 * 'connected' there left a new subscriber without its first keyframe for as long as it lasted.
 */
const sending = (state: string) => state === 'connected' || state === 'disconnected';
const LAYER_SILENT_MS = 2000;
const REMB_EVERY_MS = 500;

/** The most a publisher is told it may send (REMB), by source. */
export const MAX_BITRATE: Record<MediaSource, number> = { mic: 64_000, camera: 1_200_000, screen: 5_000_000 };

export class Publication extends EventEmitter<{ closed: []; layer: [LayerKey] }> {
  readonly id: string;
  readonly userId: string;
  readonly source: MediaSource;
  readonly kind: 'audio' | 'video';
  readonly pc: RTCPeerConnection;
  paused = false;
  /** Loudest level (0-100) since the last read. */
  #level = 0;
  readonly #layers = new Map<LayerKey, LayerState>();
  readonly #sinks = new Set<RtpSink>();
  #transceiver: RTCRtpTransceiver | null = null;
  #remb: NodeJS.Timeout | null = null;
  #layerCheck: NodeJS.Timeout | null = null;
  #activeLayers = '';
  #closed = false;
  packets = 0;
  /** Keyframe requests (PLI) sent to the publisher (diagnostics). */
  keyframesAsked = 0;

  constructor(id: string, userId: string, source: MediaSource, pc: RTCPeerConnection) {
    super();
    // Every subscription listens here; a large class has hundreds.
    this.setMaxListeners(0);
    this.id = id;
    this.userId = userId;
    this.source = source;
    this.kind = kindOf(source);
    this.pc = pc;
    pc.onTransceiverAdded.subscribe((t) => {
      this.#transceiver = t;
      t.onTrack.subscribe((track) => this.#addLayer(track));
    });
    pc.connectionStateChange.subscribe((state) => {
      if (state === 'failed' || state === 'closed') this.close();
    });
    if (this.kind === 'video') {
      this.#remb = setInterval(() => this.#sendRemb(), REMB_EVERY_MS);
      this.#remb.unref();
      this.#layerCheck = setInterval(() => this.#checkLayers(), 1000);
      this.#layerCheck.unref();
    }
  }

  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Layers that are arriving now (a packet within the last 2 s). The SDP announces every rid, but
   * a browser sends fewer at small sizes and drops layers when short of bandwidth or CPU.
   */
  get layers(): LayerKey[] {
    const now = Date.now();
    return [...this.#layers].filter(([, l]) => l.lastPacketAt > 0 && now - l.lastPacketAt < LAYER_SILENT_MS).map(([k]) => k);
  }

  describe(): PublishedTrack {
    return {
      trackId: this.id,
      userId: this.userId,
      source: this.source,
      kind: this.kind,
      paused: this.paused,
      layers: this.layers.filter((l): l is Layer => l !== ''),
    };
  }

  #addLayer(track: MediaStreamTrack): void {
    const key: LayerKey = (LAYERS as readonly string[]).includes(track.rid ?? '') ? (track.rid as Layer) : '';
    const state: LayerState = {
      track,
      ssrc: track.ssrc,
      lastKeyframeAsk: 0,
      keyframeTimer: null,
      lastPacketAt: 0,
      highest: -1,
      base: -1,
      received: 0,
    };
    this.#layers.set(key, state);
    track.onReceiveRtp.subscribe((rtp, ext) => this.#onRtp(key, state, rtp, ext));
  }

  /** Tells subscriptions when the set of arriving layers changed. */
  #checkLayers(): void {
    // '' is the key of a stream without simulcast: spell it out so [''] differs from [].
    const now = this.layers.map((k) => k || 'single').join(',');
    if (now === this.#activeLayers) return;
    this.#activeLayers = now;
    this.emit('layer', this.layers[0] ?? '');
  }

  #onRtp(key: LayerKey, layer: LayerState, rtp: RtpPacket, ext: Record<string, unknown> | undefined): void {
    this.packets++;
    layer.ssrc ??= rtp.header.ssrc;
    const first = layer.lastPacketAt === 0;
    layer.lastPacketAt = Date.now();
    if (first) this.#checkLayers();
    this.#count(layer, rtp.header.sequenceNumber);
    if (this.kind === 'audio' && ext) {
      const al = ext[RTP_EXTENSION_URI.audioLevelIndication] as { level: number } | undefined;
      if (al && typeof al.level === 'number') this.#level = Math.max(this.#level, levelFromDbov(al.level));
    }
    if (this.paused) return;
    // The publisher's extension ids mean nothing on another leg (werift would keep them, and one
    // that shares the id of the leg's own mid extension makes the browser drop the packet).
    rtp.header.extensions = [];
    for (const sink of this.#sinks) sink.push(key, rtp);
  }

  #count(layer: LayerState, seq: number): void {
    if (layer.highest < 0) {
      layer.highest = layer.base = seq;
      layer.received = 1;
      return;
    }
    // Extend the 16-bit sequence number across wrap-arounds.
    const cycle = layer.highest & ~0xffff;
    let ext = cycle | seq;
    if (ext < layer.highest - 0x8000) ext += 0x10000;
    else if (ext > layer.highest + 0x8000) ext -= 0x10000;
    if (ext > layer.highest) layer.highest = ext;
    layer.received++;
  }

  /** Loss since the last read, 0-1, over every layer; resets the window. */
  takeLoss(): number | null {
    let expected = 0;
    let received = 0;
    for (const l of this.#layers.values()) {
      if (l.highest < 0) continue;
      expected += l.highest - l.base + 1;
      received += l.received;
      l.base = l.highest + 1;
      l.received = 0;
    }
    if (expected <= 0) return null;
    return Math.min(1, Math.max(0, (expected - received) / expected));
  }

  takeLevel(): number {
    const l = this.#level;
    this.#level = 0;
    return this.paused ? 0 : l;
  }

  attach(sink: RtpSink): void {
    this.#sinks.add(sink);
  }

  detach(sink: RtpSink): void {
    this.#sinks.delete(sink);
  }

  get subscriberCount(): number {
    return this.#sinks.size;
  }

  /**
   * A keyframe on that layer, please (PLI to the publisher). Asks within 300 ms of the last one are
   * folded into one sent when the gap is over; a subscriber that connects while the publisher's
   * own connection is still coming up gets its keyframe once it is up.
   */
  requestKeyframe(key: LayerKey): void {
    if (this.kind !== 'video' || this.#closed) return;
    const layer = this.#layers.get(key);
    const receiver = this.#transceiver?.receiver;
    if (!layer || layer.ssrc === undefined || !receiver) return;
    if (layer.keyframeTimer) return;
    const wait = layer.lastKeyframeAsk + KEYFRAME_ASK_GAP_MS - Date.now();
    const send = () => {
      layer.keyframeTimer = null;
      if (this.#closed) return;
      if (!sending(this.pc.connectionState)) {
        layer.keyframeTimer = setTimeout(send, 100);
        layer.keyframeTimer.unref();
        return;
      }
      layer.lastKeyframeAsk = Date.now();
      this.keyframesAsked++;
      receiver.sendRtcpPLI(layer.ssrc!).catch(() => undefined);
    };
    if (wait > 0 || !sending(this.pc.connectionState)) {
      layer.keyframeTimer = setTimeout(send, Math.max(wait, 50));
      layer.keyframeTimer.unref();
    } else send();
  }

  /** Each layer's SSRC and the keyframe requests sent for it (diagnostics). */
  keyframeAsks(): Array<{ layer: LayerKey; ssrc: number | undefined; asked: number }> {
    const sent = (this.#transceiver?.receiver as unknown as { pliCountBySsrc?: Record<number, number> } | undefined)?.pliCountBySsrc ?? {};
    return [...this.#layers].map(([layer, l]) => ({ layer, ssrc: l.ssrc, asked: l.ssrc === undefined ? 0 : (sent[l.ssrc] ?? 0) }));
  }

  #sendRemb(): void {
    const receiver = this.#transceiver?.receiver;
    const ssrcs = [...this.#layers.values()].map((l) => l.ssrc).filter((s): s is number => s !== undefined);
    if (!receiver || ssrcs.length === 0 || this.pc.connectionState !== 'connected') return;
    const { brExp, brMantissa } = rembParts(MAX_BITRATE[this.source]);
    const remb = new ReceiverEstimatedMaxBitrate({
      senderSsrc: receiver.rtcpSsrc,
      mediaSsrc: 0,
      brExp,
      brMantissa,
      ssrcNum: ssrcs.length,
      ssrcFeedbacks: ssrcs,
    });
    receiver.dtlsTransport.sendRtcp([new RtcpPayloadSpecificFeedback({ feedback: remb })]).catch(() => undefined);
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#remb) clearInterval(this.#remb);
    if (this.#layerCheck) clearInterval(this.#layerCheck);
    for (const l of this.#layers.values()) if (l.keyframeTimer) clearTimeout(l.keyframeTimer);
    this.#sinks.clear();
    this.pc.close().catch(() => undefined);
    this.emit('closed');
  }
}
