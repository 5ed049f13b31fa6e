/**
 * The correct answer(s) the teacher set for a quiz, kept in this tab's session storage by quiz id:
 * the public state carries them only once published, and the teacher's tally says who is right
 * but not which letters are, so the teacher's bars mark them from here (a reload keeps them).
 */
import { safeGet, safeSet } from '#app/lib/storage.ts';

const key = (quizId: string) => `quiz-correct_${quizId}`;

export function rememberCorrect(quizId: string, correct: readonly string[]): void {
  if (typeof window === 'undefined' || !quizId) return;
  safeSet('session', key(quizId), correct.join(''));
}

export function knownCorrect(quizId: string): string[] {
  if (typeof window === 'undefined') return [];
  return [...(safeGet('session', key(quizId)) ?? '')];
}
