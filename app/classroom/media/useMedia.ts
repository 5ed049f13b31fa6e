/**
 * The classroom's audio and video as one hook over a MediaSession: publish what the token allows
 * (camera 640x360 at 15 fps, microphone), subscribe to everything the others publish, mute and
 * unmute, share the screen (creator), and come back after the media signaling drops: a fresh token
 * from `/api/createAgoraToken`, then publish and subscribe again.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { JoinAnswer } from '#core/contracts/api.ts';
import type { Layer, MediaNote, MediaSource } from '#core/contracts/media-signaling.ts';
import { api, isOk } from '#app/lib/api.ts';
import { currentLang } from '#app/lib/lang.ts';
import { codeMessage } from '#app/lib/messages.ts';
import { toast } from '#app/lib/toast.ts';
import { parseUa } from '#app/lib/ua.ts';
import { captureTrack, problemOf, readDeviceConfig, saveDeviceConfig, type DeviceProblem } from './devices.ts';
import { MediaSession, type RemoteTrack } from './media-session.ts';

declare global {
  interface Window {
    /** Receive statistics of the classroom's media (diagnostics; read by the end-to-end tests). */
    banshuMedia?: { stats: MediaSession['stats']; layers: MediaSession['layers'] };
  }
}

export const SCREEN_BUTTON_BLOCK_MS = 3000;
/** Spec 02 §4: the device-exception message clears after 5 s. */
export const DEVICE_MESSAGE_MS = 5000;
const RECONNECT_FIRST_MS = 1000;
const RECONNECT_EVERY_MS = 10_000;

export interface MediaPerson {
  userId: string;
  video: MediaStream | null;
  videoPaused: boolean;
  audio: MediaStream | null;
  audioPaused: boolean;
  screen: MediaStream | null;
}

export type MediaStatus = 'off' | 'connecting' | 'live' | 'offline';

export interface MediaState {
  status: MediaStatus;
  rights: MediaSource[];
  local: { video: MediaStream | null; camOn: boolean; micOn: boolean; sharing: boolean; screen: MediaStream | null };
  people: Record<string, MediaPerson>;
  levels: Record<string, number>;
  quality: Record<string, number>;
  problem: DeviceProblem | null;
  screenBlocked: boolean;
  actions: {
    toggleCam: () => void;
    toggleMic: () => void;
    startScreen: () => void;
    stopScreen: () => void;
    setLayer: (userId: string, layer: Layer) => void;
    /** The device dropdowns: store the choice and switch the live track (spec 02 §4). */
    switchDevice: (kind: 'videoDeviceId' | 'audioDeviceId' | 'speakerId', deviceId: string) => void;
  };
  speakerId: string;
}

export interface UseMediaOptions {
  answer: JoinAnswer;
  roomNumber: string;
  /** The room channel is live (we are seated). */
  active: boolean;
  /** This person holds the microphone of a large class now. */
  onMic: boolean;
  showState: string;
  onView: (showState: string) => void;
}

/** Chrome above 72 shares screens (spec 02 §4). */
export function canShareScreen(ua: string, hasApi: boolean): boolean {
  const info = parseUa(ua);
  return hasApi && info.browser === 'chrome' && info.version[0] > 72;
}

function peopleFrom(remote: RemoteTrack[]): Record<string, MediaPerson> {
  const out: Record<string, MediaPerson> = {};
  for (const r of remote) {
    const p = (out[r.info.userId] ??= {
      userId: r.info.userId,
      video: null,
      videoPaused: false,
      audio: null,
      audioPaused: false,
      screen: null,
    });
    const stream = new MediaStream([r.track]);
    if (r.info.source === 'camera') {
      p.video = stream;
      p.videoPaused = r.info.paused;
    } else if (r.info.source === 'mic') {
      p.audio = stream;
      p.audioPaused = r.info.paused;
    } else p.screen = stream;
  }
  return out;
}

