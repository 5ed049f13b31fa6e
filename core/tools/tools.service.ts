/**
 * The class tools besides stage and hands (issue 30, ADR 113): answer sheet (quiz), poll,
 * countdown and stopwatch, buzzer, random pick, rewards. The state lives in the database per class
 * (core/tools/tools.repository.ts); every rule is checked on the server: the room's creator
 * commands, students (member, tourist) answer, observers and the recorder only watch. Each change
 * is told to the room as the whole public state (`tools`, with the server's time); who answered
 * what goes to the creator's own connections alone (`quizTally`, `pollTally`), coalesced.
 *
 * This file puts the parts together, one per concern: tools-core.ts (who may, the class row, the
 * whole state, its emit, the coalescer), quiz.ts, poll.ts, timer.ts, buzzer.ts, pick-rewards.ts.
 * It also answers the join snapshot, which reads across them.
 */
import type { ClassTools, MyAnswers, PollTally, QuizTally } from '../contracts/class-tools.ts';
import { BuzzerTools } from './buzzer.ts';
import { PickAndRewards } from './pick-rewards.ts';
import { pollCounts, PollTools, voterOf } from './poll.ts';
import { letters, quizTally, QuizTools, tallyOnly } from './quiz.ts';
import { TimerTools } from './timer.ts';
import { isStudent, ToolsCore, type ToolsActor, type ToolsDeps } from './tools-core.ts';

export type { ToolsActor } from './tools-core.ts';

export class ClassToolsService {
  readonly #core: ToolsCore;
  readonly #quiz: QuizTools;
  readonly #poll: PollTools;
  readonly #timer: TimerTools;
  readonly #buzzer: BuzzerTools;
  readonly #pickAndRewards: PickAndRewards;
  /** Per-step server times of the answers of this process (the 300-student test prints them). */
  readonly timings: QuizTools['timings'];

  constructor(d: ToolsDeps) {
    this.#core = new ToolsCore(d);
    this.#quiz = new QuizTools(this.#core);
    this.#poll = new PollTools(this.#core);
    this.#timer = new TimerTools(this.#core);
    this.#buzzer = new BuzzerTools(this.#core);
    this.#pickAndRewards = new PickAndRewards(this.#core);
    this.timings = this.#quiz.timings;
  }

  /** The public state of the class's tools now (a quiz past its deadline is collected here, lazily). */
  state(roomId: string, roomNumber: string): Promise<ClassTools> {
    return this.#core.state(roomId, roomNumber);
  }

  /** The join snapshot's part: the state, the creator's live tallies, a student's own answers. */
  async snapshot(actor: ToolsActor): Promise<{
    tools: ClassTools;
    toolsPrivate: QuizTally | null;
    pollPrivate: PollTally | null;
    myAnswers: MyAnswers | null;
  }> {
    const repo = this.#core.repo;
    const room = await this.#core.openClass(actor);
    const tools = await this.#core.state(room.id, actor.room);
    let toolsPrivate: QuizTally | null = null;
    let pollPrivate: PollTally | null = null;
    let myAnswers: MyAnswers | null = null;
    if (actor.role === 'creator') {
      if (tools.quiz) {
        const q = await repo.quiz(tools.quiz.id);
        if (q) toolsPrivate = tallyOnly(await quizTally(repo, q));
      }
      if (tools.poll) {
        const p = await repo.poll(tools.poll.id);
        if (p) pollPrivate = { id: p.id, counts: await pollCounts(repo, p), voters: tools.poll.voters };
      }
    } else if (isStudent(actor.role)) {
      myAnswers = { quiz: null, poll: null, pollVoted: false };
      if (tools.quiz) {
        const a = await repo.quizAnswerOf(tools.quiz.id, actor.uid);
        myAnswers.quiz = a ? letters(a.choice) : null;
      }
      if (tools.poll) {
        const p = await repo.poll(tools.poll.id);
        const voter = p ? voterOf(p, actor.uid) : null;
        const ballot = p && voter ? await repo.ballotOf(p.id, voter) : undefined;
        myAnswers.pollVoted = !!ballot;
        myAnswers.poll = ballot?.answers ? (ballot.answers as number[][]) : null;
      }
    }
    return { tools, toolsPrivate, pollPrivate, myAnswers };
  }

  // --- quiz ---

  quizStart(actor: ToolsActor, p: Parameters<QuizTools['quizStart']>[1]) {
    return this.#quiz.quizStart(actor, p);
  }
  quizAnswer(actor: ToolsActor, p: Parameters<QuizTools['quizAnswer']>[1]) {
    return this.#quiz.quizAnswer(actor, p);
  }
  quizCollect(actor: ToolsActor, p: { id: string }) {
    return this.#quiz.quizCollect(actor, p);
  }
  quizPublish(actor: ToolsActor, p: { id: string }) {
    return this.#quiz.quizPublish(actor, p);
  }
  quizClose(actor: ToolsActor, p: { id: string }) {
    return this.#quiz.quizClose(actor, p);
  }

  // --- poll ---

  pollStart(actor: ToolsActor, p: Parameters<PollTools['pollStart']>[1]) {
    return this.#poll.pollStart(actor, p);
  }
  pollVote(actor: ToolsActor, v: Parameters<PollTools['pollVote']>[1]) {
    return this.#poll.pollVote(actor, v);
  }
  pollClose(actor: ToolsActor, p: { id: string }) {
    return this.#poll.pollClose(actor, p);
  }
  pollPublish(actor: ToolsActor, p: { id: string }) {
    return this.#poll.pollPublish(actor, p);
  }
  pollDismiss(actor: ToolsActor, p: { id: string }) {
    return this.#poll.pollDismiss(actor, p);
  }

  // --- timer ---

  timerSet(actor: ToolsActor, p: Parameters<TimerTools['timerSet']>[1]) {
    return this.#timer.timerSet(actor, p);
  }
  timerStart(actor: ToolsActor) {
    return this.#timer.timerStart(actor);
  }
  timerPause(actor: ToolsActor) {
    return this.#timer.timerPause(actor);
  }
  timerReset(actor: ToolsActor) {
    return this.#timer.timerReset(actor);
  }
  timerClear(actor: ToolsActor) {
    return this.#timer.timerClear(actor);
  }

  // --- buzzer ---

  buzzerOpen(actor: ToolsActor) {
    return this.#buzzer.buzzerOpen(actor);
  }
  /** Not async: a refused press (role, rate) throws before anything is queued, as before the split. */
  buzzerPress(actor: ToolsActor, p: { round: number }) {
    return this.#buzzer.buzzerPress(actor, p);
  }
  buzzerClose(actor: ToolsActor) {
    return this.#buzzer.buzzerClose(actor);
  }

  // --- random pick and rewards ---

  pickRandom(actor: ToolsActor) {
    return this.#pickAndRewards.pickRandom(actor);
  }
  reward(actor: ToolsActor, p: Parameters<PickAndRewards['reward']>[1]) {
    return this.#pickAndRewards.reward(actor, p);
  }
}
