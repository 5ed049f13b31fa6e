/**
 * The rules of the answer sheet and the poll as the page applies them before asking the server
 * (which applies them again, ADR 114): the letters of a quiz, how a click changes a choice, what
 * may be sent, and the teacher's forms for a new quiz and a new poll.
 */

import {
  POLL_MAX_OPTIONS,
  POLL_MAX_QUESTIONS,
  POLL_MIN_OPTIONS,
  POLL_OPTION_MAX_CHARS as POLL_OPTION_MAX,
  POLL_QUESTION_MAX_CHARS as POLL_TEXT_MAX,
  QUIZ_LETTERS,
  QUIZ_MAX_OPTIONS,
  QUIZ_MAX_SECONDS as QUIZ_MAX_LIMIT_S,
  QUIZ_MIN_OPTIONS,
} from '#core/contracts/class-tools.ts';

/** The contract's limits (core/contracts/class-tools.ts), as the forms use them. */
export {
  POLL_MAX_OPTIONS,
  POLL_MAX_QUESTIONS,
  POLL_MIN_OPTIONS,
  POLL_OPTION_MAX,
  POLL_TEXT_MAX,
  QUIZ_LETTERS,
  QUIZ_MAX_LIMIT_S,
  QUIZ_MAX_OPTIONS,
  QUIZ_MIN_OPTIONS,
};
type Letter = (typeof QUIZ_LETTERS)[number];

/** The letters of a quiz of `count` options (2 to 8): A, B, … */
export function quizLetters(count: number): Letter[] {
  const n = Math.min(QUIZ_MAX_OPTIONS, Math.max(QUIZ_MIN_OPTIONS, Math.floor(count)));
  return QUIZ_LETTERS.slice(0, n);
}

/** Letters in A-H order, each once. */
export function sortLetters<L extends string>(letters: readonly L[]): L[] {
  return [...new Set(letters)].sort((a, b) => QUIZ_LETTERS.indexOf(a as never) - QUIZ_LETTERS.indexOf(b as never));
}

/**
 * The choice after a click on `letter`: single choice takes it alone (a second click on it keeps
 * it: an answer is changed, not taken back); multiple choice adds or removes it.
 */
export function toggleChoice<L extends string>(choice: readonly L[], letter: L, multiple: boolean): L[] {
  if (!multiple) return [letter];
  return choice.includes(letter) ? choice.filter((l) => l !== letter) : sortLetters([...choice, letter]);
}

/** A choice that may be sent for a quiz of `options` options: one letter (single), at least one (multiple), all within the options. */
export function choiceValid(choice: readonly string[], options: number, multiple: boolean): boolean {
  const letters = quizLetters(options);
  if (choice.length === 0 || new Set(choice).size !== choice.length) return false;
  if (!multiple && choice.length !== 1) return false;
  return choice.every((l) => (letters as string[]).includes(l));
}

/** The same letters, in any order. */
export function sameChoice(a: readonly string[] | null, b: readonly string[] | null): boolean {
  if (!a || !b) return a === b;
  const x = sortLetters(a);
  const y = sortLetters(b);
  return x.length === y.length && x.every((l, i) => l === y[i]);
}

/** A sent answer is right when it names exactly the correct letters. */
export function isRight(choice: readonly string[] | null, correct: readonly string[]): boolean {
  return choice !== null && choice.length > 0 && sameChoice(choice, correct);
}

export interface QuizDraft {
  options: number;
  multiple: boolean;
  correct: Letter[];
  /** The limit as typed, in seconds; '' or 0 is none. */
  limitSeconds: string;
  showOwn: boolean;
}

export type QuizProblem = 'correct' | 'limit';

export const NEW_QUIZ: QuizDraft = { options: 4, multiple: false, correct: [], limitSeconds: '', showOwn: true };

/** A draft with a new number of options: correct letters past the last option go. */
export function withOptions(draft: QuizDraft, options: number): QuizDraft {
  const letters = quizLetters(options);
  return { ...draft, options: letters.length, correct: draft.correct.filter((l) => letters.includes(l)) };
}

