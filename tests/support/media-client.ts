/**
 * A media peer for tests and benchmarks: the signaling socket of a media node plus werift peer
 * connections standing in for a browser. It sends synthetic RTP (Opus-sized audio, VP8 frames
 * that start with a keyframe) and counts what it receives.
 */
import { io, type Socket } from 'socket.io-client';
import type { z } from 'zod';
import {
  MediaStreamTrack,
  RTCPeerConnection,
  RTCRtpCodecParameters,
  RTP_EXTENSION_URI,
  RtpHeader,
  RtpPacket,
  useAudioLevelIndication,
  useNACK,
  usePLI,
  useREMB,
  useSdesMid,
} from 'werift';
import { CHANNEL_OFFLINE, openChannel, type Channel, type ChannelProblem } from '#core/channel/open.ts';
import {
  MEDIA_NAMESPACE,
  MEDIA_NOTE_EVENT,
  mediaChannel,
  mediaEnvelope,
  MEDIA_REQUEST_EVENT,
  type Layer,
  type mediaEvents,
  type MediaNote,
  type mediaRequests,
  type MediaSource,
} from '#core/contracts/media-signaling.ts';
import type { Answer } from './room-client.ts';

type MediaRequests = typeof mediaRequests;
export type MediaRequest = keyof MediaRequests;
export type MediaAnswerData<K extends MediaRequest> = z.output<MediaRequests[K]['answer']>;

/** `hostAddresses`: gather on the machine's own IPv4 addresses instead of loopback only (for Janus, which skips loopback). */
export function clientPeerConnection(hostAddresses = false, dropShare = 0): RTCPeerConnection {
  return new RTCPeerConnection({
    iceServers: [],
    // werift drops an inbound packet when `inboundPacketLoss / 100 < Math.random()`.
    ...(dropShare > 0 ? { debug: { inboundPacketLoss: 100 * (1 - dropShare) } } : {}),
    iceUseIpv6: false,
    ...(hostAddresses
      ? {}
      : { iceUseIpv4: false, iceAdditionalHostAddresses: ['127.0.0.1'], iceInterfaceAddresses: { udp4: '127.0.0.1' } }),
    codecs: {
      audio: [new RTCRtpCodecParameters({ mimeType: 'audio/opus', clockRate: 48000, channels: 2, payloadType: 111 })],
      video: [
        new RTCRtpCodecParameters({
          mimeType: 'video/VP8',
          clockRate: 90000,
          payloadType: 96,
          rtcpFeedback: [useNACK(), usePLI(), useREMB()],
        }),
      ],
    },
    // The audio level lets a test speak at a known loudness (the active-speaker notes).
    headerExtensions: { audio: [useAudioLevelIndication(), useSdesMid()], video: [useSdesMid()] },
  });
}

export interface ReceivedTrack {
  subscriptionId: string;
  pc: RTCPeerConnection;
  packets: number;
  keyframes: number;
  /** Whether the first video packet that arrived started a keyframe (null before any). */
  firstWasKeyframe: boolean | null;
  /** The first payload byte of every audio packet that arrived: whose it was, when publishers `fill` with their own byte. */
  fills: Set<number>;
  close(): void;
}

export interface SentTrack {
  trackId: string;
  pc: RTCPeerConnection;
  /** PLIs the node sent to this publisher (keyframe requests forwarded from subscribers). */
  plis: number;
  sent: number;
  stop(): void;
  /** Starts sending (a publication made with `silent`: a device that gives nothing until now). */
  start(): void;
}

/**
 * A media node's signaling socket spoken through the product's client half (`openChannel` with the
 * media contract, ADR 108), as the browser's media session and the recorder speak it: requests
 * travel in the contract's envelope, answers and notes are parsed by their schemas.
 */
export class MediaTestPeer {
  readonly socket: Socket;
  readonly notes: MediaNote[] = [];
  /** Messages from the node that broke their schema (none, unless the node breaks its contract). */
  readonly problems: ChannelProblem[] = [];
  readonly #channel: Channel<MediaRequests, typeof mediaEvents>;
  readonly #pcs: RTCPeerConnection[] = [];
  readonly #timers: NodeJS.Timeout[] = [];

