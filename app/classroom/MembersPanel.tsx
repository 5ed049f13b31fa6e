import { useEffect, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Hand } from 'lucide-react';
import type { Member } from '#core/contracts/room-events.ts';
import type { StageState } from '#core/contracts/stage.ts';
import { useConfirm } from '#app/components/Dialog.tsx';
import { shownName } from '#app/lib/display-name.ts';
import { NetworkIcon } from './NetworkIcon.tsx';
import { RewardButton, TrophyCount } from './tools/Trophies.tsx';
import { sfuNetworkQuality } from './roomState.ts';

export interface MembersPanelProps {
  members: Member[];
  myId: string;
  teacherOnline: boolean;
  isCreator: boolean;
  /** The stage and hands (ADR 112). */
  stage: StageState;
  /** The teacher's stage and hands panel, above the list. */
  stagePanel?: ReactNode;
  /** The SFU's network figures by user (the media note `quality`), the same the tiles show. */
  quality: Record<string, number>;
  clockSkew: number;
  /** The media node's audio levels (0-100) by user: the teacher sees those on stage (ADR 101). */
  levels?: Record<string, number>;
  /** People whose microphone reaches the node with no packets for 10 s. */
  silentMics?: string[];
  onBringUp: (userId: string) => void;
  onTakeDown: (userId: string) => void;
  onKick: (userId: string) => void;
  /** Trophies per user id in this class (the class tools, ADR 114). */
  trophies?: Record<string, number>;
  /** The teacher's reward dialog for this student. */
  onReward?: (userId: string) => void;
}

function secondsLeft(deadline: number, skew: number): number {
  return Math.max(0, Math.ceil((deadline - (Date.now() + skew)) / 1000));
}

/** Seconds left of an invitation, in server time. */
function useSecondsLeft(deadline: number, skew: number): number {
  // The clock is read on each tick; a new deadline is read at once (while rendering, not in an effect).
  const [tick, setTick] = useState({ deadline, skew, left: secondsLeft(deadline, skew) });
  if (tick.deadline !== deadline || tick.skew !== skew) setTick({ deadline, skew, left: secondsLeft(deadline, skew) });
  useEffect(() => {
    if (!deadline) return;
    const timer = setInterval(() => setTick({ deadline, skew, left: secondsLeft(deadline, skew) }), 250);
    return () => clearInterval(timer);
  }, [deadline, skew]);
  return tick.deadline === deadline && tick.skew === skew ? tick.left : secondsLeft(deadline, skew);
}

function StageStatus({ stage, userId, skew }: { stage: StageState; userId: string; skew: number }) {
  const { t } = useTranslation();
  const invited = stage.invited.find((s) => s.userId === userId);
  const left = useSecondsLeft(invited?.deadline ?? 0, skew);
  if (invited)
    return (
      <span className="badge badge--wait" data-testid="stage-status">
        {t('hands.inviting', { n: left })}
      </span>
    );
  if (stage.onStage.some((s) => s.userId === userId))
    return (
      <span className="badge badge--stage" data-testid="stage-status">
        {t('hands.onStage')}
      </span>
    );
  if (stage.hands.some((h) => h.userId === userId))
    return (
      <span className="badge badge--wait" data-testid="hand-status">
        <Hand size={12} strokeWidth={2} aria-hidden="true" focusable="false" /> {t('hands.raised')}
      </span>
    );
  return null;
}

/** Tab 2: who is here, their role, network and place on stage; the teacher's stage and kick-out buttons per row. */
export function MembersPanel({
  members,
  myId,
  teacherOnline,
  isCreator,
  stage,
  stagePanel,
  quality,
  clockSkew,
  levels = {},
  silentMics = [],
  onBringUp,
  onTakeDown,
  onKick,
  trophies = {},
  onReward,
}: MembersPanelProps) {
  const { t } = useTranslation();
  const confirm = useConfirm();
  // Whom and what happens, with a red button (ADR 090): the removed person cannot rejoin this class.
  const kick = async (userId: string, name: string) => {
    const ok = await confirm({
      title: t('chrome.kick.title', { name }),
      message: t('chrome.kick.text', { name }),
      confirmText: t('chrome.kick.confirm'),
      tone: 'danger',
    });
    if (ok) onKick(userId);
  };
  return (
    <div className="members">
      {stagePanel}
      {!teacherOnline ? (
        <p className="members__absent" role="status" data-testid="teacher-absent">
          {t('classroom.members.teacherAbsent')}
        </p>
      ) : null}
      <ul className="members__list" aria-label={t('classroom.members.list')}>
        {members.length === 0 ? <li className="muted">{t('classroom.members.empty')}</li> : null}
        {members.map((m) => {
          const seated = stage.onStage.some((s) => s.userId === m.userId) || stage.invited.some((s) => s.userId === m.userId);
          const onStage = stage.onStage.some((s) => s.userId === m.userId);
          return (
            <li key={m.userId} className="member" data-testid="member-row" data-user={m.userId}>
              <span className="member__name">
                {shownName(m.name, t)}
                {m.userId === myId ? t('classroom.members.you') : null}
              </span>
              <span className={`badge badge--role badge--${m.role}`}>{t(`classroom.badge.${m.role}`)}</span>
              <NetworkIcon quality={sfuNetworkQuality(quality, m)} />
              <TrophyCount n={trophies[m.userId] ?? 0} />
              {m.role !== 'creator' ? <StageStatus stage={stage} userId={m.userId} skew={clockSkew} /> : null}
              {onStage && isCreator ? (
                <meter
                  className="member__level"
                  min={0}
                  max={100}
                  low={25}
                  value={levels[m.userId] ?? 0}
                  aria-label={t('mediaHealth.silent.level', { name: shownName(m.name, t) })}
                  data-testid="member-mic-level"
                  data-level={levels[m.userId] ?? 0}
                />
              ) : null}
              {silentMics.includes(m.userId) ? (
                <span
                  className="badge badge--silent"
                  role="status"
                  title={t('mediaHealth.silent.teacher', { name: shownName(m.name, t) })}
                  data-testid="member-silent"
                >
                  {t('mediaHealth.silent.badge')}
                </span>
              ) : null}
              {isCreator && m.role !== 'creator' ? (
                <span className="member__actions" role="group" aria-label={t('classroom.members.actions', { name: m.name })}>
                  {seated ? (
                    <button type="button" className="btn btn--small btn--secondary" onClick={() => onTakeDown(m.userId)}>
                      {onStage ? t('hands.takeDown') : t('hands.withdraw')}
                    </button>
                  ) : m.role !== 'observer' ? (
                    <button type="button" className="btn btn--small btn--secondary" onClick={() => onBringUp(m.userId)}>
                      {t('hands.bringUp')}
                    </button>
                  ) : null}
                  {onReward ? <RewardButton name={shownName(m.name, t)} onClick={() => onReward(m.userId)} /> : null}
                  <button
                    type="button"
                    className="btn btn--small btn--ghost member__kick"
                    data-testid="member-kick"
                    onClick={() => void kick(m.userId, shownName(m.name, t))}
                  >
                    {t('classroom.members.kick')}
                  </button>
                </span>
              ) : null}
            </li>
          );
        })}
      </ul>
    </div>
  );
}
