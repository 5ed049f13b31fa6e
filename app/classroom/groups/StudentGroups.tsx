/**
 * What a student sees of the breakout groups (issue 31, ADR 118): the banner of their group
 * ("You are in Group 2 (leader: X) · 12:34 left") with "ask for help" and, when the teacher
 * allows it, a way to change group; in the main room the picker of groups (when allowed) or a
 * note to wait; the countdown warning in the last minute and while everyone is being brought back.
 */
import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { Hand, Users } from 'lucide-react';
import type { GroupsState } from '#core/contracts/groups.ts';
import { toast } from '#app/lib/toast.ts';
import { clockOf } from '../StageHands.tsx';
import { useGroupsNow } from './GroupsOverview.tsx';
import { groupLabel, groupsClock, type Placement } from './groups-pure.ts';

export interface GroupBannerProps {
  state: GroupsState;
  placement: Placement;
  myId: string;
  names: ReadonlyMap<string, string>;
  /** Server time minus this browser's (ms): the countdowns run on the server's time. */
  offset: number;
  /** Observers and the recorder see the state but ask nothing. */
  student: boolean;
  disabled: boolean;
  onHelp: (cancel: boolean) => void;
  onChoose: (group: number) => void;
}

export function GroupBanner({ state, placement, myId, names, offset, student, disabled, onHelp, onChoose }: GroupBannerProps) {
  const { t } = useTranslation();
  const clock = groupsClock(state, useGroupsNow(offset, true));
  // The last minute of a time limit is said once, as a toast too (the banner keeps counting).
  const warnNow = !!clock && clock.kind === 'limit' && clock.warn && clock.left > 0 && student && !!placement.group;
  const warned = useRef(false);
  const secondsLeft = clock ? Math.ceil(clock.left / 1000) : 0;
  useEffect(() => {
    if (!warnNow || warned.current) return;
    warned.current = true;
    toast.info(t('groups.student.warnEnd', { n: secondsLeft }));
  }, [warnNow, secondsLeft, t]);
  const { group } = placement;
  const time = clock
    ? clock.kind === 'closing'
      ? t('groups.student.returning', { time: clockOf(clock.left) })
      : t('groups.student.left', { time: clockOf(clock.left) })
    : null;
  const warning =
    clock && clock.warn && clock.left > 0 ? (
      <p className="group-banner__warn" role="alert" data-testid="groups-warning">
        {clock.kind === 'closing'
          ? t('groups.student.returning', { time: clockOf(clock.left) })
          : t('groups.student.warnEnd', { n: Math.ceil(clock.left / 1000) })}
      </p>
    ) : null;

  if (!group) {
    if (!student) return null;
    // In the main room while groups run: choose a group when allowed, else wait for the teacher.
    return (
      <section className="group-banner group-banner--main" aria-label={t('groups.menuLabel')} data-testid="groups-main-note">
        {state.allowChoose && state.status === 'running' ? (
          <GroupPicker state={state} current={0} disabled={disabled} onChoose={onChoose} />
        ) : (
          <p className="group-banner__text">
            <Users size={16} aria-hidden="true" /> {t('groups.student.wait')}
          </p>
        )}
        {time && !warning ? <span className="group-banner__time">{time}</span> : null}
        {warning}
      </section>
    );
  }

  const leaderName = group.leader ? (group.leader === myId ? null : (names.get(group.leader) ?? group.leader)) : null;
  const asking = group.helpAt > 0;
  return (
    <section
      className={`group-banner${clock?.warn ? ' group-banner--warn' : ''}`}
      aria-label={t('groups.menuLabel')}
      data-testid="group-banner"
      data-group={group.no}
    >
      <p className="group-banner__text" data-testid="group-banner-text">
        <Users size={16} aria-hidden="true" />
        <strong>{t('groups.student.inGroup', { group: groupLabel(group, t) })}</strong>
        {placement.leader ? <span className="badge badge--stage">{t('groups.student.youLead')}</span> : null}
        {leaderName ? <span>({t('groups.student.leaderIs', { name: leaderName })})</span> : null}
        {time && !warning ? (
          <span className="group-banner__time" data-testid="group-banner-time">
            · {time}
          </span>
        ) : null}
      </p>
      {student ? (
        <div className="group-banner__acts">
          {state.allowChoose && state.status === 'running' ? (
            <GroupPicker state={state} current={group.no} disabled={disabled} onChoose={onChoose} compact />
          ) : null}
          <button
            type="button"
            className={`btn btn--small ${asking ? 'btn--primary' : 'btn--secondary'}`}
            aria-pressed={asking}
            disabled={disabled}
            onClick={() => onHelp(asking)}
            data-testid="groups-help"
          >
            <Hand size={14} aria-hidden="true" />
            {asking ? t('groups.student.cancelHelp') : t('groups.student.askHelp')}
          </button>
          {asking ? (
            <span className="muted group-banner__sent" role="status">
              {t('groups.student.helpSent')}
            </span>
          ) : null}
        </div>
      ) : null}
      {warning}
    </section>
  );
}

/** The groups a student may choose (full ones say so); `compact` is the banner's select. */
function GroupPicker({
  state,
  current,
  disabled,
  onChoose,
  compact = false,
}: {
  state: GroupsState;
  current: number;
  disabled: boolean;
  onChoose: (group: number) => void;
  compact?: boolean;
}) {
  const { t } = useTranslation();
  if (compact) {
    return (
      <label className="group-banner__change">
        <span className="visually-hidden">{t('groups.student.pickTitle')}</span>
        <select value={current} disabled={disabled} onChange={(e) => onChoose(Number(e.target.value))} data-testid="groups-change">
          {state.groups.map((g) => (
            <option key={g.no} value={g.no}>
              {groupLabel(g, t)} ({g.members.length})
            </option>
          ))}
        </select>
      </label>
    );
  }
  return (
    <div className="group-picker" data-testid="groups-picker">
      <h3 className="group-picker__title">{t('groups.student.pickTitle')}</h3>
      <p className="muted group-picker__hint">{t('groups.student.pickHint')}</p>
      <ul className="group-picker__list">
        {state.groups.map((g) => (
          <li key={g.no}>
            <button
              type="button"
              className="btn btn--small btn--secondary"
              disabled={disabled}
              onClick={() => onChoose(g.no)}
              data-testid="groups-pick"
              data-group={g.no}
            >
              {groupLabel(g, t)} · {t('groups.overview.members', { n: g.members.length })}
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}

/** After groups ended: the teacher shows a group's board (an ordinary page turn of the room). */
export function LastBoards({
  boards,
  current,
  disabled,
  onShow,
}: {
  boards: GroupsState['lastBoards'];
  current: number;
  disabled: boolean;
  onShow: (page: number) => void;
}) {
  const { t } = useTranslation();
  if (boards.length === 0) return null;
  return (
    <nav className="last-boards" aria-label={t('groups.lastBoards.title')} data-testid="last-boards">
      <span className="last-boards__title">{t('groups.lastBoards.title')}</span>
      <ul className="last-boards__list">
        {boards.map((b) => {
          const name = groupLabel(b, t);
          return (
            <li key={b.no}>
              <button
                type="button"
                className="btn btn--small btn--ghost"
                aria-pressed={current === b.page}
                aria-label={t('groups.lastBoards.show', { group: name })}
                disabled={disabled}
                onClick={() => onShow(b.page)}
                data-testid="last-board"
                data-page={b.page}
              >
                {name}
              </button>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
