/**
 * Stage and hands in the classroom (issue 30, ADR 112): the student's hand button, the invitation
 * to the stage and the banner while on it, the teacher's panel with the ordered queue of hands
 * (waiting times in server time), the stage's seats, "bring up", "take down", "everyone down" and
 * the carousel, and the strip that shows everyone who is on stage. The server decides every move;
 * these only ask and show the stage state the room's events carry.
 */
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Hand } from 'lucide-react';
import type { StageState } from '#core/contracts/stage.ts';
import { Dialog } from '#app/components/Dialog.tsx';
import { shownName } from '#app/lib/display-name.ts';
import './stage-hands.css';

/** The carousel periods the teacher may pick (s; 0 off). */
export const CAROUSEL_CHOICES = [0, 30, 60, 120, 300] as const;

/** Server time now, ticking each second (deadlines and waiting times are server times). */
function useServerNow(skew: number, active: boolean): number {
  const [now, setNow] = useState(() => Date.now() + skew);
  useEffect(() => {
    if (!active) return;
    const tick = () => setNow(Date.now() + skew);
    tick();
    const timer = setInterval(tick, 1000);
    return () => clearInterval(timer);
  }, [skew, active]);
  return now;
}

/** m:ss of a span in ms. */
export function clockOf(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

/** A student's hand: raise or lower (a toggle button, keyboard reachable); hidden while on stage. */
export function HandButton({ raised, disabled, onToggle }: { raised: boolean; disabled: boolean; onToggle: () => void }) {
  const { t } = useTranslation();
  return (
    <div className="hand-dock">
      {raised ? (
        <span className="hand-dock__status" role="status">
          {t('hands.raisedStatus')}
        </span>
      ) : null}
      <button
        type="button"
        className={`btn ${raised ? 'btn--primary' : 'btn--secondary'} hand-btn`}
        aria-pressed={raised}
        disabled={disabled}
        onClick={onToggle}
        data-testid="hand-button"
      >
        <Hand className="icon" size={18} strokeWidth={1.8} aria-hidden="true" focusable="false" />
        {raised ? t('hands.lower') : t('hands.raise')}
      </button>
    </div>
  );
}

/** The invited student's question; Escape declines (as the microphone's did). */
export function StageInvitation({ onAnswer }: { onAnswer: (agree: boolean) => void }) {
  const { t } = useTranslation();
  return (
    <Dialog
      title={t('hands.inviteTitle')}
      onClose={() => onAnswer(false)}
      testId="stage-invitation"
      actions={
        <>
          <button type="button" className="btn btn--ghost" onClick={() => onAnswer(false)}>
            {t('hands.refuse')}
          </button>
          <button type="button" className="btn btn--primary" onClick={() => onAnswer(true)} autoFocus>
            {t('hands.agree')}
          </button>
        </>
      }
    >
      <p>{t('hands.inviteQuestion')}</p>
    </Dialog>
  );
}

/** Shown to a student on stage, with their own way down. */
export function OnStageBanner({ video, onStepDown }: { video: boolean; onStepDown: () => void }) {
  const { t } = useTranslation();
  return (
    <div className="on-stage" role="status" data-testid="on-stage">
      <span>{video ? t('hands.youOnStage') : t('hands.youOnStageAudio')}</span>
      <button type="button" className="btn btn--small btn--secondary" onClick={onStepDown}>
        {t('hands.stepDown')}
      </button>
    </div>
  );
}

/** Everyone sees who is on stage (and who is invited), above the class's view. */
export function StageStrip({ stage, myId }: { stage: StageState; myId: string }) {
  const { t } = useTranslation();
  if (stage.onStage.length === 0 && stage.invited.length === 0) return null;
  return (
    <ul className="stage-strip" aria-label={t('hands.stageStrip')} data-testid="stage-strip">
      {stage.onStage.map((s) => (
        <li key={s.userId} className="stage-strip__seat" data-user={s.userId}>
          <span className="stage-strip__avatar" aria-hidden="true">
            {[...shownName(s.name, t)][0] ?? '?'}
          </span>
          <span className="stage-strip__name">
            {shownName(s.name, t)}
            {s.userId === myId ? t('classroom.members.you') : null}
          </span>
          <span className="badge badge--stage">{t('hands.onStage')}</span>
        </li>
      ))}
      {stage.invited.map((s) => (
        <li key={s.userId} className="stage-strip__seat stage-strip__seat--invited" data-user={s.userId}>
          <span className="stage-strip__avatar" aria-hidden="true">
            {[...shownName(s.name, t)][0] ?? '?'}
          </span>
          <span className="stage-strip__name">{shownName(s.name, t)}</span>
        </li>
      ))}
    </ul>
  );
}

export interface StagePanelProps {
  stage: StageState;
  clockSkew: number;
  disabled: boolean;
  onBringUp: (userId: string) => void;
  onTakeDown: (userId: string) => void;
  onLowerHand: (userId: string) => void;
  onAllDown: () => void;
  onCarousel: (seconds: number) => void;
}

/** The teacher's stage and hands queue, above the member list. */
export function StagePanel({ stage, clockSkew, disabled, onBringUp, onTakeDown, onLowerHand, onAllDown, onCarousel }: StagePanelProps) {
  const { t } = useTranslation();
  const ticking = stage.hands.length > 0 || stage.invited.length > 0 || stage.carousel.seconds > 0;
  const now = useServerNow(clockSkew, ticking);
  const taken = stage.onStage.length + stage.invited.length;
  return (
    <section className="stage-panel" aria-label={t('hands.title')} data-testid="stage-panel">
      <div className="stage-panel__head">
        <h3 className="stage-panel__title">{t('hands.title')}</h3>
        <span className={`badge ${taken >= stage.seats ? 'badge--wait' : 'badge--role'}`} data-testid="stage-seats">
          {t('hands.seats', { n: taken, max: stage.seats })}
        </span>
        <button
          type="button"
          className="btn btn--small btn--ghost stage-panel__all"
          disabled={disabled || taken === 0}
          onClick={onAllDown}
          data-testid="stage-all-down"
        >
          {t('hands.allDown')}
        </button>
      </div>
      <ul className="stage-panel__list" aria-label={t('hands.onStage')}>
        {taken === 0 ? <li className="muted">{t('hands.stageEmpty')}</li> : null}
        {stage.onStage.map((s) => (
          <li key={s.userId} className="stage-panel__row" data-testid="stage-row" data-user={s.userId}>
            <span className="stage-panel__name">{shownName(s.name, t)}</span>
            <span className="badge badge--stage">{t('hands.onStage')}</span>
            <button type="button" className="btn btn--small btn--secondary" disabled={disabled} onClick={() => onTakeDown(s.userId)}>
              {t('hands.takeDown')}
            </button>
          </li>
        ))}
        {stage.invited.map((s) => (
          <li key={s.userId} className="stage-panel__row" data-testid="stage-row" data-user={s.userId}>
            <span className="stage-panel__name">{shownName(s.name, t)}</span>
            <span className="badge badge--wait">{t('hands.inviting', { n: Math.max(0, Math.ceil((s.deadline - now) / 1000)) })}</span>
            <button type="button" className="btn btn--small btn--ghost" disabled={disabled} onClick={() => onTakeDown(s.userId)}>
              {t('hands.withdraw')}
            </button>
          </li>
        ))}
      </ul>
      <h4 className="stage-panel__sub">{t('hands.handsTitle', { n: stage.hands.length })}</h4>
      <ol className="stage-panel__list stage-panel__hands" aria-label={t('hands.handsTitle', { n: stage.hands.length })}>
        {stage.hands.length === 0 ? <li className="muted">{t('hands.handsEmpty')}</li> : null}
        {stage.hands.map((h, i) => (
          <li key={h.userId} className="stage-panel__row" data-testid="hand-row" data-user={h.userId}>
            <span className="stage-panel__rank" aria-hidden="true">
              {i + 1}
            </span>
            <span className="stage-panel__name">{shownName(h.name, t)}</span>
            <span className="stage-panel__wait" data-testid="hand-wait">
              {t('hands.waiting', { time: clockOf(now - h.raisedAt) })}
            </span>
            <span className="stage-panel__actions">
              <button type="button" className="btn btn--small btn--primary" disabled={disabled} onClick={() => onBringUp(h.userId)}>
                {t('hands.bringUp')}
              </button>
              <button type="button" className="btn btn--small btn--ghost" disabled={disabled} onClick={() => onLowerHand(h.userId)}>
                {t('hands.dismiss')}
              </button>
            </span>
          </li>
        ))}
      </ol>
      <label className="stage-panel__carousel">
        <span>{t('hands.carousel')}</span>
        <select
          value={CAROUSEL_CHOICES.includes(stage.carousel.seconds as (typeof CAROUSEL_CHOICES)[number]) ? stage.carousel.seconds : 0}
          disabled={disabled}
          onChange={(e) => onCarousel(Number(e.target.value))}
          data-testid="stage-carousel"
        >
          {CAROUSEL_CHOICES.map((s) => (
            <option key={s} value={s}>
              {s === 0 ? t('hands.carouselOff') : t('hands.carouselEvery', { n: s })}
            </option>
          ))}
        </select>
        {stage.carousel.seconds > 0 ? (
          <span className="muted">{t('hands.carouselNext', { n: Math.max(0, Math.ceil((stage.carousel.nextAt - now) / 1000)) })}</span>
        ) : null}
      </label>
    </section>
  );
}
