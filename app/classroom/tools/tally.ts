/**
 * The numbers of a quiz and a poll as the panels show them (ADR 114): per-option bars with counts
 * and shares, the class's accuracy, each student's answer. Pure, so the rounding and the order are
 * tested without a page.
 */
import { QUIZ_LETTERS, sortLetters } from './sheet.ts';

/** A share as a whole percent: 0 of 0 is 0 %, and rounding never shows 100 % before everyone. */
export function percent(part: number, whole: number): number {
  if (whole <= 0 || part <= 0) return 0;
  if (part >= whole) return 100;
  return Math.min(99, Math.max(1, Math.round((part / whole) * 100)));
}

/** '67%' (both languages write it so). */
export function percentText(part: number, whole: number): string {
  return `${String(percent(part, whole))}%`;
}

export interface Bar {
  label: string;
  count: number;
  /** Percent of those who answered (a multiple-choice answer counts for each of its options). */
  share: number;
  correct: boolean;
}

/** The bars of a quiz's tally: one per option, A first. */
export function quizBars(tally: readonly number[], answered: number, correct: readonly string[] = []): Bar[] {
  return tally.map((count, i) => {
    const label = QUIZ_LETTERS[i] ?? String(i + 1);
    return { label, count, share: percent(count, answered), correct: correct.includes(label) };
  });
}

/** The bars of one poll question. */
export function pollBars(options: readonly string[], counts: readonly number[] | undefined, voters: number): Bar[] {
  return options.map((label, i) => {
    const count = counts?.[i] ?? 0;
    return { label, count, share: percent(count, voters), correct: false };
  });
}

/**
 * The accuracy as a percent of those who answered. The server sends it (`quizTally.accuracy`);
 * read as a fraction (0-1) or a percent (over 1), whichever it is.
 */
export function accuracyPercent(accuracy: number): number {
  if (!Number.isFinite(accuracy) || accuracy <= 0) return 0;
  return accuracy <= 1 ? Math.round(accuracy * 100) : Math.min(100, Math.round(accuracy));
}

/** 'B, D' or '—' for no answer. */
export function choiceText(choice: readonly string[] | null | undefined): string {
  return choice && choice.length > 0 ? sortLetters(choice).join(', ') : '—';
}

export interface AnswerRow {
  userId: string;
  name: string;
  choice: string[];
  right: boolean;
}

/** The per-student answers for the teacher: wrong answers first (whom to help), then right, each by name. */
export function sortedAnswers(rows: readonly AnswerRow[]): AnswerRow[] {
  return [...rows].sort((a, b) => Number(a.right) - Number(b.right) || a.name.localeCompare(b.name, 'zh-CN'));
}

/** The students who have not answered: members online who are students, minus those who have. */
export function notAnswered<M extends { userId: string; role: string; online: boolean }>(
  members: readonly M[],
  rows: readonly AnswerRow[],
): M[] {
  const answered = new Set(rows.map((r) => r.userId));
  return members.filter((m) => (m.role === 'member' || m.role === 'tourist') && m.online && !answered.has(m.userId));
}
