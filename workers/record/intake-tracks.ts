/**
 * The tracks the recorder follows (ADR 082, 083): a video track's YUV4MPEG2 pictures from its
 * decoder, kept a moment so each is shown MEDIA_HOLD_MS after it arrived; an audio track's Opus
 * decoded here and placed by its RTP time; and the peer connection a subscription uses.
 */
import { Buffer } from 'node:buffer';
import { RTCPeerConnection, RTCRtpCodecParameters, useNACK, usePLI, useSdesMid, type MediaStreamTrack, type RtpPacket } from 'werift';
import type { Layer, MediaSource, PublishedTrack } from '#core/contracts/media-signaling.ts';
import type { OpusDecoder } from 'opus-decoder';
import { AudioTimeline, type PlacedSummary } from './audio-timeline.ts';
import type { Decoder } from './decoder.ts';
import type { RtpReorder } from './reorder.ts';
import { Vp8Assembler } from './vp8.ts';
import { LAYOUT } from './types.ts';

/**
 * The recorder shows each picture and plays each sound this long after it arrived (pictures) or
 * would have arrived with no jitter (sound, by its RTP time): packets late by up to this (less a
 * frame, the mixer takes a frame's sound at once) still take their place, so picture and sound
 * stay together on a loaded machine (ADR 083). A recording starts this much later; nobody waits
 * on it.
 */
export const MEDIA_HOLD_MS = 200;
/** Decoded pictures kept per track to show one MEDIA_HOLD_MS old (200 ms at 30 fps, with room). */
const PICTURES_KEPT = 12;

/** A track the recorder follows. */
export abstract class TrackIn {
  readonly trackId: string;
  readonly userId: string;
  readonly source: MediaSource;
  /** When the recorder first saw the track (tile order). */
  readonly appearedAt: number;
  paused: boolean;
  /** The track as published (what a new subscription asks for). */
  readonly published: PublishedTrack;
  pc: RTCPeerConnection | null = null;
  /** The SFU's id of the current subscription ('' while none is made). */
  subscriptionId = '';
  /** When the current subscription was asked for, and whether its connection came up. */
  subscribedAt = 0;
  connected = false;
  /** A subscription is being asked for (its request and answer are under way). */
  subscribing = false;
  /** Subscriptions made for this track (more than one: the connection failed and was made again). */
  subscriptions = 0;
  remote: MediaStreamTrack | null = null;
  decoder: Decoder | null = null;
  /** When the last decoder was started, and how many were (an audio track's one is its Opus decoder). */
  startedAt = 0;
  starts = 0;
  /** RTP packets handed to the decoder. */
  forwarded = 0;
  /** RTP packets that arrived from the SFU (forwarded or not: a decoder not yet listening, waiting for a keyframe). */
  arrived = 0;
  /** Packets that began a VP8 keyframe, and keyframe requests sent (video; diagnostics). */
  keyframes = 0;
  plis = 0;
  closed = false;

  constructor(t: PublishedTrack) {
    this.published = t;
    this.trackId = t.trackId;
    this.userId = t.userId;
    this.source = t.source;
    this.paused = t.paused;
    this.appearedAt = performance.now();
  }
}

/** The y4m stream's parts: its header line, a picture's `FRAME` line, a picture's bytes. */
type Y4mPart = 'header' | 'frameLine' | 'picture';

export class VideoIn extends TrackIn {
  readonly width: number;
  readonly height: number;
  /** The latest whole picture (yuv420p width x height); a new Buffer per picture, so identity tells a change. */
  frame: Buffer | null = null;
  /** Recent pictures with when they were decoded, oldest first. */
  readonly #recent: Array<{ frame: Buffer; at: number }> = [];
  frames = 0;
  lastFrameAt = 0;
  decoderStartedAt = 0;
  /** The leg's packets back in order (set by the intake, which forwards what it sends on). */
  reorder: RtpReorder<RtpPacket> | null = null;
  /** Whole frames from the ordered packets, for the decoder (the intake sets what a loss does). */
  assembler = new Vp8Assembler();
  /** Where the decoder's YUV4MPEG2 output is: a line being read, or a picture being filled. */
  #part: Y4mPart = 'header';
  #line = '';
  #partial: Buffer;
  #filled = 0;

  constructor(t: PublishedTrack) {
    super(t);
    // Cameras at gallery size (the tiles column halves them), the screen at its area's.
    const size = t.source === 'screen' ? LAYOUT.screen : LAYOUT.camera;
    this.width = size.w;
    this.height = size.h;
    this.#partial = Buffer.allocUnsafe((this.width * this.height * 3) / 2);
  }

