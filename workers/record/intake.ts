/**
 * The recorder's side of the SFU: a hidden peer (media token role 'recorder') that subscribes to
 * every track of the room. Video goes as whole VP8 frames to an ffmpeg decoder per track (ADR 082),
 * whose pictures are kept for the compositor; audio is decoded here (Opus in WebAssembly) and each
 * packet's sound is put on the recorder's clock by its RTP time for the mixer (ADR 083). The tracks
 * themselves are in intake-tracks.ts.
 *
 * It talks to the media node through the media channel's client half (`openChannel`, ADR 108/109):
 * each answer and note is parsed by the contract's schema; one that breaks it is logged and dropped.
 */
import { io, type Socket } from 'socket.io-client';
import type { z } from 'zod';
import type { RtpPacket } from 'werift';
import { openChannel, type Channel } from '#core/channel/open.ts';
import { MEDIA_NAMESPACE, MEDIA_NOTE_EVENT, mediaChannel, type MediaNote, type PublishedTrack } from '#core/contracts/media-signaling.ts';
import { OpusDecoder } from 'opus-decoder';
import { Decoder } from './decoder.ts';
import { RtpReorder } from './reorder.ts';
import { Vp8Assembler, vp8KeyframeStart } from './vp8.ts';
import { AUDIO_RATE, type Logger } from './types.ts';
import { AudioIn, layerFor, recorderPeerConnection, VideoIn, type TrackIn, type TrackSummary } from './intake-tracks.ts';

export { AudioIn, layerFor, MEDIA_HOLD_MS, VideoIn, type TrackSummary } from './intake-tracks.ts';

type MediaRequests = typeof mediaChannel.requests;
type MediaChannel = Channel<MediaRequests, typeof mediaChannel.events>;

/**
 * A subscription whose connection is not up this long after it was asked for (ICE or DTLS lost on a
 * starved machine; longer than a request may take) is made again, as is one whose connection
 * failed; at most this often.
 */
const SUBSCRIBE_CONNECT_MS = 40_000;
const RESUBSCRIBE_GAP_MS = 2_000;
/** A video decoder that showed nothing for this long asks for a keyframe again. */
const NO_FRAME_PLI_MS = 2000;
/** Give ffmpeg a moment to start before the first keyframe is asked for. */
const FIRST_PLI_DELAY_MS = 400;
/** A loss asks for a keyframe at once, and again for another loss no sooner than this. */
const LOSS_PLI_GAP_MS = 500;
/**
 * A request to the SFU may take this long: its answer to a subscription took 10 s and more on a
 * starved 2-core machine, and a request given up too early leaves its leg half made and asks again.
 */
const REQUEST_TIMEOUT_MS = 30_000;
/**
 * How long a gap in a video track's packets waits for the SFU's retransmission before its decoder
 * goes on without it (the leg's NACKs are sent for about 50 ms).
 */
const REORDER_WAIT_MS = 80;

export interface IntakeOptions {
  mediaUrl: string;
  mediaToken: string;
  logger: Logger;
}

export class Intake {
  readonly videos = new Map<string, VideoIn>();
  readonly audios = new Map<string, AudioIn>();
  readonly broken: Promise<never>;
  readonly #o: IntakeOptions;
  readonly #socket: Socket;
  readonly #channel: MediaChannel;
  readonly #watch: NodeJS.Timeout;
  #fail!: (err: Error) => void;
  #closed = false;
  peerId = '';

