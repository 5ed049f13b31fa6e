/**
 * The device-check wizard of docs/product/01-account-and-lobby.md §2 and §4: 1 camera (list, live preview 160x120 at up to
 * 8 fps), 2 microphone (list, a red sound wave), 3 speaker (list, a test tone we make ourselves),
 * 4 result (each device normal or abnormal, recheck, OK). Each 'yes' marks that device normal; the
 * chosen devices are stored as `device-configure`; closing stops every track.
 */
import { useCallback, useEffect, useRef, useState, useSyncExternalStore } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from '#app/components/Button.tsx';
import { problemOf, readDeviceConfig, saveDeviceConfig, type DeviceProblem } from '#app/classroom/media/devices.ts';

export type Step = 'camera' | 'mic' | 'speaker' | 'result';
const STEPS: Step[] = ['camera', 'mic', 'speaker', 'result'];
/** docs/product/01-account-and-lobby.md §9: camera test 160x120 at 1 to 8 fps. */
const PREVIEW = { width: 160, height: 120, frameRate: { min: 1, max: 8 } } as const;
export const TONE_HZ = 440;

function useDevices(kind: MediaDeviceKind): MediaDeviceInfo[] {
  const [list, setList] = useState<MediaDeviceInfo[]>([]);
  useEffect(() => {
    const load = () => void navigator.mediaDevices?.enumerateDevices().then((all) => setList(all.filter((d) => d.kind === kind)));
    load();
    navigator.mediaDevices?.addEventListener('devicechange', load);
    return () => navigator.mediaDevices?.removeEventListener('devicechange', load);
  }, [kind]);
  return list;
}

export function DevicePicker({
  kind,
  value,
  onChange,
  label,
}: {
  kind: MediaDeviceKind;
  value: string;
  onChange: (id: string) => void;
  label: string;
}) {
  const { t } = useTranslation();
  const list = useDevices(kind);
  return (
    <label className="field">
      <span className="field__label">{label}</span>
      <select className="input" value={value} onChange={(e) => onChange(e.target.value)} data-testid={`pick-${kind}`}>
        <option value="">{t('device.systemDefault')}</option>
        {list.map((d, i) => (
          <option key={d.deviceId || i} value={d.deviceId}>
            {d.label || `${kind} ${i + 1}`}
          </option>
        ))}
      </select>
    </label>
  );
}

/** Mean loudness 0-100 from an analyser, for the wave and for the tests. */
function loudness(data: Uint8Array): number {
  let sum = 0;
  for (const v of data) sum += Math.abs(v - 128);
  return Math.min(100, Math.round(((sum / data.length) * 100) / 32));
}

export type DeviceResult = Record<'camera' | 'mic' | 'speaker', boolean>;

/** `onClose` gets each device's answer when the result is confirmed with OK. */
const noChanges = () => () => undefined;
const canCapture = () => !!navigator.mediaDevices?.getUserMedia;