export function useMedia(o: UseMediaOptions): MediaState {
  const { t } = useTranslation();
  const [status, setStatus] = useState<MediaStatus>('off');
  const [rights, setRights] = useState<MediaSource[]>([]);
  const [people, setPeople] = useState<Record<string, MediaPerson>>({});
  const [levels, setLevels] = useState<Record<string, number>>({});
  const [quality, setQuality] = useState<Record<string, number>>({});
  const [problem, setProblem] = useState<DeviceProblem | null>(null);
  const [camOn, setCamOn] = useState(true);
  const [micOn, setMicOn] = useState(true);
  const [localVideo, setLocalVideo] = useState<MediaStream | null>(null);
  const [screen, setScreen] = useState<MediaStream | null>(null);
  const [screenBlocked, setScreenBlocked] = useState(false);
  const [speakerId, setSpeakerId] = useState('');
  useEffect(() => setSpeakerId(readDeviceConfig().speakerId ?? ''), []);

  const sessionRef = useRef<MediaSession | null>(null);
  const tracks = useRef<Partial<Record<MediaSource, MediaStreamTrack>>>({});
  const want = useRef({ cam: true, mic: true });
  const tRef = useRef(t);
  tRef.current = t;
  const optsRef = useRef(o);
  optsRef.current = o;

  const showProblem = useCallback((p: DeviceProblem) => {
    setProblem(p);
    if (p !== 'denied') toast.error(tRef.current(`media.problem.${p}`));
  }, []);

  useEffect(() => {
    if (!problem || problem === 'denied') return;
    const timer = setTimeout(() => setProblem(null), DEVICE_MESSAGE_MS);
    return () => clearTimeout(timer);
  }, [problem]);

  const publishing = useRef<Promise<void> | null>(null);
  const publishAgain = useRef(false);

  /** Publishes the microphone and camera the rights allow and the person wants on; one run at a time. */
  const publishAllowed = useCallback((): Promise<void> => {
    if (publishing.current) {
      publishAgain.current = true;
      return publishing.current;
    }
    const run = (async () => {
      do {
        publishAgain.current = false;
        await publishOnce();
      } while (publishAgain.current);
    })().finally(() => {
      publishing.current = null;
    });
    publishing.current = run;
    return run;
  }, []);

  const publishOnce = async () => {
    const session = sessionRef.current;
    if (!session) return;
    for (const source of ['mic', 'camera'] as const) {
      if (!session.rights.includes(source) || session.published(source)) continue;
      const kind = source === 'mic' ? 'audio' : 'video';
      let track = tracks.current[source];
      if (!track || track.readyState === 'ended') {
        try {
          track = await captureTrack(kind);
        } catch (err) {
          showProblem(problemOf(err, kind));
          continue;
        }
        tracks.current[source] = track;
        track.addEventListener('ended', () => {
          // Unplugged (spec 02 §4): say so; the toggle brings it back when a device is there.
          if (tracks.current[source] === track) showProblem('unplugged');
        });
        if (source === 'camera') setLocalVideo(new MediaStream([track]));
      }
      const on = source === 'mic' ? want.current.mic : want.current.cam;
      track.enabled = on;
      try {
        await session.publish(source, track, source === 'camera');
        if (!on) await session.setPaused(source, true);
      } catch (err) {
        const code = (err as { code?: string }).code ?? '9';
        toast.error(codeMessage(code, currentLang()) ?? tRef.current('media.failed'));
      }
    }
  };

  const stopLocal = useCallback((source: MediaSource) => {
    const track = tracks.current[source];
    track?.stop();
    delete tracks.current[source];
    if (source === 'camera') setLocalVideo(null);
    if (source === 'screen') setScreen(null);
  }, []);

  const onNote = useCallback(
    (note: MediaNote) => {
      const session = sessionRef.current;
      switch (note.type) {
        case 'trackAdded':
          if (session) void session.subscribe(note.track).catch(() => undefined);
          break;
        case 'audioLevels':
          setLevels(note.levels);
          break;
        case 'quality':
          setQuality((q) => {
            const next = { ...q };
            for (const r of note.reports) next[r.userId] = Math.max(r.up, r.down);
            return next;
          });
          break;
        case 'rightsChanged':
          setRights(note.rights);
          for (const s of ['mic', 'camera', 'screen'] as const) if (!note.rights.includes(s) && tracks.current[s]) stopLocal(s);
          void publishAllowed();
          break;
        case 'closed':
          setStatus('off');
          break;
        case 'trackRemoved':
        case 'trackPaused':
        case 'layerChanged':
          break;
      }
    },
    [publishAllowed, stopLocal],
  );

  // Connect once seated; come back after drops.
  useEffect(() => {
    if (!o.active || !o.answer.mediaUrl || !o.answer.mediaToken) return;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | null = null;
    let firstToken: string | null = o.answer.mediaToken;
    const session = new MediaSession(o.answer.mediaUrl, {
      onRemote: (remote) => setPeople(peopleFrom(remote)),
      onNote: (n) => onNote(n),
      onDisconnect: () => {
        if (stopped) return;
        setStatus('offline');
        session.dropAll();
        schedule(RECONNECT_FIRST_MS);
      },
    });
    sessionRef.current = session;
    window.banshuMedia = { stats: () => session.stats(), layers: () => session.layers() };

    const freshToken = async (): Promise<string | null> => {
      if (firstToken) {
        const tkn = firstToken;
        firstToken = null;
        return tkn;
      }
      const env = await api('createAgoraToken', { roomNumber: optsRef.current.roomNumber }, { quietNetworkError: true });
      return isOk(env) ? env.data.mediaToken : null;
    };

    const connect = async () => {
      if (stopped) return;
      setStatus((s) => (s === 'offline' ? 'offline' : 'connecting'));
      try {
        const token = await freshToken();
        if (!token) throw new Error('no token');
        const existing = await session.join(token, currentLang());
        if (stopped) return;
        setRights(session.rights);
        setStatus('live');
        await Promise.all(existing.map((tr) => session.subscribe(tr).catch(() => undefined)));
        await publishAllowed();
      } catch {
        if (stopped) return;
        session.dropAll();
        setStatus('offline');
        schedule(RECONNECT_EVERY_MS);
      }
    };
    const schedule = (ms: number) => {
      if (timer) clearTimeout(timer);
      timer = setTimeout(() => void connect(), ms);
    };
    const online = () => {
      if (!session.connected) schedule(0);
    };
    window.addEventListener('online', online);
    void connect();
    return () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      window.removeEventListener('online', online);
      session.close();
      sessionRef.current = null;
      for (const s of Object.keys(tracks.current) as MediaSource[]) stopLocal(s);
      setStatus('off');
    };
  }, [o.active, o.answer.mediaUrl, o.answer.mediaToken, onNote, publishAllowed, stopLocal]);

  // A large class's student invited to the microphone: a fresh token carries the right.
  useEffect(() => {
    const session = sessionRef.current;
    if (!o.onMic || !session || status !== 'live') return;
    let cancelled = false;
    void (async () => {
      const env = await api('createAgoraToken', { roomNumber: optsRef.current.roomNumber });
      if (cancelled || !isOk(env)) return;
      setRights(await session.refresh(env.data.mediaToken));
      await publishAllowed();
    })().catch(() => toast.error(tRef.current('media.failed')));
    return () => {
      cancelled = true;
    };
  }, [o.onMic, status, publishAllowed]);

  const toggle = useCallback(
    (source: 'mic' | 'camera') => {
      const session = sessionRef.current;
      const key = source === 'mic' ? 'mic' : 'cam';
      const next = !want.current[key];
      want.current[key] = next;
      (source === 'mic' ? setMicOn : setCamOn)(next);
      const track = tracks.current[source];
      if (track) track.enabled = next;
      if (!session) return;
      if (session.published(source)) void session.setPaused(source, !next).catch(() => undefined);
      else if (next) void publishAllowed();
    },
    [publishAllowed],
  );

  const stopScreen = useCallback(() => {
    const session = sessionRef.current;
    stopLocal('screen');
    if (session) void session.unpublish('screen');
  }, [stopLocal]);

  const startScreen = useCallback(() => {
    const session = sessionRef.current;
    if (!session || screenBlocked) return;
    setScreenBlocked(true);
    setTimeout(() => setScreenBlocked(false), SCREEN_BUTTON_BLOCK_MS);
    void (async () => {
      try {
        const stream = await navigator.mediaDevices.getDisplayMedia({
          video: { width: { max: 1920 }, height: { max: 1080 }, frameRate: { max: 30 } },
          audio: false,
        });
        const track = stream.getVideoTracks()[0]!;
        tracks.current.screen = track;
        track.addEventListener('ended', () => {
          if (tracks.current.screen === track) stopScreen();
        });
        await session.publish('screen', track);
        setScreen(new MediaStream([track]));
        optsRef.current.onView('screen');
      } catch {
        stopLocal('screen');
        toast.error(tRef.current('media.screenFailed'));
      }
    })();
  }, [screenBlocked, stopLocal, stopScreen]);

  // Another view chosen: the share ends (spec 02 §4).
  useEffect(() => {
    if (screen && o.showState !== 'screen') stopScreen();
  }, [o.showState, screen, stopScreen]);

  const setLayer = useCallback((userId: string, layer: Layer) => {
    const session = sessionRef.current;
    const r = session?.remoteTracks().find((x) => x.info.userId === userId && x.info.source === 'camera');
    if (session && r) void session.setLayer(r.info.trackId, layer).catch(() => undefined);
  }, []);

  const switchDevice = useCallback(
    (kind: 'videoDeviceId' | 'audioDeviceId' | 'speakerId', deviceId: string) => {
      saveDeviceConfig({ [kind]: deviceId });
      if (kind === 'speakerId') return setSpeakerId(deviceId);
      const source = kind === 'videoDeviceId' ? 'camera' : 'mic';
      const old = tracks.current[source];
      void (async () => {
        try {
          const track = await captureTrack(source === 'camera' ? 'video' : 'audio');
          track.enabled = source === 'mic' ? want.current.mic : want.current.cam;
          tracks.current[source] = track;
          if (source === 'camera') setLocalVideo(new MediaStream([track]));
          const session = sessionRef.current;
          if (session?.published(source)) await session.replaceTrack(source, track);
          else await publishAllowed();
          old?.stop();
        } catch (err) {
          showProblem(problemOf(err, source === 'camera' ? 'video' : 'audio'));
        }
      })();
    },
    [publishAllowed, showProblem],
  );

  // A device plugged or unplugged: if the stored choice is gone, say so (spec 02 §4 deviceUpdate).
  useEffect(() => {
    const md = typeof navigator === 'undefined' ? undefined : navigator.mediaDevices;
    if (!md) return;
    let timer: ReturnType<typeof setTimeout> | null = null;
    const onChange = () => {
      if (timer) clearTimeout(timer);
      timer = setTimeout(() => {
        void md.enumerateDevices().then((list) => {
          const c = readDeviceConfig();
          const gone = (id: string | undefined) => !!id && !list.some((d) => d.deviceId === id);
          if (gone(c.videoDeviceId) || gone(c.audioDeviceId)) showProblem('deviceUpdate');
        });
      }, 1000);
    };
    md.addEventListener('devicechange', onChange);
    return () => {
      if (timer) clearTimeout(timer);
      md.removeEventListener('devicechange', onChange);
    };
  }, [showProblem]);

  return {
    status,
    rights,
    speakerId,
    local: { video: localVideo, camOn, micOn, sharing: !!screen, screen },
    people,
    levels,
    quality,
    problem,
    screenBlocked,
    actions: { toggleCam: () => toggle('camera'), toggleMic: () => toggle('mic'), startScreen, stopScreen, setLayer, switchDevice },
  };
}
