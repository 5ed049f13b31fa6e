/**
 * The class tools' state in the browser (ADR 114), outside React: the public `ClassTools` every
 * client holds (replaced whole by the join snapshot and by each `tools` event), the teacher's
 * private tally (`quizTally`), this person's own answers, the server clock's offset, and the last
 * reward (for its animation). The room channel's client (room-channel-client.ts) feeds it what it
 * hears and sends its requests; the panels read it with useSyncExternalStore (useClassTools.ts).
 */
import type { QUIZ_LETTERS } from '#core/contracts/class-tools.ts';
import { ClockOffset } from './clock.ts';
import type { PollTally } from '#core/contracts/class-tools.ts';
import { NO_ANSWERS, NO_TOOLS, type ClassTools, type MyAnswers, type QuizTally, type Rewarded } from './types.ts';

export type QuizLetter = (typeof QUIZ_LETTERS)[number];

export interface ToolsView {
  tools: ClassTools;
  /** The teacher's latest tally (creator only; see tallyOf() for the quiz showing now). */
  tally: QuizTally | null;
  /** The teacher's latest live poll counts (creator only; see pollTallyOf()). */
  pollTally: PollTally | null;
  /** This person's answers to the quiz and the poll showing now. */
  mine: MyAnswers;
  /** Server time minus this browser's time (ms), from the snapshot's and the events' serverTime. */
  offset: number;
  /** The last reward heard (the animation plays once per new one). */
  rewarded: Rewarded | null;
}

/** What a request answers: '0' or a refusal's code (already toasted by the room channel). */
export interface ToolsAck {
  code: string;
  msg: string;
  data?: unknown;
}

/** Sends a room request (the room channel's, which toasts a refusal) and answers its ack. */
export type ToolsRequest = (event: string, payload: object) => Promise<ToolsAck>;

export interface QuizStartPayload {
  options: number;
  multiple: boolean;
  correct: QuizLetter[];
  limitSeconds: number;
  showOwn: boolean;
}

export interface PollStartPayload {
  anonymous: boolean;
  questions: Array<{ text: string; options: string[]; multiple: boolean }>;
}

export interface ToolsActions {
  quizStart: (p: QuizStartPayload) => Promise<boolean>;
  quizAnswer: (choice: QuizLetter[]) => Promise<boolean>;
  quizCollect: () => Promise<boolean>;
  quizPublish: () => Promise<boolean>;
  quizClose: () => Promise<boolean>;
  pollStart: (p: PollStartPayload) => Promise<boolean>;
  pollVote: (answers: number[][]) => Promise<boolean>;
  pollClose: () => Promise<boolean>;
  pollPublish: () => Promise<boolean>;
  pollDismiss: () => Promise<boolean>;
  timerSet: (kind: 'countdown' | 'stopwatch', durationMs: number) => Promise<boolean>;
  timerStart: () => Promise<boolean>;
  timerPause: () => Promise<boolean>;
  timerReset: () => Promise<boolean>;
  timerClear: () => Promise<boolean>;
  buzzerOpen: () => Promise<boolean>;
  buzzerPress: () => Promise<boolean>;
  buzzerClose: () => Promise<boolean>;
  pickRandom: () => Promise<boolean>;
  reward: (to: { userIds: string[] } | { quizRight: string }) => Promise<boolean>;
}

/** The snapshot's part about the tools (its fields as the contract names them). */
export interface ToolsSnapshotPart {
  tools?: ClassTools | undefined;
  toolsPrivate?: QuizTally | null | undefined;
  pollPrivate?: PollTally | null | undefined;
  myAnswers?: MyAnswers | null | undefined;
  serverTime: number;
}

const mono = () => (typeof performance === 'undefined' ? Date.now() : performance.now());

export class ToolsStore {
  readonly #clock = new ClockOffset();
  readonly #listeners = new Set<() => void>();
  #view: ToolsView = { tools: NO_TOOLS, tally: null, pollTally: null, mine: NO_ANSWERS, offset: 0, rewarded: null };
  #request: ToolsRequest = () => Promise.resolve({ code: '-1', msg: '' });
  readonly actions: ToolsActions;

