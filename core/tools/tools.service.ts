/**
 * The class tools besides stage and hands (issue 30, ADR 113): answer sheet (quiz), poll,
 * countdown and stopwatch, buzzer, random pick, rewards. The state lives in the database per class
 * (core/tools/tools.repository.ts); every rule is checked here: the room's creator commands,
 * students (member, tourist) answer, observers and the recorder only watch. Each change is told to
 * the room as the whole public state (`tools`, with the server's time); who answered what goes to
 * the creator's own connections alone (`quizTally`, `pollTally`), coalesced.
 *
 * Time limits are read against stored deadlines when the state is read (a lost timer changes
 * nothing); the timer set at a quiz's deadline only tells the room sooner.
 */
import { createHmac, randomBytes, randomInt } from 'node:crypto';
import type { Clock } from '../platform/clock.ts';
import {
  alreadyAnswered,
  buzzerTaken,
  DomainError,
  illegalParams,
  nobodyToPick,
  notAllowed,
  toolGone,
  toolTooFast,
} from '../platform/errors.ts';
import { roomMessage, seatMessage, type EventBus } from '../platform/events.ts';
import type { Logger } from '../platform/logger.ts';
import { MemoryRateLimiter } from '../platform/memory-rate-limit.ts';
import {
  QUIZ_LETTERS,
  QUIZ_TALLY_COALESCE_MS,
  TOOL_ACTIONS_PER_SECOND,
  type BuzzerPublic,
  type ClassTools,
  type MyAnswers,
  type PersonAt,
  type PollPublic,
  type PollQuestion,
  type PollTally,
  type QuizPublic,
  type QuizTally,
  type TimerPublic,
} from '../contracts/class-tools.ts';
import type { Role } from '../contracts/room-events.ts';
import type { PollRow, QuizRow, ToolsRepository } from './tools.repository.ts';

export interface ToolsActor {
  room: string;
  uid: string;
  role: Role;
}

interface Presence {
  online(roomNumber: string): Promise<Array<{ userId: string }>>;
}
interface Scheduler {
  after(ms: number, task: () => Promise<void>): void;
}

type ClassRow = { id: string; state: 'open' | 'closed'; create_user: string };
type Letter = (typeof QUIZ_LETTERS)[number];

/** How long a class's or a quiz's row read on a hot path is reused. */
const ROW_TTL_MS = 1000;

const letters = (s: string) => [...s] as Letter[];
const isStudent = (role: Role) => role === 'member' || role === 'tourist';

/** Per room: a coalesced send is pending, and when the last one went. */
interface Coalesce {
  pending: boolean;
  last: number;
}

export class ClassToolsService {
  readonly #repo: ToolsRepository;
  readonly #bus: EventBus;
  readonly #presence: Presence;
  readonly #scheduler: Scheduler;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #limits: MemoryRateLimiter;
  /** Buzzer presses of one room, one after another in the order they arrived at this node. */
  readonly #presses = new Map<string, Promise<unknown>>();
  /** Rounds known won (class id -> round): later presses of it are answered without the database. */
  readonly #won = new Map<string, number>();
  readonly #quizSends = new Map<string, Coalesce>();
  readonly #rooms = new Map<string, { row: ClassRow; at: number }>();
  readonly #quizzes = new Map<string, { row: QuizRow; at: number }>();
  readonly #pollSends = new Map<string, Coalesce>();
  /** Per-step server times of the answers of this process (the 300-student test prints them). */
  readonly timings = { answers: 0, answerMs: 0, tallies: 0, tallyMs: 0 };

  constructor(d: { repo: ToolsRepository; bus: EventBus; presence: Presence; scheduler: Scheduler; clock: Clock; logger: Logger }) {
    this.#repo = d.repo;
    this.#bus = d.bus;
    this.#presence = d.presence;
    this.#scheduler = d.scheduler;
    this.#clock = d.clock;
    this.#logger = d.logger;
    this.#limits = new MemoryRateLimiter(() => d.clock.now().getTime());
  }

  // --- who may ---

