/**
 * A publisher that sends real media: ffmpeg encodes a lavfi source (or a file) to VP8 and Opus
 * RTP on loopback UDP ports, and a werift peer publishes those packets to the SFU as a browser
 * would (werift's sender puts its own ssrc, payload type and sequence on each packet).
 *
 * One ffmpeg makes both tracks from one media clock: a flash and a click made at the same media
 * instant. They do not leave it at the same moment (each encoder has its own delay, and on a
 * loaded machine the video encoder falls behind and catches up), so each frame's arrival is kept
 * beside its RTP timestamp, and `sentAt` tells when the media of an instant left the publisher:
 * the recording's drift is measured against what the publisher itself made of each event.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { MediaStreamTrack, RtpPacket } from 'werift';
import { clientPeerConnection, type MediaTestPeer } from './media-client.ts';

export interface RtpSource {
  /** lavfi video graph, e.g. `testsrc2=s=640x360:r=30`. */
  video?: string;
  /** lavfi audio graph, e.g. `sine=f=440:r=48000`. */
  audio?: string;
  /** Or a media file, read in real time (looped). */
  file?: string;
  /** VP8 keyframe interval (frames); the publisher cannot answer a PLI, so keep it short. */
  gop?: number;
}

/** testsrc2 with a full white frame for 100 ms every `everySec`, and a 1 kHz click of 20 ms at the same instants over a quiet hum. */
export function flashAndClick(everySec = 2): Required<Pick<RtpSource, 'video' | 'audio'>> {
  const e = String(everySec);
  return {
    video: `testsrc2=s=320x180:r=30,drawbox=x=0:y=0:w=iw:h=ih:color=white:t=fill:enable='lt(mod(t\\,${e})\\,0.1)'`,
    audio: `aevalsrc='0.02*sin(2*PI*200*t)+if(lt(mod(t\\,${e})\\,0.02)\\,0.8*sin(2*PI*1000*t)\\,0)':s=48000:c=mono`,
  };
}

export interface RtpPublication {
  trackIds: { camera?: string; mic?: string };
  /** RTP packets passed on to the SFU, per kind. */
  sent: { video: number; audio: number };
  ffmpeg: ChildProcess;
  /**
   * When (ms epoch) the frame holding media time `sec` reached the SFU's side: the first video
   * frame at or after it, the audio packet whose 20 ms hold it. Media time 0 is each kind's first
   * frame, both starting at lavfi's t = 0 (Opus's 6.5 ms pre-skip is left in). Null when that
   * frame was not seen (or is no longer kept).
   */
  sentAt(kind: 'video' | 'audio', sec: number): number | null;
  stop(): void;
}

/** RTP clock rates of what ffmpeg sends here (VP8 and Opus). */
const RTP_CLOCK = { video: 90_000, audio: 48_000 } as const;
/** Frames kept per kind for the send delay (a minute of video at 30 fps, of audio at 50 packets/s). */
const TIMINGS_KEPT = 3000;

async function bindPair(): Promise<{ rtp: UdpSocket; rtcp: UdpSocket; port: number }> {
  for (let i = 0; i < 20; i++) {
    const rtp = createSocket('udp4');
    const port = await new Promise<number>((resolve, reject) => {
      rtp.once('error', reject);
      rtp.bind(0, '127.0.0.1', () => resolve(rtp.address().port));
    });
    // ffmpeg sends RTCP to port + 1: bind it too, or the ICMP errors break its sending.
    const rtcp = createSocket('udp4');
    const ok = await new Promise<boolean>((resolve) => {
      rtcp.once('error', () => resolve(false));
      rtcp.bind(port + 1, '127.0.0.1', () => resolve(true));
    });
    if (ok) return { rtp, rtcp, port };
    rtp.close();
  }
  throw new Error('no UDP port pair');
}

