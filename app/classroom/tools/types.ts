/**
 * The class tools' shapes as the classroom uses them: the public state every client holds
 * (`ClassTools`), the teacher's private tally and a student's own answers (ADR 114).
 */
export interface QuizResult {
  tally: number[];
  correct: string[];
  answered: number;
  right: number;
}

export interface QuizState {
  id: string;
  options: number;
  multiple: boolean;
  status: 'open' | 'collected' | 'published';
  startedAt: number;
  endsAt: number;
  answered: number;
  showOwn: boolean;
  result: QuizResult | null;
}

export interface PollQuestion {
  text: string;
  options: string[];
  multiple: boolean;
}

export interface PollState {
  id: string;
  anonymous: boolean;
  status: 'open' | 'closed' | 'published';
  questions: PollQuestion[];
  voters: number;
  result: { counts: number[][] } | null;
}

export interface TimerState {
  kind: 'countdown' | 'stopwatch';
  running: boolean;
  durationMs: number;
  elapsedMs: number;
  startedAt: number;
}

export interface BuzzerState {
  round: number;
  status: 'open' | 'won';
  winner: { userId: string; name: string; at: number } | null;
}

export interface PickState {
  userId: string;
  name: string;
  at: number;
}

export interface ClassTools {
  quiz: QuizState | null;
  poll: PollState | null;
  timer: TimerState | null;
  buzzer: BuzzerState | null;
  pick: PickState | null;
  rewards: Record<string, number>;
}

export interface QuizTally {
  id: string;
  tally: number[];
  answered: number;
  answers: Array<{ userId: string; name: string; choice: string[]; right: boolean }>;
  accuracy: number;
}

export interface MyAnswers {
  quiz: string[] | null;
  poll: number[][] | null;
}

export interface Rewarded {
  userIds: string[];
  names: string[];
  by: string;
  at: number;
}

export const NO_TOOLS: ClassTools = { quiz: null, poll: null, timer: null, buzzer: null, pick: null, rewards: {} };
export const NO_ANSWERS: MyAnswers = { quiz: null, poll: null };
