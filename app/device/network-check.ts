/**
 * The network check (docs/product/01-account-and-lobby.md §2: progress, then excellent, poor or very poor): a real probe of the
 * media node: round trip and loss on the path media takes (a WebRTC data channel that never
 * retransmits, so a dropped UDP packet stays lost), download and upload throughput on its socket.
 */
import { io } from 'socket.io-client';
import type { z } from 'zod';
import { CHANNEL_OFFLINE, openChannel, type AnswerOf } from '#core/channel/open.ts';
import { MEDIA_NAMESPACE, mediaChannel, type mediaRequests } from '#core/contracts/media-signaling.ts';
import { channelLog } from '#app/lib/client-log.ts';

export type NetworkGrade = 'excellent' | 'poor' | 'veryPoor';

export interface NetworkMeasure {
  rttMs: number;
  loss: number;
  downKbps: number;
  upKbps: number;
  /**
   * Whether the media path connected (a WebRTC data channel to the node over UDP, or TURN where
   * configured): false means the class's audio and video could not flow; null where the browser
   * has no WebRTC and the round trip and loss were measured on the signaling socket instead.
   */
  udp: boolean | null;
}

/**
 * A four-person mini class needs about 3 x 200-700 kbit/s down and 900 kbit/s up (two camera
 * layers and the microphone); a large class's viewer about 800 kbit/s down.
 */
export function gradeNetwork(m: NetworkMeasure): NetworkGrade {
  if (m.udp === false) return 'veryPoor';
  if (m.rttMs <= 150 && m.loss === 0 && m.downKbps >= 2000 && m.upKbps >= 1000) return 'excellent';
  if (m.rttMs <= 400 && m.loss <= 0.1 && m.downKbps >= 800 && m.upKbps >= 300) return 'poor';
  return 'veryPoor';
}

/** Numbered packets sent and echoed: round trips of those that came back, and the share lost. */
export class EchoCounter {
  readonly #sentAt = new Map<number, number>();
  readonly #rtts: number[] = [];
  readonly #back = new Set<number>();

  sent(seq: number, at: number): void {
    this.#sentAt.set(seq, at);
  }

  /** An echo; one never sent, or a duplicate, is ignored. */
  received(seq: number, at: number): void {
    const t0 = this.#sentAt.get(seq);
    if (t0 === undefined || this.#back.has(seq)) return;
    this.#back.add(seq);
    this.#rtts.push(at - t0);
  }

  get complete(): boolean {
    return this.#back.size === this.#sentAt.size;
  }

  result(): { rttMs: number; loss: number } {
    const sent = this.#sentAt.size;
    const rtts = [...this.#rtts].sort((a, b) => a - b);
    return {
      rttMs: rtts.length ? rtts[Math.floor(rtts.length / 2)]! : Infinity,
      loss: sent ? (sent - this.#back.size) / sent : 1,
    };
  }
}

const PINGS = 10;
const PING_TIMEOUT_MS = 2000;
const CHUNK = 128 * 1024;
const CHUNKS = 4;
/** The UDP probe: 50 packets of an audio packet's size, one every 20 ms (as a microphone sends). */
const UDP_PACKETS = 50;
const UDP_INTERVAL_MS = 20;
const UDP_PACKET_BYTES = 160;
const UDP_CONNECT_MS = 6000;
/** How long after the last packet its echo may still come back. */
const UDP_LINGER_MS = 1000;

/** One probe request; rejects when no answer came in `timeout` ms (a lost ping). */
type Ask = (body: z.input<(typeof mediaRequests)['probe']['payload']>, timeout: number) => Promise<AnswerOf<typeof mediaRequests, 'probe'>>;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Round trip and loss over an unordered, never-retransmitted data channel to the node. */
async function probeUdp(ask: Ask, onProgress: (share: number) => void): Promise<{ rttMs: number; loss: number; udp: boolean }> {
  const config = await ask({ kind: 'config' }, 10_000);
  const pc = new RTCPeerConnection({ iceServers: (config.data?.iceServers ?? []).map((s) => ({ ...s })), bundlePolicy: 'max-bundle' });
  try {
    const channel = pc.createDataChannel('probe', { ordered: false, maxRetransmits: 0 });
    channel.binaryType = 'arraybuffer';
    const opened = new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), UDP_CONNECT_MS);
      channel.onopen = () => {
        clearTimeout(timer);
        resolve(true);
      };
      pc.onconnectionstatechange = () => {
        if (pc.connectionState === 'failed') {
          clearTimeout(timer);
          resolve(false);
        }
      };
    });
    await pc.setLocalDescription(await pc.createOffer());
    const answer = await ask({ kind: 'rtc', sdp: pc.localDescription!.sdp }, 10_000);
    if (answer.code !== '0' || !answer.data?.sdp) throw new Error(answer.msg || 'the node refused the network check');
    await pc.setRemoteDescription({ type: 'answer', sdp: answer.data.sdp });
    if (!(await opened)) return { rttMs: Infinity, loss: 1, udp: false };
    const counter = new EchoCounter();
    channel.onmessage = (e: MessageEvent<string | ArrayBuffer>) => {
      const text = typeof e.data === 'string' ? e.data : new TextDecoder().decode(e.data);
      const seq = Number.parseInt(text, 10);
      if (Number.isInteger(seq)) counter.received(seq, performance.now());
    };
    const filler = '.'.repeat(UDP_PACKET_BYTES);
    for (let seq = 0; seq < UDP_PACKETS; seq++) {
      const packet = `${String(seq)} ${filler}`.slice(0, UDP_PACKET_BYTES);
      counter.sent(seq, performance.now());
      channel.send(packet);
      onProgress((seq + 1) / UDP_PACKETS);
      await sleep(UDP_INTERVAL_MS);
    }
    const end = performance.now() + UDP_LINGER_MS;
    while (!counter.complete && performance.now() < end) await sleep(20);
    return { ...counter.result(), udp: true };
  } finally {
    pc.close();
    void ask({ kind: 'rtcClose' }, 2000).catch(() => undefined);
  }
}

