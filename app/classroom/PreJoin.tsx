/**
 * The pre-join screen (ADR 089), shown before the join call seats the person: a mirrored camera
 * preview, a live microphone level, camera and microphone switches, the device pickers, the name
 * for a visitor, and Join (Enter). A large class's audience gets only the name and Join, with no
 * device opened. The switches and devices are remembered per browser (`device-configure`); a
 * refused or missing device is said plainly and never blocks joining.
 */
import { useCallback, useEffect, useRef, useState, useSyncExternalStore, type FormEvent, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { ArrowLeft, Mic, MicOff, Video, VideoOff } from 'lucide-react';
import { Button } from '#app/components/Button.tsx';
import { NAME_MAX } from '#app/lib/names.ts';
import { DevicePicker } from '#app/device/DeviceCheck.tsx';
import { logDeviceCheck } from '#app/lib/client-log.ts';
import { problemOf, readDeviceConfig, saveDeviceConfig, setJoinDevices, type DeviceConfig, type DeviceProblem } from './media/devices.ts';
import './prejoin.css';

export interface PreJoinChoice {
  cam: boolean;
  mic: boolean;
  name: string;
}

export interface PreJoinProps {
  roomNumber: string;
  /** A large class's audience: no devices, only the name (visitor) and Join. */
  audience: boolean;
  /** The room sends video (mini and large classes); whiteboard and audio classes use the microphone only. */
  camera?: boolean;
  /** A visitor names themself here (docs/product/01-account-and-lobby.md §2). */
  needName: boolean;
  initialName?: string;
  /** The name's error, checked by the caller (and again by the server). */
  nameError?: string | null;
  onNameChange?: () => void;
  busy?: boolean;
  backTo: string;
  onJoin: (choice: PreJoinChoice) => void;
  footer?: ReactNode;
}

type Problem = DeviceProblem | 'unsupported';

/** docs/product/decisions.md room types: 1 mini and 4 large classes send video; 2 whiteboard and 3 audio classes do not. */
export function usesCamera(roomType: number): boolean {
  return roomType === 1 || roomType === 4;
}

const PREVIEW = { width: { ideal: 640 }, height: { ideal: 360 }, frameRate: { ideal: 15, max: 15 } } as const;

function canCapture(): boolean {
  return typeof navigator !== 'undefined' && !!navigator.mediaDevices?.getUserMedia;
}

function canPickSpeaker(): boolean {
  return typeof HTMLMediaElement !== 'undefined' && 'setSinkId' in HTMLMediaElement.prototype;
}
const noChanges = () => () => undefined;
const never = () => false;

/** Opens one kind while it is switched on; the stream is stopped when switched off, changed or left. */
function usePreviewStream(
  kind: 'video' | 'audio',
  on: boolean,
  deviceId: string | undefined,
  onGranted: () => void,
): { stream: MediaStream | null; problem: Problem | null; stop: () => void } {
  const [stream, setStream] = useState<MediaStream | null>(null);
  const [problem, setProblem] = useState<Problem | null>(null);
  const current = useRef<MediaStream | null>(null);
  const stop = useCallback(() => {
    current.current?.getTracks().forEach((t) => t.stop());
    current.current = null;
    setStream(null);
  }, []);
  useEffect(() => {
    if (!on || !canCapture()) return;
    let cancelled = false;
    const constraints: MediaStreamConstraints =
      kind === 'video'
        ? { video: { ...PREVIEW, ...(deviceId ? { deviceId: { ideal: deviceId } } : {}) } }
        : { audio: { echoCancellation: true, noiseSuppression: true, ...(deviceId ? { deviceId: { ideal: deviceId } } : {}) } };
    navigator.mediaDevices
      .getUserMedia(constraints)
      .then((s) => {
        if (cancelled) return s.getTracks().forEach((t) => t.stop());
        current.current = s;
        setStream(s);
        setProblem(null);
        onGranted();
      })
      .catch((err: unknown) => {
        if (!cancelled) setProblem(problemOf(err, kind));
      });
    return () => {
      cancelled = true;
      current.current?.getTracks().forEach((t) => t.stop());
      current.current = null;
      setStream(null);
    };
  }, [kind, on, deviceId, onGranted]);
  return { stream, problem: on && !canCapture() ? 'unsupported' : problem, stop };
}

/** 0-100 from the microphone, about 20 times a second. */
function MicMeter({ stream, muted }: { stream: MediaStream | null; muted: boolean }) {
  const { t } = useTranslation();
  const [level, setLevel] = useState(0);
  useEffect(() => {
    if (!stream) return;
    const ctx = new AudioContext();
    const analyser = ctx.createAnalyser();
    analyser.fftSize = 512;
    ctx.createMediaStreamSource(stream).connect(analyser);
    const data = new Uint8Array(analyser.fftSize);
    const timer = setInterval(() => {
      analyser.getByteTimeDomainData(data);
      let sum = 0;
      for (const v of data) sum += (v - 128) * (v - 128);
      const rms = Math.sqrt(sum / data.length);
      setLevel(Math.min(100, Math.round((rms / 40) * 100)));
    }, 50);
    return () => {
      clearInterval(timer);
      void ctx.close().catch(() => undefined);
    };
  }, [stream]);
  const shown = muted || !stream ? 0 : level;
  return (
    <div
      className={`prejoin__meter${muted ? ' prejoin__meter--muted' : ''}`}
      role="meter"
      aria-label={muted ? t('prejoin.micMuted') : t('prejoin.micLevel')}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={shown}
      data-testid="prejoin-level"
      data-level={shown}
    >
      {[0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map((i) => (
        <span key={i} className={shown > i * 10 + 2 ? 'on' : ''} />
      ))}
    </div>
  );
}

const inBrowser = () => true;

/** Rendered in the browser only (devices and the remembered choice live there); the server sends an empty frame. */
export function PreJoin(p: PreJoinProps) {
  const browser = useSyncExternalStore(noChanges, inBrowser, never);
  if (!browser) return <div className="prejoin" data-testid="prejoin" data-ready="false" />;
  return <PreJoinScreen {...p} />;
}

function PreJoinScreen(p: PreJoinProps) {
  const { t } = useTranslation();
  const devicesWanted = !p.audience;
  const cameraWanted = devicesWanted && p.camera !== false;
  const [config, setConfig] = useState<DeviceConfig>(() => readDeviceConfig());
  const [cam, setCam] = useState(() => config.camOn !== false);
  const [mic, setMic] = useState(() => config.micOn !== false);
  const [name, setName] = useState(p.initialName ?? '');
  // Device labels appear once a device is allowed: the pickers read the list again then.
  const [grants, setGrants] = useState(0);
  const granted = useCallback(() => setGrants((n) => n + 1), []);
  const video = usePreviewStream('video', cameraWanted && cam, config.videoDeviceId, granted);
  const audio = usePreviewStream('audio', devicesWanted && mic, config.audioDeviceId, granted);
  const videoEl = useRef<HTMLVideoElement>(null);
  const nameEl = useRef<HTMLInputElement>(null);
  const speakerPicker = canPickSpeaker();

  useEffect(() => {
    const el = videoEl.current;
    if (!el) return;
    el.srcObject = video.stream;
    if (video.stream) void el.play().catch(() => undefined);
  }, [video.stream]);

  const neither = video.problem === 'noWebcam' && audio.problem === 'noMicrophone';
  const problem: Problem | null = !devicesWanted ? null : neither ? 'noDevices' : (video.problem ?? audio.problem);
  const blocked = problem === 'denied' || problem === 'unsupported' || problem === 'noDevices';

  const pick = (key: 'videoDeviceId' | 'audioDeviceId' | 'speakerId', id: string) => {
    saveDeviceConfig({ [key]: id });
    setConfig((c) => ({ ...c, [key]: id }));
  };
  const toggleCam = () => {
    saveDeviceConfig({ camOn: !cam });
    setCam(!cam);
  };
  const toggleMic = () => {
    saveDeviceConfig({ micOn: !mic });
    setMic(!mic);
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (p.busy) return;
    // What the room opens: the switches, less any device that could not start here.
    const joinCam = cameraWanted && cam && !video.problem;
    const joinMic = devicesWanted && mic && !audio.problem;
    setJoinDevices(p.roomNumber, { cam: joinCam, mic: joinMic, micFailed: devicesWanted && (!!audio.problem || blocked) });
    logDeviceCheck(p.roomNumber, { wanted: cameraWanted, on: cam, ...video }, { wanted: devicesWanted, on: mic, ...audio }); // ADR 102
    p.onJoin({ cam: joinCam, mic: joinMic, name });
  };
  // The room opens the devices itself: the preview lets them go once the room is on its way.
  const { stop: stopVideo } = video;
  const { stop: stopAudio } = audio;
  useEffect(
    () => () => {
      stopVideo();
      stopAudio();
    },
    [stopVideo, stopAudio],
  );

  const problemText = problem
    ? t(
        `prejoin.problem.${problem === 'unplugged' || problem === 'deviceUpdate' || problem === 'deviceError' || problem === 'resolution' ? 'other' : problem}`,
      )
    : null;

  return (
    <div className="prejoin" data-testid="prejoin" data-audience={p.audience ? 'true' : 'false'} data-ready="true">
      <main id="main" className="prejoin__main">
        <div className="prejoin__top">
          <Link to={p.backTo} className="btn btn--ghost btn--small" data-testid="prejoin-back">
            <ArrowLeft size={16} aria-hidden="true" /> {t('prejoin.back')}
          </Link>
          <span className="prejoin__room" data-testid="prejoin-room">
            {t('prejoin.room', { n: p.roomNumber })}
          </span>
        </div>
        <form className="prejoin__grid" onSubmit={submit} noValidate aria-labelledby="prejoin-title">
          {devicesWanted ? (
            <section className="prejoin__media" aria-label={t('prejoin.preview')}>
              {cameraWanted ? (
                <div className="prejoin__preview" data-cam={cam ? 'on' : 'off'}>
                  <video
                    ref={videoEl}
                    className="prejoin__video"
                    autoPlay
                    playsInline
                    muted
                    hidden={!cam || !video.stream}
                    aria-label={t('prejoin.preview')}
                    data-testid="prejoin-video"
                  />
                  {!cam || !video.stream ? (
                    <div className="prejoin__placeholder">
                      <VideoOff size={40} aria-hidden="true" />
                      <span>{cam && !video.problem ? t('prejoin.camStarting') : t('prejoin.camIsOff')}</span>
                    </div>
                  ) : null}
                </div>
              ) : (
                <div className="prejoin__preview prejoin__preview--voice">
                  <div className="prejoin__placeholder">
                    {mic ? <Mic size={40} aria-hidden="true" /> : <MicOff size={40} aria-hidden="true" />}
                    <span>{t('prejoin.voiceOnly')}</span>
                  </div>
                </div>
              )}
              <div className="prejoin__switches">
                <button
                  type="button"
                  className={`prejoin__switch${mic ? '' : ' prejoin__switch--off'}`}
                  onClick={toggleMic}
                  disabled={blocked}
                  aria-pressed={!mic}
                  aria-label={mic ? t('prejoin.micOff') : t('prejoin.micOn')}
                  title={mic ? t('prejoin.micOff') : t('prejoin.micOn')}
                  data-testid="prejoin-mic"
                  data-on={mic ? 'true' : 'false'}
                >
                  {mic ? <Mic size={22} aria-hidden="true" /> : <MicOff size={22} aria-hidden="true" />}
                </button>
                {cameraWanted ? (
                  <button
                    type="button"
                    className={`prejoin__switch${cam ? '' : ' prejoin__switch--off'}`}
                    onClick={toggleCam}
                    disabled={blocked}
                    aria-pressed={!cam}
                    aria-label={cam ? t('prejoin.camOff') : t('prejoin.camOn')}
                    title={cam ? t('prejoin.camOff') : t('prejoin.camOn')}
                    data-testid="prejoin-cam"
                    data-on={cam ? 'true' : 'false'}
                  >
                    {cam ? <Video size={22} aria-hidden="true" /> : <VideoOff size={22} aria-hidden="true" />}
                  </button>
                ) : null}
                <MicMeter stream={audio.stream} muted={!mic} />
              </div>
            </section>
          ) : null}
          <section className="prejoin__side stack">
            <h1 id="prejoin-title">{p.audience ? t('prejoin.audienceTitle') : t('prejoin.title')}</h1>
            {p.audience ? <p className="muted">{t('prejoin.audienceText')}</p> : null}
            {problemText ? (
              <p className="prejoin__problem" role="alert" data-testid="prejoin-problem" data-problem={problem ?? ''}>
                {problemText}
              </p>
            ) : null}
            {p.needName ? (
              <div className="field">
                <label htmlFor="visitor-name">{t('userName.label')}</label>
                <input
                  ref={nameEl}
                  id="visitor-name"
                  name="userName"
                  className="input"
                  autoComplete="nickname"
                  maxLength={NAME_MAX + 2}
                  placeholder={t('userName.placeholder')}
                  value={name}
                  onChange={(e) => {
                    setName(e.target.value);
                    p.onNameChange?.();
                  }}
                  aria-invalid={p.nameError ? true : undefined}
                  aria-describedby={p.nameError ? 'visitor-name-error' : 'visitor-name-hint'}
                  autoFocus
                />
                {p.nameError ? (
                  <p id="visitor-name-error" className="field__error">
                    {p.nameError}
                  </p>
                ) : (
                  <p id="visitor-name-hint" className="prejoin__note">
                    {t('userName.text')}
                  </p>
                )}
              </div>
            ) : null}
            {devicesWanted && !blocked ? (
              <div className="prejoin__pickers" key={grants}>
                {cameraWanted ? (
                  <DevicePicker
                    kind="videoinput"
                    value={config.videoDeviceId ?? ''}
                    onChange={(id) => pick('videoDeviceId', id)}
                    label={t('prejoin.camera')}
                  />
                ) : null}
                <DevicePicker
                  kind="audioinput"
                  value={config.audioDeviceId ?? ''}
                  onChange={(id) => pick('audioDeviceId', id)}
                  label={t('prejoin.mic')}
                />
                {speakerPicker ? (
                  <DevicePicker
                    kind="audiooutput"
                    value={config.speakerId ?? ''}
                    onChange={(id) => pick('speakerId', id)}
                    label={t('prejoin.speaker')}
                  />
                ) : null}
              </div>
            ) : null}
            <Button type="submit" block loading={p.busy} data-testid="prejoin-join" autoFocus={!p.needName}>
              {devicesWanted && blocked ? t('prejoin.joinWithout') : t('prejoin.join')}
            </Button>
            <p className="prejoin__note">
              {t('prejoin.keys')}
              {devicesWanted ? ` · ${t('prejoin.remembered')}` : ''}
            </p>
            {p.footer}
          </section>
        </form>
      </main>
    </div>
  );
}
