/**
 * The studio's tool menu on the left: the views (video, screen, board, document), the microphone
 * and camera, settings and exit; folded to icons or open with labels.
 */
import type { KeyboardEvent } from 'react';
import { useTranslation } from 'react-i18next';
import type { StudioView } from './compositor.ts';
import { StudioIcon, type StudioIconName } from './icons.tsx';
import type { StudioMedia } from './useStudioMedia.ts';

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

export function ToolRail(props: {
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
