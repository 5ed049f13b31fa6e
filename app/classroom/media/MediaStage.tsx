/**
 * The classroom's video pieces: a tile per person (video, name, microphone state, network, pin,
 * enlarge, picture-in-picture, flip), the hidden audio players, the shared screen, the media
 * controls and 'teacher not online' (the device-exception view with its permission steps is in HealthViews.tsx).
 */
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { FlipHorizontal2, FlipVertical2, Maximize2, Mic, MicOff, Minimize2, PictureInPicture2, Pin, PinOff } from 'lucide-react';
import type { Member } from '#core/contracts/room-events.ts';
import { Button } from '#app/components/Button.tsx';
import { NetworkIcon } from '../NetworkIcon.tsx';
import { Dialog } from '#app/components/Dialog.tsx';
import { DevicePicker } from '#app/device/DeviceCheck.tsx';
import { toast } from '#app/lib/toast.ts';
import type { OfferedControls } from './controls.ts';
import { readDeviceConfig } from './devices.ts';
import { playback } from './playback.ts';
import { canShareScreen, type MediaPerson, type MediaState } from './useMedia.ts';

function Video({
  stream,
  mirror,
  flip,
  label,
}: {
  stream: MediaStream | null;
  mirror: boolean;
  flip: { h: boolean; v: boolean };
  label: string;
}) {
  const ref = useRef<HTMLVideoElement>(null);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    el.srcObject = stream;
    if (stream) playback.play(el);
    return () => playback.forget(el);
  }, [stream]);
  const sx = (mirror ? -1 : 1) * (flip.h ? -1 : 1);
  const sy = flip.v ? -1 : 1;
  return (
    <video ref={ref} className="mtile__video" autoPlay playsInline muted aria-label={label} style={{ transform: `scale(${sx}, ${sy})` }} />
  );
}

export interface MediaTileProps {
  member: Member;
  me: boolean;
  person: MediaPerson | null;
  localVideo: MediaStream | null;
  camOn: boolean;
  micOn: boolean;
  /** Speaking now (smoothed levels with a hold, app/classroom/media/speaking.ts). */
  speaking: boolean;
  quality: number;
  /** Pinned: first in the speaker layout, and its video at the high layer. */
  pinned: boolean;
  onPin: () => void;
}

const pipSupported = () => typeof document !== 'undefined' && 'pictureInPictureEnabled' in document && document.pictureInPictureEnabled;

