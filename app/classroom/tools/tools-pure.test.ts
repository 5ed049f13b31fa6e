import { describe, expect, it } from 'vitest';
import {
  ClockOffset,
  CLOCK_WINDOW_MS,
  durationFrom,
  formatTimer,
  quizLeftMs,
  timerDone,
  timerEndsAt,
  timerShownMs,
  type TimerLike,
} from './clock.ts';
import {
  choiceValid,
  isRight,
  NEW_POLL,
  NEW_QUIZ,
  pollAnswersValid,
  pollStartOf,
  quizLetters,
  quizStartOf,
  sameChoice,
  toggleChoice,
  togglePollAnswer,
  withMultiple,
  withOptions,
} from './sheet.ts';
import { accuracyPercent, choiceText, notAnswered, percent, percentText, pollBars, quizBars, sortedAnswers } from './tally.ts';

const countdown = (over: Partial<TimerLike> = {}): TimerLike => ({
  kind: 'countdown',
  running: true,
  durationMs: 60_000,
  elapsedMs: 0,
  startedAt: 1_000_000,
  ...over,
});

describe('the clock offset', () => {
  it('is server minus local, from the first reading', () => {
    const c = new ClockOffset();
    expect(c.offset).toBe(0);
    expect(c.known).toBe(false);
    // The browser's clock is 5 minutes ahead of the server's.
    c.sample(1_000_000, 1_300_000, 0);
    expect(c.offset).toBe(-300_000);
    expect(c.known).toBe(true);
  });
  it('keeps the least delayed of recent readings (a late arrival looks smaller, never larger)', () => {
    const c = new ClockOffset();
    c.sample(1_000_000, 1_300_040, 0); // arrived 40 ms late
    c.sample(1_001_000, 1_301_005, 1000); // 5 ms late
    c.sample(1_002_000, 1_302_120, 2000); // 120 ms late
    expect(c.offset).toBe(-300_005);
  });
  it('starts again when a clock jumps, and forgets readings past the window', () => {
    const c = new ClockOffset();
    c.sample(1_000_000, 1_000_010, 0);
    // The browser's clock was set 5 minutes ahead.
    c.sample(1_001_000, 1_301_030, 1000);
    expect(c.offset).toBe(-300_030);
    const d = new ClockOffset();
    d.sample(1_000_000, 1_000_000, 0); // a lucky reading long ago
    d.sample(1_100_000, 1_100_200, CLOCK_WINDOW_MS + 1);
    expect(d.offset).toBe(-200);
  });
  it('ignores a reading without a server time', () => {
    const c = new ClockOffset();
    c.sample(0, 5000, 0);
    expect(c.known).toBe(false);
  });
});

describe('the timer shown from the server time', () => {
  it('counts a running countdown down from the server time, whatever the local clock', () => {
    const t = countdown();
    // The browser's clock is 5 minutes ahead; with the offset, the same server instant shows the same.
    const offset = -300_000;
    const local = 1_000_000 + 12_345 + 300_000;
    expect(timerShownMs(t, local + offset)).toBe(47_655);
    expect(formatTimer(47_655, 'countdown')).toBe('00:48');
    // Without the offset it would have run out long ago.
    expect(timerShownMs(t, local)).toBe(0);
  });
  it('stops at zero and says so', () => {
    const t = countdown();
    expect(timerShownMs(t, 1_000_000 + 90_000)).toBe(0);
    expect(timerDone(t, 1_000_000 + 60_000)).toBe(true);
    expect(timerDone(t, 1_000_000 + 59_999)).toBe(false);
    expect(timerEndsAt(t)).toBe(1_060_000);
  });
  it('holds a paused timer at its accumulated time', () => {
    const paused = countdown({ running: false, startedAt: 0, elapsedMs: 15_500 });
    expect(timerShownMs(paused, 5_000_000)).toBe(44_500);
    expect(timerEndsAt(paused)).toBeNull();
    const resumed = countdown({ elapsedMs: 15_500, startedAt: 2_000_000 });
    expect(timerShownMs(resumed, 2_000_500)).toBe(44_000);
    expect(timerEndsAt(resumed)).toBe(2_044_500);
  });
  it('counts a stopwatch up', () => {
    const sw: TimerLike = { kind: 'stopwatch', running: true, durationMs: 0, elapsedMs: 61_000, startedAt: 10_000 };
    expect(timerShownMs(sw, 12_999)).toBe(63_999);
    expect(formatTimer(63_999, 'stopwatch')).toBe('01:03');
    expect(timerDone(sw, 99_999_999)).toBe(false);
    expect(timerEndsAt(sw)).toBeNull();
  });
  it('formats: a countdown rounds up, a stopwatch down, hours when needed', () => {
    expect(formatTimer(1, 'countdown')).toBe('00:01');
    expect(formatTimer(0, 'countdown')).toBe('00:00');
    expect(formatTimer(-50, 'countdown')).toBe('00:00');
    expect(formatTimer(999, 'stopwatch')).toBe('00:00');
    expect(formatTimer(300_000, 'countdown')).toBe('05:00');
    expect(formatTimer(3_600_000 + 61_000, 'stopwatch')).toBe('1:01:01');
  });
  it('reads a length typed as minutes and seconds', () => {
    expect(durationFrom('5', '')).toBe(300_000);
    expect(durationFrom('', '30')).toBe(30_000);
    expect(durationFrom('1', '05')).toBe(65_000);
    expect(durationFrom('0', '0')).toBeNull();
    expect(durationFrom('', '')).toBeNull();
    expect(durationFrom('2', '60')).toBeNull();
    expect(durationFrom('-1', '0')).toBeNull();
    expect(durationFrom('1.5', '0')).toBeNull();
    expect(durationFrom('100', '0')).toBeNull();
  });
  it('tells a quiz’s time left', () => {
    expect(quizLeftMs(0, 5)).toBeNull();
    expect(quizLeftMs(10_000, 4_000)).toBe(6000);
    expect(quizLeftMs(10_000, 14_000)).toBe(0);
  });
});

