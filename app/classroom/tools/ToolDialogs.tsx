import { useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Plus, Trash2, Trophy } from 'lucide-react';
import type { Member } from '#core/contracts/room-events.ts';
import { Dialog } from '#app/components/Dialog.tsx';
import { shownName } from '#app/lib/display-name.ts';
import { durationFrom } from './clock.ts';
import {
  NEW_POLL,
  NEW_POLL_QUESTION,
  NEW_QUIZ,
  POLL_MAX_OPTIONS,
  POLL_MAX_QUESTIONS,
  POLL_OPTION_MAX,
  POLL_TEXT_MAX,
  pollStartOf,
  QUIZ_MAX_OPTIONS,
  QUIZ_MIN_OPTIONS,
  quizLetters,
  quizStartOf,
  toggleChoice,
  withMultiple,
  withOptions,
  type PollDraft,
  type PollProblem,
  type QuizDraft,
} from './sheet.ts';
import type { ToolsActions } from './tools-store.ts';
import type { QuizState } from './types.ts';

const OPTION_COUNTS = Array.from({ length: QUIZ_MAX_OPTIONS - QUIZ_MIN_OPTIONS + 1 }, (_, i) => i + QUIZ_MIN_OPTIONS);

/** A row of radio chips (one choice of a few). */
function Chips<V extends string | number>({
  legend,
  name,
  values,
  value,
  label,
  onChange,
  testId,
}: {
  legend: string;
  name: string;
  values: readonly V[];
  value: V;
  label: (v: V) => string;
  onChange: (v: V) => void;
  testId: string;
}) {
  return (
    <fieldset className="tool-form__set" data-testid={testId}>
      <legend>{legend}</legend>
      <div className="chips">
        {values.map((v) => (
          <label key={String(v)} className="chip">
            <input type="radio" name={name} checked={value === v} onChange={() => onChange(v)} />
            <span>{label(v)}</span>
          </label>
        ))}
      </div>
    </fieldset>
  );
}

/** The teacher's new answer sheet: options, single or multiple, the correct answer(s), a limit, show-own. */
export function QuizDialog({ onClose, actions }: { onClose: () => void; actions: ToolsActions }) {
  const { t } = useTranslation();
  const [draft, setDraft] = useState<QuizDraft>(NEW_QUIZ);
  const [problem, setProblem] = useState<'correct' | 'limit' | null>(null);
  const [busy, setBusy] = useState(false);
  const id = useId();
  const start = async () => {
    const made = quizStartOf(draft);
    if (!made.ok) {
      setProblem(made.problem);
      return;
    }
    setBusy(true);
    const ok = await actions.quizStart(made.payload);
    setBusy(false);
    if (ok) onClose();
  };
  return (
    <Dialog
      title={t('tools.quizNew.title')}
      onClose={onClose}
      className="tool-dialog"
      testId="quiz-dialog"
      actions={
        <>
          <button type="button" className="btn btn--ghost" onClick={onClose}>
            {t('common.cancel')}
          </button>
          <button type="button" className="btn btn--primary" disabled={busy} onClick={() => void start()} data-testid="quiz-start">
            {t('tools.quizNew.start')}
          </button>
        </>
      }
    >
      <div className="tool-form">
        <Chips
          legend={t('tools.quizNew.options')}
          name={`${id}-options`}
          values={OPTION_COUNTS}
          value={draft.options}
          label={(n) => String(n)}
          onChange={(n) => setDraft((d) => withOptions(d, n))}
          testId="quiz-options"
        />
        <Chips
          legend={t('tools.quizNew.type')}
          name={`${id}-type`}
          values={['single', 'multiple'] as const}
          value={draft.multiple ? 'multiple' : 'single'}
          label={(v) => t(`tools.quizNew.${v}`)}
          onChange={(v) => setDraft((d) => withMultiple(d, v === 'multiple'))}
          testId="quiz-type"
        />
        <fieldset className="tool-form__set">
          <legend>{t('tools.quizNew.correct')}</legend>
          <p className="muted tool-form__hint">{t('tools.quizNew.correctHint')}</p>
          <div className="letters" data-testid="quiz-correct">
            {quizLetters(draft.options).map((l) => (
              <button
                key={l}
                type="button"
                className="letter"
                aria-pressed={draft.correct.includes(l)}
                aria-label={t('tools.quizCard.optionLabel', { letter: l })}
                onClick={() => {
                  setProblem(null);
                  setDraft((d) => ({ ...d, correct: toggleChoice(d.correct, l, d.multiple) }));
                }}
              >
                {l}
              </button>
            ))}
          </div>
        </fieldset>
        <div className="field">
          <label htmlFor={`${id}-limit`}>{t('tools.quizNew.limit')}</label>
          <input
            id={`${id}-limit`}
            inputMode="numeric"
            value={draft.limitSeconds}
            placeholder="0"
            aria-invalid={problem === 'limit'}
            data-testid="quiz-limit"
            onChange={(e) => {
              setProblem(null);
              setDraft((d) => ({ ...d, limitSeconds: e.target.value }));
            }}
          />
        </div>
        <label className="check">
          <input type="checkbox" checked={draft.showOwn} onChange={(e) => setDraft((d) => ({ ...d, showOwn: e.target.checked }))} />
          <span>{t('tools.quizNew.showOwn')}</span>
        </label>
        {problem ? (
          <p className="form-error" role="alert" data-testid="quiz-problem">
            {t(problem === 'limit' ? 'tools.quizNew.badLimit' : 'tools.quizNew.needCorrect')}
          </p>
        ) : null}
      </div>
    </Dialog>
  );
}

