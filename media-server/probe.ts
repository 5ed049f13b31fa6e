/**
 * The UDP half of the network check (ADR 031 addendum): the browser opens a peer connection to
 * this node with one unordered, never-retransmitted data channel and sends numbered packets; the
 * node sends each one straight back. Packets the path drops stay lost, so the browser measures
 * the loss and round trip of the path its camera and microphone would take (the same ICE, the
 * same UDP port range, TURN where configured), not of the TCP signaling socket.
 *
 * Open to anyone who can reach the signaling socket (it runs before joining a class), so it is
 * bounded: one probe per socket, at most `maxOpen` per node, each closed after `lifetimeMs`, and
 * at most `maxEchoes` packets of at most PROBE_PACKET_MAX_BYTES echoed per probe.
 */
import type { RTCDataChannel } from 'werift';
import { PROBE_PACKET_MAX_BYTES, PROBE_RTC_LIFETIME_MS } from '#core/contracts/media-signaling.ts';
import { DomainError, illegalParams } from '#core/platform/errors.ts';
import { newPeerConnection, remoteSdp, type RtcSettings } from './rtc.ts';

const PPID_STRING = 51;
const PPID_BINARY = 53;

/**
 * Sends an echo that is never retransmitted. werift 0.25.2 retransmits on a channel opened with
 * maxRetransmits 0 (it tests the count for truthiness) and with a packet lifetime (it compares
 * milliseconds with seconds), which would turn a lost echo into a late one and hide the loss. Its
 * association's own send takes an expiry in seconds, checked only when a chunk is due for
 * retransmission: an expiry of now sends the echo once and abandons it instead of resending.
 */
function echo(channel: RTCDataChannel, message: string | Buffer): void {
  if (message.length === 0 || channel.id === undefined) return;
  const ppid = typeof message === 'string' ? PPID_STRING : PPID_BINARY;
  channel.sctp.sctp.send(channel.id, ppid, Buffer.from(message), { ordered: false, expiry: Date.now() / 1000 }).catch(() => undefined); // the association closed under us: nothing to answer
}

export interface ProbeOptions {
  maxOpen: number;
  lifetimeMs: number;
  maxEchoes: number;
}

export const PROBE_DEFAULTS: ProbeOptions = { maxOpen: 16, lifetimeMs: PROBE_RTC_LIFETIME_MS, maxEchoes: 400 };

export interface OpenProbe {
  sdp: string;
  close(): void;
}

export class ProbeEchoes {
  readonly #rtc: RtcSettings;
  readonly #options: ProbeOptions;
  readonly #open = new Set<() => void>();

  constructor(rtc: RtcSettings, options: Partial<ProbeOptions> = {}) {
    this.#rtc = rtc;
    this.#options = { ...PROBE_DEFAULTS, ...options };
  }

  get openCount(): number {
    return this.#open.size;
  }

  /** Answers the browser's offer; the connection echoes until closed or its lifetime ends. */
  async open(offer: string): Promise<OpenProbe> {
    if (!/^m=application /m.test(offer)) throw illegalParams('sdp: no data channel offered');
    if (this.#open.size >= this.#options.maxOpen) throw new DomainError('8', 'too many network checks at once');
    const pc = newPeerConnection(this.#rtc);
    let closed = false;
    const close = () => {
      if (closed) return;
      closed = true;
      clearTimeout(timer);
      this.#open.delete(close);
      void pc.close().catch(() => undefined);
    };
    const timer = setTimeout(close, this.#options.lifetimeMs);
    this.#open.add(close);
    let echoes = 0;
    pc.onDataChannel.subscribe((channel: RTCDataChannel) => {
      channel.onMessage.subscribe((message) => {
        if (closed || message.length > PROBE_PACKET_MAX_BYTES || ++echoes > this.#options.maxEchoes) return;
        echo(channel, message);
      });
    });
    try {
      await pc.setRemoteDescription({ type: 'offer', sdp: remoteSdp(offer) });
      await pc.setLocalDescription(await pc.createAnswer());
    } catch (err) {
      close();
      throw new DomainError('33004', err instanceof Error ? err.message : 'negotiation');
    }
    const sdp = pc.localDescription?.sdp;
    if (!sdp || closed) {
      close();
      throw new DomainError('33004', 'no answer');
    }
    return { sdp, close };
  }

  close(): void {
    for (const close of [...this.#open]) close();
  }
}
