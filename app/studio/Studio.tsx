/**
 * The recording studio /rec/{id} (issue 15, docs/product/02-live-classroom.md §2 'Recording
 * studio'): the tool menu on the left (views, microphone, camera, settings, exit), the 16:9 stage
 * in the middle showing what is recorded, and under it the bar with the view's own tools and the
 * record controls. After a take, the save screen. Computer only: a phone-sized window gets a
 * message with a way back instead (unless a take is in hand).
 */
import { useEffect, useLayoutEffect, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { Button } from '#app/components/Button.tsx';
import { useConfirm } from '#app/components/Dialog.tsx';
import { LanguageSwitch } from '#app/components/lang.tsx';
import { toast } from '#app/lib/toast.ts';
import { formatLiveClock } from '#app/streaming/live-format.ts';
import { AudioMix, Compositor, type StudioView } from './compositor.ts';
import { canShareScreen } from './devices.ts';
import { StudioIcon, type StudioIconName } from './icons.tsx';
import { RecoverDialog } from './RecoverDialog.tsx';
import { SaveScreen, type SaveExit } from './SaveScreen.tsx';
import { SettingsDialog } from './SettingsDialog.tsx';
import { isPhoneNow, usePhoneLayout } from '#app/lib/use-phone-layout.ts';
import { useStudioBoard } from './StudioBoard.tsx';
import { useStudioDoc } from './StudioDoc.tsx';
import { useStudioMedia, type StudioMedia } from './useStudioMedia.ts';
import { useTakeSession, type SessionState, type TakePeek } from './useTakeSession.ts';
import { exposeForTests } from '#app/lib/test-hooks.ts';
import './studio.css';

/** What end-to-end tests read (window.__banshuStudio, test build only: app/lib/test-hooks.ts). */
export interface StudioTestHook extends TakePeek {
  /** The 1280x720 canvas the recording is made from. */
  frame: () => HTMLCanvasElement | null;
}

export function Studio({ roomNumber }: { roomNumber: string }) {
  const narrow = usePhoneLayout(isPhoneNow);
  // A take in hand keeps the studio even in a narrow window (a window snapped to half a screen).
  const [busy, setBusy] = useState(false);
  if (narrow && !busy) return <PhoneNotice />;
  return <StudioScreen roomNumber={roomNumber} onBusy={setBusy} />;
}

function PhoneNotice() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  return (
    <main id="main" className="studio-phone" data-testid="studio-phone">
      <section className="studio-phone__card">
        <span className="studio-phone__icon">
          <StudioIcon name="screen" size={36} />
        </span>
        <p className="studio-phone__kicker">{t('studio.title')}</p>
        <h1>{t('studio.phone.title')}</h1>
        <p>{t('studio.phone.text')}</p>
        <Button block onClick={() => void navigate('/profile')} data-testid="studio-phone-back">
          {t('studio.phone.back')}
        </Button>
        <LanguageSwitch className="studio-phone__lang" />
      </section>
    </main>
  );
}

/** A stream in a muted, inline video (the compositor finds it by `data-studio-source`). */
function StreamVideo({
  stream,
  source,
  className,
  label,
}: {
  stream: MediaStream;
  source: 'camera' | 'screen';
  className: string;
  label?: string;
}) {
  const ref = useRef<HTMLVideoElement>(null);
  useEffect(() => {
    const video = ref.current;
    if (!video) return;
    video.srcObject = stream;
    void video.play().catch(() => undefined);
    return () => {
      video.srcObject = null;
    };
  }, [stream]);
  return <video ref={ref} className={className} data-studio-source={source} muted playsInline autoPlay aria-label={label} />;
}