function pollProblemKey(p: PollProblem) {
  if (p.what === 'questions') return 'tools.pollNew.badQuestions' as const;
  return p.what === 'text'
    ? ('tools.pollNew.badText' as const)
    : p.what === 'option'
      ? ('tools.pollNew.badOption' as const)
      : ('tools.pollNew.badOptions' as const);
}

/** The teacher's new poll: 1-5 questions of 2-8 options, single or multiple each, anonymous or named. */
export function PollDialog({ onClose, actions }: { onClose: () => void; actions: ToolsActions }) {
  const { t } = useTranslation();
  const [draft, setDraft] = useState<PollDraft>(NEW_POLL);
  const [problem, setProblem] = useState<PollProblem | null>(null);
  const [busy, setBusy] = useState(false);
  const id = useId();
  const edit = (qi: number, change: (q: PollDraft['questions'][number]) => PollDraft['questions'][number]) => {
    setProblem(null);
    setDraft((d) => ({ ...d, questions: d.questions.map((q, i) => (i === qi ? change(q) : q)) }));
  };
  const start = async () => {
    const made = pollStartOf(draft);
    if (!made.ok) {
      setProblem(made.problem);
      return;
    }
    setBusy(true);
    const ok = await actions.pollStart(made.payload);
    setBusy(false);
    if (ok) onClose();
  };
  return (
    <Dialog
      title={t('tools.pollNew.title')}
      onClose={onClose}
      className="tool-dialog"
      testId="poll-dialog"
      actions={
        <>
          <button type="button" className="btn btn--ghost" onClick={onClose}>
            {t('common.cancel')}
          </button>
          <button type="button" className="btn btn--primary" disabled={busy} onClick={() => void start()} data-testid="poll-start">
            {t('tools.pollNew.start')}
          </button>
        </>
      }
    >
      <div className="tool-form">
        <Chips
          legend={t('tools.pollCard.title')}
          name={`${id}-anon`}
          values={['anonymous', 'named'] as const}
          value={draft.anonymous ? 'anonymous' : 'named'}
          label={(v) => t(`tools.pollNew.${v}`)}
          onChange={(v) => setDraft((d) => ({ ...d, anonymous: v === 'anonymous' }))}
          testId="poll-anonymous"
        />
        {draft.questions.map((q, qi) => (
          <fieldset key={qi} className="tool-form__set poll-q" data-testid="poll-question">
            <legend>{t('tools.pollNew.question', { n: qi + 1 })}</legend>
            <input
              aria-label={`${t('tools.pollNew.question', { n: qi + 1 })}: ${t('tools.pollNew.questionText')}`}
              placeholder={t('tools.pollNew.questionText')}
              value={q.text}
              maxLength={POLL_TEXT_MAX}
              aria-invalid={problem?.question === qi && problem.what === 'text'}
              data-testid="poll-text"
              onChange={(e) => edit(qi, (x) => ({ ...x, text: e.target.value }))}
            />
            {q.options.map((o, oi) => (
              <div key={oi} className="poll-q__option">
                <input
                  aria-label={`${t('tools.pollNew.question', { n: qi + 1 })}: ${t('tools.pollNew.option', { n: oi + 1 })}`}
                  placeholder={t('tools.pollNew.option', { n: oi + 1 })}
                  value={o}
                  maxLength={POLL_OPTION_MAX}
                  data-testid="poll-option"
                  onChange={(e) => edit(qi, (x) => ({ ...x, options: x.options.map((v, i) => (i === oi ? e.target.value : v)) }))}
                />
                {q.options.length > 2 ? (
                  <button
                    type="button"
                    className="icon-btn"
                    aria-label={t('tools.pollNew.removeOption', { n: oi + 1 })}
                    title={t('tools.pollNew.removeOption', { n: oi + 1 })}
                    onClick={() => edit(qi, (x) => ({ ...x, options: x.options.filter((_, i) => i !== oi) }))}
                  >
                    <Trash2 size={16} aria-hidden="true" />
                  </button>
                ) : null}
              </div>
            ))}
            <div className="poll-q__row">
              {q.options.length < POLL_MAX_OPTIONS ? (
                <button
                  type="button"
                  className="btn btn--small btn--ghost"
                  data-testid="poll-add-option"
                  onClick={() => edit(qi, (x) => ({ ...x, options: [...x.options, ''] }))}
                >
                  <Plus size={16} aria-hidden="true" />
                  {t('tools.pollNew.addOption')}
                </button>
              ) : null}
              <label className="check">
                <input type="checkbox" checked={q.multiple} onChange={(e) => edit(qi, (x) => ({ ...x, multiple: e.target.checked }))} />
                <span>{t('tools.pollNew.multiple')}</span>
              </label>
              {draft.questions.length > 1 ? (
                <button
                  type="button"
                  className="btn btn--small btn--ghost"
                  onClick={() => setDraft((d) => ({ ...d, questions: d.questions.filter((_, i) => i !== qi) }))}
                >
                  <Trash2 size={16} aria-hidden="true" />
                  {t('tools.pollNew.removeQuestion', { n: qi + 1 })}
                </button>
              ) : null}
            </div>
          </fieldset>
        ))}
        {draft.questions.length < POLL_MAX_QUESTIONS ? (
          <button
            type="button"
            className="btn btn--secondary"
            data-testid="poll-add-question"
            onClick={() => setDraft((d) => ({ ...d, questions: [...d.questions, NEW_POLL_QUESTION] }))}
          >
            <Plus size={16} aria-hidden="true" />
            {t('tools.pollNew.addQuestion')}
          </button>
        ) : null}
        {problem ? (
          <p className="form-error" role="alert" data-testid="poll-problem">
            {t(pollProblemKey(problem), { n: problem.question + 1 })}
          </p>
        ) : null}
      </div>
    </Dialog>
  );
}