  private constructor(socket: Socket) {
    this.socket = socket;
    this.#channel = openChannel(mediaChannel, socket, { log: (p) => this.problems.push(p) });
    this.#channel.on(MEDIA_NOTE_EVENT, (n) => this.notes.push(n));
  }

  static connect(mediaUrl: string): Promise<MediaTestPeer> {
    const socket = io(`${mediaUrl}${MEDIA_NAMESPACE}`, { transports: ['websocket'], forceNew: true, reconnection: false });
    return new Promise((resolve, reject) => {
      socket.once('connect', () => resolve(new MediaTestPeer(socket)));
      socket.once('connect_error', reject);
    });
  }

  /**
   * A request of the contract, answered as the contract says: rejects when no answer came in time
   * and when the answer broke its schema.
   */
  async req<K extends MediaRequest>(type: K, body: z.input<MediaRequests[K]['payload']>): Promise<Answer<MediaAnswerData<K>>> {
    const before = this.problems.length;
    const answer = await this.#channel.request(type, body, { timeoutMs: 10_000 });
    const broke = this.problems.slice(before).find((p) => p.kind === 'answer' && p.name === type);
    if (broke) throw new Error(`the media answer to ${type} broke its schema: ${broke.issue}`);
    if (answer.code === CHANNEL_OFFLINE) throw new Error(`no answer to ${type} within 10 s (or the socket is down)`);
    return answer as Answer<MediaAnswerData<K>>;
  }

  /**
   * The raw path, for tests that send what the contract refuses: the envelope of `type` (built by
   * the contract's own `mediaEnvelope`, at version `v`) around `body` as given; the answer unparsed.
   */
  rawReq(type: string, body: unknown, v?: number): Promise<Answer<unknown>> {
    return this.rawEmit(mediaEnvelope(type, body, v));
  }

  /** The rawest path: `envelope` as the one request event, whatever it is. */
  rawEmit(envelope: unknown): Promise<Answer<unknown>> {
    return this.socket.timeout(10_000).emitWithAck(MEDIA_REQUEST_EVENT, envelope) as Promise<Answer<unknown>>;
  }

  async ok<K extends MediaRequest>(type: K, body: z.input<MediaRequests[K]['payload']>): Promise<MediaAnswerData<K>> {
    const a = await this.req(type, body);
    if (a.code !== '0') throw Object.assign(new Error(`${type} failed: ${a.code} ${a.msg}`), { code: a.code });
    return a.data;
  }

