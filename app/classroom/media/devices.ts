/**
 * Local devices: the stored choice (docs/product/02-live-classroom.md §3 `device-configure`), the spec's capture settings
 * (640x360 at 15 fps), and getUserMedia failures mapped to the spec's device exceptions.
 */
import { openCameraWithFallback } from '#app/device/camera-fallback.ts';
import { safeGet, safeSet } from '#app/lib/storage.ts';

export const DEVICE_CONFIG_KEY = 'device-configure';
export const LOCAL_VIDEO = { width: 640, height: 360, frameRate: 15 } as const;

export interface DeviceConfig {
  videoDeviceId?: string;
  audioDeviceId?: string;
  speakerId?: string;
  /** The pre-join's remembered switches (ADR 089): join with the camera on / the microphone open. */
  camOn?: boolean;
  micOn?: boolean;
}

/** The stored choice under `key` (the studio keeps its own, `record-device-configure`). */
export function readDeviceConfig(key = DEVICE_CONFIG_KEY): DeviceConfig {
  try {
    const raw = safeGet('local', key);
    const parsed = raw ? (JSON.parse(raw) as unknown) : null;
    if (!parsed || typeof parsed !== 'object') return {};
    const out: DeviceConfig = {};
    for (const k of ['videoDeviceId', 'audioDeviceId', 'speakerId'] as const) {
      const v = (parsed as Record<string, unknown>)[k];
      if (typeof v === 'string' && v.length < 512) out[k] = v;
    }
    for (const k of ['camOn', 'micOn'] as const) {
      const v = (parsed as Record<string, unknown>)[k];
      if (typeof v === 'boolean') out[k] = v;
    }
    return out;
  } catch {
    return {};
  }
}

export function saveDeviceConfig(patch: DeviceConfig, key = DEVICE_CONFIG_KEY): void {
  safeSet('local', key, JSON.stringify({ ...readDeviceConfig(key), ...patch }));
}

/** How the local devices start in the room: what the pre-join chose (ADR 089). */
export interface JoinDevices {
  cam: boolean;
  mic: boolean;
  /** The microphone could not start on the pre-join (refused, missing): a muted one is not tried again until unmuted. */
  micFailed?: boolean;
}

let chosen: { roomNumber: string; devices: JoinDevices } | null = null;

/** The pre-join hands its choice to the room it opens (this page only; a reload asks again). */
export function setJoinDevices(roomNumber: string, devices: JoinDevices): void {
  chosen = { roomNumber, devices };
}

/**
 * The start of the room's devices: the pre-join's choice for this room, else the remembered
 * switches, else both on (a large class's audience has no devices until invited to the mic, and
 * then opens them).
 */
export function joinDevices(roomNumber: string, audience: boolean): JoinDevices {
  if (audience) return { cam: true, mic: true };
  if (chosen?.roomNumber === roomNumber) return chosen.devices;
  const c = readDeviceConfig();
  return { cam: c.camOn !== false, mic: c.micOn !== false };
}

/** The device exceptions of docs/product/02-live-classroom.md §4, §5, §8. */
export type DeviceProblem =
  'noDevices' | 'noWebcam' | 'noMicrophone' | 'occupied' | 'denied' | 'resolution' | 'unplugged' | 'deviceUpdate' | 'deviceError';

/** A getUserMedia failure, by the error's name, as the problem the person is shown. */
export function problemOf(err: unknown, kind: 'audio' | 'video' | 'both'): DeviceProblem {
  const name =
    err instanceof Error || (typeof err === 'object' && err !== null && 'name' in err) ? String((err as { name: string }).name) : '';
  if (name === 'NotAllowedError' || name === 'SecurityError' || name === 'PermissionDeniedError') return 'denied';
  // AbortError: Chromium's "Timeout starting video source", a camera another program holds.
  if (name === 'NotReadableError' || name === 'TrackStartError' || name === 'AbortError') return 'occupied';
  if (name === 'NotFoundError' || name === 'DevicesNotFoundError')
    return kind === 'audio' ? 'noMicrophone' : kind === 'video' ? 'noWebcam' : 'noDevices';
  // Still refused at 640x480 (the fallback ran): the camera cannot do the class's size.
  if (name === 'OverconstrainedError' || name === 'ConstraintNotSatisfiedError') return kind === 'audio' ? 'deviceError' : 'resolution';
  return 'deviceError';
}

function videoConstraints(deviceId: string | undefined, size: { width: number; height: number }): MediaTrackConstraints {
  return {
    width: { ideal: size.width },
    height: { ideal: size.height },
    frameRate: { ideal: LOCAL_VIDEO.frameRate, max: LOCAL_VIDEO.frameRate },
    ...(deviceId ? { deviceId: { ideal: deviceId } } : {}),
  };
}

/** One track of one kind, with the stored device if it still exists; the camera falls back to 640x480 (§5). */
export async function captureTrack(kind: 'audio' | 'video', config = readDeviceConfig()): Promise<MediaStreamTrack> {
  if (!navigator.mediaDevices?.getUserMedia) throw Object.assign(new Error('no media devices'), { name: 'NotFoundError' });
  if (kind === 'audio') {
    const stream = await navigator.mediaDevices.getUserMedia({
      audio: {
        echoCancellation: true,
        noiseSuppression: true,
        ...(config.audioDeviceId ? { deviceId: { ideal: config.audioDeviceId } } : {}),
      },
    });
    return stream.getAudioTracks()[0]!;
  }
  const open = (size: { width: number; height: number }) =>
    navigator.mediaDevices.getUserMedia({ video: videoConstraints(config.videoDeviceId, size) });
  const { result } = await openCameraWithFallback(open, LOCAL_VIDEO);
  return result.getVideoTracks()[0]!;
}

/** A shared screen's frame rate at most (text over motion; ADR 078). */
export const SCREEN_FPS = 15;

/**
 * The screen to share, as the browser's picker gives it. A shared screen is mostly slides,
 * documents and code: sharp text at up to 1080p matters more than motion, so 15 fps at most and
 * the 'detail' hint (under load the browser keeps the resolution and drops frames). It halves the
 * sender's encoding and every decoder's work.
 */
export async function captureScreen(): Promise<MediaStreamTrack> {
  const stream = await navigator.mediaDevices.getDisplayMedia({
    video: { width: { max: 1920 }, height: { max: 1080 }, frameRate: { ideal: SCREEN_FPS, max: SCREEN_FPS } },
    audio: false,
  });
  const track = stream.getVideoTracks()[0]!;
  track.contentHint = 'detail';
  return track;
}