/** The teacher's timer: a countdown of minutes and seconds, or a stopwatch. */
export function TimerDialog({ onClose, actions }: { onClose: () => void; actions: ToolsActions }) {
  const { t } = useTranslation();
  const [kind, setKind] = useState<'countdown' | 'stopwatch'>('countdown');
  const [minutes, setMinutes] = useState('5');
  const [seconds, setSeconds] = useState('0');
  const [bad, setBad] = useState(false);
  const [busy, setBusy] = useState(false);
  const id = useId();
  const set = async () => {
    const ms = kind === 'countdown' ? durationFrom(minutes, seconds) : 0;
    if (ms === null) {
      setBad(true);
      return;
    }
    setBusy(true);
    const ok = await actions.timerSet(kind, ms);
    setBusy(false);
    if (ok) onClose();
  };
  return (
    <Dialog
      title={t('tools.timerNew.title')}
      onClose={onClose}
      className="tool-dialog"
      testId="timer-dialog"
      actions={
        <>
          <button type="button" className="btn btn--ghost" onClick={onClose}>
            {t('common.cancel')}
          </button>
          <button type="button" className="btn btn--primary" disabled={busy} onClick={() => void set()} data-testid="timer-set">
            {t('tools.timerNew.set')}
          </button>
        </>
      }
    >
      <div className="tool-form">
        <Chips
          legend={t('tools.timerNew.title')}
          name={`${id}-kind`}
          values={['countdown', 'stopwatch'] as const}
          value={kind}
          label={(v) => t(`tools.timerNew.${v}`)}
          onChange={setKind}
          testId="timer-kind"
        />
        {kind === 'countdown' ? (
          <div className="timer-length">
            <label className="timer-length__part">
              <input
                inputMode="numeric"
                value={minutes}
                aria-invalid={bad}
                data-testid="timer-minutes"
                onChange={(e) => {
                  setBad(false);
                  setMinutes(e.target.value);
                }}
              />
              <span>{t('tools.timerNew.minutes')}</span>
            </label>
            <label className="timer-length__part">
              <input
                inputMode="numeric"
                value={seconds}
                aria-invalid={bad}
                data-testid="timer-seconds"
                onChange={(e) => {
                  setBad(false);
                  setSeconds(e.target.value);
                }}
              />
              <span>{t('tools.timerNew.seconds')}</span>
            </label>
          </div>
        ) : null}
        {bad ? (
          <p className="form-error" role="alert">
            {t('tools.timerNew.badLength')}
          </p>
        ) : null}
      </div>
    </Dialog>
  );
}