/** Publishes `src` as this peer's camera and/or microphone (the peer has joined already). */
export async function publishRtp(peer: MediaTestPeer, src: RtpSource): Promise<RtpPublication> {
  const kinds = (['video', 'audio'] as const).filter((k) => src.file !== undefined || src[k] !== undefined);
  const pub: RtpPublication = {
    trackIds: {},
    sent: { video: 0, audio: 0 },
    ffmpeg: null as unknown as ChildProcess,
    sentAt: (kind, sec) => {
      const t = timings[kind];
      const want = sec * RTP_CLOCK[kind];
      const frames = t.frames.map((f) => ({ media: (f.ts - t.first) >>> 0, at: f.at }));
      if (kind === 'video') return frames.find((f) => f.media >= want - 1)?.at ?? null;
      const packet = frames.findLast((f) => f.media <= want);
      return packet && want - packet.media < 960 ? packet.at : null;
    },
    stop: () => undefined,
  };
  // Per kind: the first timestamp (media time 0), and each frame's first packet's arrival (ms epoch).
  const timings = {
    video: { first: -1, last: -1, frames: [] as Array<{ ts: number; at: number }> },
    audio: { first: -1, last: -1, frames: [] as Array<{ ts: number; at: number }> },
  };
  const sockets: UdpSocket[] = [];
  const ports: Record<string, number> = {};
  const closers: Array<() => void> = [];
  for (const kind of kinds) {
    const pc = clientPeerConnection();
    closers.push(() => void pc.close());
    const track = new MediaStreamTrack({ kind });
    pc.addTransceiver(track, { direction: 'sendonly' });
    await pc.setLocalDescription(await pc.createOffer());
    const answer = await peer.ok('publish', {
      source: kind === 'video' ? 'camera' : 'mic',
      sdp: pc.localDescription!.sdp,
    });
    await pc.setRemoteDescription({ type: 'answer', sdp: answer.sdp });
    pub.trackIds[kind === 'video' ? 'camera' : 'mic'] = answer.trackId;
    const pair = await bindPair();
    sockets.push(pair.rtp, pair.rtcp);
    ports[kind] = pair.port;
    pair.rtp.on('message', (buf) => {
      const at = performance.timeOrigin + performance.now();
      const rtp = RtpPacket.deSerialize(buf);
      const t = timings[kind];
      const ts = rtp.header.timestamp;
      if (t.first < 0) t.first = ts;
      if (ts !== t.last) {
        t.last = ts;
        t.frames.push({ ts, at });
        if (t.frames.length > TIMINGS_KEPT) t.frames.shift();
      }
      track.writeRtp(rtp);
      pub.sent[kind]++;
    });
  }
  const inputs: string[] = [];
  if (src.file) inputs.push('-re', '-stream_loop', '-1', '-i', src.file);
  else {
    if (src.video) inputs.push('-re', '-f', 'lavfi', '-i', src.video);
    if (src.audio) inputs.push('-re', '-f', 'lavfi', '-i', src.audio);
  }
  const outputs: string[] = [];
  const gop = String(src.gop ?? 30);
  if (ports['video'] !== undefined) {
    outputs.push('-map', '0:v', '-c:v', 'libvpx', '-deadline', 'realtime', '-cpu-used', '8', '-b:v', '600k', '-g', gop, '-keyint_min', gop);
    outputs.push('-an', '-payload_type', '96', '-f', 'rtp', '-pkt_size', '1200', `rtp://127.0.0.1:${String(ports['video'])}`);
  }
  if (ports['audio'] !== undefined) {
    const input = src.file ? '0:a' : src.video ? '1:a' : '0:a';
    outputs.push('-map', input, '-c:a', 'libopus', '-application', 'lowdelay', '-frame_duration', '20', '-b:a', '48k', '-ar', '48000');
    outputs.push('-vn', '-payload_type', '111', '-f', 'rtp', `rtp://127.0.0.1:${String(ports['audio'])}`);
  }
  const ffmpeg = spawn('ffmpeg', ['-hide_banner', '-nostdin', '-nostats', '-loglevel', 'error', ...inputs, ...outputs], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  pub.ffmpeg = ffmpeg;
  pub.stop = () => {
    if (ffmpeg.exitCode === null) ffmpeg.kill('SIGKILL');
    for (const s of sockets) s.close();
    for (const c of closers) c();
  };
  return pub;
}
