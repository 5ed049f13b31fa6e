import { useEffect, useRef, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { BellRing, Check, ListChecks, Pause, Play, RotateCcw, Shuffle, Timer, Trophy, Vote, X, type LucideIcon } from 'lucide-react';
import type { Member, Role } from '#core/contracts/room-events.ts';
import { Dialog } from '#app/components/Dialog.tsx';
import { shownName } from '#app/lib/display-name.ts';
import { toast } from '#app/lib/toast.ts';
import { Bars } from './Bars.tsx';
import { formatTimer, quizLeftMs, timerShownMs } from './clock.ts';
import { beep } from './sound.ts';
import { choiceValid, isRight, pollAnswersValid, quizLetters, sameChoice, toggleChoice, togglePollAnswer } from './sheet.ts';
import { accuracyPercent, choiceText, percentText, pollBars, quizBars, sortedAnswers } from './tally.ts';
import { pollTallyOf, tallyOf, type QuizLetter, type ToolsActions, type ToolsStore, type ToolsView } from './tools-store.ts';
import type { PollState, QuizState, TimerState } from './types.ts';
import { useServerNow, useToolsView } from './useClassTools.ts';
import './tools.css';

/** Who looks at a tool: the teacher acts, a student answers, an observer (and the recorder) only sees. */
export type ToolsSeat = 'teacher' | 'student' | 'observer';

export function seatOf(role: Role): ToolsSeat {
  if (role === 'creator') return 'teacher';
  if (role === 'observer' || role === 'recorder') return 'observer';
  return 'student';
}

interface CardProps {
  view: ToolsView;
  actions: ToolsActions;
  seat: ToolsSeat;
  myId: string;
  students: Member[];
  disabled: boolean;
}

function Card({
  icon: Icon,
  title,
  status,
  testId,
  children,
  actions,
  data,
}: {
  icon: LucideIcon;
  title: string;
  status?: ReactNode;
  testId: string;
  children: ReactNode;
  actions?: ReactNode;
  data?: Record<string, string | number>;
}) {
  const extra = Object.fromEntries(Object.entries(data ?? {}).map(([k, v]) => [`data-${k}`, String(v)]));
  return (
    <section className="tool-card" aria-label={title} data-testid={testId} {...extra}>
      <header className="tool-card__head">
        <Icon size={18} aria-hidden="true" />
        <h3 className="tool-card__title">{title}</h3>
        {status}
      </header>
      <div className="tool-card__body">{children}</div>
      {actions ? <div className="tool-card__actions">{actions}</div> : null}
    </section>
  );
}

function Status({ text, tone = 'plain' }: { text: string; tone?: 'plain' | 'live' | 'done' }) {
  return <span className={`tool-status tool-status--${tone}`}>{text}</span>;
}

/** The countdown or stopwatch, from the server's time; a short sound when a countdown reaches zero. */
function TimerCard({ timer, view, actions, seat, disabled }: CardProps & { timer: TimerState }) {
  const { t } = useTranslation();
  const serverNow = useServerNow(view.offset, timer.running, 100);
  const shown = timerShownMs(timer, serverNow);
  const done = timer.kind === 'countdown' && timer.durationMs > 0 && shown === 0;
  const last = useRef<number | null>(null);
  useEffect(() => {
    const before = last.current;
    last.current = shown;
    // Only a zero reached while watching sounds (a reload after it does not).
    if (timer.kind === 'countdown' && before !== null && before > 0 && shown === 0 && seat !== 'observer') beep();
  }, [shown, timer.kind, seat]);
  const title = t(timer.kind === 'countdown' ? 'tools.timerCard.countdown' : 'tools.timerCard.stopwatch');
  const state = done ? 'done' : timer.running ? 'running' : 'paused';
  return (
    <Card
      icon={Timer}
      title={title}
      testId="timer-card"
      data={{ state, kind: timer.kind, 'shown-ms': Math.round(shown) }}
      status={
        done ? (
          <Status text={t('tools.timerCard.done')} tone="done" />
        ) : !timer.running && timer.elapsedMs > 0 ? (
          <Status text={t('tools.timerCard.paused')} />
        ) : null
      }
      actions={
        seat === 'teacher' ? (
          <>
            {timer.running && !done ? (
              <button
                type="button"
                className="btn btn--small btn--secondary"
                disabled={disabled}
                onClick={() => void actions.timerPause()}
                data-testid="timer-pause"
              >
                <Pause size={16} aria-hidden="true" />
                {t('tools.timerCard.pause')}
              </button>
            ) : (
              <button
                type="button"
                className="btn btn--small btn--primary"
                disabled={disabled || done}
                onClick={() => void actions.timerStart()}
                data-testid="timer-start"
              >
                <Play size={16} aria-hidden="true" />
                {t('tools.timerCard.start')}
              </button>
            )}
            <button
              type="button"
              className="btn btn--small btn--ghost"
              disabled={disabled}
              onClick={() => void actions.timerReset()}
              data-testid="timer-reset"
            >
              <RotateCcw size={16} aria-hidden="true" />
              {t('tools.timerCard.reset')}
            </button>
            <CloseButton
              label={t('tools.timerCard.clear')}
              disabled={disabled}
              onClick={() => void actions.timerClear()}
              testId="timer-clear"
            />
          </>
        ) : null
      }
    >
      <time className={`timer-digits${done ? ' timer-digits--done' : ''}`} data-testid="timer-digits" aria-live="off">
        {formatTimer(shown, timer.kind)}
      </time>
      {done ? (
        <p className="visually-hidden" role="status">
          {t('tools.timerCard.done')}
        </p>
      ) : null}
    </Card>
  );
}

function CloseButton({ label, onClick, disabled, testId }: { label: string; onClick: () => void; disabled?: boolean; testId: string }) {
  return (
    <button
      type="button"
      className="btn btn--small btn--ghost tool-card__close"
      aria-label={label}
      title={label}
      disabled={disabled}
      onClick={onClick}
      data-testid={testId}
    >
      <X size={16} aria-hidden="true" />
      <span className="tool-card__close-text">{label}</span>
    </button>
  );
}

/** The answer sheet: the teacher's live tally and controls, the student's sheet, everyone's published result. */
function QuizCard({ quiz, view, actions, seat, students, disabled }: CardProps & { quiz: QuizState }) {
  const { t } = useTranslation();
  const limited = quiz.endsAt > 0 && quiz.status === 'open';
  const serverNow = useServerNow(view.offset, limited, 250);
  const left = limited ? quizLeftMs(quiz.endsAt, serverNow) : null;
  const timeUp = left === 0;
  const tally = tallyOf(view);
  const [details, setDetails] = useState(false);
  const letters = quizLetters(quiz.options);
  const statusText = t(`tools.quizCard.${quiz.status}`);
  const answered = tally?.answered ?? quiz.answered;
  const correct = quiz.result?.correct ?? (seat === 'teacher' && tally?.id === quiz.id ? tally.correct : []);
  const result = quiz.result;

  let body: ReactNode;
  let buttons: ReactNode = null;
  if (seat === 'student' && !result) {
    body = <StudentSheet quiz={quiz} mine={view.mine.quiz} actions={actions} timeUp={timeUp} disabled={disabled} />;
  } else {
    const counts = result?.tally ?? (seat === 'teacher' ? tally?.tally : undefined);
    const bars = counts ? quizBars(counts, result?.answered ?? answered, correct) : null;
    body = (
      <>
        <p className="tool-line" data-testid="quiz-answered" data-n={answered}>
          {seat === 'teacher' && !result
            ? t('tools.quizCard.answeredOf', { n: answered, of: students.length })
            : t('tools.quizCard.answered', { n: result?.answered ?? answered })}
        </p>
        {bars ? <Bars bars={bars} label={t('tools.quizCard.title')} testId="quiz-bars" /> : null}
        {result ? (
          <p className="tool-line tool-line--strong" data-testid="quiz-accuracy">
            {t('tools.quizCard.correct', { letters: choiceText(result.correct) })} ·{' '}
            {t('tools.quizCard.accuracy', { p: percentText(result.right, result.answered) })} ·{' '}
            {t('tools.quizCard.rightOf', { right: result.right, of: result.answered })}
          </p>
        ) : seat === 'teacher' && tally ? (
          <p className="tool-line tool-line--strong" data-testid="quiz-accuracy">
            {t('tools.quizCard.accuracy', { p: `${String(accuracyPercent(tally.accuracy))}%` })}
          </p>
        ) : null}
        {seat === 'student' && result ? <OwnResult quiz={quiz} mine={view.mine.quiz} /> : null}
      </>
    );
    if (seat === 'teacher') {
      buttons = (
        <>
          {quiz.status === 'open' ? (
            <button
              type="button"
              className="btn btn--small btn--primary"
              disabled={disabled}
              onClick={() => void actions.quizCollect()}
              data-testid="quiz-collect"
            >
              {t('tools.quizCard.collect')}
            </button>
          ) : null}
          {quiz.status === 'collected' ? (
            <button
              type="button"
              className="btn btn--small btn--primary"
              disabled={disabled}
              onClick={() => void actions.quizPublish()}
              data-testid="quiz-publish"
            >
              {t('tools.quizCard.publish')}
            </button>
          ) : null}
          {quiz.status === 'published' && (result?.right ?? 0) > 0 ? (
            <button
              type="button"
              className="btn btn--small btn--secondary"
              disabled={disabled}
              onClick={() => void actions.reward({ quizRight: quiz.id })}
              data-testid="quiz-reward-right"
            >
              <Trophy size={16} aria-hidden="true" />
              {t('tools.quizCard.rewardRight')}
            </button>
          ) : null}
          <button type="button" className="btn btn--small btn--ghost" onClick={() => setDetails(true)} data-testid="quiz-details">
            {t('tools.quizCard.details')}
          </button>
          <CloseButton label={t('tools.quizCard.close')} disabled={disabled} onClick={() => void actions.quizClose()} testId="quiz-close" />
        </>
      );
    }
  }
  return (
    <Card
      icon={ListChecks}
      title={t('tools.quizCard.title')}
      testId="quiz-card"
      data={{ status: quiz.status, id: quiz.id, options: letters.length }}
      status={
        <>
          <Status text={statusText} tone={quiz.status === 'open' ? 'live' : 'plain'} />
          {left !== null ? (
            <span className={`tool-status${timeUp ? ' tool-status--done' : ''}`} data-testid="quiz-left">
              {timeUp ? t('tools.quizCard.timeUp') : t('tools.quizCard.left', { time: formatTimer(left, 'countdown') })}
            </span>
          ) : null}
        </>
      }
      actions={buttons}
    >
      {body}
      {details && seat === 'teacher' ? (
        <AnswersDialog quiz={quiz} view={view} students={students} onClose={() => setDetails(false)} />
      ) : null}
    </Card>
  );
}

/** A student's sheet: the letters (one, or several then submit); changeable until the teacher collects or time is up. */
function StudentSheet({
  quiz,
  mine,
  actions,
  timeUp,
  disabled,
}: {
  quiz: QuizState;
  mine: QuizLetter[] | null;
  actions: ToolsActions;
  timeUp: boolean;
  disabled: boolean;
}) {
  const { t } = useTranslation();
  const [choice, setChoice] = useState<QuizLetter[]>(mine ?? []);
  const [busy, setBusy] = useState(false);
  // A new quiz, or the answer the server holds (a reconnect): start from it.
  const [seen, setSeen] = useState({ id: quiz.id, mine });
  if (seen.id !== quiz.id || !sameChoice(seen.mine, mine)) {
    setSeen({ id: quiz.id, mine });
    setChoice(mine ?? []);
  }
  const open = quiz.status === 'open' && !timeUp;
  const changed = !sameChoice(choice, mine);
  const submit = async () => {
    if (!choiceValid(choice, quiz.options, quiz.multiple)) return;
    setBusy(true);
    await actions.quizAnswer(choice);
    setBusy(false);
  };
  return (
    <div className="sheet" data-testid="quiz-sheet" data-mine={mine ? mine.join('') : ''}>
      {open ? <p className="tool-line">{t(quiz.multiple ? 'tools.quizCard.pickMultiple' : 'tools.quizCard.pickHint')}</p> : null}
      <div className="letters letters--sheet" role="group" aria-label={t('tools.quizCard.title')}>
        {quizLetters(quiz.options).map((l) => (
          <button
            key={l}
            type="button"
            className="letter letter--big"
            aria-pressed={choice.includes(l)}
            aria-label={t('tools.quizCard.optionLabel', { letter: l })}
            disabled={!open || disabled}
            data-testid={`sheet-${l}`}
            onClick={() => setChoice((c) => toggleChoice(c, l, quiz.multiple))}
          >
            {l}
          </button>
        ))}
      </div>
      {open ? (
        <button
          type="button"
          className="btn btn--primary btn--block"
          disabled={busy || disabled || !changed || !choiceValid(choice, quiz.options, quiz.multiple)}
          onClick={() => void submit()}
          data-testid="sheet-submit"
        >
          <Check size={18} aria-hidden="true" />
          {mine ? t('tools.quizCard.change') : t('tools.quizCard.submit')}
        </button>
      ) : null}
      <p className="tool-line" role="status" data-testid="sheet-state">
        {mine ? t('tools.quizCard.submitted', { letters: choiceText(mine) }) : null}
        {mine && open ? ` · ${t('tools.quizCard.changeUntil')}` : null}
        {!open ? ` ${t('tools.quizCard.waitPublish')}` : null}
      </p>
    </div>
  );
}

/** Published: the student's own answer, and whether it was right when the teacher chose to show it. */
function OwnResult({ quiz, mine }: { quiz: QuizState; mine: QuizLetter[] | null }) {
  const { t } = useTranslation();
  if (!mine) return <p className="tool-line muted">{t('tools.quizCard.noAnswer')}</p>;
  const right = quiz.result ? isRight(mine, quiz.result.correct) : false;
  return (
    <p className="tool-line" data-testid="quiz-own" data-right={quiz.showOwn ? String(right) : ''}>
      {t('tools.quizCard.yours', { letters: choiceText(mine) })}
      {quiz.showOwn ? (
        <span className={`own-mark own-mark--${right ? 'right' : 'wrong'}`}>
          {t(right ? 'tools.quizCard.youRight' : 'tools.quizCard.youWrong')}
        </span>
      ) : null}
    </p>
  );
}

/** The teacher's table of each student's answer, wrong ones first, then those who have not answered. */
function AnswersDialog({ quiz, view, students, onClose }: { quiz: QuizState; view: ToolsView; students: Member[]; onClose: () => void }) {
  const { t } = useTranslation();
  const tally = tallyOf(view);
  const rows = sortedAnswers(tally?.answers ?? []);
  const answeredIds = new Set(rows.map((r) => r.userId));
  const missing = students.filter((s) => !answeredIds.has(s.userId));
  return (
    <Dialog title={t('tools.quizCard.detailsTitle')} onClose={onClose} className="tool-dialog" testId="quiz-answers">
      {rows.length === 0 && missing.length === 0 ? <p className="muted">{t('tools.quizCard.nobody')}</p> : null}
      <table className="answers">
        <thead>
          <tr>
            <th scope="col">{t('tools.quizCard.student')}</th>
            <th scope="col">{t('tools.quizCard.answer')}</th>
            <th scope="col">{t('tools.quizCard.result')}</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.userId} data-testid="answer-row" data-user={r.userId} data-right={String(r.right)}>
              <td>{shownName(r.name, t)}</td>
              <td>{choiceText(r.choice)}</td>
              <td className={r.right ? 'answers__right' : 'answers__wrong'}>
                {t(r.right ? 'tools.quizCard.right' : 'tools.quizCard.wrong')}
              </td>
            </tr>
          ))}
          {missing.map((m) => (
            <tr key={m.userId} data-testid="answer-row" data-user={m.userId} data-right="">
              <td>{shownName(m.name, t)}</td>
              <td>—</td>
              <td className="muted">{t('tools.quizCard.noAnswer')}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="muted tool-line">{quiz.status === 'open' ? t('tools.quizCard.changeUntil') : t(`tools.quizCard.${quiz.status}`)}</p>
    </Dialog>
  );
}

/** The poll: questions to vote on (students), voters and results (everyone once published). */
function PollCard({ poll, view, actions, seat, disabled }: CardProps & { poll: PollState }) {
  const { t } = useTranslation();
  const voted = view.mine.pollVoted || view.mine.poll !== null;
  const canVote = seat === 'student' && poll.status === 'open' && !voted;
  const result = poll.result;
  // The teacher's live counts until the results are published (then everyone's).
  const live = seat === 'teacher' ? pollTallyOf(view) : null;
  const counts = result?.counts ?? live?.counts ?? null;
  const voters = result ? poll.voters : (live?.voters ?? poll.voters);
  let body: ReactNode;
  if (canVote) body = <PollSheet poll={poll} actions={actions} disabled={disabled} />;
  else
    body = (
      <>
        {seat === 'student' && !result ? (
          <p className="tool-line" role="status" data-testid="poll-state">
            {voted ? t('tools.pollCard.votedWait') : t('tools.pollCard.closedWait')}
          </p>
        ) : null}
        {poll.questions.map((q, qi) => (
          <div key={qi} className="poll-result" data-testid="poll-result">
            <p className="tool-line tool-line--strong">{q.text}</p>
            {counts ? <Bars bars={pollBars(q.options, counts[qi], voters)} label={q.text} testId="poll-bars" /> : null}
          </div>
        ))}
      </>
    );
  return (
    <Card
      icon={Vote}
      title={t('tools.pollCard.title')}
      testId="poll-card"
      data={{ status: poll.status, id: poll.id, voters: poll.voters }}
      status={
        <>
          <Status text={t(`tools.pollCard.${poll.status}`)} tone={poll.status === 'open' ? 'live' : 'plain'} />
          <span className="tool-status">{t(poll.anonymous ? 'tools.pollCard.anonymous' : 'tools.pollCard.named')}</span>
        </>
      }
      actions={
        seat === 'teacher' ? (
          <>
            {poll.status === 'open' ? (
              <button
                type="button"
                className="btn btn--small btn--primary"
                disabled={disabled}
                onClick={() => void actions.pollClose()}
                data-testid="poll-close"
              >
                {t('tools.pollCard.close')}
              </button>
            ) : null}
            {poll.status === 'closed' ? (
              <button
                type="button"
                className="btn btn--small btn--primary"
                disabled={disabled}
                onClick={() => void actions.pollPublish()}
                data-testid="poll-publish"
              >
                {t('tools.pollCard.publish')}
              </button>
            ) : null}
            <CloseButton
              label={t('tools.pollCard.dismiss')}
              disabled={disabled}
              onClick={() => void actions.pollDismiss()}
              testId="poll-dismiss"
            />
          </>
        ) : null
      }
    >
      <p className="tool-line" data-testid="poll-voters" data-n={voters}>
        {t('tools.pollCard.voters', { n: voters })}
      </p>
      {body}
    </Card>
  );
}

function PollSheet({ poll, actions, disabled }: { poll: PollState; actions: ToolsActions; disabled: boolean }) {
  const { t } = useTranslation();
  const [answers, setAnswers] = useState<number[][]>(() => poll.questions.map(() => []));
  const [busy, setBusy] = useState(false);
  const [tried, setTried] = useState(false);
  const valid = pollAnswersValid(answers, poll.questions);
  const send = async () => {
    setTried(true);
    if (!valid) return;
    setBusy(true);
    await actions.pollVote(answers);
    setBusy(false);
  };
  return (
    <form
      className="poll-sheet"
      data-testid="poll-sheet"
      onSubmit={(e) => {
        e.preventDefault();
        void send();
      }}
    >
      {poll.questions.map((q, qi) => (
        <fieldset key={qi} className="poll-sheet__q">
          <legend className="tool-line--strong">{q.text}</legend>
          {q.options.map((o, oi) => (
            <label key={oi} className="check poll-sheet__option">
              <input
                type={q.multiple ? 'checkbox' : 'radio'}
                name={`poll-${poll.id}-${String(qi)}`}
                checked={answers[qi]?.includes(oi) ?? false}
                onChange={() => setAnswers((a) => togglePollAnswer(a, qi, oi, q.multiple))}
              />
              <span>{o}</span>
            </label>
          ))}
        </fieldset>
      ))}
      {tried && !valid ? (
        <p className="form-error" role="alert">
          {t('tools.pollCard.pickAll')}
        </p>
      ) : null}
      <button type="submit" className="btn btn--primary btn--block" disabled={busy || disabled} data-testid="poll-submit">
        {t('tools.pollCard.submit')}
      </button>
    </form>
  );
}

/** The buzzer: a big button for students while a round is open; the winner for everyone. */
function BuzzerCard({ view, actions, seat, myId, disabled }: CardProps) {
  const { t } = useTranslation();
  const buzzer = view.tools.buzzer!;
  const [pressedRound, setPressedRound] = useState(0);
  const won = buzzer.status === 'won' && buzzer.winner;
  const press = async () => {
    setPressedRound(buzzer.round);
    const ok = await actions.buzzerPress();
    if (!ok) setPressedRound(0);
  };
  return (
    <Card
      icon={BellRing}
      title={t('tools.buzzerCard.title')}
      testId="buzzer-card"
      data={{ status: buzzer.status, round: buzzer.round, winner: buzzer.winner?.userId ?? '' }}
      status={<Status text={t('tools.buzzerCard.round', { n: buzzer.round })} tone={buzzer.status === 'open' ? 'live' : 'plain'} />}
      actions={
        seat === 'teacher' ? (
          <>
            <button
              type="button"
              className="btn btn--small btn--primary"
              disabled={disabled}
              onClick={() => void actions.buzzerOpen()}
              data-testid="buzzer-again"
            >
              <RotateCcw size={16} aria-hidden="true" />
              {t('tools.buzzerCard.again')}
            </button>
            <CloseButton
              label={t('tools.buzzerCard.close')}
              disabled={disabled}
              onClick={() => void actions.buzzerClose()}
              testId="buzzer-close"
            />
          </>
        ) : null
      }
    >
      {won ? (
        <p
          className={`buzzer-winner${buzzer.winner!.userId === myId ? ' buzzer-winner--me' : ''}`}
          role="status"
          data-testid="buzzer-winner"
        >
          <Trophy size={20} aria-hidden="true" />
          {buzzer.winner!.userId === myId
            ? t('tools.buzzerCard.youWon')
            : t('tools.buzzerCard.winner', { name: shownName(buzzer.winner!.name, t) })}
        </p>
      ) : seat === 'student' ? (
        <button
          type="button"
          className="buzzer-button"
          disabled={disabled || pressedRound === buzzer.round}
          onClick={() => void press()}
          data-testid="buzzer-press"
        >
          <BellRing size={28} aria-hidden="true" />
          {pressedRound === buzzer.round ? t('tools.buzzerCard.pressed') : t('tools.buzzerCard.press')}
        </button>
      ) : (
        <p className="tool-line" role="status">
          {t('tools.buzzerCard.waiting')}
        </p>
      )}
    </Card>
  );
}

/** How long the random pick's names run before the one picked shows (ms). */
export const PICK_SPIN_MS = 1600;

/** The random pick: names running for a moment, then the one the server picked. A pick seen late shows at once. */
function PickCard({ view, actions, seat, myId, students, disabled, onHide }: CardProps & { onHide: () => void }) {
  const { t } = useTranslation();
  const pick = view.tools.pick!;
  // A pick older than the spin (a reload, a late join) shows at once; one that arrives while watching spins.
  const [spinning, setSpinning] = useState(() => Date.now() + view.offset - pick.at < PICK_SPIN_MS);
  const [spinName, setSpinName] = useState(pick.name);
  const [seenAt, setSeenAt] = useState(pick.at);
  if (seenAt !== pick.at) {
    setSeenAt(pick.at);
    setSpinning(true);
  }
  const names = students.map((s) => s.name);
  useEffect(() => {
    if (!spinning) return;
    const pool = names.length > 1 ? names : [pick.name, ...names];
    let i = 0;
    const timer = setInterval(() => {
      i += 1;
      setSpinName(pool[i % pool.length] ?? pick.name);
    }, 90);
    const stop = setTimeout(() => setSpinning(false), Math.max(300, PICK_SPIN_MS - (Date.now() + view.offset - pick.at)));
    return () => {
      clearInterval(timer);
      clearTimeout(stop);
    };
    // The names are read when the spin starts; a member joining mid-spin does not restart it.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [spinning, pick.at]);
  return (
    <Card
      icon={Shuffle}
      title={t('tools.pickCard.title')}
      testId="pick-card"
      data={{ state: spinning ? 'spinning' : 'picked', user: spinning ? '' : pick.userId }}
      actions={
        <>
          {seat === 'teacher' ? (
            <button
              type="button"
              className="btn btn--small btn--primary"
              disabled={disabled || spinning}
              onClick={() => void actions.pickRandom()}
              data-testid="pick-again"
            >
              <Shuffle size={16} aria-hidden="true" />
              {t('tools.pickCard.again')}
            </button>
          ) : null}
          <CloseButton label={t('tools.pickCard.close')} onClick={onHide} testId="pick-hide" />
        </>
      }
    >
      {spinning ? (
        <p className="pick-name pick-name--spin" aria-hidden="true" data-testid="pick-spin">
          {shownName(spinName, t)}
        </p>
      ) : (
        <p className={`pick-name${pick.userId === myId ? ' pick-name--me' : ''}`} role="status" data-testid="pick-result">
          {pick.userId === myId ? t('tools.pickCard.you') : t('tools.pickCard.picked', { name: shownName(pick.name, t) })}
        </p>
      )}
      {spinning ? (
        <p className="visually-hidden" role="status">
          {t('tools.pickCard.picking')}
        </p>
      ) : null}
    </Card>
  );
}

export interface ToolsDockProps {
  store: ToolsStore;
  role: Role;
  myId: string;
  members: Member[];
  disabled: boolean;
}

/**
 * The tools showing now, as cards in the page's flow (beside the class, never over the board or
 * the slide; ADR 114): in the side column at a computer, below the class on a phone. Nothing
 * shows when no tool runs.
 */
export function ToolsDock({ store, role, myId, members, disabled }: ToolsDockProps) {
  const { t } = useTranslation();
  const view = useToolsView(store);
  const seat = seatOf(role);
  const { tools } = view;
  const students = members.filter((m) => (m.role === 'member' || m.role === 'tourist') && m.online);
  const [hiddenPick, setHiddenPick] = useState(0);
  // A student hears when something new asks for them (on a phone the card is below the class).
  const seen = useRef<{ quiz: string; poll: string; round: number } | null>(null);
  useEffect(() => {
    const now = { quiz: tools.quiz?.id ?? '', poll: tools.poll?.id ?? '', round: tools.buzzer?.status === 'open' ? tools.buzzer.round : 0 };
    const before = seen.current;
    seen.current = now;
    if (!before || seat !== 'student') return;
    if (now.quiz && now.quiz !== before.quiz) toast.info(t('tools.started.quiz'));
    if (now.poll && now.poll !== before.poll) toast.info(t('tools.started.poll'));
    if (now.round && now.round !== before.round) toast.info(t('tools.started.buzzer'));
  }, [tools.quiz?.id, tools.poll?.id, tools.buzzer?.status, tools.buzzer?.round, seat, t]);

  const props: CardProps = { view, actions: store.actions, seat, myId, students, disabled };
  const cards = [
    tools.timer ? <TimerCard key="timer" {...props} timer={tools.timer} /> : null,
    tools.buzzer ? <BuzzerCard key="buzzer" {...props} /> : null,
    tools.pick && tools.pick.at !== hiddenPick ? (
      <PickCard key="pick" {...props} onHide={() => setHiddenPick(tools.pick?.at ?? 0)} />
    ) : null,
    tools.quiz ? <QuizCard key={`quiz-${tools.quiz.id}`} {...props} quiz={tools.quiz} /> : null,
    tools.poll ? <PollCard key={`poll-${tools.poll.id}`} {...props} poll={tools.poll} /> : null,
  ].filter(Boolean);
  if (cards.length === 0) return null;
  return (
    <div className="tools-dock" role="region" aria-label={t('tools.dock')} data-testid="tools-dock">
      {seat === 'observer' ? <p className="tools-dock__note muted">{t('tools.observerNote')}</p> : null}
      {cards}
    </div>
  );
}