/** Trophies to one student, to several, or to everyone right in the last published answer sheet. */
export function RewardDialog({
  onClose,
  actions,
  members,
  rewards,
  quiz,
  preselect,
}: {
  onClose: () => void;
  actions: ToolsActions;
  members: Member[];
  rewards: Record<string, number>;
  quiz: QuizState | null;
  preselect?: string;
}) {
  const { t } = useTranslation();
  const students = members.filter((m) => m.role === 'member' || m.role === 'tourist');
  const [chosen, setChosen] = useState<string[]>(preselect ? [preselect] : []);
  const [busy, setBusy] = useState(false);
  const give = async (to: { userIds: string[] } | { quizRight: string }) => {
    setBusy(true);
    const ok = await actions.reward(to);
    setBusy(false);
    if (ok) onClose();
  };
  const published = quiz?.status === 'published' ? quiz : null;
  return (
    <Dialog
      title={t('tools.rewardDialog.title')}
      onClose={onClose}
      className="tool-dialog"
      testId="reward-dialog"
      actions={
        <>
          <button type="button" className="btn btn--ghost" onClick={onClose}>
            {t('common.cancel')}
          </button>
          <button
            type="button"
            className="btn btn--primary"
            disabled={busy || chosen.length === 0}
            data-testid="reward-give"
            onClick={() => void give({ userIds: chosen })}
          >
            <Trophy size={18} aria-hidden="true" />
            {t('tools.rewardDialog.give', { n: chosen.length })}
          </button>
        </>
      }
    >
      <div className="tool-form">
        {students.length === 0 ? (
          <p className="muted">{t('tools.rewardDialog.none')}</p>
        ) : (
          <fieldset className="tool-form__set">
            <legend>{t('tools.rewardDialog.pick')}</legend>
            <label className="check reward-all">
              <input
                type="checkbox"
                checked={chosen.length === students.length}
                onChange={(e) => setChosen(e.target.checked ? students.map((s) => s.userId) : [])}
              />
              <span>{t('tools.rewardDialog.all')}</span>
            </label>
            <ul className="reward-list">
              {students.map((s) => (
                <li key={s.userId}>
                  <label className="check" data-testid="reward-student" data-user={s.userId}>
                    <input
                      type="checkbox"
                      checked={chosen.includes(s.userId)}
                      onChange={(e) => setChosen((c) => (e.target.checked ? [...c, s.userId] : c.filter((x) => x !== s.userId)))}
                    />
                    <span className="reward-list__name">{shownName(s.name, t)}</span>
                    <span className="trophy-count" aria-label={t('tools.trophies', { n: rewards[s.userId] ?? 0 })}>
                      <Trophy size={14} aria-hidden="true" />
                      {rewards[s.userId] ?? 0}
                    </span>
                  </label>
                </li>
              ))}
            </ul>
          </fieldset>
        )}
        {published ? (
          <button
            type="button"
            className="btn btn--secondary"
            disabled={busy}
            data-testid="reward-quiz-right"
            onClick={() => void give({ quizRight: published.id })}
          >
            <Trophy size={18} aria-hidden="true" />
            {t('tools.rewardDialog.quizRight')}
          </button>
        ) : (
          <p className="muted tool-form__hint">{t('tools.rewardDialog.noQuiz')}</p>
        )}
      </div>
    </Dialog>
  );
}