  /**
   * The decoder's YUV4MPEG2 stream, in chunks cut anywhere: a header line (`YUV4MPEG2 W.. H..`),
   * then for each picture a line starting `FRAME` and its yuv420p bytes. A header whose size is
   * not the track's is an error (the decoder scales to it).
   */
  onData(chunk: Buffer): void {
    let at = 0;
    while (at < chunk.length) {
      if (this.#part === 'picture') {
        const n = chunk.copy(this.#partial, this.#filled, at);
        at += n;
        this.#filled += n;
        if (this.#filled === this.#partial.length) this.#picture();
        continue;
      }
      const nl = chunk.indexOf(0x0a, at);
      const end = nl < 0 ? chunk.length : nl;
      this.#line += chunk.toString('latin1', at, end);
      at = end;
      if (this.#line.length > 256) throw new Error(`not a y4m stream: ${JSON.stringify(this.#line.slice(0, 40))}`);
      if (nl < 0) continue;
      at++; // the newline
      const line = this.#line;
      this.#line = '';
      if (this.#part === 'header') {
        const w = /\sW(\d+)/.exec(line)?.[1];
        const h = /\sH(\d+)/.exec(line)?.[1];
        if (!line.startsWith('YUV4MPEG2') || Number(w) !== this.width || Number(h) !== this.height)
          throw new Error(`y4m header ${JSON.stringify(line)} is not ${String(this.width)}x${String(this.height)}`);
        this.#part = 'frameLine';
      } else {
        if (!line.startsWith('FRAME')) throw new Error(`y4m picture without its FRAME line: ${JSON.stringify(line.slice(0, 40))}`);
        this.#part = 'picture';
        this.#filled = 0;
      }
    }
  }

  #picture(): void {
    this.frame = this.#partial;
    this.frames++;
    this.lastFrameAt = performance.now();
    this.#recent.push({ frame: this.#partial, at: this.lastFrameAt });
    if (this.#recent.length > PICTURES_KEPT) this.#recent.shift();
    this.#partial = Buffer.allocUnsafe(this.#partial.length);
    this.#filled = 0;
    this.#part = 'frameLine';
  }

  /** The newest picture decoded at or before `at` (null when every picture is newer, or none came). */
  pictureAt(at: number): Buffer | null {
    for (let i = this.#recent.length - 1; i >= 0; i--) if (this.#recent[i]!.at <= at) return this.#recent[i]!.frame;
    return null;
  }

  /** A new decoder's output starts with its own header. */
  resetPartial(): void {
    this.#part = 'header';
    this.#line = '';
    this.#filled = 0;
  }
}

export class AudioIn extends TrackIn {
  /** The sound placed by its RTP time, for the mixer (ADR 083). */
  readonly timeline = new AudioTimeline();
  /** Opus decoded here (one packet at a time, to 48 kHz mono); null until its WebAssembly is ready. */
  opus: OpusDecoder<48000> | null = null;
  /** Packets the decoder could not read (diagnostics). */
  undecodable = 0;

  /** Samples decoded and put in their place so far (tests and diagnostics). */
  get received(): number {
    return this.timeline.summary.samples;
  }

  /** Decodes one RTP packet that arrived at `arrivedMs` and puts its sound in its place (a packet seen twice, once: the timeline keeps one piece per place). */
  receive(rtp: RtpPacket, arrivedMs: number): void {
    if (!this.opus || rtp.payload.length === 0) return;
    const out = this.opus.decodeFrame(rtp.payload);
    const ch = out.channelData[0];
    if (out.errors.length > 0 || !ch || out.samplesDecoded === 0) {
      this.undecodable++;
      return;
    }
    const pcm = new Int16Array(out.samplesDecoded);
    for (let i = 0; i < pcm.length; i++) {
      const v = Math.round(ch[i]! * 32767);
      pcm[i] = v > 32767 ? 32767 : v < -32768 ? -32768 : v;
    }
    this.forwarded++;
    this.timeline.place(rtp.header.timestamp, arrivedMs, pcm);
  }

  /** Adds this track's sound of `n` samples from `fromMs` (the recorder's clock) into `acc`. */
  mixInto(acc: Int32Array, fromMs: number, n: number): boolean {
    return this.timeline.mixInto(acc, fromMs, n);
  }
}

export function recorderPeerConnection(): RTCPeerConnection {
  return new RTCPeerConnection({
    iceServers: [],
    iceUseIpv6: false,
    iceUseIpv4: false,
    iceAdditionalHostAddresses: ['127.0.0.1'],
    iceInterfaceAddresses: { udp4: '127.0.0.1' },
    codecs: {
      audio: [new RTCRtpCodecParameters({ mimeType: 'audio/opus', clockRate: 48000, channels: 2, payloadType: 111 })],
      video: [new RTCRtpCodecParameters({ mimeType: 'video/VP8', clockRate: 90000, payloadType: 96, rtcpFeedback: [useNACK(), usePLI()] })],
    },
    headerExtensions: { audio: [useSdesMid()], video: [useSdesMid()] },
  });
}

/** Cameras: the middle simulcast layer is enough for a 320x180 tile. The screen: the best there is. */
export function layerFor(t: Pick<PublishedTrack, 'source' | 'layers'>): Layer {
  return t.source === 'screen' ? 'h' : t.layers.length > 0 ? 'm' : 'h';
}

/** What one followed track delivered (received from the SFU, handed to its decoder, decoded). */
export interface TrackSummary {
  userId: string;
  source: MediaSource;
  subscriptions: number;
  arrived: number;
  packets: number;
  keyframes?: number;
  plis?: number;
  decoderStarts: number;
  pictures?: number;
  /** Video: packets put back in their place, gaps given up, packets that came after their gap was. */
  reordered?: { filled: number; skipped: number; late: number };
  /**
   * Video: frames put together and sent to the decoder, frames a lost packet broke, and frames held
   * back after a loss until the next keyframe.
   */
  frames?: { whole: number; broken: number; heldForKey: number };
  /** Video: frames written to the current decoder, and bytes of them it has not read yet. */
  decoder?: { written: number; queuedBytes: number };
  /** Audio: where its sound went (AudioTimeline's summary), and packets the Opus decoder could not read. */
  sound?: PlacedSummary & { undecodable: number };
}
