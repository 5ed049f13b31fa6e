/**
 * The teacher's overview while groups run (issue 31, ADR 118), in the side column (below the
 * class on a phone): each group with its members (outlined while the media node hears them:
 * the teacher gets every group's levels), a live thumbnail of its board page, its help request
 * (highlighted, with how long ago), join / back to main, moving a student and naming a leader,
 * a message to every group, "return all" now or after a countdown, and the time left.
 */
import { useEffect, useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Crown, Hand, LogIn, LogOut, Megaphone, Undo2 } from 'lucide-react';
import { GROUPS_BROADCAST_MAX_CHARS } from '#core/contracts/groups.ts';
import { SPEAK_ON } from '../media/speaking.ts';
import { clockOf } from '../StageHands.tsx';
import type { BoardStore } from '#app/board/store.ts';
import { toast } from '#app/lib/toast.ts';
import { GroupThumb } from './GroupThumb.tsx';
import { chatTextOf, groupLabel, groupsClock, unplaced } from './groups-pure.ts';
import type { GroupsActions, GroupsView } from './groups-store.ts';

/** The countdowns "return all" offers (s). */
export const RETURN_CHOICES = [30, 60] as const;

/** Server time now, ticking each second while `on`. */
export function useGroupsNow(offset: number, on: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!on) return;
    const tick = () => setNow(Date.now());
    tick();
    const timer = setInterval(tick, 500);
    return () => clearInterval(timer);
  }, [on]);
  return now + offset;
}

export interface GroupsOverviewProps {
  view: GroupsView;
  actions: GroupsActions;
  /** Every student of the room by id (names for the lists, also of those who are offline). */
  names: ReadonlyMap<string, string>;
  /** Students in the room now (the unplaced are those of them in no group). */
  students: string[];
  levels: Record<string, number>;
  board: BoardStore | null;
  background: number;
  disabled: boolean;
}