describe('the answer sheet’s choice rules', () => {
  it('has 2 to 8 letters', () => {
    expect(quizLetters(4)).toEqual(['A', 'B', 'C', 'D']);
    expect(quizLetters(1)).toEqual(['A', 'B']);
    expect(quizLetters(12)).toEqual(['A', 'B', 'C', 'D', 'E', 'F', 'G', 'H']);
  });
  it('single choice takes one letter; a second click keeps it', () => {
    expect(toggleChoice([], 'B', false)).toEqual(['B']);
    expect(toggleChoice(['B'], 'C', false)).toEqual(['C']);
    expect(toggleChoice(['C'], 'C', false)).toEqual(['C']);
  });
  it('multiple choice adds and removes, kept in letter order', () => {
    expect(toggleChoice(['C'], 'A', true)).toEqual(['A', 'C']);
    expect(toggleChoice(['A', 'C'], 'A', true)).toEqual(['C']);
    expect(toggleChoice(['C'], 'C', true)).toEqual([]);
  });
  it('sends only a valid choice', () => {
    expect(choiceValid(['A'], 4, false)).toBe(true);
    expect(choiceValid([], 4, false)).toBe(false);
    expect(choiceValid(['A', 'B'], 4, false)).toBe(false);
    expect(choiceValid(['A', 'B'], 4, true)).toBe(true);
    expect(choiceValid(['E'], 4, true)).toBe(false);
    expect(choiceValid(['A', 'A'], 4, true)).toBe(false);
  });
  it('compares answers as sets and judges them', () => {
    expect(sameChoice(['B', 'A'], ['A', 'B'])).toBe(true);
    expect(sameChoice(null, null)).toBe(true);
    expect(sameChoice(['A'], null)).toBe(false);
    expect(isRight(['D', 'B'], ['B', 'D'])).toBe(true);
    expect(isRight(['B'], ['B', 'D'])).toBe(false);
    expect(isRight(null, ['B'])).toBe(false);
  });
});

describe('the teacher’s quiz form', () => {
  it('needs the correct answer(s) within the options', () => {
    expect(quizStartOf(NEW_QUIZ)).toEqual({ ok: false, problem: 'correct' });
    expect(quizStartOf({ ...NEW_QUIZ, correct: ['B'] })).toEqual({
      ok: true,
      payload: { options: 4, multiple: false, correct: ['B'], limitSeconds: 0, showOwn: true },
    });
    expect(quizStartOf({ ...NEW_QUIZ, correct: ['B', 'C'] })).toEqual({ ok: false, problem: 'correct' });
    expect(quizStartOf({ ...NEW_QUIZ, multiple: true, correct: ['C', 'A'] })).toMatchObject({ ok: true, payload: { correct: ['A', 'C'] } });
  });
  it('takes a limit of 0 to 3600 s', () => {
    expect(quizStartOf({ ...NEW_QUIZ, correct: ['A'], limitSeconds: '90' })).toMatchObject({ ok: true, payload: { limitSeconds: 90 } });
    expect(quizStartOf({ ...NEW_QUIZ, correct: ['A'], limitSeconds: '3601' })).toEqual({ ok: false, problem: 'limit' });
    expect(quizStartOf({ ...NEW_QUIZ, correct: ['A'], limitSeconds: 'ten' })).toEqual({ ok: false, problem: 'limit' });
  });
  it('drops correct letters past the options, and keeps one when switched to single', () => {
    expect(withOptions({ ...NEW_QUIZ, options: 6, multiple: true, correct: ['B', 'F'] }, 3).correct).toEqual(['B']);
    expect(withMultiple({ ...NEW_QUIZ, multiple: true, correct: ['D', 'B'] }, false).correct).toEqual(['B']);
  });
});

