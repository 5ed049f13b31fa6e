/**
 * The teacher's split dialog (issue 31, ADR 118): how many groups, how to split (at random,
 * evenly, students choose, by hand), a time limit, whether students may choose, where late
 * arrivals go, what the group boards start from, and for a split by hand the columns of names:
 * dragged between columns with the mouse, or moved with the keyboard (← → or a digit on a
 * focused name), with a name and a leader per group. The server deals and checks everything.
 */
import { useId, useMemo, useState, type DragEvent, type KeyboardEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { GROUP_NAME_MAX_CHARS, GROUPS_MAX, GROUPS_MAX_MINUTES, GROUPS_MIN, type GroupsStart } from '#core/contracts/groups.ts';
import { Dialog } from '#app/components/Dialog.tsx';
import { shownName } from '#app/lib/display-name.ts';
import { deal, fitColumns, keyMove, moveName, shuffled, type Columns } from './groups-pure.ts';
import '../tools/tools.css';
import './groups.css';

type Method = GroupsStart['method'];
const METHODS: Method[] = ['random', 'even', 'choose', 'manual'];

export interface GroupsDialogProps {
  /** The students online now, in the members list's order. */
  students: Array<{ userId: string; name: string }>;
  /** The room shows a document page (the boards may start from it). */
  slideShown: boolean;
  onStart: (p: GroupsStart) => Promise<boolean>;
  onClose: () => void;
}

export function GroupsDialog({ students, slideShown, onStart, onClose }: GroupsDialogProps) {
  const { t } = useTranslation();
  const id = useId();
  const ids = useMemo(() => students.map((s) => s.userId), [students]);
  const nameOf = useMemo(() => new Map(students.map((s) => [s.userId, shownName(s.name, t)])), [students, t]);
  const [count, setCount] = useState(() => Math.max(GROUPS_MIN, Math.min(GROUPS_MAX, Math.ceil(students.length / 4) || GROUPS_MIN)));
  const [method, setMethod] = useState<Method>('random');
  const [minutes, setMinutes] = useState('10');
  const [allowChoose, setAllowChoose] = useState(false);
  const [lateJoiners, setLate] = useState<GroupsStart['lateJoiners']>('auto');
  const [board, setBoard] = useState<GroupsStart['board']>('blank');
  const [columns, setColumns] = useState<Columns>(() => deal(ids, count));
  const [names, setNames] = useState<string[]>([]);
  const [leaders, setLeaders] = useState<Array<string | null>>([]);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState(false);
  const [dragged, setDragged] = useState<string | null>(null);

  // The columns follow the count and the students present (an arrival lands unplaced).
  const shown = fitColumns(columns, count, ids);
  const minutesValue = Number(minutes);
  const minutesOk = /^\d{1,3}$/.test(minutes.trim()) && minutesValue >= 0 && minutesValue <= GROUPS_MAX_MINUTES;

  const groupWord = (g: number) => (g === 0 ? t('groups.dialog.unplaced') : t('groups.groupN', { n: g }));

  const start = async () => {
    if (!minutesOk) {
      setProblem(true);
      return;
    }
    const p: GroupsStart = {
      count,
      method,
      minutes: minutesValue,
      allowChoose: method === 'choose' ? true : allowChoose,
      lateJoiners,
      board,
    };
    if (method === 'manual') {
      p.groups = shown.slice(1).map((userIds, i) => {
        const name = (names[i] ?? '').trim();
        const leader = leaders[i] ?? null;
        return {
          userIds,
          ...(name ? { name } : {}),
          ...(leader && userIds.includes(leader) ? { leader } : {}),
        };
      });
    }
    setBusy(true);
    const ok = await onStart(p);
    setBusy(false);
    if (ok) onClose();
  };

  const move = (userId: string, to: number) => setColumns(moveName(shown, userId, to));
  const onNameKey = (event: KeyboardEvent<HTMLButtonElement>, userId: string) => {
    const to = keyMove(shown, userId, event.key);
    if (to === null) return;
    event.preventDefault();
    move(userId, to);
    // The focus follows the name to its new column.
    requestAnimationFrame(() => document.querySelector<HTMLElement>(`[data-split-name="${userId}"]`)?.focus());
  };
  const onDrop = (event: DragEvent<HTMLElement>, to: number) => {
    event.preventDefault();
    const userId = event.dataTransfer.getData('text/plain') || dragged;
    if (userId) move(userId, to);
    setDragged(null);
  };

  return (
    <Dialog
      title={t('groups.dialog.title')}
      onClose={onClose}
      className="tool-dialog groups-dialog"
      testId="groups-dialog"
      actions={
        <>
          <button type="button" className="btn btn--ghost" onClick={onClose}>
            {t('groups.dialog.cancel')}
          </button>
          <button type="button" className="btn btn--primary" disabled={busy} onClick={() => void start()} data-testid="groups-start">
            {t('groups.dialog.start')}
          </button>
        </>
      }
    >
      <div className="tool-form">
        <p className="muted tool-form__hint" data-testid="groups-online">
          {students.length > 0 ? t('groups.dialog.online', { n: students.length }) : t('groups.dialog.noStudents')}
        </p>
        <div className="groups-dialog__grid">
          <div className="groups-dialog__col">
            <label className="groups-dialog__row">
              <span>{t('groups.dialog.count')}</span>
              <select value={count} onChange={(e) => setCount(Number(e.target.value))} data-testid="groups-count">
                {Array.from({ length: GROUPS_MAX - GROUPS_MIN + 1 }, (_, i) => GROUPS_MIN + i).map((n) => (
                  <option key={n} value={n}>
                    {n}
                  </option>
                ))}
              </select>
            </label>
            <fieldset className="tool-form__set" data-testid="groups-method">
              <legend>{t('groups.dialog.method')}</legend>
              <div className="chips">
                {METHODS.map((m) => (
                  <label key={m} className="chip">
                    <input type="radio" name={`${id}-method`} checked={method === m} onChange={() => setMethod(m)} />
                    <span>{t(`groups.dialog.${m}`)}</span>
                  </label>
                ))}
              </div>
            </fieldset>
            <label className="groups-dialog__row">
              <span>{t('groups.dialog.minutes')}</span>
              <input
                type="number"
                inputMode="numeric"
                min={0}
                max={GROUPS_MAX_MINUTES}
                value={minutes}
                aria-invalid={problem && !minutesOk}
                onChange={(e) => {
                  setProblem(false);
                  setMinutes(e.target.value);
                }}
                data-testid="groups-minutes"
              />
            </label>
            {problem && !minutesOk ? (
              <p className="field__error" role="alert">
                {t('groups.dialog.badMinutes')}
              </p>
            ) : null}
            {method === 'choose' ? null : (
              <label className="groups-dialog__check">
                <input
                  type="checkbox"
                  checked={allowChoose}
                  onChange={(e) => setAllowChoose(e.target.checked)}
                  data-testid="groups-allow"
                />
                <span>{t('groups.dialog.allowChoose')}</span>
              </label>
            )}
          </div>
          <div className="groups-dialog__col">
            <fieldset className="tool-form__set">
              <legend>{t('groups.dialog.late')}</legend>
              <div className="chips">
                {(['auto', 'teacher'] as const).map((v) => (
                  <label key={v} className="chip">
                    <input type="radio" name={`${id}-late`} checked={lateJoiners === v} onChange={() => setLate(v)} />
                    <span>{t(v === 'auto' ? 'groups.dialog.lateAuto' : 'groups.dialog.lateTeacher')}</span>
                  </label>
                ))}
              </div>
            </fieldset>
            <fieldset className="tool-form__set">
              <legend>{t('groups.dialog.board')}</legend>
              <div className="chips">
                {(['blank', 'courseware'] as const).map((v) => (
                  <label key={v} className="chip">
                    <input
                      type="radio"
                      name={`${id}-board`}
                      checked={board === v}
                      disabled={v === 'courseware' && !slideShown}
                      onChange={() => setBoard(v)}
                    />
                    <span>{t(v === 'blank' ? 'groups.dialog.boardBlank' : 'groups.dialog.boardCourseware')}</span>
                  </label>
                ))}
              </div>
            </fieldset>
          </div>
        </div>
        {method === 'manual' ? (
          <div className="groups-split" data-testid="groups-split">
            <div className="groups-split__tools">
              <button type="button" className="btn btn--small btn--secondary" onClick={() => setColumns(deal(ids, count))}>
                {t('groups.dialog.deal')}
              </button>
              <button type="button" className="btn btn--small btn--secondary" onClick={() => setColumns(deal(shuffled(ids), count))}>
                {t('groups.dialog.shuffle')}
              </button>
              <span className="muted groups-split__hint" id={`${id}-hint`}>
                {t('groups.dialog.moveHint')}
              </span>
            </div>
            <div className="groups-split__columns">
              {shown.map((column, g) => (
                <section
                  key={g}
                  className={`groups-split__col${g === 0 ? ' groups-split__col--unplaced' : ''}`}
                  aria-label={groupWord(g)}
                  data-testid="split-column"
                  data-group={g}
                  onDragOver={(e) => e.preventDefault()}
                  onDrop={(e) => onDrop(e, g)}
                >
                  {g === 0 ? (
                    <h4 className="groups-split__title">{groupWord(0)}</h4>
                  ) : (
                    <input
                      className="groups-split__name"
                      aria-label={`${t('groups.dialog.groupName')} ${String(g)}`}
                      placeholder={groupWord(g)}
                      maxLength={GROUP_NAME_MAX_CHARS}
                      value={names[g - 1] ?? ''}
                      onChange={(e) => setNames((n) => Object.assign([...n], { [g - 1]: e.target.value }))}
                    />
                  )}
                  <ul className="groups-split__names">
                    {column.map((userId) => (
                      <li key={userId}>
                        <button
                          type="button"
                          className="groups-split__person"
                          draggable
                          data-split-name={userId}
                          aria-describedby={`${id}-hint`}
                          aria-label={t('groups.dialog.moveName', { name: nameOf.get(userId) ?? userId, where: groupWord(g) })}
                          onDragStart={(e) => {
                            e.dataTransfer.setData('text/plain', userId);
                            setDragged(userId);
                          }}
                          onKeyDown={(e) => onNameKey(e, userId)}
                        >
                          {nameOf.get(userId) ?? userId}
                        </button>
                      </li>
                    ))}
                  </ul>
                  {g > 0 ? (
                    <label className="groups-split__leader">
                      <span>{t('groups.leader')}</span>
                      <select
                        value={leaders[g - 1] && column.includes(leaders[g - 1]!) ? leaders[g - 1]! : ''}
                        onChange={(e) => setLeaders((l) => Object.assign([...l], { [g - 1]: e.target.value || null }))}
                      >
                        <option value="">{t('groups.noLeader')}</option>
                        {column.map((userId) => (
                          <option key={userId} value={userId}>
                            {nameOf.get(userId) ?? userId}
                          </option>
                        ))}
                      </select>
                    </label>
                  ) : null}
                </section>
              ))}
            </div>
          </div>
        ) : null}
      </div>
    </Dialog>
  );
}
