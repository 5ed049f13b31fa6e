/**
 * The studio's devices (docs/product/02-live-classroom.md §3, §5, §9): the camera asked at 1280x720
 * (640x480 when that is refused), the microphone, the screen at up to 1920x1080 and 30 fps, and
 * the chosen camera and microphone remembered as `record-device-configure`. Failures map to the
 * classroom's device problems (the same messages).
 */
import { openCameraWithFallback } from '#app/device/camera-fallback.ts';
import { problemOf, readDeviceConfig, saveDeviceConfig, type DeviceConfig, type DeviceProblem } from '#app/classroom/media/devices.ts';

export const STUDIO_DEVICE_KEY = 'record-device-configure';
export const STUDIO_CAMERA = { width: 1280, height: 720, frameRate: 30 } as const;
export const STUDIO_SCREEN = { width: 1920, height: 1080, frameRate: 30 } as const;

export type StudioDeviceConfig = Pick<DeviceConfig, 'videoDeviceId' | 'audioDeviceId'>;

export function readStudioDevices(): StudioDeviceConfig {
  const { videoDeviceId, audioDeviceId } = readDeviceConfig(STUDIO_DEVICE_KEY);
  return { ...(videoDeviceId ? { videoDeviceId } : {}), ...(audioDeviceId ? { audioDeviceId } : {}) };
}

/** Both choices as given: one left out goes back to the default device. */
export function saveStudioDevices(config: StudioDeviceConfig): void {
  saveDeviceConfig({ videoDeviceId: config.videoDeviceId, audioDeviceId: config.audioDeviceId }, STUDIO_DEVICE_KEY);
}

const errorName = (err: unknown): string => (typeof err === 'object' && err !== null && 'name' in err ? String(err.name) : '');

function noDevices(): Error {
  return Object.assign(new Error('no media devices'), { name: 'NotFoundError' });
}

function cameraConstraints(
  deviceId: string | undefined,
  size: { width: number; height: number; frameRate: number },
): MediaTrackConstraints {
  return {
    width: { ideal: size.width },
    height: { ideal: size.height },
    frameRate: { ideal: size.frameRate },
    ...(deviceId ? { deviceId: { ideal: deviceId } } : {}),
  };
}

/** The camera at 1280x720; a camera that refuses it gets 640x480 (the classroom's rule, app/device/camera-fallback.ts). */
export async function openCamera(deviceId?: string): Promise<MediaStream> {
  if (!navigator.mediaDevices?.getUserMedia) throw noDevices();
  const open = (size: { width: number; height: number }) =>
    navigator.mediaDevices.getUserMedia({
      video: cameraConstraints(deviceId, { ...size, frameRate: STUDIO_CAMERA.frameRate }),
      audio: false,
    });
  return (await openCameraWithFallback(open, STUDIO_CAMERA)).result;
}

export async function openMic(deviceId?: string): Promise<MediaStream> {
  if (!navigator.mediaDevices?.getUserMedia) throw noDevices();
  return navigator.mediaDevices.getUserMedia({
    audio: {
      echoCancellation: true,
      noiseSuppression: true,
      autoGainControl: true,
      ...(deviceId ? { deviceId: { ideal: deviceId } } : {}),
    },
    video: false,
  });
}

export function canShareScreen(): boolean {
  return typeof navigator !== 'undefined' && typeof navigator.mediaDevices?.getDisplayMedia === 'function';
}

/** The screen (the browser asks which); its sound is the microphone's, so no display audio. */
export async function openScreen(): Promise<MediaStream> {
  if (!canShareScreen()) throw noDevices();
  return navigator.mediaDevices.getDisplayMedia({
    video: {
      width: { ideal: STUDIO_SCREEN.width },
      height: { ideal: STUDIO_SCREEN.height },
      frameRate: { ideal: STUDIO_SCREEN.frameRate, max: STUDIO_SCREEN.frameRate },
    },
    audio: false,
  });
}

/** The person closed the browser's picker: not a failure worth a message. */
export function isCancelled(err: unknown): boolean {
  const name = errorName(err);
  return name === 'NotAllowedError' || name === 'AbortError';
}

export { problemOf, type DeviceProblem };

/** The device problem's message key (the classroom's texts); 'denied' shows the permission help too. */
export function problemKey(problem: DeviceProblem): `media.problem.${DeviceProblem}` {
  return `media.problem.${problem}`;
}

export function stopStream(stream: MediaStream | null | undefined): void {
  for (const track of stream?.getTracks() ?? []) track.stop();
}

export interface DeviceLists {
  cameras: MediaDeviceInfo[];
  mics: MediaDeviceInfo[];
}

export async function listDevices(): Promise<DeviceLists> {
  if (!navigator.mediaDevices?.enumerateDevices) return { cameras: [], mics: [] };
  const all = await navigator.mediaDevices.enumerateDevices();
  return {
    cameras: all.filter((d) => d.kind === 'videoinput' && d.deviceId),
    mics: all.filter((d) => d.kind === 'audioinput' && d.deviceId),
  };
}
