/**
 * werift peer connections as the node makes them: one codec per kind (Opus, VP8) so payload types
 * line up on every leg, the header extensions the forwarding needs (mid, rid for simulcast, audio
 * level), host candidates only on the announced address, and the configured UDP port range.
 */
import {
  RTCPeerConnection,
  RTCRtpCodecParameters,
  useAbsSendTime,
  useAudioLevelIndication,
  useFIR,
  useNACK,
  usePLI,
  useREMB,
  useRepairedRtpStreamId,
  useSdesMid,
  useSdesRTPStreamId,
} from 'werift';

export interface RtcSettings {
  /** The local address UDP sockets bind to. */
  listenIp: string;
  /** The address put in candidates (a public IP behind NAT); defaults to listenIp. */
  announcedAddress: string;
  portRange: [number, number];
}

const opus = () =>
  new RTCRtpCodecParameters({
    mimeType: 'audio/opus',
    clockRate: 48000,
    channels: 2,
    payloadType: 111,
    parameters: 'minptime=10;useinbandfec=1',
  });
const vp8 = () =>
  new RTCRtpCodecParameters({
    mimeType: 'video/VP8',
    clockRate: 90000,
    payloadType: 96,
    rtcpFeedback: [useNACK(), usePLI(), useFIR(), useREMB()],
  });

export function newPeerConnection(s: RtcSettings): RTCPeerConnection {
  return new RTCPeerConnection({
    iceServers: [],
    // No interface scan: the one host candidate is the announced address (werift would otherwise offer another interface's address while bound to MEDIA_LISTEN_IP; MEDIA_ANNOUNCED_ADDRESS in the README).
    iceUseIpv4: false,
    iceUseIpv6: false,
    iceAdditionalHostAddresses: [s.announcedAddress],
    iceInterfaceAddresses: { udp4: s.listenIp },
    icePortRange: s.portRange,
    codecs: { audio: [opus()], video: [vp8()] },
    headerExtensions: {
      audio: [useSdesMid(), useAudioLevelIndication()],
      video: [useSdesMid(), useAbsSendTime(), useSdesRTPStreamId(), useRepairedRtpStreamId()],
    },
  });
}

/** Gives up on a negotiation that does not connect (a browser that vanished mid-offer). */
export function whenConnected(pc: RTCPeerConnection, timeoutMs: number): Promise<void> {
  if (pc.connectionState === 'connected') return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      sub.unSubscribe();
      reject(new Error('peer connection did not connect'));
    }, timeoutMs);
    const sub = pc.connectionStateChange.subscribe((state) => {
      if (state === 'connected') {
        clearTimeout(timer);
        sub.unSubscribe();
        resolve();
      } else if (state === 'failed' || state === 'closed') {
        clearTimeout(timer);
        sub.unSubscribe();
        reject(new Error(`peer connection ${state}`));
      }
    });
  });
}

/** An SDP we accept from a peer: a bounded string that looks like SDP. */
export function plausibleSdp(sdp: unknown): sdp is string {
  return typeof sdp === 'string' && sdp.length > 20 && sdp.length < 64 * 1024 && sdp.startsWith('v=0');
}

/**
 * A browser's SDP as werift should read it: without the candidates' `generation` (Chromium writes
 * `generation 0` on every candidate, also after an ICE restart). werift numbers its own
 * generations from 0 and counts one up at each restart, and nominates a pair only when its remote
 * candidate is of the current generation: after a restart it never nominated the browser's pair,
 * so it received media but sent nothing back (no keyframe requests, no bandwidth estimate: a
 * camera that new subscribers never saw, its top layer off). A candidate without one is taken as
 * current.
 */
export function remoteSdp(sdp: string): string {
  return sdp.replace(/^(a=candidate:.*?) generation \d+/gm, '$1');
}

/**
 * After an ICE restart is negotiated, makes werift check the new candidates. Its `connect()` skips
 * a transport whose DTLS is still up, so after a restart it answered the browser's checks but never
 * ran its own: no pair was nominated, and it could receive but send nothing. A transport with no
 * nominated pair is started here (once: `start()` waits for a run already under way).
 */
export function checkAfterRestart(pc: RTCPeerConnection): void {
  for (const t of pc.iceTransports)
    if (t.state !== 'closed' && t.connection.nominated === undefined && t.connection.remoteUsername) t.start().catch(() => undefined);
}
