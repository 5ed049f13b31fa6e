import { Fragment, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { Member } from '#core/contracts/room-events.ts';
import { NetworkIcon } from './NetworkIcon.tsx';
import { viewOf, type ViewKey } from './views.ts';

/** One participant's tile; the media issue puts the video in it. */
function Tile({ member, me, speaking }: { member: Member; me: boolean; speaking: boolean }) {
  const { t } = useTranslation();
  return (
    <li className={`tile${member.role === 'creator' ? ' tile--teacher' : ''}${speaking ? ' tile--mic' : ''}`}>
      <span className="tile__avatar" aria-hidden="true">
        {[...member.name][0] ?? '?'}
      </span>
      <span className="tile__name">
        {member.name}
        {me ? t('classroom.members.you') : null}
      </span>
      <span className="tile__meta">
        {speaking ? <span className="badge badge--mic">{t('classroom.mic.connected')}</span> : null}
        <NetworkIcon quality={member.networkQuality} />
      </span>
    </li>
  );
}

export interface ViewAreaProps {
  showState: string;
  members: Member[];
  myId: string;
  micUserId: string;
  /** The whiteboard, shown in place of the 'wb' panel (and as the main view of a board class). */
  board?: ReactNode;
  /** The view to show when the caller knows it (shownView: the whiteboard class always shows its board). */
  forceView?: ViewKey;
  /** A tile with the person's video (an <li>); the placeholder tile without it. */
  tile?: (member: Member, me: boolean) => ReactNode;
  /** Tiles after the members' (e.g. 'teacher not online'). */
  extraTiles?: ReactNode;
  /** The screen-share view's content. */
  screen?: ReactNode;
  /** The document view's content (app/courseware). */
  courseware?: ReactNode;
}

/**
 * The stage follows the room's showState for everyone: board, document, screen or the videos.
 * Each view's content comes with its own issue; until then a labelled panel says what goes there.
 */
export function ViewArea({ showState, members, myId, micUserId, board, forceView, tile, extraTiles, screen, courseware }: ViewAreaProps) {
  const { t } = useTranslation();
  const view = forceView ?? viewOf(showState);
  const name = t(`classroom.view.${view}`);
  const tiles = (
    <ul className="tiles" aria-label={t('classroom.tiles')}>
      {members.map((m) =>
        tile ? (
          <Fragment key={m.userId}>{tile(m, m.userId === myId)}</Fragment>
        ) : (
          <Tile key={m.userId} member={m} me={m.userId === myId} speaking={m.userId === micUserId} />
        ),
      )}
      {extraTiles}
    </ul>
  );
  return (
    <section className={`stage stage--${view}`} aria-label={t('classroom.view.area', { name })} data-testid="view-area" data-view={view}>
      {view === 'video' ? null : tiles}
      {view === 'wb' && board ? (
        <div className="view view--board" data-testid="view-board">
          <h2 className="visually-hidden" data-testid="view-title">
            {name}
          </h2>
          {board}
        </div>
      ) : view === 'ppt' && courseware ? (
        <div className="view view--board view--courseware" data-testid="view-courseware">
          <h2 className="visually-hidden" data-testid="view-title">
            {name}
          </h2>
          {courseware}
        </div>
      ) : (
        <div className={`view view--${view}`} aria-live="polite">
          <h2 className="view__title" data-testid="view-title">
            {name}
          </h2>
          {view === 'video' ? (
            tiles
          ) : view === 'screen' && screen ? (
            screen
          ) : (
            <p className="view__text muted">{t(`classroom.view.${view}Text`)}</p>
          )}
        </div>
      )}
    </section>
  );
}