/** One person's tile (docs/product/02-live-classroom.md §2; ADR 088): video, name on a scrim, microphone, network, tools. */
export function MediaTile(p: MediaTileProps) {
  const { t } = useTranslation();
  const [flip, setFlip] = useState({ h: false, v: false });
  const [enlarged, setEnlarged] = useState(false);
  // The button shows with a video only, which the server never renders: no hydration mismatch.
  const pip = pipSupported();
  const box = useRef<HTMLLIElement>(null);
  const stream = p.me ? (p.camOn ? p.localVideo : null) : p.person && !p.person.videoPaused ? p.person.video : null;
  const micMuted = p.me ? !p.micOn : !p.person?.audio || p.person.audioPaused;
  const name = p.member.name;
  // Escape puts an enlarged tile back.
  useEffect(() => {
    if (!enlarged) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') setEnlarged(false);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [enlarged]);
  const fullscreen = () => {
    const el = box.current;
    if (!el) return;
    if (document.fullscreenElement) void document.exitFullscreen();
    else void el.requestFullscreen?.().catch(() => undefined);
  };
  const togglePip = () => {
    const video = box.current?.querySelector('video');
    if (!video) return;
    if (document.pictureInPictureElement === video) void document.exitPictureInPicture().catch(() => undefined);
    else void video.requestPictureInPicture().catch(() => undefined);
  };
  const classes = [
    'tile',
    'mtile',
    p.member.role === 'creator' ? 'tile--teacher' : '',
    p.speaking ? 'mtile--speaking' : '',
    p.pinned ? 'mtile--pinned' : '',
    enlarged ? 'mtile--enlarged' : '',
  ]
    .filter(Boolean)
    .join(' ');
  return (
    <li
      ref={box}
      className={classes}
      data-testid="media-tile"
      data-user={p.member.userId}
      data-has-video={stream ? 'true' : 'false'}
      data-speaking={p.speaking ? 'true' : 'false'}
      data-pinned={p.pinned ? 'true' : 'false'}
    >
      <div className="mtile__stage" onDoubleClick={fullscreen}>
        {stream ? (
          <Video stream={stream} mirror={p.me} flip={flip} label={t('media.videoOf', { name })} />
        ) : (
          <span className="tile__avatar" aria-hidden="true">
            {[...name][0] ?? '?'}
          </span>
        )}
      </div>
      <span className="mtile__bar">
        <span className="tile__name" title={name} data-testid="tile-name">
          {name}
        </span>
        {p.me ? <span className="mtile__me">{t('classroom.members.you')}</span> : null}
      </span>
      <span className="mtile__status">
        {p.pinned ? (
          <span className="mtile__pinned" role="img" aria-label={t('stage.pinned')}>
            <Pin size={12} aria-hidden="true" />
          </span>
        ) : null}
        <span
          className={`mtile__mic${micMuted ? ' mtile__mic--off' : ''}`}
          role="img"
          aria-label={micMuted ? t('media.micOff') : t('media.micOn')}
          data-testid="tile-mic"
          data-muted={micMuted ? 'true' : 'false'}
        >
          {micMuted ? <MicOff size={14} aria-hidden="true" /> : <Mic size={14} aria-hidden="true" />}
        </span>
        <NetworkIcon quality={p.quality} />
      </span>
      <span className="mtile__tools" role="group" aria-label={t('stage.tileTools', { name })}>
        <button
          type="button"
          className="mtile__tool"
          onClick={p.onPin}
          aria-pressed={p.pinned}
          title={p.pinned ? t('stage.unpin', { name }) : t('stage.pin', { name })}
          aria-label={p.pinned ? t('stage.unpin', { name }) : t('stage.pin', { name })}
          data-testid="tile-pin"
        >
          {p.pinned ? <PinOff size={16} aria-hidden="true" /> : <Pin size={16} aria-hidden="true" />}
        </button>
        <button
          type="button"
          className="mtile__tool"
          onClick={() => setEnlarged((e) => !e)}
          aria-pressed={enlarged}
          title={enlarged ? t('stage.restore') : t('stage.enlarge')}
          aria-label={enlarged ? t('stage.restore') : t('stage.enlarge')}
          data-testid="tile-enlarge"
        >
          {enlarged ? <Minimize2 size={16} aria-hidden="true" /> : <Maximize2 size={16} aria-hidden="true" />}
        </button>
        {pip && stream ? (
          <button
            type="button"
            className="mtile__tool"
            onClick={togglePip}
            title={t('stage.pip')}
            aria-label={t('stage.pip')}
            data-testid="tile-pip"
          >
            <PictureInPicture2 size={16} aria-hidden="true" />
          </button>
        ) : null}
        <button
          type="button"
          className="mtile__tool"
          onClick={() => setFlip((f) => ({ ...f, h: !f.h }))}
          aria-pressed={flip.h}
          title={t('media.flipH')}
          aria-label={t('media.flipH')}
        >
          <FlipHorizontal2 size={16} aria-hidden="true" />
        </button>
        <button
          type="button"
          className="mtile__tool"
          onClick={() => setFlip((f) => ({ ...f, v: !f.v }))}
          aria-pressed={flip.v}
          title={t('media.flipV')}
          aria-label={t('media.flipV')}
        >
          <FlipVertical2 size={16} aria-hidden="true" />
        </button>
      </span>
    </li>
  );
}

/** The others' microphones, played through the chosen speaker. */
export function RemoteAudio({ people, speakerId }: { people: Record<string, MediaPerson>; speakerId: string }) {
  return (
    <div hidden>
      {Object.values(people).map((p) => (p.audio ? <AudioOut key={p.userId} stream={p.audio} speakerId={speakerId} /> : null))}
    </div>
  );
}

function AudioOut({ stream, speakerId }: { stream: MediaStream; speakerId: string }) {
  const ref = useRef<HTMLAudioElement>(null);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    el.srcObject = stream;
    playback.play(el);
    return () => playback.forget(el);
  }, [stream]);
  useEffect(() => {
    const el = ref.current;
    if (el && speakerId) void el.setSinkId(speakerId).catch(() => undefined);
  }, [speakerId]);
  return <audio ref={ref} autoPlay />;
}

/** The device settings of the room (docs/product/02-live-classroom.md §2 top bar): camera, microphone and speaker dropdowns. */
export function DeviceSettings({ media, onClose }: { media: MediaState; onClose: () => void }) {
  const { t } = useTranslation();
  const config = readDeviceConfig();
  return (
    <Dialog title={t('media.devices')} onClose={onClose}>
      <div className="stack" data-testid="device-settings">
        {media.rights.includes('camera') ? (
          <DevicePicker
            kind="videoinput"
            value={config.videoDeviceId ?? ''}
            label={t('device.camera')}
            onChange={(id) => media.actions.switchDevice('videoDeviceId', id)}
          />
        ) : null}
        {media.rights.includes('mic') ? (
          <DevicePicker
            kind="audioinput"
            value={config.audioDeviceId ?? ''}
            label={t('device.mic')}
            onChange={(id) => media.actions.switchDevice('audioDeviceId', id)}
          />
        ) : null}
        <DevicePicker
          kind="audiooutput"
          value={media.speakerId}
          label={t('device.speaker')}
          onChange={(id) => media.actions.switchDevice('speakerId', id)}
        />
      </div>
    </Dialog>
  );
}

