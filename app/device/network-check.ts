/**
 * The network check (spec 01 §2: progress, then excellent, poor or very poor): a real probe of the
 * media node over its own socket: round trips, lost answers, download and upload throughput.
 */
import { io } from 'socket.io-client';
import { MEDIA_NAMESPACE, MEDIA_PROTOCOL_VERSION, MEDIA_REQUEST_EVENT } from '#core/contracts/media-signaling.ts';
import type { Ack } from '#core/contracts/room-events.ts';

export type NetworkGrade = 'excellent' | 'poor' | 'veryPoor';

export interface NetworkMeasure {
  rttMs: number;
  loss: number;
  downKbps: number;
  upKbps: number;
}

/**
 * A four-person mini class needs about 3 x 200-700 kbit/s down and 900 kbit/s up (two camera
 * layers and the microphone); a large class's viewer about 800 kbit/s down.
 */
export function gradeNetwork(m: NetworkMeasure): NetworkGrade {
  if (m.rttMs <= 150 && m.loss === 0 && m.downKbps >= 2000 && m.upKbps >= 1000) return 'excellent';
  if (m.rttMs <= 400 && m.loss <= 0.1 && m.downKbps >= 800 && m.upKbps >= 300) return 'poor';
  return 'veryPoor';
}

const PINGS = 10;
const PING_TIMEOUT_MS = 2000;
const CHUNK = 128 * 1024;
const CHUNKS = 4;

export async function probeNetwork(mediaUrl: string, onProgress: (share: number) => void): Promise<NetworkMeasure> {
  const socket = io(`${mediaUrl.replace(/\/+$/, '')}${MEDIA_NAMESPACE}`, { transports: ['websocket'], reconnection: false, forceNew: true });
  try {
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', () => resolve());
      socket.once('connect_error', reject);
    });
    const ask = (body: Record<string, unknown>, timeout: number) =>
      socket.timeout(timeout).emitWithAck(MEDIA_REQUEST_EVENT, { v: MEDIA_PROTOCOL_VERSION, type: 'probe', ...body }) as Promise<Ack<{ bytes: number; data?: string }>>;
    const steps = PINGS + 2 * CHUNKS;
    let done = 0;
    const tick = () => onProgress(++done / steps);
    const rtts: number[] = [];
    let lost = 0;
    for (let i = 0; i < PINGS; i++) {
      const t0 = performance.now();
      try {
        await ask({ kind: 'ping' }, PING_TIMEOUT_MS);
        rtts.push(performance.now() - t0);
      } catch {
        lost++;
      }
      tick();
    }
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
    rtts.sort((a, b) => a - b);
    return { rttMs: rtts.length ? rtts[Math.floor(rtts.length / 2)]! : Infinity, loss: lost / PINGS, downKbps, upKbps };
  } finally {
    socket.close();
  }
}
