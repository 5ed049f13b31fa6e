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