/** A draft switched to single or multiple choice: single keeps at most the first correct letter. */
export function withMultiple(draft: QuizDraft, multiple: boolean): QuizDraft {
  return { ...draft, multiple, correct: multiple ? draft.correct : sortLetters(draft.correct).slice(0, 1) };
}

/** The quizStart payload of a draft, or what is wrong with it. */
export function quizStartOf(
  draft: QuizDraft,
):
  | { ok: true; payload: { options: number; multiple: boolean; correct: Letter[]; limitSeconds: number; showOwn: boolean } }
  | { ok: false; problem: QuizProblem } {
  const text = draft.limitSeconds.trim();
  const limit = text === '' ? 0 : /^\d{1,4}$/.test(text) ? Number(text) : NaN;
  if (!Number.isInteger(limit) || limit < 0 || limit > QUIZ_MAX_LIMIT_S) return { ok: false, problem: 'limit' };
  const correct = sortLetters(draft.correct);
  if (!choiceValid(correct, draft.options, draft.multiple)) return { ok: false, problem: 'correct' };
  return { ok: true, payload: { options: draft.options, multiple: draft.multiple, correct, limitSeconds: limit, showOwn: draft.showOwn } };
}

export interface PollQuestionDraft {
  text: string;
  options: string[];
  multiple: boolean;
}

export interface PollDraft {
  anonymous: boolean;
  questions: PollQuestionDraft[];
}

export const NEW_POLL_QUESTION: PollQuestionDraft = { text: '', options: ['', ''], multiple: false };
export const NEW_POLL: PollDraft = { anonymous: true, questions: [NEW_POLL_QUESTION] };

export type PollProblem = { question: number; what: 'text' | 'option' | 'options' } | { question: -1; what: 'questions' };

const chars = (text: string) => [...text].length;

/** The pollStart payload of a draft (texts trimmed, empty options dropped), or the first thing wrong with it. */
export function pollStartOf(draft: PollDraft): { ok: true; payload: PollDraft } | { ok: false; problem: PollProblem } {
  if (draft.questions.length < 1 || draft.questions.length > POLL_MAX_QUESTIONS)
    return { ok: false, problem: { question: -1, what: 'questions' } };
  const questions: PollQuestionDraft[] = [];
  for (const [i, q] of draft.questions.entries()) {
    const text = q.text.trim();
    if (chars(text) < 1 || chars(text) > POLL_TEXT_MAX) return { ok: false, problem: { question: i, what: 'text' } };
    const options = q.options.map((o) => o.trim()).filter((o) => o !== '');
    if (options.some((o) => chars(o) > POLL_OPTION_MAX)) return { ok: false, problem: { question: i, what: 'option' } };
    if (options.length < POLL_MIN_OPTIONS || options.length > POLL_MAX_OPTIONS)
      return { ok: false, problem: { question: i, what: 'options' } };
    questions.push({ text, options, multiple: q.multiple });
  }
  return { ok: true, payload: { anonymous: draft.anonymous, questions } };
}

/** A poll answer after a click on option `option` of question `question`. */
export function togglePollAnswer(answers: readonly (readonly number[])[], question: number, option: number, multiple: boolean): number[][] {
  return answers.map((a, i) => {
    if (i !== question) return [...a];
    if (!multiple) return [option];
    return a.includes(option) ? a.filter((o) => o !== option) : [...a, option].sort((x, y) => x - y);
  });
}

/** Every question answered: one option (single) or at least one (multiple), each within its options. */
export function pollAnswersValid(
  answers: readonly (readonly number[])[],
  questions: readonly { options: readonly string[]; multiple: boolean }[],
): boolean {
  if (answers.length !== questions.length) return false;
  return questions.every((q, i) => {
    const a = answers[i] ?? [];
    if (a.length === 0 || new Set(a).size !== a.length) return false;
    if (!q.multiple && a.length !== 1) return false;
    return a.every((o) => Number.isInteger(o) && o >= 0 && o < q.options.length);
  });
}
