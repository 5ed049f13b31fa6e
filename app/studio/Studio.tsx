/**
 * The recording studio /rec/{id} (issue 15, docs/product/02-live-classroom.md §2 'Recording
 * studio'): the tool menu on the left (views, microphone, camera, settings, exit), the 16:9 stage
 * in the middle showing what is recorded, and under it the bar with the view's own tools and the
 * record controls. After a take, the save screen. Computer only: a phone-sized window gets a
 * message with a way back instead (unless a take is in hand).
 */
import { useEffect, useLayoutEffect, useRef, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { Button } from '#app/components/Button.tsx';
import { useConfirm } from '#app/components/Dialog.tsx';
import { LanguageSwitch } from '#app/components/lang.tsx';
import { toast } from '#app/lib/toast.ts';
import { AudioMix, Compositor, type StudioView } from './compositor.ts';
import { canShareScreen } from './devices.ts';
import { StudioIcon } from './icons.tsx';
import { RecoverDialog } from './RecoverDialog.tsx';
import { ToolRail } from './StudioToolRail.tsx';
import { RecordBar } from './StudioRecordBar.tsx';
import { SaveScreen, type SaveExit } from './SaveScreen.tsx';
import { SettingsDialog } from './SettingsDialog.tsx';
import { isPhoneNow, usePhoneLayout } from '#app/lib/use-phone-layout.ts';
import { useStudioBoard } from './StudioBoard.tsx';
import { useStudioDoc } from './StudioDoc.tsx';
import { useStudioMedia, type StudioMedia } from './useStudioMedia.ts';
import { useTakeSession, type TakePeek } from './useTakeSession.ts';
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