function StudioScreen({ roomNumber, onBusy }: { roomNumber: string; onBusy: (busy: boolean) => void }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const confirm = useConfirm();
  const [view, setView] = useState<StudioView>('video');
  const [railOpen, setRailOpen] = useState(true);
  const [settingsOpen, setSettingsOpen] = useState(false);
  const [recoverLater, setRecoverLater] = useState(false);
  const stageRef = useRef<HTMLDivElement>(null);
  const compositorRef = useRef<Compositor | null>(null);
  const mixRef = useRef<AudioMix | null>(null);
  const forcedStop = useRef<() => void>(() => undefined);

  const media = useStudioMedia({ onScreenEnded: () => forcedStop.current() });
  const stopScreenRef = useRef(media.stopScreen);
  useLayoutEffect(() => {
    stopScreenRef.current = media.stopScreen;
  });
  const board = useStudioBoard(view === 'board');
  const doc = useStudioDoc();

  // What the compositor reads on each frame.
  const live = useRef({ view, cameraOn: false, mic: null as MediaStreamTrack | null });
  const micTrack = media.mic?.getAudioTracks()[0] ?? null;
  useLayoutEffect(() => {
    live.current = { view, cameraOn: media.cameraOn && !!media.camera, mic: micTrack };
  });

  useEffect(() => {
    const compositor = new Compositor({
      stage: () => stageRef.current,
      view: () => live.current.view,
      cameraOn: () => live.current.cameraOn,
    });
    const mix = new AudioMix();
    compositorRef.current = compositor;
    mixRef.current = mix;
    return () => {
      compositor.dispose();
      mix.close();
      compositorRef.current = null;
      mixRef.current = null;
    };
  }, []);

  // A microphone chosen in the settings is heard from now on, mid-take too.
  useEffect(() => mixRef.current?.setInput(micTrack), [micTrack]);

  const session = useTakeSession({
    stream: () => {
      const compositor = compositorRef.current;
      const mix = mixRef.current;
      if (!compositor) return null;
      mix?.setInput(live.current.mic);
      return compositor.stream(mix?.track() ?? null);
    },
    onStarted: () => compositorRef.current?.start(),
    onEnded: () => {
      compositorRef.current?.stop();
      // The save screen shows no screen: the sharing ends with the take.
      if (live.current.view === 'screen') {
        stopScreenRef.current();
        setView('video');
      }
    },
    hasMic: () => !!live.current.mic,
  });
  const { state, saving } = session;
  const recording = state === 'recording' || state === 'paused';
  const takeInHand = state !== 'idle' || !!saving;

  useEffect(() => onBusy(takeInHand), [onBusy, takeInHand]);

  // The test hook: the take, its upload, and the recorded picture.
  const { peek } = session;
  useEffect(() => {
    const hook: StudioTestHook = { ...peek, frame: () => compositorRef.current?.canvas ?? null };
    return exposeForTests('studio', hook);
  }, [peek]);

  // The screen capture ended by itself (the browser's bar): back to the video; a take in progress ends now.
  const stopRef = useRef(session.stop);
  useLayoutEffect(() => {
    stopRef.current = session.stop;
    forcedStop.current = () => {
      setView('video');
      if (recording) {
        toast.info(t('studio.record.forcedStop'));
        void stopRef.current(true);
      }
    };
  });

  // Closing or reloading the tab with a take not saved: the browser asks first.
  useEffect(() => {
    if (!takeInHand) return;
    const warn = (e: BeforeUnloadEvent) => {
      e.preventDefault();
    };
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [takeInHand]);

  const choose = async (next: StudioView) => {
    if (next === 'screen') {
      if (media.screen) {
        media.stopScreen();
        setView('video');
        return;
      }
      if (!canShareScreen()) {
        toast.error(t('studio.screen.unsupported'));
        return;
      }
      if (await media.startScreen()) setView('screen');
      return;
    }
    // Another view ends the sharing.
    if (media.screen) media.stopScreen();
    setView(next);
  };

  const openSettings = () => {
    if (media.screen) {
      toast.info(t('studio.screen.settingsLater'));
      return;
    }
    setSettingsOpen(true);
  };

  const exit = async () => {
    if (state !== 'idle') {
      if (!(await confirm({ title: t('studio.exitTitle'), message: t('studio.exitConfirm') }))) return;
      await session.discard();
    }
    void navigate('/profile');
  };

  const onSaveExit = async (how: SaveExit, saved: boolean) => {
    if (saved) await session.release();
    else await session.discard();
    if (how === 'home') void navigate('/');
    else if (how === 'list') void navigate('/profile/record?type=studio');
  };

  const camera = media.camera && media.cameraOn ? media.camera : null;
  let stageView: ReactNode;
  switch (view) {
    case 'video':
      stageView = camera ? (
        <StreamVideo stream={camera} source="camera" className="studio-stage__video" />
      ) : (
        <CameraPlaceholder media={media} />
      );
      break;
    case 'board':
      stageView = board.surface;
      break;
    case 'doc':
      stageView = doc.surface;
      break;
    case 'screen':
      stageView = media.screen ? <StreamVideo stream={media.screen} source="screen" className="studio-stage__video" /> : null;
      break;
  }

  const viewControls: ReactNode =
    view === 'board' ? (
      board.controls
    ) : view === 'doc' ? (
      doc.controls
    ) : view === 'screen' ? (
      <div className="studio-bar__info">
        <span className="studio-live-dot" aria-hidden="true" />
        <span>{t('studio.screen.sharing')}</span>
        <button type="button" className="studio-chip" onClick={() => void choose('video')} data-testid="studio-screen-stop">
          <StudioIcon name="screenOff" size={18} />
          {t('studio.screen.stop')}
        </button>
      </div>
    ) : (
      <div className="studio-bar__info">
        <StudioIcon name="video" size={18} />
        <span>{t('studio.rail.videoName')}</span>
      </div>
    );

  return (
    <div className="studio" data-testid="studio" data-view={view} data-rec={state}>
      <header className="studio-head">
        <div className="studio-head__title">
          <span className="studio-head__mark" aria-hidden="true">
            板
          </span>
          <h1>{t('studio.title')}</h1>
          <span className="studio-head__room">
            {t('studio.roomLabel')} <span data-testid="room-number">{roomNumber}</span>
          </span>
          <span className="studio-head__badge">{t('studio.computerOnly')}</span>
        </div>
        <div className="studio-head__end">
          <LanguageSwitch className="studio-head__lang" />
        </div>
      </header>

      <div className="studio-body">
        {saving ? null : (
          <ToolRail
            open={railOpen}
            onOpen={setRailOpen}
            view={view}
            onView={(v) => void choose(v)}
            media={media}
            onSettings={openSettings}
            onExit={() => void exit()}
          />
        )}
        <main id="main" className="studio-main">
          {saving ? (
            <SaveScreen
              key={saving.take.meta.id}
              saving={saving}
              progress={session.progress}
              onExit={(how, saved) => void onSaveExit(how, saved)}
            />
          ) : (
            <>
              <div className="studio-stage-wrap">
                <div
                  ref={stageRef}
                  className="studio-stage"
                  data-testid="studio-stage"
                  data-view={view}
                  role="region"
                  aria-label={t('studio.stage.label')}
                >
                  {stageView}
                  {view !== 'video' && camera ? (
                    <StreamVideo stream={camera} source="camera" className="studio-pip" label={t('studio.stage.pip')} />
                  ) : null}
                  {recording ? <span className="studio-stage__rec" aria-hidden="true" /> : null}
                  {media.denied ? <PermissionNotice onClose={media.dismissDenied} /> : null}
                </div>
              </div>
              <RecordBar
                state={state}
                elapsedMs={session.elapsedMs}
                ready={session.store !== undefined}
                onStart={() => void session.start()}
                onPause={session.pause}
                onResume={session.resume}
                onStop={() => void session.stop()}
              >
                {viewControls}
              </RecordBar>
            </>
          )}
        </main>
      </div>

      {session.recovered && !saving && state === 'idle' && !recoverLater ? (
        <RecoverDialog
          meta={session.recovered}
          onKeep={() => void session.keepRecovered()}
          onDiscard={() => void session.discardRecovered()}
          onLater={() => setRecoverLater(true)}
        />
      ) : null}

      {settingsOpen ? (
        <SettingsDialog
          config={media.config}
          inUse={{
            videoDeviceId: media.camera?.getVideoTracks()[0]?.getSettings().deviceId,
            audioDeviceId: media.mic?.getAudioTracks()[0]?.getSettings().deviceId,
          }}
          onSave={media.applyDevices}
          onClose={() => setSettingsOpen(false)}
        />
      ) : null}
    </div>
  );
}

function CameraPlaceholder({ media }: { media: StudioMedia }) {
  const { t } = useTranslation();
  const starting = media.cameraStatus === 'starting';
  return (
    <div className="studio-placeholder" data-testid="studio-camera-placeholder">
      {starting ? <span className="spinner spinner--large" aria-hidden="true" /> : <StudioIcon name="cameraOff" size={44} />}
      <p>{starting ? t('studio.stage.cameraStarting') : media.camera ? t('studio.stage.cameraOff') : t('studio.stage.noCamera')}</p>
    </div>
  );
}

function PermissionNotice({ onClose }: { onClose: () => void }) {
  const { t } = useTranslation();
  return (
    <div className="studio-notice" role="alertdialog" aria-labelledby="studio-perm-title" data-testid="permission-help">
      <h2 id="studio-perm-title">{t('media.permTitle')}</h2>
      <p>{t('media.permText')}</p>
      <div className="studio-notice__actions">
        <Button variant="ghost" onClick={onClose}>
          {t('common.close')}
        </Button>
        <Button onClick={() => window.location.reload()}>{t('media.permReload')}</Button>
      </div>
    </div>
  );
}

interface RailItem {
  key: string;
  icon: StudioIconName;
  label: string;
  /** The accessible name (a toggle's stays the same; aria-pressed tells its state). */
  name: string;
  /** The tooltip (for a toggle: what a press does). */
  tip?: string;
  onClick: () => void;
  pressed?: boolean;
  current?: boolean;
  off?: boolean;
  testId: string;
}

function ToolRail(props: {
  open: boolean;
  onOpen: (open: boolean) => void;
  view: StudioView;
  onView: (view: StudioView) => void;
  media: StudioMedia;
  onSettings: () => void;
  onExit: () => void;
}) {
  const { t } = useTranslation();
  const { media, view } = props;
  const sharing = !!media.screen;
  const views: RailItem[] = [
    {
      key: 'video',
      icon: 'video',
      label: t('studio.rail.video'),
      name: t('studio.rail.videoName'),
      onClick: () => props.onView('video'),
      current: view === 'video',
      testId: 'studio-tool-video',
    },
    {
      key: 'board',
      icon: 'board',
      label: t('studio.rail.board'),
      name: t('studio.rail.boardName'),
      onClick: () => props.onView('board'),
      current: view === 'board',
      testId: 'studio-tool-board',
    },
    {
      key: 'doc',
      icon: 'doc',
      label: t('studio.rail.doc'),
      name: t('studio.rail.docName'),
      onClick: () => props.onView('doc'),
      current: view === 'doc',
      testId: 'studio-tool-doc',
    },
    {
      key: 'screen',
      icon: sharing ? 'screenOff' : 'screen',
      label: t('studio.rail.screen'),
      name: sharing ? t('studio.rail.stopScreenName') : t('studio.rail.screenName'),
      onClick: () => props.onView('screen'),
      current: view === 'screen',
      testId: 'studio-tool-screen',
    },
  ];
  const devices: RailItem[] = [
    {
      key: 'mic',
      icon: media.micOn && media.mic ? 'mic' : 'micOff',
      label: t('studio.rail.mic'),
      name: t('studio.rail.mic'),
      tip: media.micOn ? t('studio.rail.micOffName') : t('studio.rail.micOnName'),
      onClick: media.toggleMic,
      pressed: media.micOn && !!media.mic,
      off: !media.micOn || !media.mic,
      testId: 'studio-tool-mic',
    },
    {
      key: 'camera',
      icon: media.cameraOn && media.camera ? 'camera' : 'cameraOff',
      label: t('studio.rail.camera'),
      name: t('studio.rail.camera'),
      tip: media.cameraOn ? t('studio.rail.cameraOffName') : t('studio.rail.cameraOnName'),
      onClick: media.toggleCamera,
      pressed: media.cameraOn && !!media.camera,
      off: !media.cameraOn || !media.camera,
      testId: 'studio-tool-camera',
    },
    {
      key: 'settings',
      icon: 'settings',
      label: t('studio.rail.settings'),
      name: t('studio.rail.settingsName'),
      onClick: props.onSettings,
      testId: 'studio-tool-settings',
    },
  ];

  // Up and down arrows move between the menu's buttons (Tab still goes through them too).
  const onKeyDown = (e: KeyboardEvent<HTMLElement>) => {
    if (e.key !== 'ArrowDown' && e.key !== 'ArrowUp' && e.key !== 'Home' && e.key !== 'End') return;
    const buttons = [...e.currentTarget.querySelectorAll<HTMLButtonElement>('button:not(:disabled)')];
    const at = buttons.indexOf(document.activeElement as HTMLButtonElement);
    if (at < 0) return;
    e.preventDefault();
    const next =
      e.key === 'Home'
        ? 0
        : e.key === 'End'
          ? buttons.length - 1
          : (at + (e.key === 'ArrowDown' ? 1 : -1) + buttons.length) % buttons.length;
    buttons[next]?.focus();
  };

  const button = (item: RailItem) => (
    <li key={item.key}>
      <button
        type="button"
        className={`studio-tool${item.current ? ' studio-tool--current' : ''}${item.off ? ' studio-tool--off' : ''}`}
        onClick={item.onClick}
        aria-label={item.name}
        title={item.tip ?? item.name}
        aria-current={item.current ? 'true' : undefined}
        aria-pressed={item.pressed}
        data-testid={item.testId}
      >
        <StudioIcon name={item.icon} />
        <span className="studio-tool__label" aria-hidden="true">
          {item.label}
        </span>
      </button>
    </li>
  );

  return (
    <nav className={`studio-rail${props.open ? '' : ' studio-rail--closed'}`} aria-label={t('studio.rail.label')} onKeyDown={onKeyDown}>
      <button
        type="button"
        className="studio-tool studio-tool--toggle"
        onClick={() => props.onOpen(!props.open)}
        aria-expanded={props.open}
        aria-label={props.open ? t('studio.rail.hideName') : t('studio.rail.showName')}
        title={props.open ? t('studio.rail.hideName') : t('studio.rail.showName')}
        data-testid="studio-tool-toggle"
      >
        <StudioIcon name={props.open ? 'collapse' : 'expand'} />
        <span className="studio-tool__label" aria-hidden="true">
          {props.open ? t('studio.rail.hide') : t('studio.rail.show')}
        </span>
      </button>
      {props.open ? (
        <>
          <ul className="studio-rail__group">{views.map(button)}</ul>
          <ul className="studio-rail__group">{devices.map(button)}</ul>
          <ul className="studio-rail__group studio-rail__group--end">
            {button({
              key: 'exit',
              icon: 'exit',
              label: t('studio.rail.exit'),
              name: t('studio.rail.exitName'),
              onClick: props.onExit,
              testId: 'studio-tool-exit',
            })}
          </ul>
        </>
      ) : null}
    </nav>
  );
}

function RecordBar(props: {
  state: SessionState;
  elapsedMs: number;
  ready: boolean;
  onStart: () => void;
  onPause: () => void;
  onResume: () => void;
  onStop: () => void;
  children: ReactNode;
}) {
  const { t } = useTranslation();
  const { state } = props;
  const busy = state === 'starting' || state === 'stopping';
  return (
    <section className="studio-bar" aria-label={t('studio.record.bar')}>
      <div className="studio-bar__view">{props.children}</div>
      <div className="studio-bar__rec">
        <span className={`studio-rec studio-rec--${state}`} data-testid="studio-rec" role="status">
          {state === 'recording' ? (
            <>
              <span className="studio-rec__dot" aria-hidden="true" />
              <span aria-hidden="true">{t('studio.record.rec')}</span>
              <span className="visually-hidden">{t('studio.record.recording')}</span>
            </>
          ) : state === 'paused' ? (
            t('studio.record.paused')
          ) : busy ? (
            <span className="spinner" aria-hidden="true" />
          ) : null}
        </span>
        <time
          className="studio-elapsed"
          data-testid="studio-elapsed"
          aria-label={t('studio.record.elapsed')}
          dateTime={`PT${Math.floor(props.elapsedMs / 1000)}S`}
        >
          {formatLiveClock(props.elapsedMs)}
        </time>
        {state === 'idle' || state === 'starting' ? (
          <button
            type="button"
            className="studio-rec-btn studio-rec-btn--start"
            onClick={props.onStart}
            disabled={!props.ready || busy}
            data-testid="studio-record-start"
          >
            <span className="studio-rec-btn__dot" aria-hidden="true" />
            {t('studio.record.start')}
          </button>
        ) : (
          <>
            {state === 'paused' ? (
              <button type="button" className="studio-rec-btn" onClick={props.onResume} data-testid="studio-record-resume">
                <StudioIcon name="resume" size={18} />
                {t('studio.record.resume')}
              </button>
            ) : (
              <button type="button" className="studio-rec-btn" onClick={props.onPause} disabled={busy} data-testid="studio-record-pause">
                <StudioIcon name="pause" size={18} />
                {t('studio.record.pause')}
              </button>
            )}
            <button
              type="button"
              className="studio-rec-btn studio-rec-btn--stop"
              onClick={props.onStop}
              disabled={busy}
              data-testid="studio-record-stop"
            >
              <StudioIcon name="stop" size={18} />
              {t('studio.record.stop')}
            </button>
          </>
        )}
      </div>
    </section>
  );
}