  waitNote<T extends MediaNote['type']>(
    type: T,
    match: (n: Extract<MediaNote, { type: T }>) => boolean = () => true,
    timeoutMs = 5000,
  ): Promise<Extract<MediaNote, { type: T }>> {
    return new Promise((resolve, reject) => {
      const seen = this.notes.find((n) => n.type === type && match(n as never));
      if (seen) return resolve(seen as never);
      const timer = setTimeout(() => {
        off();
        reject(new Error(`no ${type} note within ${timeoutMs} ms`));
      }, timeoutMs);
      const off = this.#channel.on(MEDIA_NOTE_EVENT, (n) => {
        if (n.type !== type || !match(n as never)) return;
        clearTimeout(timer);
        off();
        resolve(n as never);
      });
    });
  }

  /**
   * Publishes a synthetic source: audio every 20 ms, video a 3-packet frame every 66 ms (keyframe
   * every 30 frames). `silent`: negotiated and connected, but no packet is sent until `start()`.
   * `fill`: the byte audio payloads are made of (a receiver tells whose packets it got).
   */
  async publish(source: MediaSource, opts: { silent?: boolean; fill?: number } = {}): Promise<SentTrack> {
    const kind = source === 'mic' ? 'audio' : 'video';
    const pc = clientPeerConnection();
    this.#pcs.push(pc);
    const track = new MediaStreamTrack({ kind });
    const transceiver = pc.addTransceiver(track, { direction: 'sendonly' });
    await pc.setLocalDescription(await pc.createOffer());
    const answer = await this.ok('publish', { source, sdp: pc.localDescription!.sdp });
    await pc.setRemoteDescription({ type: 'answer', sdp: answer.sdp });
    let timer: NodeJS.Timeout | null = null;
    const sent: SentTrack = {
      trackId: answer.trackId,
      pc,
      plis: 0,
      sent: 0,
      stop: () => {
        if (timer) clearInterval(timer);
      },
      start: () => {
        if (timer) return;
        timer = sendSynthetic(track, kind, () => sent.sent++, levelId ? { audioLevelId: levelId, dbov: 10 } : undefined, opts.fill);
        this.#timers.push(timer);
      },
    };
    transceiver.sender.onPictureLossIndication.subscribe(() => sent.plis++);
    const levelId = transceiver.headerExtensions.find((e) => e.uri === RTP_EXTENSION_URI.audioLevelIndication)?.id;
    if (!opts.silent) sent.start();
    return sent;
  }

  /** `dropShare`: the share of arriving packets this receiver loses (a bad downlink). */
  async subscribe(trackId: string, layer?: Layer, dropShare = 0): Promise<ReceivedTrack> {
    const offer = await this.ok('subscribe', { trackId, ...(layer ? { layer } : {}) });
    const pc = clientPeerConnection(false, dropShare);
    this.#pcs.push(pc);
    const got: ReceivedTrack = {
      subscriptionId: offer.subscriptionId,
      pc,
      packets: 0,
      keyframes: 0,
      firstWasKeyframe: null,
      fills: new Set(),
      close: () => void pc.close(),
    };
    pc.onTrack.subscribe((track) => {
      track.onReceiveRtp.subscribe((rtp) => {
        got.packets++;
        if (track.kind === 'audio') got.fills.add(rtp.payload[0]!);
        const key = track.kind === 'video' && (rtp.payload[0]! & 0x10) !== 0 && (rtp.payload[1]! & 0x01) === 0;
        if (key) got.keyframes++;
        if (track.kind === 'video' && got.firstWasKeyframe === null) got.firstWasKeyframe = key;
      });
    });
    await pc.setRemoteDescription({ type: 'offer', sdp: offer.sdp });
    await pc.setLocalDescription(await pc.createAnswer());
    await this.ok('answer', { subscriptionId: offer.subscriptionId, sdp: pc.localDescription!.sdp });
    return got;
  }

  close(): void {
    this.#channel.close();
    for (const t of this.#timers) clearInterval(t);
    for (const pc of this.#pcs) void pc.close();
    this.socket.close();
  }
}

/**
 * Synthetic RTP on a werift track: audio a packet every 20 ms; video 15 frames a second of three
 * packets (about 290 kbit/s), each starting with a VP8 descriptor, a keyframe every 30 frames.
 */
export function sendSynthetic(
  track: MediaStreamTrack,
  kind: 'audio' | 'video',
  onSent: () => void = () => undefined,
  level?: { audioLevelId: number; dbov: number },
  fill = 1,
): NodeJS.Timeout {
  let seq = 0;
  let ts = 0;
  let frame = 0;
  const ssrc = 1000 + Math.floor(Math.random() * 1e6);
  const send = (payload: Buffer, marker: boolean) => {
    const header = new RtpHeader({
      payloadType: kind === 'audio' ? 111 : 96,
      sequenceNumber: seq++ & 0xffff,
      timestamp: ts >>> 0,
      ssrc,
      marker,
    });
    // ssrc-audio-level: V bit and the level in -dBov.
    if (level && kind === 'audio') header.extensions = [{ id: level.audioLevelId, payload: Buffer.from([0x80 | level.dbov]) }];
    track.writeRtp(new RtpPacket(header, payload));
    onSent();
  };
  return kind === 'audio'
    ? setInterval(() => {
        ts += 960;
        send(Buffer.alloc(80, fill), false);
      }, 20)
    : setInterval(() => {
        ts += 6000;
        const key = frame++ % 30 === 0;
        // VP8 descriptor: S=1, partition 0; then the payload header whose P bit is 0 for keyframes.
        send(Buffer.concat([Buffer.from([0x10, key ? 0x00 : 0x01]), Buffer.alloc(900, 2)]), false);
        send(Buffer.concat([Buffer.from([0x00]), Buffer.alloc(900, 3)]), false);
        send(Buffer.concat([Buffer.from([0x00]), Buffer.alloc(600, 4)]), true);
      }, 66);
}
