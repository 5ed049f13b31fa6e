/**
 * The class tools' shapes as the classroom uses them (core/contracts/class-tools.ts): the public
 * state every client holds (`ClassTools`), the teacher's private tally and a student's own answers.
 */
import type { ClassTools, MyAnswers, QuizPublic, classToolsRoomEvents } from '#core/contracts/class-tools.ts';
import type { z } from 'zod';

export type { ClassTools, MyAnswers, QuizTally, PollPublic as PollState, TimerPublic as TimerState } from '#core/contracts/class-tools.ts';
export type QuizState = QuizPublic;
export type Rewarded = z.infer<(typeof classToolsRoomEvents)['rewarded']>;

export const NO_TOOLS: ClassTools = { quiz: null, poll: null, timer: null, buzzer: null, pick: null, rewards: {} };
export const NO_ANSWERS: MyAnswers = { quiz: null, poll: null, pollVoted: false };