export function GroupsOverview({ view, actions, names, students, levels, board, background, disabled }: GroupsOverviewProps) {
  const { t } = useTranslation();
  const id = useId();
  const { state } = view;
  const now = useGroupsNow(view.offset, true);
  const clock = groupsClock(state, now);
  const [message, setMessage] = useState('');
  const waiting = unplaced(state, students);
  const nameOf = (uid: string) => names.get(uid) ?? uid;
  const label = (g: { no: number; name: string }) => groupLabel(g, t);
  const places = [{ no: 0, label: t('groups.mainRoom') }, ...state.groups.map((g) => ({ no: g.no, label: label(g) }))];

  const moveSelect = (uid: string, from: number) => (
    <select
      className="groups-overview__move"
      aria-label={t('groups.overview.moveTo', { name: nameOf(uid) })}
      value={from}
      disabled={disabled}
      onChange={(e) => void actions.move(uid, Number(e.target.value))}
      data-testid="group-move"
    >
      {places.map((p) => (
        <option key={p.no} value={p.no}>
          {p.label}
        </option>
      ))}
    </select>
  );

  const send = async () => {
    const text = chatTextOf(message, GROUPS_BROADCAST_MAX_CHARS);
    if (text === null) return;
    if (await actions.broadcast(text)) {
      setMessage('');
      toast.success(t('groups.overview.sent'));
    }
  };

  return (
    <section className="groups-overview" aria-label={t('groups.overview.title')} data-testid="groups-overview" data-status={state.status}>
      <div className="groups-overview__head">
        <h3 className="groups-overview__title">{t('groups.overview.title')}</h3>
        <span className={`badge ${clock?.warn ? 'badge--wait' : 'badge--role'}`} role="timer" aria-live="off" data-testid="groups-clock">
          {clock
            ? clock.kind === 'closing'
              ? t('groups.overview.returning', { time: clockOf(clock.left) })
              : t('groups.overview.timeLeft', { time: clockOf(clock.left) })
            : t('groups.overview.noLimit')}
        </span>
      </div>
      <div className="groups-overview__return" role="group" aria-label={t('groups.overview.returnAll')}>
        <Undo2 size={16} aria-hidden="true" />
        <span className="groups-overview__return-label">{t('groups.overview.returnAll')}</span>
        {state.status === 'closing' ? (
          <button
            type="button"
            className="btn btn--small btn--primary"
            disabled={disabled}
            onClick={() => void actions.end(0)}
            data-testid="groups-return-now"
          >
            {t('groups.overview.returnNowInstead')}
          </button>
        ) : (
          <>
            <button
              type="button"
              className="btn btn--small btn--primary"
              disabled={disabled}
              onClick={() => void actions.end(0)}
              data-testid="groups-return-now"
            >
              {t('groups.overview.returnNow')}
            </button>
            {RETURN_CHOICES.map((s) => (
              <button
                key={s}
                type="button"
                className="btn btn--small btn--secondary"
                disabled={disabled}
                onClick={() => void actions.end(s)}
                data-testid={`groups-return-${s}`}
              >
                {t('groups.overview.returnIn', { n: s })}
              </button>
            ))}
          </>
        )}
      </div>
      <form
        className="groups-overview__broadcast"
        onSubmit={(e) => {
          e.preventDefault();
          void send();
        }}
      >
        <label htmlFor={`${id}-msg`}>
          <Megaphone size={14} aria-hidden="true" /> {t('groups.overview.broadcast')}
        </label>
        <div className="field__row">
          <input
            id={`${id}-msg`}
            value={message}
            maxLength={GROUPS_BROADCAST_MAX_CHARS}
            placeholder={t('groups.overview.broadcastPlaceholder')}
            onChange={(e) => setMessage(e.target.value)}
            data-testid="groups-broadcast-input"
          />
          <button
            type="submit"
            className="btn btn--small btn--secondary"
            disabled={disabled || chatTextOf(message, GROUPS_BROADCAST_MAX_CHARS) === null}
            data-testid="groups-broadcast-send"
          >
            {t('groups.overview.send')}
          </button>
        </div>
      </form>
      {waiting.length > 0 ? (
        <div className="groups-overview__waiting" data-testid="groups-waiting">
          <h4>{t('groups.overview.waiting', { n: waiting.length })}</h4>
          <ul>
            {waiting.map((uid) => (
              <li key={uid} className="groups-overview__member" data-user={uid}>
                <span className="groups-overview__name">{nameOf(uid)}</span>
                {moveSelect(uid, 0)}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      <ol className="groups-overview__list">
        {state.groups.map((g) => {
          const here = state.teacherIn === g.no;
          const help = g.helpAt > 0;
          return (
            <li
              key={g.no}
              className={`group-card${help ? ' group-card--help' : ''}${here ? ' group-card--here' : ''}`}
              data-testid="group-card"
              data-group={g.no}
            >
              <div className="group-card__head">
                <h4 className="group-card__title">{label(g)}</h4>
                <span className="muted">{t('groups.overview.members', { n: g.members.length })}</span>
                {here ? (
                  <>
                    <span className="badge badge--stage">{t('groups.overview.youHere')}</span>
                    <button
                      type="button"
                      className="btn btn--small btn--secondary group-card__go"
                      disabled={disabled}
                      onClick={() => void actions.visit(0)}
                      data-testid="group-leave"
                    >
                      <LogOut size={14} aria-hidden="true" />
                      {t('groups.overview.leave')}
                    </button>
                  </>
                ) : (
                  <button
                    type="button"
                    className="btn btn--small btn--primary group-card__go"
                    disabled={disabled}
                    aria-label={`${t('groups.overview.join')} ${label(g)}`}
                    onClick={() => void actions.visit(g.no)}
                    data-testid="group-join"
                  >
                    <LogIn size={14} aria-hidden="true" />
                    {t('groups.overview.join')}
                  </button>
                )}
              </div>
              {help ? (
                <p className="group-card__help" role="status" data-testid="group-help">
                  <Hand size={14} aria-hidden="true" />
                  {t('groups.overview.help', { time: clockOf(now - g.helpAt) })}
                </p>
              ) : null}
              <div className="group-card__body">
                <GroupThumb store={board} page={g.page} background={background} label={t('groups.overview.board', { group: label(g) })} />
                <ul className="group-card__members" aria-label={label(g)}>
                  {g.members.length === 0 ? <li className="muted">{t('groups.overview.empty')}</li> : null}
                  {g.members.map((uid) => {
                    const speaking = (levels[uid] ?? 0) >= SPEAK_ON;
                    return (
                      <li
                        key={uid}
                        className={`groups-overview__member${speaking ? ' groups-overview__member--speaking' : ''}`}
                        data-user={uid}
                        data-speaking={speaking ? '1' : '0'}
                        data-testid="group-member"
                      >
                        <span className="groups-overview__name">
                          {nameOf(uid)}
                          {speaking ? <span className="visually-hidden"> ({t('groups.overview.speaking')})</span> : null}
                        </span>
                        {g.leader === uid ? <span className="visually-hidden">({t('groups.leader')})</span> : null}
                        <span className="groups-overview__acts">
                          <button
                            type="button"
                            className="groups-overview__icon"
                            aria-pressed={g.leader === uid}
                            aria-label={`${g.leader === uid ? t('groups.overview.clearLeader') : t('groups.overview.makeLeader')}: ${nameOf(uid)}`}
                            title={g.leader === uid ? t('groups.overview.clearLeader') : t('groups.overview.makeLeader')}
                            disabled={disabled}
                            onClick={() => void actions.leader(g.no, g.leader === uid ? null : uid)}
                            data-testid="group-leader"
                          >
                            <Crown size={14} aria-hidden="true" />
                          </button>
                          {moveSelect(uid, g.no)}
                        </span>
                      </li>
                    );
                  })}
                </ul>
              </div>
            </li>
          );
        })}
      </ol>
    </section>
  );
}