  constructor(request?: ToolsRequest) {
    if (request) this.#request = request;
    const ok = async (event: string, payload: object = {}) => (await this.#request(event, payload)).code === '0';
    const quizId = () => this.#view.tools.quiz?.id ?? '';
    const pollId = () => this.#view.tools.poll?.id ?? '';
    this.actions = {
      quizStart: async (p) => {
        const ack = await this.#request('quizStart', p);
        return ack.code === '0';
      },
      quizAnswer: async (choice) => {
        const id = quizId();
        const ack = await this.#request('quizAnswer', { id, choice });
        if (ack.code !== '0') return false;
        const taken = (ack.data as { choice?: QuizLetter[] } | undefined)?.choice ?? choice;
        if (this.#view.tools.quiz?.id === id) this.#set({ mine: { ...this.#view.mine, quiz: taken } });
        return true;
      },
      quizCollect: () => ok('quizCollect', { id: quizId() }),
      quizPublish: () => ok('quizPublish', { id: quizId() }),
      quizClose: () => ok('quizClose', { id: quizId() }),
      pollStart: (p) => ok('pollStart', p),
      pollVote: async (answers) => {
        const id = pollId();
        const ack = await this.#request('pollVote', { id, answers });
        if (ack.code !== '0') return false;
        if (this.#view.tools.poll?.id === id) this.#set({ mine: { ...this.#view.mine, poll: answers, pollVoted: true } });
        return true;
      },
      pollClose: () => ok('pollClose', { id: pollId() }),
      pollPublish: () => ok('pollPublish', { id: pollId() }),
      pollDismiss: () => ok('pollDismiss', { id: pollId() }),
      timerSet: (kind, durationMs) => ok('timerSet', { kind, durationMs: kind === 'stopwatch' ? 0 : durationMs }),
      timerStart: () => ok('timerStart'),
      timerPause: () => ok('timerPause'),
      timerReset: () => ok('timerReset'),
      timerClear: () => ok('timerClear'),
      buzzerOpen: () => ok('buzzerOpen'),
      buzzerPress: () => ok('buzzerPress', { round: this.#view.tools.buzzer?.round ?? 0 }),
      buzzerClose: () => ok('buzzerClose'),
      pickRandom: () => ok('pickRandom'),
      reward: (to) => ok('reward', to),
    };
  }

  /** The room channel's request (set once its channel exists). */
  setRequest(request: ToolsRequest): void {
    this.#request = request;
  }

  readonly subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  };

  readonly getSnapshot = (): ToolsView => this.#view;

  #set(next: Partial<ToolsView>): void {
    this.#view = { ...this.#view, ...next };
    for (const l of this.#listeners) l();
  }

  /** The join snapshot (first join and every reconnect): the whole state, replaced. */
  snapshot(part: ToolsSnapshotPart, localNow = Date.now(), at = mono()): void {
    this.#clock.sample(part.serverTime, localNow, at);
    const tools = part.tools ?? NO_TOOLS;
    const tally = part.toolsPrivate && part.toolsPrivate.id === tools.quiz?.id ? part.toolsPrivate : null;
    const pollTally = part.pollPrivate ?? null;
    this.#set({ tools, tally, pollTally, mine: part.myAnswers ?? NO_ANSWERS, offset: this.#clock.offset });
  }

  /** A `tools` event: the new state, whole, and the server's time when it was sent. */
  tools(payload: ClassTools & { serverTime: number }, localNow = Date.now(), at = mono()): void {
    const { serverTime, ...rest } = payload;
    this.#clock.sample(serverTime, localNow, at);
    const tools: ClassTools = { ...NO_TOOLS, ...rest };
    const prev = this.#view;
    // A new quiz or poll (or none): the answers and the tally of the last one no longer apply.
    const sameQuiz = (prev.tools.quiz?.id ?? '') === (tools.quiz?.id ?? '');
    const samePoll = (prev.tools.poll?.id ?? '') === (tools.poll?.id ?? '');
    const mine: MyAnswers = {
      quiz: sameQuiz ? prev.mine.quiz : null,
      poll: samePoll ? prev.mine.poll : null,
      pollVoted: samePoll ? prev.mine.pollVoted : false,
    };
    // A tally may come just before the event of its quiz: kept while a quiz shows; the panel shows it for its own quiz only.
    const tally = tools.quiz ? prev.tally : null;
    const pollTally = tools.poll ? prev.pollTally : null;
    this.#set({ tools, mine, tally, pollTally, offset: this.#clock.offset });
  }

  /** The teacher's `quizTally` (the panel shows it for the quiz of the same id). */
  tally(tally: QuizTally): void {
    this.#set({ tally });
  }

  /** The teacher's `pollTally` (the panel shows it for the poll of the same id). */
  pollTally(pollTally: PollTally): void {
    this.#set({ pollTally });
  }

  /** A `rewarded` event: plays the animation; the counts come with the `tools` event. */
  rewarded(rewarded: Rewarded): void {
    this.#set({ rewarded });
  }
}

/** The teacher's tally of the quiz showing now, or null. */
export function tallyOf(view: ToolsView): QuizTally | null {
  return view.tally && view.tally.id === view.tools.quiz?.id ? view.tally : null;
}

/** The teacher's live counts of the poll showing now, or null. */
export function pollTallyOf(view: ToolsView): PollTally | null {
  return view.pollTally && view.pollTally.id === view.tools.poll?.id ? view.pollTally : null;
}