/** The screen-share view: the creator's shared screen for everyone; double click for full screen. */
export function ScreenView({
  media,
  isCreator,
  creatorId,
  canScreen,
}: {
  media: MediaState;
  isCreator: boolean;
  creatorId: string;
  /** The capability rule (./controls.ts): where the server refuses a screen, none is offered. */
  canScreen: boolean;
}) {
  const { t } = useTranslation();
  const stream = isCreator ? media.local.screen : (media.people[creatorId]?.screen ?? null);
  const supported = typeof navigator !== 'undefined' && canShareScreen(navigator.userAgent, !!navigator.mediaDevices?.getDisplayMedia);
  return (
    <div className="screen-view" data-testid="screen-view">
      {stream ? (
        <div
          className="screen-view__video"
          onDoubleClick={(e) => void (e.currentTarget as HTMLElement).requestFullscreen?.().catch(() => undefined)}
        >
          <Video stream={stream} mirror={false} flip={{ h: false, v: false }} label={t('media.screen')} />
        </div>
      ) : isCreator && canScreen ? (
        supported ? (
          <Button onClick={media.actions.startScreen} disabled={media.screenBlocked || media.status !== 'live'} data-testid="start-share">
            {t('media.startShare')}
          </Button>
        ) : (
          <p className="muted">
            {t('media.shareNeedsChrome')}{' '}
            <a href="/download/pc" target="_blank" rel="noopener">
              {t('media.download')}
            </a>
          </p>
        )
      ) : (
        <p className="muted">{t('media.waitingScreen')}</p>
      )}
      {stream ? <p className="screen-view__note muted">{t('media.sharedToAll')}</p> : null}
    </div>
  );
}

/**
 * Camera and microphone toggles and the screen-share stop, offered by the capability rule the
 * server decides with (./controls.ts, ADR 099). In lecture mode a student's microphone button stays
 * in place, refused, and says why.
 */
export function MediaControls({ media, offered }: { media: MediaState; offered: OfferedControls }) {
  const { t } = useTranslation();
  const showMic = offered.mic !== 'hidden' && (media.rights.includes('mic') || offered.mic === 'closed');
  const showCam = offered.camera && media.rights.includes('camera');
  const canScreen = offered.screen && media.rights.includes('screen');
  const [settings, setSettings] = useState(false);
  return (
    <div className="media-controls" role="group" aria-label={t('media.controls')} data-testid="media-controls" data-status={media.status}>
      {showMic && offered.mic === 'closed' ? (
        <Button
          variant="danger"
          aria-disabled="true"
          aria-describedby="mic-closed-why"
          className="media-controls__closed"
          title={t('modes.micClosedWhy')}
          onClick={() => toast.info(t('modes.micClosedWhy'))}
          data-testid="toggle-mic"
          data-closed="true"
        >
          <MicOff size={16} aria-hidden="true" />
          {t('modes.micClosed')}
          <span id="mic-closed-why" className="visually-hidden">
            {t('modes.micClosedWhy')}
          </span>
        </Button>
      ) : showMic ? (
        <Button
          variant={media.local.micOn ? 'secondary' : 'danger'}
          onClick={media.actions.toggleMic}
          aria-pressed={!media.local.micOn}
          data-testid="toggle-mic"
        >
          {media.local.micOn ? t('media.muteMic') : t('media.unmuteMic')}
        </Button>
      ) : null}
      {showCam ? (
        <Button
          variant={media.local.camOn ? 'secondary' : 'danger'}
          onClick={media.actions.toggleCam}
          aria-pressed={!media.local.camOn}
          data-testid="toggle-cam"
        >
          {media.local.camOn ? t('media.camOff') : t('media.camOn')}
        </Button>
      ) : null}
      {canScreen && media.local.sharing ? (
        <Button variant="secondary" onClick={media.actions.stopScreen} data-testid="stop-share">
          {t('media.stopShare')}
        </Button>
      ) : null}
      <Button variant="ghost" onClick={() => setSettings(true)} aria-haspopup="dialog" data-testid="device-settings-open">
        {t('media.devices')}
      </Button>
      {media.status === 'offline' ? (
        <span className="badge" data-testid="media-offline">
          {t('media.offline')}
        </span>
      ) : null}
      {settings ? <DeviceSettings media={media} onClose={() => setSettings(false)} /> : null}
    </div>
  );
}

export function TeacherAbsentTile() {
  const { t } = useTranslation();
  return (
    <li className="tile mtile mtile--absent" data-testid="tile-teacher-absent">
      <span className="mtile__bar">{t('media.teacherAbsent')}</span>
    </li>
  );
}
