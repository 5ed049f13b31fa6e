import { useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { FileText, LogOut, MessagesSquare, MonitorUp, PenLine, Presentation, UserPlus, Video, type LucideIcon } from 'lucide-react';
import type { RoomInfo } from '#core/contracts/api.ts';
import type { Role } from '#core/contracts/room-events.ts';
import type { ClassMode } from '#core/rooms/capabilities.ts';
import { LanguageSwitch } from '#app/components/lang.tsx';
import { RecordButton } from '#app/recordings/RecordButton.tsx';
import { LiveButton } from '#app/streaming/LiveButton.tsx';
import type { LiveCallAnswer, LivePlatformsAnswer } from './room-channel-client.ts';
import type { LiveInfo } from './roomState.ts';
import { ClassModeBadge } from './ClassModeBadge.tsx';
import { InvitePanel } from './InvitePanel.tsx';
import { MoreMenu } from './MoreMenu.tsx';
import { RoomTitle } from './RoomTitle.tsx';
import { shownView, VIEW_TABS, viewTabEnabled, type ViewKey } from './views.ts';

export type { ClassMode } from '#core/rooms/capabilities.ts';

const VIEW_ICONS: Record<ViewKey, LucideIcon> = { wb: PenLine, ppt: FileText, screen: MonitorUp, video: Video };
const MODE_ICONS: Record<ClassMode, LucideIcon> = { discuss: MessagesSquare, lecture: Presentation };

export interface TopBarProps {
  room: RoomInfo;
  role: Role;
  inviteUrl: string;
  /** The room's mode (room state held by the server, ADR 099); a tab asks the server to switch. */
  mode: ClassMode;
  onMode: (mode: ClassMode) => void;
  /** The screen share is offered only where the capability rule allows it (ADR 099). */
  screenOffered: boolean;
  /** The audio class's time left (ADR 099), or null. */
  clock: ReactNode;
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
  /** The class tools' menu beside More (ADR 114). */
  tools?: ReactNode;
}

/**
 * The creator's top bar (docs/product/02-live-classroom.md §2, ADR 090): one row at every width
 * from 1024 px. What stays visible, first to last: Leave, More, record, live, the view tabs, the
 * modes, the language, invite, the title. Below 1440 px the view tabs are icons with a tooltip
 * (their name stays their accessible name); below 1180 px invite moves into More and the modes
 * become icons; the title shortens to fit whatever room is left.
 */
export function TopBar(props: TopBarProps) {
  const { t } = useTranslation();
  const [inviting, setInviting] = useState(false);
  const current = shownView(props.room.roomType, props.room.showState);
  return (
    <header className="room-bar room-bar--creator room-bar--one-row" aria-label={t('classroom.topBar')} data-testid="top-bar">
      <RoomTitle room={props.room} role={props.role} />
      <div className="room-bar__tools">
        <div className="seg" role="group" aria-label={t('classroom.mode.label')}>
          {(['discuss', 'lecture'] as const).map((m) => {
            const Icon = MODE_ICONS[m];
            return (
              <button
                key={m}
                type="button"
                className="seg__btn seg__btn--mode"
                aria-pressed={props.mode === m}
                aria-label={t(`classroom.mode.${m}`)}
                title={t(m === 'lecture' ? 'modes.lectureHint' : 'modes.discussHint')}
                disabled={props.disabled}
                data-testid={`mode-${m}`}
                onClick={() => {
                  if (props.mode !== m) props.onMode(m);
                }}
              >
                <Icon size={16} aria-hidden="true" />
                <span className="seg__label">{t(`classroom.mode.${m}`)}</span>
              </button>
            );
          })}
        </div>
        <div className="seg" role="group" aria-label={t('classroom.view.label')}>
          {VIEW_TABS.map((v) => {
            const Icon = VIEW_ICONS[v.key];
            return (
              <button
                key={v.key}
                type="button"
                className="seg__btn seg__btn--view"
                aria-pressed={current === v.key}
                aria-label={t(`classroom.view.${v.key}`)}
                title={t(`classroom.view.${v.key}`)}
                disabled={props.disabled || !viewTabEnabled(props.room.roomType, v.key) || (v.key === 'screen' && !props.screenOffered)}
                data-testid={`view-${v.key}`}
                onClick={() => {
                  if (current !== v.key) props.onView(v.showState);
                }}
              >
                <Icon size={16} aria-hidden="true" />
                <span className="seg__label">{t(`classroom.view.${v.key}`)}</span>
              </button>
            );
          })}
        </div>
      </div>
      <div className="room-bar__end">
        {props.clock}
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
        <button
          type="button"
          className="btn btn--secondary room-bar__invite"
          onClick={() => setInviting(true)}
          aria-haspopup="dialog"
          title={t('classroom.inviteTitle')}
          data-testid="invite-button"
        >
          <UserPlus size={18} aria-hidden="true" />
          {t('classroom.inviteButton')}
        </button>
        <LanguageSwitch compact />
        {props.tools}
        <MoreMenu showTrial={props.showTrial} onTrial={props.onTrial} onEndClass={props.onEndClass} onInvite={() => setInviting(true)} />
        <LeaveButton className="btn btn--danger room-bar__leave" onExit={props.onExit} />
      </div>
      {inviting ? <InvitePanel roomNumber={props.room.roomNumber} inviteUrl={props.inviteUrl} onClose={() => setInviting(false)} /> : null}
    </header>
  );
}

/** Leave: opens the leave dialog (the teacher's also offers to end the class for everyone). */
function LeaveButton({ className, onExit }: { className: string; onExit: () => void }) {
  const { t } = useTranslation();
  return (
    <button
      type="button"
      className={className}
      onClick={onExit}
      aria-haspopup="dialog"
      aria-label={t('classroom.leave')}
      title={t('classroom.leave')}
      data-testid="exit"
    >
      <LogOut size={18} aria-hidden="true" />
      <span>{t('chrome.leaveShort')}</span>
    </button>
  );
}

/**
 * A member's bar: who and where, the class mode (ADR 099) and an audio class's time left,
 * language, leave; no classroom controls. One row at every width.
 */
export function MemberBar({ room, role, onExit, clock }: { room: RoomInfo; role: Role; onExit: () => void; clock?: ReactNode }) {
  return (
    <header className="room-bar room-bar--one-row" data-testid="member-bar">
      <RoomTitle room={room} role={role} />
      <div className="room-bar__end">
        <ClassModeBadge mode={room.mode ?? 'discuss'} announce={role !== 'observer' && role !== 'recorder'} />
        {clock}
        <LanguageSwitch compact />
        <LeaveButton className="btn btn--ghost room-bar__leave room-bar__leave--member" onExit={onExit} />
      </div>
    </header>
  );
}
