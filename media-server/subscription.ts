/**
 * One subscriber's copy of one publication, on its own peer connection offered by the node. The
 * publication pushes every packet; this leg forwards the chosen simulcast layer only, switches
 * layers at a keyframe, turns the subscriber's PLI/FIR into a keyframe request to the publisher
 * and answers NACKs from werift's own send cache. werift's sender copies each packet before it
 * rewrites the header, so every leg has its own copy.
 */
import { EventEmitter } from 'node:events';
import { MediaStreamTrack, RtcpPayloadSpecificFeedback, RtcpRrPacket, RtpPacket, type RTCPeerConnection, type RTCRtpSender } from 'werift';
import type { Layer } from '#core/contracts/media-signaling.ts';
import { LAYERS } from '#core/contracts/media-signaling.ts';
import type { LayerKey, Publication, RtpSink } from './publication.ts';
import { isVp8Keyframe, Vp8Continuity } from './rtp.ts';

const FIR_FMT = 4;
/** How often a layer switch still waiting for its keyframe asks again. */
const KEYFRAME_RETRY_MS = 500;

export class Subscription extends EventEmitter<{ closed: []; layerChanged: [Layer] }> implements RtpSink {
  readonly id: string;
  readonly publication: Publication;
  readonly pc: RTCPeerConnection;
  readonly #track: MediaStreamTrack;
  readonly #sender: RTCRtpSender;
  /** The layer asked for (by the peer or the room's profile); what is forwarded may be lower while it is missing. */
  #wanted: Layer;
  #current: LayerKey | null = null;
  #pending: LayerKey | null = null;
  #closed = false;
  #retry: NodeJS.Timeout | null = null;
  /**
   * A video leg forwards nothing before its first keyframe: the frames before it cannot be
   * decoded, and the node keeps asking the publisher until it comes (a request may be dropped).
   */
  #keyed: boolean;
  readonly #vp8 = new Vp8Continuity();
  /** From the subscriber's receiver reports: fraction lost (0-1) and jitter, latest. */
  downLoss: number | null = null;
  packets = 0;

  constructor(id: string, publication: Publication, pc: RTCPeerConnection, wanted: Layer) {
    super();
    this.id = id;
    this.publication = publication;
    this.pc = pc;
    this.#wanted = wanted;
    this.#keyed = publication.kind !== 'video';
    this.#track = new MediaStreamTrack({ kind: publication.kind });
    const transceiver = pc.addTransceiver(this.#track, { direction: 'sendonly' });
    this.#sender = transceiver.sender;
    this.#sender.onPictureLossIndication.subscribe(() => this.#askKeyframe());
    this.#sender.onRtcp.subscribe((packet) => {
      // FIR (feedback message type 4) asks for a keyframe like PLI; werift does not export its class.
      if (packet instanceof RtcpPayloadSpecificFeedback && (packet.feedback.constructor as { count?: number }).count === FIR_FMT)
        this.#askKeyframe();
      if (packet instanceof RtcpRrPacket) {
        const report = packet.reports.find((r) => r.ssrc === this.#sender.ssrc);
        if (report) this.downLoss = report.fractionLost / 256;
      }
    });
    pc.connectionStateChange.subscribe((state) => {
      if (state === 'connected') {
        this.#askKeyframe();
        if (!this.#keyed) this.#keepAsking();
      }
      if (state === 'failed' || state === 'closed') this.close();
    });
    // Audio has one stream and no layer checks: a microphone quiet for a while when the
    // subscription is made (layers() is then empty) must still be forwarded once it sends again.
    if (publication.kind === 'audio') this.#current = '';
    this.#choose();
    publication.on('layer', this.#onLayer);
    publication.attach(this);
  }

  readonly #onLayer = () => this.#choose();

  get closed(): boolean {
    return this.#closed;
  }

  get layer(): Layer {
    return this.#wanted;
  }

  /** The layer forwarded now, the one a switch waits for, and whether a keyframe came (diagnostics). */
  get forwarding(): { current: LayerKey | null; pending: LayerKey | null; keyed: boolean } {
    return { current: this.#current, pending: this.#pending, keyed: this.#keyed };
  }

  #askKeyframe(): void {
    const key = this.#pending ?? this.#current;
    if (key !== null) this.publication.requestKeyframe(key);
  }

  /** The best layer the publisher sends at or below the wanted one (or the lowest above it). */
  #target(): LayerKey | null {
    const have = this.publication.layers;
    if (have.length === 0) return null;
    if (have.includes('')) return '';
    const wantedAt = LAYERS.indexOf(this.#wanted);
    for (let i = wantedAt; i >= 0; i--) if (have.includes(LAYERS[i]!)) return LAYERS[i]!;
    for (let i = wantedAt + 1; i < LAYERS.length; i++) if (have.includes(LAYERS[i]!)) return LAYERS[i]!;
    return null;
  }

  #choose(): void {
    const target = this.#target();
    if (target === null || target === this.#current) {
      this.#pending = null;
      return;
    }
    // A leg that forwarded nothing yet has no picture to keep: it takes the layer there is at once
    // (made while a layer looked silent, it could otherwise wait on that layer for good).
    if (this.#current === null || !this.#keyed || this.publication.kind === 'audio') {
      this.#current = target;
      this.#pending = null;
    } else {
      this.#pending = target;
      this.#keepAsking();
    }
    this.#askKeyframe();
  }

  /**
   * A publisher may drop a keyframe request: Chromium ignores requests that come within a few
   * hundred milliseconds of the last one for any of its simulcast layers. A switch (or a new
   * subscriber) waiting for a keyframe would then wait forever, so ask again until it arrives (or
   * the switch is called off).
   */
  #keepAsking(): void {
    if (this.#retry) return;
    this.#retry = setInterval(() => {
      if ((this.#pending === null && this.#keyed) || this.#closed) {
        clearInterval(this.#retry!);
        this.#retry = null;
        return;
      }
      // The layers may have changed without a change the publication reported (a stall hid one).
      this.#choose();
      this.#askKeyframe();
    }, KEYFRAME_RETRY_MS);
    this.#retry.unref();
  }

  setLayer(layer: Layer): void {
    this.#wanted = layer;
    this.#choose();
  }

  push(key: LayerKey, rtp: RtpPacket): void {
    if (this.#closed) return;
    // Made while the publisher was quiet (no layer arriving), and the layer check may not have
    // seen the gap: choose now that a packet is here.
    if (this.#current === null) this.#choose();
    if (key !== this.#current) {
      // Switch at the first keyframe of the layer we are moving to; until then keep the old one.
      if (key !== this.#pending || !isVp8Keyframe(rtp.payload)) return;
      this.#current = key;
      this.#pending = null;
      this.#track.onSourceChanged.execute({ sequenceNumber: rtp.header.sequenceNumber, timestamp: rtp.header.timestamp });
      this.#vp8.switchTo(rtp.payload);
      if (key !== '') this.emit('layerChanged', key);
    } else if (!this.#keyed) {
      // The first frame this subscriber gets is a keyframe, so its first picture shows at once.
      if (!isVp8Keyframe(rtp.payload)) return;
    }
    this.#keyed = true;
    this.packets++;
    if (this.publication.kind === 'video') {
      const payload = this.#vp8.apply(rtp.payload);
      if (payload !== rtp.payload) rtp = new RtpPacket(rtp.header, Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength));
    }
    this.#track.writeRtp(rtp);
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#retry) clearInterval(this.#retry);
    this.publication.detach(this);
    this.publication.off('layer', this.#onLayer);
    this.#track.stop();
    this.pc.close().catch(() => undefined);
    this.emit('closed');
  }
}
