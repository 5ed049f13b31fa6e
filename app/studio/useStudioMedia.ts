/**
 * The studio's camera, microphone and shared screen: opened with the remembered devices when the
 * studio opens, switched in the settings, turned on and off (track.enabled, only while a stream
 * exists), and the screen shared on request. A capture that ends by itself (the browser's 'stop
 * sharing' bar) calls `onScreenEnded`; stopping it here does not.
 */
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { toast } from '#app/lib/toast.ts';
import {
  isCancelled,
  openCamera,
  openMic,
  openScreen,
  problemKey,
  problemOf,
  readStudioDevices,
  saveStudioDevices,
  stopStream,
  type StudioDeviceConfig,
} from './devices.ts';

export type CameraStatus = 'starting' | 'ready' | 'failed';

export interface StudioMedia {
  camera: MediaStream | null;
  mic: MediaStream | null;
  screen: MediaStream | null;
  cameraStatus: CameraStatus;
  cameraOn: boolean;
  micOn: boolean;
  /** The browser refused the camera or microphone: the permission help is shown. */
  denied: boolean;
  dismissDenied: () => void;
  toggleCamera: () => void;
  toggleMic: () => void;
  /** Asks the browser for a screen; false when the person cancelled or it failed. */
  startScreen: () => Promise<boolean>;
  stopScreen: () => void;
  /** Opens the chosen devices (the ones that changed) and remembers them. */
  applyDevices: (config: StudioDeviceConfig) => Promise<void>;
  config: StudioDeviceConfig;
}

export function useStudioMedia(options: { onScreenEnded: () => void }): StudioMedia {
  const { t } = useTranslation();
  const [camera, setCamera] = useState<MediaStream | null>(null);
  const [mic, setMic] = useState<MediaStream | null>(null);
  const [screen, setScreen] = useState<MediaStream | null>(null);
  const [cameraStatus, setCameraStatus] = useState<CameraStatus>('starting');
  const [cameraOn, setCameraOn] = useState(true);
  const [micOn, setMicOn] = useState(true);
  const [denied, setDenied] = useState(false);
  const [config, setConfig] = useState<StudioDeviceConfig>(readStudioDevices);
  const onEndedRef = useRef(options.onScreenEnded);
  useLayoutEffect(() => {
    onEndedRef.current = options.onScreenEnded;
  });
  // The streams for cleanup, whatever render last saw them.
  const live = useRef<{ camera: MediaStream | null; mic: MediaStream | null; screen: MediaStream | null }>({
    camera: null,
    mic: null,
    screen: null,
  });
  const alive = useRef(true);
  // What the toggles say now, for a stream that opens later.
  const wanted = useRef({ camera: true, mic: true });

  const report = useCallback(
    (err: unknown, kind: 'audio' | 'video') => {
      const problem = problemOf(err, kind);
      if (problem === 'denied') setDenied(true);
      toast.error(t(problemKey(problem)));
    },
    [t],
  );

  const openCameraWith = useCallback(
    async (deviceId: string | undefined) => {
      try {
        const stream = await openCamera(deviceId);
        if (!alive.current) return stopStream(stream);
        for (const track of stream.getVideoTracks()) track.enabled = wanted.current.camera;
        stopStream(live.current.camera);
        live.current.camera = stream;
        setCamera(stream);
        setCameraStatus('ready');
      } catch (err) {
        if (!alive.current) return;
        setCameraStatus(live.current.camera ? 'ready' : 'failed');
        report(err, 'video');
      }
    },
    [report],
  );

  const openMicWith = useCallback(
    async (deviceId: string | undefined) => {
      try {
        const stream = await openMic(deviceId);
        if (!alive.current) return stopStream(stream);
        for (const track of stream.getAudioTracks()) track.enabled = wanted.current.mic;
        stopStream(live.current.mic);
        live.current.mic = stream;
        setMic(stream);
      } catch (err) {
        if (alive.current) report(err, 'audio');
      }
    },
    [report],
  );

  useEffect(() => {
    alive.current = true;
    const stored = readStudioDevices();
    // One after the other: two permission prompts at once confuse some browsers.
    const open = async () => {
      await openCameraWith(stored.videoDeviceId);
      if (alive.current) await openMicWith(stored.audioDeviceId);
    };
    const timer = setTimeout(() => void open(), 0);
    const streams = live.current;
    return () => {
      clearTimeout(timer);
      alive.current = false;
      stopStream(streams.camera);
      stopStream(streams.mic);
      stopStream(streams.screen);
      streams.camera = streams.mic = streams.screen = null;
    };
  }, [openCameraWith, openMicWith]);

  const toggleCamera = useCallback(() => {
    const tracks = live.current.camera?.getVideoTracks() ?? [];
    if (!tracks.length) {
      toast.error(t(problemKey('noWebcam')));
      return;
    }
    const next = !wanted.current.camera;
    wanted.current.camera = next;
    for (const track of tracks) track.enabled = next;
    setCameraOn(next);
  }, [t]);

  const toggleMic = useCallback(() => {
    const tracks = live.current.mic?.getAudioTracks() ?? [];
    if (!tracks.length) {
      toast.error(t(problemKey('noMicrophone')));
      return;
    }
    const next = !wanted.current.mic;
    wanted.current.mic = next;
    for (const track of tracks) track.enabled = next;
    setMicOn(next);
  }, [t]);

  const stopScreen = useCallback(() => {
    const stream = live.current.screen;
    live.current.screen = null;
    for (const track of stream?.getTracks() ?? []) {
      track.onended = null;
      track.stop();
    }
    setScreen(null);
  }, []);

  const startScreen = useCallback(async () => {
    if (live.current.screen) return true;
    let stream: MediaStream;
    try {
      stream = await openScreen();
    } catch (err) {
      if (!isCancelled(err)) toast.error(t('studio.screen.failed'));
      return false;
    }
    if (!alive.current) {
      stopStream(stream);
      return false;
    }
    const track = stream.getVideoTracks()[0];
    if (!track) {
      stopStream(stream);
      toast.error(t('studio.screen.failed'));
      return false;
    }
    track.onended = () => {
      if (live.current.screen !== stream) return;
      live.current.screen = null;
      stopStream(stream);
      setScreen(null);
      onEndedRef.current();
    };
    live.current.screen = stream;
    setScreen(stream);
    return true;
  }, [t]);

  const applyDevices = useCallback(
    async (next: StudioDeviceConfig) => {
      saveStudioDevices(next);
      const before = config;
      setConfig(next);
      if (next.videoDeviceId !== before.videoDeviceId || !live.current.camera) {
        setCameraStatus('starting');
        await openCameraWith(next.videoDeviceId);
      }
      if (next.audioDeviceId !== before.audioDeviceId || !live.current.mic) await openMicWith(next.audioDeviceId);
    },
    [config, openCameraWith, openMicWith],
  );

  return {
    camera,
    mic,
    screen,
    cameraStatus,
    cameraOn,
    micOn,
    denied,
    dismissDenied: () => setDenied(false),
    toggleCamera,
    toggleMic,
    startScreen,
    stopScreen,
    applyDevices,
    config,
  };
}