  private constructor(o: IntakeOptions, socket: Socket) {
    this.#o = o;
    this.#socket = socket;
    this.#channel = openChannel(mediaChannel, socket, {
      log: (problem) => o.logger.warn(problem, 'recorder intake: the media node sent a message that breaks its schema'),
      timeoutMs: REQUEST_TIMEOUT_MS,
    });
    this.broken = new Promise<never>((_, reject) => (this.#fail = reject));
    this.broken.catch(() => undefined);
    this.#watch = setInterval(() => this.#checkDecoders(), 500);
    this.#watch.unref();
  }

  /** Joins the room's media node as the hidden recorder and subscribes to what is there. */
  static async open(o: IntakeOptions): Promise<Intake> {
    const socket = io(`${o.mediaUrl}${MEDIA_NAMESPACE}`, { transports: ['websocket'], forceNew: true, reconnection: false });
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('connect_error', reject);
    });
    const intake = new Intake(o, socket);
    intake.#channel.on(MEDIA_NOTE_EVENT, (n) => intake.#onNote(n));
    socket.on('disconnect', (reason) => intake.#breaks(new Error(`media node connection lost: ${reason}`)));
    try {
      const joined = await intake.#req('join', { token: o.mediaToken });
      intake.peerId = joined.peerId;
      for (const t of joined.tracks) intake.#follow(t);
    } catch (err) {
      intake.close();
      throw err;
    }
    return intake;
  }

  /** One request to the media node; its answer parsed by the contract, a refusal or no answer thrown (with the code). */
  async #req<K extends keyof MediaRequests>(
    type: K,
    body: z.input<MediaRequests[K]['payload']>,
  ): Promise<z.output<MediaRequests[K]['answer']>> {
    const ack = await this.#channel.request(type, body);
    if (ack.code !== '0') throw Object.assign(new Error(`media ${type}: ${ack.code} ${ack.msg}`), { code: ack.code });
    return ack.data as z.output<MediaRequests[K]['answer']>;
  }

  #breaks(err: Error): void {
    if (this.#closed) return;
    this.#o.logger.warn({ err: err.message }, 'recorder intake broke');
    this.#fail(err);
    this.close();
  }

  #onNote(n: MediaNote): void {
    if (this.#closed) return;
    switch (n.type) {
      case 'trackAdded':
        // Also sent again when a publisher's simulcast layers change: the SFU picks the layer for us.
        if (!this.videos.has(n.track.trackId) && !this.audios.has(n.track.trackId)) this.#follow(n.track);
        break;
      case 'trackRemoved':
        this.#drop(n.trackId);
        break;
      case 'trackPaused': {
        const t = this.videos.get(n.trackId) ?? this.audios.get(n.trackId);
        if (t) {
          t.paused = n.paused;
          if (!n.paused && t instanceof VideoIn) this.#pli(t);
        }
        break;
      }
      case 'closed':
        this.#breaks(new Error(`media node closed the recorder: ${n.reason}`));
        break;
      case 'audioLevels':
      case 'quality':
      case 'rightsChanged':
      case 'layerChanged':
      case 'trackSilent':
        break;
    }
  }

  #follow(t: PublishedTrack): void {
    this.#o.logger.debug({ trackId: t.trackId, userId: t.userId, source: t.source, paused: t.paused }, 'recorder follows a track');
    const track = t.kind === 'video' ? new VideoIn(t) : new AudioIn(t);
    if (track instanceof VideoIn) {
      track.reorder = new RtpReorder<RtpPacket>({ emit: (rtp) => this.#forward(track, rtp), waitMs: REORDER_WAIT_MS });
      // A frame lost for good: what follows waits for a keyframe, asked for now (at most every LOSS_PLI_GAP_MS).
      let askedAt = -Infinity;
      track.assembler = new Vp8Assembler(() => {
        if (performance.now() - askedAt < LOSS_PLI_GAP_MS) return;
        askedAt = performance.now();
        this.#pli(track);
      });
      this.videos.set(t.trackId, track);
    } else this.audios.set(t.trackId, track);
    this.#connect(track, true).catch((err: unknown) => this.#subscribeFailed(track, err));
  }

  /**
   * Asks the SFU for the track on a new peer connection of its own; a new track starts its decoder
   * first (one that cannot start is started again by the watch), a leg made again keeps it.
   */
  async #connect(track: TrackIn, startDecoder: boolean): Promise<void> {
    track.subscribing = true;
    try {
      if (startDecoder)
        await this.#startDecoder(track).catch((err: unknown) =>
          this.#o.logger.warn({ err, trackId: track.trackId }, 'could not start a decoder'),
        );
      await this.#connectOnce(track);
    } finally {
      track.subscribing = false;
    }
  }

  async #connectOnce(track: TrackIn): Promise<void> {
    const t = track.published;
    track.subscribedAt = performance.now();
    track.connected = false;
    track.subscriptions++;
    const offer = await this.#req('subscribe', {
      trackId: t.trackId,
      ...(t.kind === 'video' ? { layer: layerFor(t) } : {}),
    });
    if (track.closed || this.#closed) {
      await this.#req('unsubscribe', { subscriptionId: offer.subscriptionId }).catch(() => undefined);
      return;
    }
    const pc = recorderPeerConnection();
    track.pc = pc;
    track.subscriptionId = offer.subscriptionId;
    track.subscribedAt = performance.now();
    pc.onTrack.subscribe((remote) => {
      if (track.pc !== pc) return;
      track.remote = remote;
      remote.onReceiveRtp.subscribe((rtp) => {
        track.arrived++;
        if (track instanceof AudioIn) track.receive(rtp, performance.now());
        else if (track instanceof VideoIn) track.reorder?.push(rtp.header.sequenceNumber, rtp);
      });
    });
    pc.connectionStateChange.subscribe((state) => {
      if (track.pc !== pc) return;
      this.#o.logger.debug({ trackId: track.trackId, state }, 'recorder subscription connection');
      if (state === 'connected') {
        track.connected = true;
        if (track instanceof VideoIn) setTimeout(() => this.#pli(track), FIRST_PLI_DELAY_MS).unref();
      }
      // Lost (ICE or DTLS gave up, the SFU closed its side): a new subscription, not a silent tile.
      if (state === 'failed' || state === 'closed') this.#resubscribe(track, `connection ${state}`);
    });
    await pc.setRemoteDescription({ type: 'offer', sdp: offer.sdp });
    await pc.setLocalDescription(await pc.createAnswer());
    await this.#req('answer', { subscriptionId: offer.subscriptionId, sdp: pc.localDescription!.sdp });
  }

  /**
   * Hands a packet on: audio to its decoder's RTP port; video, in sequence order from its reorder,
   * to its frame assembler, whose whole frames go to the decoder.
   */
  #forward(track: VideoIn, rtp: RtpPacket): void {
    if (vp8KeyframeStart(rtp.payload)) track.keyframes++;
    const d = track.decoder;
    if (track.closed || !d?.running) return;
    track.forwarded++;
    const frame = track.assembler.push({
      sequenceNumber: rtp.header.sequenceNumber,
      timestamp: rtp.header.timestamp,
      marker: rtp.header.marker,
      payload: rtp.payload,
    });
    if (frame) d.writeFrame(frame.data, frame.timestamp);
  }

  async #startDecoder(track: TrackIn): Promise<void> {
    if (track instanceof AudioIn) {
      track.starts++;
      const opus = new OpusDecoder({ channels: 1, sampleRate: AUDIO_RATE });
      await opus.ready;
      if (track.closed || this.#closed) opus.free();
      else track.opus = opus;
      return;
    }
    if (!(track instanceof VideoIn) || track.closed || this.#closed) return;
    const video = track;
    video.resetPartial();
    video.startedAt = performance.now();
    video.starts++;
    video.decoder = Decoder.start({
      width: video.width,
      height: video.height,
      onData: (c) => video.onData(c),
      onExit: (code, tail) => {
        if (video.closed || this.#closed) return;
        this.#o.logger.warn({ trackId: video.trackId, code, stderr: tail.slice(-500) }, 'a track decoder exited; restarting it');
        video.decoder = null;
      },
    });
    // A new decoder starts at a keyframe.
    video.assembler.reset();
    video.decoderStartedAt = performance.now();
    setTimeout(() => this.#pli(video), FIRST_PLI_DELAY_MS).unref();
  }

  /** Restarts decoders that died, and asks for a keyframe where a picture is overdue. */
  #checkDecoders(): void {
    const now = performance.now();
    for (const t of [...this.videos.values(), ...this.audios.values()]) {
      if (t.closed || this.#closed) continue;
      if (!t.subscribing && !t.connected && t.subscribedAt > 0 && now - t.subscribedAt > SUBSCRIBE_CONNECT_MS)
        this.#resubscribe(t, `not connected after ${String(SUBSCRIBE_CONNECT_MS / 1000)} s`);
      if (t instanceof AudioIn) continue;
      if (!t.decoder) {
        // At most one restart a second: a decoder that cannot start must not spin.
        if (now - t.startedAt > 1000)
          this.#startDecoder(t).catch((err: unknown) => this.#o.logger.warn({ err }, 'could not restart a decoder'));
        continue;
      }
      if (t instanceof VideoIn && !t.paused && t.decoder.running) {
        const since = Math.max(t.lastFrameAt, t.decoderStartedAt);
        if (now - since > NO_FRAME_PLI_MS) {
          t.decoderStartedAt = now; // ask again in 2 s at the earliest
          this.#pli(t);
        }
      }
    }
  }

  /** Drops the track's subscription and asks for a new one (RESUBSCRIBE_GAP_MS after the last at the earliest). */
  #resubscribe(t: TrackIn, why: string): void {
    if (t.closed || this.#closed || t.subscribing) return;
    // Counts as under way from now: the watchdog and a late 'failed' do not ask twice.
    t.subscribing = true;
    const old = { pc: t.pc, id: t.subscriptionId };
    // The new leg numbers its packets afresh.
    if (t instanceof VideoIn) t.reorder?.reset();
    t.pc = null;
    t.remote = null;
    t.subscriptionId = '';
    t.connected = false;
    this.#o.logger.warn(
      { trackId: t.trackId, userId: t.userId, source: t.source, why, subscriptions: t.subscriptions },
      'recorder subscribes again',
    );
    void old.pc?.close().catch(() => undefined);
    if (old.id) this.#req('unsubscribe', { subscriptionId: old.id }).catch(() => undefined);
    const wait = Math.max(0, t.subscribedAt + RESUBSCRIBE_GAP_MS - performance.now());
    setTimeout(() => {
      t.subscribing = false;
      if (t.closed || this.#closed) return;
      // The decoder goes on from the new leg's first keyframe.
      if (t instanceof VideoIn) t.assembler.reset();
      this.#connect(t, false).catch((err: unknown) => this.#subscribeFailed(t, err));
    }, wait).unref();
  }

  /** A subscription could not be made: a track gone from the room is dropped; otherwise the watchdog asks again. */
  #subscribeFailed(t: TrackIn, err: unknown): void {
    const gone = (err as { code?: string }).code === '33003';
    this.#o.logger.warn({ err, trackId: t.trackId, gone }, 'recorder could not subscribe');
    if (gone) this.#drop(t.trackId);
  }

  #pli(t: VideoIn): void {
    const ssrc = t.remote?.ssrc;
    const receiver = t.pc?.getTransceivers()[0]?.receiver;
    if (t.closed || ssrc === undefined || !receiver) return;
    t.plis++;
    receiver.sendRtcpPLI(ssrc).catch(() => undefined);
  }

  #drop(trackId: string): void {
    const t = this.videos.get(trackId) ?? this.audios.get(trackId);
    if (!t) return;
    this.#o.logger.debug({ trackId, userId: t.userId, source: t.source, packets: t.forwarded }, 'recorder drops a track');
    this.videos.delete(trackId);
    this.audios.delete(trackId);
    this.#close(t);
  }

  #close(t: TrackIn): void {
    t.closed = true;
    if (t instanceof VideoIn) t.reorder?.reset();
    t.decoder?.stop();
    t.decoder = null;
    if (t instanceof AudioIn) {
      t.opus?.free();
      t.opus = null;
    }
    void t.pc?.close().catch(() => undefined);
  }

  /** What each followed track delivered (the session logs it when it ends: an operator's first look at a silent or frozen recording). */
  summary(): TrackSummary[] {
    const videos = [...this.videos.values()].map((v) => ({
      userId: v.userId,
      source: v.source,
      subscriptions: v.subscriptions,
      arrived: v.arrived,
      packets: v.forwarded,
      keyframes: v.keyframes,
      plis: v.plis,
      decoderStarts: v.starts,
      pictures: v.frames,
      decoder: { written: v.decoder?.written ?? 0, queuedBytes: v.decoder?.queuedBytes ?? 0 },
      reordered: { filled: v.reorder?.filled ?? 0, skipped: v.reorder?.skipped ?? 0, late: v.reorder?.late ?? 0 },
      frames: { whole: v.assembler.frames, broken: v.assembler.broken, heldForKey: v.assembler.heldForKey },
    }));
    const audios = [...this.audios.values()].map((a) => ({
      userId: a.userId,
      source: a.source,
      subscriptions: a.subscriptions,
      arrived: a.arrived,
      packets: a.forwarded,
      decoderStarts: a.starts,
      sound: { ...a.timeline.summary, undecodable: a.undecodable },
    }));
    return [...videos, ...audios];
  }

  /** Leaves the room and kills every decoder. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#watch);
    for (const t of [...this.videos.values(), ...this.audios.values()]) this.#close(t);
    this.videos.clear();
    this.audios.clear();
    this.#channel.send('leave', {});
    this.#channel.close();
    this.#socket.close();
  }
}
