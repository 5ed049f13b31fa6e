import { Fragment, useLayoutEffect, useRef, useState, useSyncExternalStore, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { LayoutGrid, LayoutPanelTop } from 'lucide-react';
import type { Member } from '#core/contracts/room-events.ts';
import './stage.css';
import { NetworkIcon } from './NetworkIcon.tsx';
import { GAP, gridFit, readLayout, serverLayout, speakerFit, subscribeLayout, writeLayout, type StageLayout } from './stage-layout.ts';
import { viewOf, type ViewKey } from './views.ts';

/** One participant's tile without media (the placeholder). */
function Tile({ member, me, speaking }: { member: Member; me: boolean; speaking: boolean }) {
  const { t } = useTranslation();
  return (
    <li className={`tile${member.role === 'creator' ? ' tile--teacher' : ''}${speaking ? ' tile--mic' : ''}`}>
      <span className="tile__avatar" aria-hidden="true">
        {[...member.name][0] ?? '?'}
      </span>
      <span className="tile__name" title={member.name}>
        {member.name}
        {me ? t('classroom.members.you') : null}
      </span>
      <span className="tile__meta">
        {speaking ? <span className="badge badge--mic">{t('hands.onStage')}</span> : null}
        <NetworkIcon quality={member.networkQuality} />
      </span>
    </li>
  );
}

/** Who the stage puts first: the pinned person, else the active speaker (ClassroomMedia). */
export interface StageFocus {
  pinned: string;
  active: string;
}

export interface ViewAreaProps {
  showState: string;
  members: Member[];
  myId: string;
  /** Those on stage (ADR 112): their tiles say so. */
  stageIds: readonly string[];
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
  /** The pinned person and the active speaker, for the speaker layout. */
  focus?: StageFocus;
}

/** Measures a box and lays the video tiles out in it (ADR 088), through CSS variables on the list. */
function useFit(on: boolean, layout: StageLayout, count: number) {
  const box = useRef<HTMLUListElement>(null);
  const [size, setSize] = useState<{ w: number; h: number } | null>(null);
  useLayoutEffect(() => {
    const el = box.current;
    if (!el) return;
    const measure = () => {
      const r = el.getBoundingClientRect();
      setSize((s) => (s && Math.abs(s.w - r.width) < 1 && Math.abs(s.h - r.height) < 1 ? s : { w: r.width, h: r.height }));
    };
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(el);
    return () => observer.disconnect();
  }, [on]);
  // CSS variables set through the CSSOM: the page policy refuses style attributes (ADR 067).
  useLayoutEffect(() => {
    const el = box.current;
    if (!el || !size) return;
    if (layout === 'grid') {
      const fit = gridFit(count, size.w, size.h);
      el.style.setProperty('--cols', String(fit.cols));
      el.style.setProperty('--tile-w', `${fit.w}px`);
      el.style.setProperty('--tile-h', `${fit.h}px`);
      // The list is as wide as a full row, so a short last row is centred under the others.
      el.style.setProperty('--row-pad', `${Math.max(0, Math.floor((size.w - (fit.cols * fit.w + (fit.cols - 1) * GAP)) / 2))}px`);
    } else {
      const fit = speakerFit(count, size.w, size.h);
      el.style.setProperty('--main-w', `${fit.main.w}px`);
      el.style.setProperty('--main-h', `${fit.main.h}px`);
    }
  }, [layout, count, size]);
  return box;
}

/**
 * The stage follows the room's showState for everyone: board, document, screen or the videos.
 * The video view fills the stage with 16:9 tiles (grid or speaker layout); the other views put
 * the content first and the tiles in a filmstrip beside it.
 */
export function ViewArea({
  showState,
  members,
  myId,
  stageIds,
  board,
  forceView,
  tile,
  extraTiles,
  screen,
  courseware,
  focus,
}: ViewAreaProps) {
  const { t } = useTranslation();
  const view = forceView ?? viewOf(showState);
  const name = t(`classroom.view.${view}`);
  const layout = useSyncExternalStore(subscribeLayout, readLayout, serverLayout);
  const chooseLayout = (next: StageLayout) => writeLayout(next);
  const count = members.length + (extraTiles ? 1 : 0);
  const fitBox = useFit(view === 'video', layout, count);

  const one = (m: Member) =>
    tile ? (
      <Fragment key={m.userId}>{tile(m, m.userId === myId)}</Fragment>
    ) : (
      <Tile key={m.userId} member={m} me={m.userId === myId} speaking={stageIds.includes(m.userId)} />
    );

  const mainId =
    [focus?.pinned, focus?.active].find((id) => id && members.some((m) => m.userId === id)) ??
    members.find((m) => m.role === 'creator')?.userId ??
    members[0]?.userId ??
    '';
  const speakerLayout = view === 'video' && layout === 'speaker';
  // One list in every view, so a tile's video element lives on when the view or layout changes.
  const ordered = speakerLayout ? [...members.filter((m) => m.userId === mainId), ...members.filter((m) => m.userId !== mainId)] : members;
  const tileClass = view !== 'video' ? 'tiles--strip' : speakerLayout ? 'tiles--speaker' : 'tiles--grid';
  const tiles = (
    <ul
      ref={view === 'video' ? fitBox : undefined}
      className={`tiles ${tileClass}`}
      aria-label={view === 'video' ? t('classroom.tiles') : t('stage.filmstrip')}
      data-testid={view === 'video' ? 'stage-fit' : 'filmstrip'}
      // The filmstrip scrolls when it holds more tiles than fit: keyboard users reach it too.
      tabIndex={view === 'video' ? undefined : 0}
      data-main={speakerLayout ? mainId : undefined}
    >
      {ordered.map(one)}
      {extraTiles}
    </ul>
  );

  return (
    <section
      className={`stage stage--${view}${view === 'video' ? ` stage--${layout}` : ''}`}
      aria-label={t('classroom.view.area', { name })}
      data-testid="view-area"
      data-view={view}
      data-layout={view === 'video' ? layout : undefined}
    >
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
      ) : view === 'video' ? (
        <div className="view view--video" aria-live="polite">
          <div className="stage__head">
            <h2 className="view__title" data-testid="view-title">
              {name}
            </h2>
            <div className="stage__layouts" role="group" aria-label={t('stage.layout')}>
              <button
                type="button"
                className="stage__layout-btn"
                aria-pressed={layout === 'grid'}
                aria-label={t('stage.grid')}
                title={t('stage.grid')}
                onClick={() => chooseLayout('grid')}
                data-testid="layout-grid"
              >
                <LayoutGrid size={18} aria-hidden="true" />
              </button>
              <button
                type="button"
                className="stage__layout-btn"
                aria-pressed={layout === 'speaker'}
                aria-label={t('stage.speaker')}
                title={t('stage.speaker')}
                onClick={() => chooseLayout('speaker')}
                data-testid="layout-speaker"
              >
                <LayoutPanelTop size={18} aria-hidden="true" />
              </button>
            </div>
          </div>
        </div>
      ) : (
        <div className={`view view--${view}`} aria-live="polite">
          <h2 className="view__title" data-testid="view-title">
            {name}
          </h2>
          {view === 'screen' && screen ? screen : <p className="view__text muted">{t(`classroom.view.${view}Text`)}</p>}
        </div>
      )}
      {tiles}
    </section>
  );
}
