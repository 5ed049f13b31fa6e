import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { RoomInfo } from '#core/contracts/api.ts';
import type { Role } from '#core/contracts/room-events.ts';
import { Button } from '#app/components/Button.tsx';
import { LanguageSwitch } from '#app/components/lang.tsx';
import { RecordButton } from '#app/recordings/RecordButton.tsx';
import { LiveButton } from '#app/streaming/LiveButton.tsx';
import type { LiveCallAnswer, LivePlatformsAnswer } from './room-channel-client.ts';
import type { LiveInfo } from './roomState.ts';
import { InvitePanel } from './InvitePanel.tsx';
import { MoreMenu } from './MoreMenu.tsx';
import { RoomTitle } from './RoomTitle.tsx';
import { shownView, VIEW_TABS, viewTabEnabled } from './views.ts';

export type ClassMode = 'discuss' | 'lecture';

export interface TopBarProps {
  room: RoomInfo;
  role: Role;
  inviteUrl: string;
  mode: ClassMode;
  onMode: (mode: ClassMode) => void;
  onView: (showState: string) => void;
  showTrial: boolean;
  onTrial: () => void;
  onEndClass: () => void;
  onExit: () => void;
  disabled: boolean;
  /** When the running recording began (local ms epoch), null unless recordState is '1'. */
  recordSince: number | null;
  onStartRecord: () => Promise<boolean>;
  onStopRecord: () => Promise<boolean>;
  /** The live push (issue 14) beside room.liveState. */
  live: LiveInfo;
  onStartLive: (platform: string, pushStreamUrl: string) => Promise<LiveCallAnswer>;
  onEndLive: () => Promise<boolean>;
  loadLivePlatforms: () => Promise<LivePlatformsAnswer>;
}

/** The creator's top bar (docs/product/02-live-classroom.md §2): modes, view switch, record, live, invite panel, more menu, exit. */
export function TopBar(props: TopBarProps) {
  const { t } = useTranslation();
  const [inviting, setInviting] = useState(false);
  const current = shownView(props.room.roomType, props.room.showState);
  return (
    <header className="room-bar room-bar--creator" aria-label={t('classroom.topBar')} data-testid="top-bar">
      <RoomTitle room={props.room} role={props.role} />
      <div className="room-bar__tools">
        <div className="seg" role="group" aria-label={t('classroom.mode.label')}>
          {(['discuss', 'lecture'] as const).map((m) => (
            <button key={m} type="button" className="seg__btn" aria-pressed={props.mode === m} onClick={() => props.onMode(m)}>
              {t(`classroom.mode.${m}`)}
            </button>
          ))}
        </div>
        <div className="seg" role="group" aria-label={t('classroom.view.label')}>
          {VIEW_TABS.map((v) => (
            <button
              key={v.key}
              type="button"
              className="seg__btn"
              aria-pressed={current === v.key}
              disabled={props.disabled || !viewTabEnabled(props.room.roomType, v.key)}
              data-testid={`view-${v.key}`}
              onClick={() => {
                if (current !== v.key) props.onView(v.showState);
              }}
            >
              {t(`classroom.view.${v.key}`)}
            </button>
          ))}
        </div>
      </div>
      <div className="room-bar__end">
        <RecordButton
          state={props.room.recordState}
          since={props.recordSince}
          offline={props.disabled}
          onStart={props.onStartRecord}
          onStop={props.onStopRecord}
        />
        <LiveButton
          liveState={props.room.liveState ?? '0'}
          live={props.live}
          offline={props.disabled}
          onStart={props.onStartLive}
          onEnd={props.onEndLive}
          loadPlatforms={props.loadLivePlatforms}
        />
        <Button variant="secondary" onClick={() => setInviting(true)} aria-haspopup="dialog">
          {t('classroom.inviteButton')}
        </Button>
        <MoreMenu showTrial={props.showTrial} onTrial={props.onTrial} onEndClass={props.onEndClass} />
        <LanguageSwitch />
        <Button variant="danger" onClick={props.onExit} data-testid="exit">
          {t('classroom.leave')}
        </Button>
      </div>
      {inviting ? <InvitePanel roomNumber={props.room.roomNumber} inviteUrl={props.inviteUrl} onClose={() => setInviting(false)} /> : null}
    </header>
  );
}

/** A member's bar: who and where, language, leave; no classroom controls. */
export function MemberBar({ room, role, onExit }: { room: RoomInfo; role: Role; onExit: () => void }) {
  const { t } = useTranslation();
  return (
    <header className="room-bar" data-testid="member-bar">
      <RoomTitle room={room} role={role} />
      <div className="room-bar__end">
        <LanguageSwitch />
        <Button variant="ghost" onClick={onExit} data-testid="exit">
          {t('classroom.leave')}
        </Button>
      </div>
    </header>
  );
}