  #creator(actor: ToolsActor): void {
    if (actor.role !== 'creator') throw notAllowed(`class tools: ${actor.role} is not the creator`);
  }

  #student(actor: ToolsActor, kind: 'answer' | 'press'): void {
    if (!isStudent(actor.role)) throw notAllowed(`class tools: ${actor.role} cannot ${kind}`);
    if (!this.#limits.hit(`${kind}:${actor.room}:${actor.uid}`, TOOL_ACTIONS_PER_SECOND, 1000)) throw toolTooFast();
  }

  /**
   * The room's current class, open. Reused for a second on the hot paths (answers, presses): its
   * id and creator never change, and every write that a closed class must refuse checks the
   * room's state itself.
   */
  async #class(actor: ToolsActor, hot = false): Promise<ClassRow> {
    const now = Date.now();
    const cached = hot ? this.#rooms.get(actor.room) : undefined;
    const room = cached && now - cached.at < ROW_TTL_MS ? cached.row : await this.#repo.room(actor.room);
    if (!room) throw notAllowed('no such room');
    if (room.state !== 'open') throw new DomainError('31009');
    if (!cached || cached.row !== room) {
      if (this.#rooms.size > 10_000) this.#rooms.clear();
      this.#rooms.set(actor.room, { row: room, at: now });
    }
    return room;
  }

  /** A quiz's row for an answer's checks, reused for a second (its options never change; the write checks that it is open). */
  async #quizForAnswer(id: string): Promise<QuizRow | undefined> {
    const now = Date.now();
    const cached = this.#quizzes.get(id);
    if (cached && now - cached.at < ROW_TTL_MS) return cached.row;
    const row = await this.#repo.quiz(id);
    if (this.#quizzes.size > 1000) this.#quizzes.clear();
    if (row) this.#quizzes.set(id, { row, at: now });
    return row;
  }

  // --- the state ---

  /** The public state of the class's tools now (a quiz past its deadline is collected here, lazily). */
  async state(roomId: string, roomNumber: string): Promise<ClassTools> {
    const now = this.#clock.now().getTime();
    const row = await this.#repo.row(roomId);
    let expired = false;
    let quiz: QuizPublic | null = null;
    if (row.quiz_id) {
      let q = await this.#repo.quiz(row.quiz_id);
      if (q?.status === 'open' && q.ends_at && q.ends_at.getTime() <= now) {
        q = (await this.#repo.setQuizStatus(q.id, ['open'], 'collected')) ?? (await this.#repo.quiz(q.id));
        expired = true;
      }
      if (q) quiz = await this.#quizPublic(q);
    }
    let poll: PollPublic | null = null;
    if (row.poll_id) {
      const p = await this.#repo.poll(row.poll_id);
      if (p) poll = await this.#pollPublic(p);
    }
    const timer: TimerPublic | null = row.timer_kind
      ? {
          kind: row.timer_kind,
          running: row.timer_running,
          durationMs: row.timer_duration_ms,
          elapsedMs: row.timer_elapsed_ms,
          startedAt: row.timer_running && row.timer_started_at ? row.timer_started_at.getTime() : 0,
        }
      : null;
    const ids = [row.buzzer_winner, row.pick_user].filter((x): x is string => !!x);
    const names = new Map((await this.#repo.userNames(ids)).map((u) => [u.id, u.name]));
    const buzzer: BuzzerPublic | null = row.buzzer_status
      ? {
          round: row.buzzer_round,
          status: row.buzzer_status,
          winner: row.buzzer_winner
            ? { userId: row.buzzer_winner, name: names.get(row.buzzer_winner) ?? '', at: row.buzzer_won_at?.getTime() ?? 0 }
            : null,
        }
      : null;
    const pick: PersonAt | null = row.pick_user
      ? { userId: row.pick_user, name: names.get(row.pick_user) ?? '', at: row.pick_at?.getTime() ?? 0 }
      : null;
    const rewards: Record<string, number> = {};
    for (const r of await this.#repo.rewards(roomId)) rewards[r.user_id] = r.count;
    const tools: ClassTools = { quiz, poll, timer, buzzer, pick, rewards };
    if (expired) this.#emit(roomNumber, tools);
    return tools;
  }

  async #quizPublic(q: QuizRow): Promise<QuizPublic> {
    const base = {
      id: q.id,
      options: q.options,
      multiple: q.multiple,
      status: q.status,
      startedAt: q.started_at.getTime(),
      endsAt: q.ends_at?.getTime() ?? 0,
      showOwn: q.show_own,
    };
    if (q.status !== 'published') return { ...base, answered: await this.#repo.countAnswers(q.id), result: null };
    const t = await this.#tally(q);
    return { ...base, answered: t.answered, result: { tally: t.tally, correct: letters(q.correct), answered: t.answered, right: t.right } };
  }

  async #tally(q: QuizRow): Promise<QuizTally & { right: number }> {
    const rows = await this.#repo.quizAnswers(q.id);
    const tally = Array.from({ length: q.options }, () => 0);
    let right = 0;
    const answers = rows.map((r) => {
      for (const l of r.choice) {
        const i = QUIZ_LETTERS.indexOf(l as Letter);
        if (i >= 0 && i < tally.length) tally[i]! += 1;
      }
      const ok = r.choice === q.correct;
      if (ok) right += 1;
      return { userId: r.user_id, name: r.name, choice: letters(r.choice), right: ok };
    });
    return { id: q.id, tally, answered: rows.length, answers, accuracy: rows.length ? right / rows.length : 0, right };
  }

  async #pollPublic(p: PollRow): Promise<PollPublic> {
    const questions = p.questions as PollQuestion[];
    return {
      id: p.id,
      anonymous: p.anonymous,
      status: p.status,
      questions,
      voters: await this.#repo.countBallots(p.id),
      result: p.status === 'published' ? { counts: await this.#counts(p) } : null,
    };
  }

  async #counts(p: PollRow): Promise<number[][]> {
    const counts = (p.questions as PollQuestion[]).map((q) => q.options.map(() => 0));
    for (const c of await this.#repo.pollCounts(p.id)) {
      const row = counts[c.question];
      if (row && c.option < row.length) row[c.option] = c.n;
    }
    return counts;
  }

  #emit(roomNumber: string, tools: ClassTools): void {
    this.#bus.publish(roomMessage(roomNumber, 'tools', { ...tools, serverTime: this.#clock.now().getTime() }));
  }

  async #changed(room: ClassRow, roomNumber: string): Promise<ClassTools> {
    const tools = await this.state(room.id, roomNumber);
    this.#emit(roomNumber, tools);
    return tools;
  }

  /** The join snapshot's part: the state, the creator's live tallies, a student's own answers. */
  async snapshot(actor: ToolsActor): Promise<{
    tools: ClassTools;
    toolsPrivate: QuizTally | null;
    pollPrivate: PollTally | null;
    myAnswers: MyAnswers | null;
  }> {
    const room = await this.#class(actor);
    const tools = await this.state(room.id, actor.room);
    let toolsPrivate: QuizTally | null = null;
    let pollPrivate: PollTally | null = null;
    let myAnswers: MyAnswers | null = null;
    if (actor.role === 'creator') {
      if (tools.quiz) {
        const q = await this.#repo.quiz(tools.quiz.id);
        if (q) toolsPrivate = this.#tallyOnly(await this.#tally(q));
      }
      if (tools.poll) {
        const p = await this.#repo.poll(tools.poll.id);
        if (p) pollPrivate = { id: p.id, counts: await this.#counts(p), voters: tools.poll.voters };
      }
    } else if (isStudent(actor.role)) {
      myAnswers = { quiz: null, poll: null, pollVoted: false };
      if (tools.quiz) {
        const a = await this.#repo.quizAnswerOf(tools.quiz.id, actor.uid);
        myAnswers.quiz = a ? letters(a.choice) : null;
      }
      if (tools.poll) {
        const p = await this.#repo.poll(tools.poll.id);
        const voter = p ? this.#voter(p, actor.uid) : null;
        const ballot = p && voter ? await this.#repo.ballotOf(p.id, voter) : undefined;
        myAnswers.pollVoted = !!ballot;
        myAnswers.poll = ballot?.answers ? (ballot.answers as number[][]) : null;
      }
    }
    return { tools, toolsPrivate, pollPrivate, myAnswers };
  }

  #tallyOnly(t: QuizTally & { right: number }): QuizTally {
    const { right: _right, ...tally } = t;
    return tally;
  }

  // --- coalesced sends after answers and votes ---

  /** At most one send per QUIZ_TALLY_COALESCE_MS per room, and always one after the last change. */
  #coalesced(map: Map<string, Coalesce>, key: string, send: () => Promise<void>): void {
    const c = map.get(key) ?? { pending: false, last: 0 };
    map.set(key, c);
    if (c.pending) return;
    c.pending = true;
    const wait = Math.max(0, c.last + QUIZ_TALLY_COALESCE_MS - Date.now());
    const go = async () => {
      // Cleared before reading: a change committed during this read schedules the next send.
      c.pending = false;
      c.last = Date.now();
      try {
        await send();
      } catch (err) {
        this.#logger.warn({ err, room: key }, 'class tools: coalesced send failed');
      }
    };
    if (wait === 0) queueMicrotask(() => void go());
    else this.#scheduler.after(wait, go);
  }

  #quizChanged(room: ClassRow, roomNumber: string, quizId: string): void {
    this.#coalesced(this.#quizSends, roomNumber, async () => {
      const started = performance.now();
      const tools = await this.#changed(room, roomNumber);
      // A quiz started meanwhile has sent its own; the teacher's view is of the quiz on the screens.
      if (tools.quiz?.id === quizId) await this.#sendQuizTally(room, roomNumber, quizId);
      this.timings.tallies += 1;
      this.timings.tallyMs += performance.now() - started;
    });
  }

  async #sendQuizTally(room: ClassRow, roomNumber: string, quizId: string): Promise<void> {
    const q = await this.#repo.quiz(quizId);
    if (!q) return;
    this.#bus.publish(seatMessage(roomNumber, room.create_user, 'quizTally', this.#tallyOnly(await this.#tally(q))));
  }

  #pollChanged(room: ClassRow, roomNumber: string, pollId: string): void {
    this.#coalesced(this.#pollSends, roomNumber, async () => {
      const tools = await this.#changed(room, roomNumber);
      if (tools.poll?.id === pollId) await this.#sendPollTally(room, roomNumber, pollId);
    });
  }

  async #sendPollTally(room: ClassRow, roomNumber: string, pollId: string): Promise<void> {
    const p = await this.#repo.poll(pollId);
    if (!p) return;
    const tally: PollTally = { id: p.id, counts: await this.#counts(p), voters: await this.#repo.countBallots(p.id) };
    this.#bus.publish(seatMessage(roomNumber, room.create_user, 'pollTally', tally));
  }

  // --- quiz ---

  async quizStart(
    actor: ToolsActor,
    p: { options: number; multiple: boolean; correct: Letter[]; limitSeconds: number; showOwn: boolean },
  ): Promise<QuizPublic> {
    this.#creator(actor);
    const room = await this.#class(actor);
    const row = await this.#repo.row(room.id);
    // A new quiz ends the one before it (its answers stay with the class).
    if (row.quiz_id) await this.#repo.setQuizStatus(row.quiz_id, ['open'], 'collected');
    const now = this.#clock.now();
    const id = randomBytes(9).toString('base64url');
    const correct = QUIZ_LETTERS.filter((l) => p.correct.includes(l)).join('');
    await this.#repo.startQuiz({
      id,
      roomId: room.id,
      options: p.options,
      multiple: p.multiple,
      correct,
      showOwn: p.showOwn,
      startedAt: now,
      endsAt: p.limitSeconds ? new Date(now.getTime() + p.limitSeconds * 1000) : null,
    });
    // A nudge only: the deadline is read lazily from the row.
    if (p.limitSeconds) this.#scheduler.after(p.limitSeconds * 1000 + 50, () => this.state(room.id, actor.room).then(() => undefined));
    const tools = await this.#changed(room, actor.room);
    await this.#sendQuizTally(room, actor.room, id);
    return tools.quiz!;
  }

  async quizAnswer(actor: ToolsActor, p: { id: string; choice: Letter[] }): Promise<{ choice: Letter[] }> {
    this.#student(actor, 'answer');
    const started = performance.now();
    const room = await this.#class(actor, true);
    const q = await this.#quizForAnswer(p.id);
    const now = this.#clock.now();
    if (!q || q.room_id !== room.id || q.status !== 'open' || (q.ends_at && q.ends_at.getTime() <= now.getTime())) throw toolGone('quiz');
    if (p.choice.some((l) => QUIZ_LETTERS.indexOf(l) >= q.options)) throw illegalParams('letter outside the options');
    if (!q.multiple && p.choice.length !== 1) throw illegalParams('single choice');
    const choice = QUIZ_LETTERS.filter((l) => p.choice.includes(l));
    if (!(await this.#repo.answerQuiz(q.id, actor.uid, choice.join(''), now))) throw toolGone('quiz closed meanwhile');
    this.timings.answers += 1;
    this.timings.answerMs += performance.now() - started;
    this.#quizChanged(room, actor.room, q.id);
    return { choice };
  }

  async #ownQuiz(actor: ToolsActor, id: string): Promise<{ room: ClassRow; quiz: QuizRow }> {
    this.#creator(actor);
    const room = await this.#class(actor);
    const quiz = await this.#repo.quiz(id);
    if (!quiz || quiz.room_id !== room.id) throw toolGone('quiz');
    return { room, quiz };
  }

  async quizCollect(actor: ToolsActor, { id }: { id: string }): Promise<QuizPublic> {
    const { room } = await this.#ownQuiz(actor, id);
    if (!(await this.#repo.setQuizStatus(id, ['open'], 'collected'))) throw toolGone('quiz not open');
    const tools = await this.#changed(room, actor.room);
    await this.#sendQuizTally(room, actor.room, id);
    return tools.quiz?.id === id ? tools.quiz : await this.#quizPublic((await this.#repo.quiz(id))!);
  }

  async quizPublish(actor: ToolsActor, { id }: { id: string }): Promise<QuizPublic> {
    const { room } = await this.#ownQuiz(actor, id);
    if (!(await this.#repo.setQuizStatus(id, ['open', 'collected'], 'published'))) throw toolGone('quiz published');
    const tools = await this.#changed(room, actor.room);
    await this.#sendQuizTally(room, actor.room, id);
    return tools.quiz?.id === id ? tools.quiz : await this.#quizPublic((await this.#repo.quiz(id))!);
  }

  async quizClose(actor: ToolsActor, { id }: { id: string }): Promise<null> {
    const { room } = await this.#ownQuiz(actor, id);
    if (!(await this.#repo.clearCurrent(room.id, 'quiz_id', id))) throw toolGone('quiz not shown');
    await this.#repo.setQuizStatus(id, ['open'], 'collected');
    await this.#changed(room, actor.room);
    return null;
  }

  // --- poll ---

  #voter(p: PollRow, uid: string): string | null {
    if (!p.anonymous) return uid;
    if (!p.voter_key) return null;
    return createHmac('sha256', p.voter_key).update(`${p.id}:${uid}`).digest('base64url');
  }

  async pollStart(actor: ToolsActor, p: { anonymous: boolean; questions: PollQuestion[] }): Promise<PollPublic> {
    this.#creator(actor);
    const room = await this.#class(actor);
    const row = await this.#repo.row(room.id);
    if (row.poll_id) await this.#repo.closePoll(row.poll_id);
    const id = randomBytes(9).toString('base64url');
    await this.#repo.startPoll({
      id,
      roomId: room.id,
      anonymous: p.anonymous,
      questions: p.questions,
      voterKey: p.anonymous ? randomBytes(32).toString('base64url') : null,
      startedAt: this.#clock.now(),
    });
    const tools = await this.#changed(room, actor.room);
    await this.#sendPollTally(room, actor.room, id);
    return tools.poll!;
  }

  async pollVote(actor: ToolsActor, v: { id: string; answers: number[][] }): Promise<{ answers: number[][] }> {
    this.#student(actor, 'answer');
    const room = await this.#class(actor);
    const poll = await this.#repo.poll(v.id);
    if (!poll || poll.room_id !== room.id || poll.status !== 'open') throw toolGone('poll');
    const questions = poll.questions as PollQuestion[];
    if (v.answers.length !== questions.length) throw illegalParams('one answer per question');
    const cells: Array<[number, number]> = [];
    const answers = v.answers.map((a, qi) => {
      const q = questions[qi]!;
      if (a.some((o) => o >= q.options.length)) throw illegalParams('option outside the question');
      if (!q.multiple && a.length !== 1) throw illegalParams('single choice');
      const sorted = [...a].sort((x, y) => x - y);
      for (const o of sorted) cells.push([qi, o]);
      return sorted;
    });
    const voter = this.#voter(poll, actor.uid);
    if (!voter) throw toolGone('poll closed');
    const outcome = await this.#repo.vote(poll.id, voter, poll.anonymous ? null : answers, cells);
    if (outcome === 'closed') throw toolGone('poll closed meanwhile');
    if (outcome === 'again') throw alreadyAnswered();
    this.#pollChanged(room, actor.room, poll.id);
    return { answers };
  }

  async #ownPoll(actor: ToolsActor, id: string): Promise<{ room: ClassRow; poll: PollRow }> {
    this.#creator(actor);
    const room = await this.#class(actor);
    const poll = await this.#repo.poll(id);
    if (!poll || poll.room_id !== room.id) throw toolGone('poll');
    return { room, poll };
  }

  async pollClose(actor: ToolsActor, { id }: { id: string }): Promise<PollPublic> {
    const { room } = await this.#ownPoll(actor, id);
    const closed = await this.#repo.closePoll(id);
    if (!closed) throw toolGone('poll not open');
    await this.#changed(room, actor.room);
    await this.#sendPollTally(room, actor.room, id);
    return this.#pollPublic(closed);
  }

  async pollPublish(actor: ToolsActor, { id }: { id: string }): Promise<PollPublic> {
    const { room } = await this.#ownPoll(actor, id);
    const published = await this.#repo.publishPoll(id);
    if (!published) throw toolGone('poll published');
    await this.#changed(room, actor.room);
    return this.#pollPublic(published);
  }

  async pollDismiss(actor: ToolsActor, { id }: { id: string }): Promise<null> {
    const { room } = await this.#ownPoll(actor, id);
    if (!(await this.#repo.clearCurrent(room.id, 'poll_id', id))) throw toolGone('poll not shown');
    await this.#repo.closePoll(id);
    await this.#changed(room, actor.room);
    return null;
  }

  // --- timer ---

  async timerSet(actor: ToolsActor, p: { kind: 'countdown' | 'stopwatch'; durationMs: number }): Promise<TimerPublic> {
    this.#creator(actor);
    if (p.kind === 'countdown' && p.durationMs < 1000) throw illegalParams('a countdown of at least 1 s');
    const room = await this.#class(actor);
    await this.#repo.update(room.id, {
      timer_kind: p.kind,
      timer_running: false,
      timer_duration_ms: p.kind === 'countdown' ? p.durationMs : 0,
      timer_elapsed_ms: 0,
      timer_started_at: null,
    });
    return (await this.#changed(room, actor.room)).timer!;
  }

  async #timer(actor: ToolsActor): Promise<{ room: ClassRow; row: Awaited<ReturnType<ToolsRepository['row']>> }> {
    this.#creator(actor);
    const room = await this.#class(actor);
    const row = await this.#repo.row(room.id);
    if (!row.timer_kind) throw toolGone('no timer');
    return { room, row };
  }

  async timerStart(actor: ToolsActor): Promise<TimerPublic> {
    const { room, row } = await this.#timer(actor);
    if (row.timer_running) throw toolGone('timer running');
    if (row.timer_kind === 'countdown' && row.timer_elapsed_ms >= row.timer_duration_ms) throw toolGone('countdown at zero');
    await this.#repo.update(room.id, { timer_running: true, timer_started_at: this.#clock.now() });
    return (await this.#changed(room, actor.room)).timer!;
  }

  async timerPause(actor: ToolsActor): Promise<TimerPublic> {
    const { room, row } = await this.#timer(actor);
    if (!row.timer_running || !row.timer_started_at) throw toolGone('timer not running');
    let elapsed = row.timer_elapsed_ms + Math.max(0, this.#clock.now().getTime() - row.timer_started_at.getTime());
    if (row.timer_kind === 'countdown') elapsed = Math.min(elapsed, row.timer_duration_ms);
    await this.#repo.update(room.id, { timer_running: false, timer_started_at: null, timer_elapsed_ms: Math.round(elapsed) });
    return (await this.#changed(room, actor.room)).timer!;
  }

  async timerReset(actor: ToolsActor): Promise<TimerPublic> {
    const { room } = await this.#timer(actor);
    await this.#repo.update(room.id, { timer_running: false, timer_started_at: null, timer_elapsed_ms: 0 });
    return (await this.#changed(room, actor.room)).timer!;
  }

  async timerClear(actor: ToolsActor): Promise<null> {
    const { room } = await this.#timer(actor);
    await this.#repo.update(room.id, {
      timer_kind: null,
      timer_running: false,
      timer_started_at: null,
      timer_elapsed_ms: 0,
      timer_duration_ms: 0,
    });
    await this.#changed(room, actor.room);
    return null;
  }

  // --- buzzer ---

  async buzzerOpen(actor: ToolsActor): Promise<BuzzerPublic> {
    this.#creator(actor);
    const room = await this.#class(actor);
    await this.#repo.openBuzzer(room.id);
    return (await this.#changed(room, actor.room)).buzzer!;
  }

  /**
   * The first press of the round to reach the server wins: presses of a room run one after another
   * in the order they arrived here (queued before anything is awaited), and the win is one
   * conditional write, so a press on another node cannot win the same round too.
   */
  buzzerPress(actor: ToolsActor, { round }: { round: number }): Promise<BuzzerPublic> {
    this.#student(actor, 'press');
    const at = this.#clock.now();
    const prev = this.#presses.get(actor.room) ?? Promise.resolve();
    const mine = prev.then(
      () => this.#press(actor, round, at),
      () => this.#press(actor, round, at),
    );
    const tail = mine.catch(() => undefined);
    this.#presses.set(actor.room, tail);
    void tail.then(() => {
      if (this.#presses.get(actor.room) === tail) this.#presses.delete(actor.room);
    });
    return mine;
  }

  async #press(actor: ToolsActor, round: number, at: Date): Promise<BuzzerPublic> {
    const room = await this.#class(actor, true);
    if (this.#won.get(room.id) === round) throw buzzerTaken();
    if (await this.#repo.pressBuzzer(room.id, round, actor.uid, at)) {
      if (this.#won.size > 10_000) this.#won.clear();
      this.#won.set(room.id, round);
      return (await this.#changed(room, actor.room)).buzzer!;
    }
    const row = await this.#repo.row(room.id);
    if (row.buzzer_round === round && row.buzzer_status === 'won') {
      this.#won.set(room.id, round);
      throw buzzerTaken();
    }
    throw toolGone('buzzer round');
  }

  async buzzerClose(actor: ToolsActor): Promise<null> {
    this.#creator(actor);
    const room = await this.#class(actor);
    const row = await this.#repo.row(room.id);
    if (!row.buzzer_status) throw toolGone('no buzzer');
    await this.#repo.update(room.id, { buzzer_status: null, buzzer_winner: null, buzzer_won_at: null });
    await this.#changed(room, actor.room);
    return null;
  }

  // --- random pick ---

  /** Uniform among the students (member, tourist) seated and online now. */
  async pickRandom(actor: ToolsActor): Promise<PersonAt> {
    this.#creator(actor);
    const room = await this.#class(actor);
    const [online, seated] = await Promise.all([this.#presence.online(actor.room), this.#repo.students(room.id)]);
    const here = new Set(online.map((o) => o.userId));
    const students = seated.filter((s) => here.has(s.user_id) && s.user_id !== room.create_user);
    if (students.length === 0) throw nobodyToPick();
    const chosen = students[randomInt(students.length)]!;
    const at = this.#clock.now();
    await this.#repo.update(room.id, { pick_user: chosen.user_id, pick_at: at });
    await this.#changed(room, actor.room);
    return { userId: chosen.user_id, name: chosen.name, at: at.getTime() };
  }

  // --- rewards ---

  async reward(actor: ToolsActor, p: { userIds: string[] } | { quizRight: string }): Promise<{ rewards: Record<string, number> }> {
    this.#creator(actor);
    const room = await this.#class(actor);
    let winners: Array<{ userId: string; name: string }>;
    if ('userIds' in p) {
      const students = new Map((await this.#repo.students(room.id)).map((s) => [s.user_id, s.name]));
      const ids = [...new Set(p.userIds)];
      if (ids.some((id) => !students.has(id) || id === room.create_user)) throw illegalParams('not a student of this class');
      winners = ids.map((userId) => ({ userId, name: students.get(userId)! }));
    } else {
      const quiz = await this.#repo.quiz(p.quizRight);
      if (!quiz || quiz.room_id !== room.id || quiz.status === 'open') throw toolGone('quiz not collected');
      if (!(await this.#repo.markQuizRewarded(quiz.id, this.#clock.now()))) throw toolGone('quiz already rewarded');
      winners = (await this.#tally(quiz)).answers.filter((a) => a.right).map((a) => ({ userId: a.userId, name: a.name }));
    }
    await this.#repo.addRewards(
      room.id,
      winners.map((w) => w.userId),
    );
    const tools = await this.#changed(room, actor.room);
    this.#bus.publish(
      roomMessage(actor.room, 'rewarded', {
        userIds: winners.map((w) => w.userId),
        names: winners.map((w) => w.name),
        by: actor.uid,
        at: this.#clock.now().getTime(),
      }),
    );
    return { rewards: tools.rewards };
  }
}