/** `bare`: inside a dialog, which gives the title and the padding (one title, no card in a card). */
export function DeviceCheck({ onClose, bare = false }: { onClose?: (result: DeviceResult) => void; bare?: boolean }) {
  const { t } = useTranslation();
  const [step, setStep] = useState<Step>('camera');
  const [ok, setOk] = useState<DeviceResult>({ camera: false, mic: false, speaker: false });
  const [config, setConfig] = useState(() => readDeviceConfig());
  // A problem belongs to the step that found it: another step starts without one.
  const [found, setFound] = useState<{ step: typeof step; problem: DeviceProblem } | null>(null);
  // No media at all (an insecure page, a browser without WebRTC): say so, never crash. Read in the browser only.
  const hasMedia = useSyncExternalStore(noChanges, canCapture, () => true);
  const problem = !hasMedia && (step === 'camera' || step === 'mic') ? 'noDevices' : found?.step === step ? found.problem : null;
  const [level, setLevel] = useState(0);
  const video = useRef<HTMLVideoElement>(null);
  const canvas = useRef<HTMLCanvasElement>(null);
  const stream = useRef<MediaStream | null>(null);
  const audioCtx = useRef<AudioContext | null>(null);

  const stopAll = useCallback(() => {
    stream.current?.getTracks().forEach((tr) => tr.stop());
    stream.current = null;
    void audioCtx.current?.close().catch(() => undefined);
    audioCtx.current = null;
  }, []);

  useEffect(() => stopAll, [stopAll]);

  // Camera preview / microphone wave for the current step.
  useEffect(() => {
    stopAll();
    let cancelled = false;
    let raf = 0;
    if (step !== 'camera' && step !== 'mic') return;
    if (!canCapture()) return;
    const kind = step === 'camera' ? 'video' : 'audio';
    const constraints: MediaStreamConstraints =
      step === 'camera'
        ? { video: { ...PREVIEW, ...(config.videoDeviceId ? { deviceId: { exact: config.videoDeviceId } } : {}) } }
        : { audio: config.audioDeviceId ? { deviceId: { exact: config.audioDeviceId } } : true };
    navigator.mediaDevices
      .getUserMedia(constraints)
      .then((s) => {
        if (cancelled) return s.getTracks().forEach((tr) => tr.stop());
        stream.current = s;
        if (step === 'camera' && video.current) {
          video.current.srcObject = s;
          void video.current.play().catch(() => undefined);
          return;
        }
        const ctx = new AudioContext();
        audioCtx.current = ctx;
        const analyser = ctx.createAnalyser();
        analyser.fftSize = 1024;
        ctx.createMediaStreamSource(s).connect(analyser);
        const data = new Uint8Array(analyser.fftSize);
        const draw = () => {
          analyser.getByteTimeDomainData(data);
          setLevel(loudness(data));
          const c = canvas.current?.getContext('2d');
          if (c && canvas.current) {
            const { width, height } = canvas.current;
            c.clearRect(0, 0, width, height);
            c.strokeStyle = '#e53935';
            c.lineWidth = 2;
            c.beginPath();
            for (let i = 0; i < data.length; i++) {
              const x = (i / data.length) * width;
              const y = (data[i]! / 255) * height;
              if (i === 0) c.moveTo(x, y);
              else c.lineTo(x, y);
            }
            c.stroke();
          }
          raf = requestAnimationFrame(draw);
        };
        draw();
      })
      .catch((err: unknown) => {
        if (!cancelled) setFound({ step, problem: problemOf(err, kind) });
      });
    return () => {
      cancelled = true;
      cancelAnimationFrame(raf);
      stopAll();
    };
  }, [step, config.videoDeviceId, config.audioDeviceId, stopAll]);

  /** A two-second tone made here (no file to fetch), through the chosen speaker where the browser can. */
  const playTone = async () => {
    const ctx = new AudioContext() as AudioContext & { setSinkId?: (id: string) => Promise<void> };
    if (config.speakerId && ctx.setSinkId) await ctx.setSinkId(config.speakerId).catch(() => undefined);
    const osc = ctx.createOscillator();
    const gain = ctx.createGain();
    osc.frequency.value = TONE_HZ;
    gain.gain.setValueAtTime(0.2, ctx.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.001, ctx.currentTime + 2);
    osc.connect(gain).connect(ctx.destination);
    osc.start();
    osc.stop(ctx.currentTime + 2);
    osc.addEventListener('ended', () => void ctx.close());
  };

  const answer = (device: 'camera' | 'mic' | 'speaker', yes: boolean) => {
    setOk((o) => ({ ...o, [device]: yes }));
    setStep(STEPS[STEPS.indexOf(step) + 1]!);
  };
  const pick = (key: 'videoDeviceId' | 'audioDeviceId' | 'speakerId', id: string) => {
    saveDeviceConfig({ [key]: id });
    setConfig((c) => ({ ...c, [key]: id }));
  };

  return (
    <section
      className={`${bare ? '' : 'card '}device-check stack`}
      aria-labelledby={bare ? undefined : 'device-title'}
      aria-label={bare ? t('device.title') : undefined}
      data-testid="device-check"
      data-step={step}
    >
      {bare ? null : <h1 id="device-title">{t('device.title')}</h1>}
      <ol className="device-check__steps" aria-label={t('device.steps')}>
        {STEPS.map((s) => (
          <li key={s} aria-current={s === step ? 'step' : undefined}>
            {t(`device.step.${s}`)}
          </li>
        ))}
      </ol>
      {problem ? (
        <p className="form-error" role="alert" data-testid="device-problem">
          {t(`media.problem.${problem}`)}
        </p>
      ) : null}
      {step === 'camera' ? (
        <div className="stack">
          <DevicePicker
            kind="videoinput"
            value={config.videoDeviceId ?? ''}
            onChange={(id) => pick('videoDeviceId', id)}
            label={t('device.camera')}
          />
          <video
            ref={video}
            className="device-check__preview"
            width={160}
            height={120}
            autoPlay
            playsInline
            muted
            data-testid="camera-preview"
          />
          <p>{t('device.cameraQ')}</p>
          <YesNo onAnswer={(yes) => answer('camera', yes)} />
        </div>
      ) : null}
      {step === 'mic' ? (
        <div className="stack">
          <DevicePicker
            kind="audioinput"
            value={config.audioDeviceId ?? ''}
            onChange={(id) => pick('audioDeviceId', id)}
            label={t('device.mic')}
          />
          <canvas ref={canvas} className="device-check__wave" width={320} height={80} data-testid="mic-wave" data-level={level} />
          <p>{t('device.micQ')}</p>
          <YesNo onAnswer={(yes) => answer('mic', yes)} />
        </div>
      ) : null}
      {step === 'speaker' ? (
        <div className="stack">
          <DevicePicker
            kind="audiooutput"
            value={config.speakerId ?? ''}
            onChange={(id) => pick('speakerId', id)}
            label={t('device.speaker')}
          />
          <Button variant="secondary" onClick={() => void playTone()} data-testid="play-tone">
            {t('device.playTone')}
          </Button>
          <p>{t('device.speakerQ')}</p>
          <YesNo onAnswer={(yes) => answer('speaker', yes)} />
        </div>
      ) : null}
      {step === 'result' ? (
        <div className="stack">
          <ul className="device-check__result" data-testid="device-result">
            {(['camera', 'mic', 'speaker'] as const).map((d) => (
              <li key={d} data-device={d} data-ok={ok[d] ? 'true' : 'false'}>
                {t(`device.${d}`)}: <strong className={ok[d] ? 'ok' : 'bad'}>{ok[d] ? t('device.normal') : t('device.abnormal')}</strong>
              </li>
            ))}
          </ul>
          {!ok.camera || !ok.mic || !ok.speaker ? <p className="muted">{t('device.helpText')}</p> : null}
          <div className="row">
            <Button variant="secondary" onClick={() => setStep('camera')} data-testid="recheck">
              {t('device.recheck')}
            </Button>
            <Button
              onClick={() => {
                stopAll();
                onClose?.(ok);
              }}
              data-testid="device-done"
            >
              {t('common.confirm')}
            </Button>
          </div>
        </div>
      ) : null}
    </section>
  );
}

function YesNo({ onAnswer }: { onAnswer: (yes: boolean) => void }) {
  const { t } = useTranslation();
  return (
    <div className="row">
      <Button onClick={() => onAnswer(true)} data-testid="answer-yes">
        {t('device.yes')}
      </Button>
      <Button variant="secondary" onClick={() => onAnswer(false)} data-testid="answer-no">
        {t('device.no')}
      </Button>
    </div>
  );
}