/** Round trip and unanswered pings over the signaling socket (browsers without WebRTC). */
async function probeSocket(ask: Ask, onProgress: (share: number) => void): Promise<{ rttMs: number; loss: number }> {
  const counter = new EchoCounter();
  for (let i = 0; i < PINGS; i++) {
    counter.sent(i, performance.now());
    try {
      await ask({ kind: 'ping' }, PING_TIMEOUT_MS);
      counter.received(i, performance.now());
    } catch {
      // lost
    }
    onProgress((i + 1) / PINGS);
  }
  return counter.result();
}

export async function probeNetwork(mediaUrl: string, onProgress: (share: number) => void): Promise<NetworkMeasure> {
  const socket = io(`${mediaUrl.replace(/\/+$/, '')}${MEDIA_NAMESPACE}`, {
    transports: ['websocket'],
    reconnection: false,
    forceNew: true,
  });
  try {
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', () => resolve());
      socket.once('connect_error', reject);
    });
    // Each answer parsed by the probe's answer schema (one that breaks it is logged, ADR 108).
    const channel = openChannel(mediaChannel, socket, { log: channelLog() });
    const ask: Ask = async (body, timeout) => {
      const answer = await channel.request('probe', body, { timeoutMs: timeout });
      if (answer.code === CHANNEL_OFFLINE) throw new Error('the network check got no answer in time');
      return answer;
    };
    // Progress: the round trip and loss part 40 %, download and upload 30 % each.
    const path =
      typeof RTCPeerConnection === 'function'
        ? await probeUdp(ask, (share) => onProgress(0.4 * share))
        : { ...(await probeSocket(ask, (share) => onProgress(0.4 * share))), udp: null };
    let done = 0;
    const tick = () => onProgress(0.4 + (0.6 * ++done) / (2 * CHUNKS));
    let t0 = performance.now();
    let bytes = 0;
    for (let i = 0; i < CHUNKS; i++) {
      bytes += (await ask({ kind: 'download', bytes: CHUNK }, 20_000)).data?.data?.length ?? 0;
      tick();
    }
    const downKbps = (bytes * 8) / (performance.now() - t0);
    const filler = 'u'.repeat(CHUNK);
    t0 = performance.now();
    bytes = 0;
    for (let i = 0; i < CHUNKS; i++) {
      bytes += (await ask({ kind: 'upload', data: filler }, 20_000)).data?.bytes ?? 0;
      tick();
    }
    const upKbps = (bytes * 8) / (performance.now() - t0);
    return { ...path, downKbps, upKbps };
  } finally {
    socket.close();
  }
}