describe('the poll', () => {
  it('trims the texts, drops empty options and checks the counts', () => {
    expect(pollStartOf(NEW_POLL)).toEqual({ ok: false, problem: { question: 0, what: 'text' } });
    const draft = { anonymous: false, questions: [{ text: ' Lunch? ', options: [' Rice', '', 'Noodles '], multiple: false }] };
    expect(pollStartOf(draft)).toEqual({
      ok: true,
      payload: { anonymous: false, questions: [{ text: 'Lunch?', options: ['Rice', 'Noodles'], multiple: false }] },
    });
    expect(pollStartOf({ anonymous: true, questions: [{ text: 'Q', options: ['only'], multiple: false }] })).toEqual({
      ok: false,
      problem: { question: 0, what: 'options' },
    });
    expect(pollStartOf({ anonymous: true, questions: [{ text: 'Q', options: ['x'.repeat(41), 'y'], multiple: false }] })).toEqual({
      ok: false,
      problem: { question: 0, what: 'option' },
    });
    const six = Array.from({ length: 6 }, () => ({ text: 'Q', options: ['a', 'b'], multiple: false }));
    expect(pollStartOf({ anonymous: true, questions: six })).toEqual({ ok: false, problem: { question: -1, what: 'questions' } });
  });
  it('answers each question: one option or several', () => {
    const qs = [
      { options: ['a', 'b', 'c'], multiple: false },
      { options: ['x', 'y'], multiple: true },
    ];
    let a = [[], []] as number[][];
    expect(pollAnswersValid(a, qs)).toBe(false);
    a = togglePollAnswer(a, 0, 2, false);
    a = togglePollAnswer(a, 0, 1, false);
    a = togglePollAnswer(a, 1, 1, true);
    a = togglePollAnswer(a, 1, 0, true);
    expect(a).toEqual([[1], [0, 1]]);
    expect(pollAnswersValid(a, qs)).toBe(true);
    expect(pollAnswersValid(togglePollAnswer(a, 1, 0, true), qs)).toBe(true);
    expect(pollAnswersValid([[3], [0]], qs)).toBe(false);
    expect(pollAnswersValid([[1]], qs)).toBe(false);
  });
});

describe('tallies and accuracy', () => {
  it('rounds shares without showing 100 % or 0 % too early', () => {
    expect(percent(0, 0)).toBe(0);
    expect(percent(2, 3)).toBe(67);
    expect(percent(299, 300)).toBe(99);
    expect(percent(1, 300)).toBe(1);
    expect(percent(300, 300)).toBe(100);
    expect(percentText(1, 3)).toBe('33%');
  });
  it('makes one bar per option with the correct ones marked', () => {
    expect(quizBars([3, 1, 0, 2], 5, ['A'])).toEqual([
      { label: 'A', count: 3, share: 60, correct: true },
      { label: 'B', count: 1, share: 20, correct: false },
      { label: 'C', count: 0, share: 0, correct: false },
      { label: 'D', count: 2, share: 40, correct: false },
    ]);
    expect(pollBars(['Yes', 'No'], [2, 1], 3).map((b) => b.share)).toEqual([67, 33]);
    expect(pollBars(['Yes', 'No'], undefined, 0).map((b) => b.count)).toEqual([0, 0]);
  });
  it('reads the accuracy as a fraction or a percent', () => {
    expect(accuracyPercent(0.666)).toBe(67);
    expect(accuracyPercent(1)).toBe(100);
    expect(accuracyPercent(75)).toBe(75);
    expect(accuracyPercent(Number.NaN)).toBe(0);
  });
  it('lists wrong answers first, and who has not answered', () => {
    const rows = [
      { userId: '2', name: 'Ben', choice: ['A'], right: true },
      { userId: '3', name: 'Ann', choice: ['C', 'B'], right: false },
      { userId: '4', name: 'Amy', choice: ['A'], right: true },
    ];
    expect(sortedAnswers(rows).map((r) => r.name)).toEqual(['Ann', 'Amy', 'Ben']);
    expect(choiceText(['C', 'B'])).toBe('B, C');
    expect(choiceText(null)).toBe('—');
    const members = [
      { userId: '1', role: 'creator', online: true },
      { userId: '2', role: 'member', online: true },
      { userId: '5', role: 'tourist', online: true },
      { userId: '6', role: 'member', online: false },
      { userId: '7', role: 'observer', online: true },
    ];
    expect(notAnswered(members, rows).map((m) => m.userId)).toEqual(['5']);
  });
});
