/**
 * The answer sheet (quiz) of the class tools (issue 30, ADR 113): the creator starts, collects,
 * publishes and closes it; students answer once, before its deadline. Who answered what goes to
 * the creator's own connections alone (`quizTally`), coalesced.
 */
import { randomBytes } from 'node:crypto';
import { illegalParams, toolGone } from '../platform/errors.ts';
import { seatMessage } from '../platform/events.ts';
import { QUIZ_LETTERS, type QuizPublic, type QuizTally } from '../contracts/class-tools.ts';
import type { ClassRow, Coalesce, ToolsActor, ToolsCore } from './tools-core.ts';
import type { QuizRow, ToolsRepository } from './tools.repository.ts';

export type Letter = (typeof QUIZ_LETTERS)[number];

export const letters = (s: string) => [...s] as Letter[];

/** The quiz as the room sees it: how many answered, and the result once published. */
export async function quizPublic(repo: ToolsRepository, q: QuizRow): Promise<QuizPublic> {
  const base = {
    id: q.id,
    options: q.options,
    multiple: q.multiple,
    status: q.status,
    startedAt: q.started_at.getTime(),
    endsAt: q.ends_at?.getTime() ?? 0,
    showOwn: q.show_own,
  };
  if (q.status !== 'published') return { ...base, answered: await repo.countAnswers(q.id), result: null };
  const t = await quizTally(repo, q);
  return { ...base, answered: t.answered, result: { tally: t.tally, correct: letters(q.correct), answered: t.answered, right: t.right } };
}

export async function quizTally(repo: ToolsRepository, q: QuizRow): Promise<QuizTally & { right: number }> {
  const rows = await repo.quizAnswers(q.id);
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
  return {
    id: q.id,
    tally,
    answered: rows.length,
    answers,
    accuracy: rows.length ? right / rows.length : 0,
    correct: letters(q.correct),
    right,
  };
}

export function tallyOnly(t: QuizTally & { right: number }): QuizTally {
  const { right: _right, ...tally } = t;
  return tally;
}

export class QuizTools {
  readonly #core: ToolsCore;
  readonly #quizSends = new Map<string, Coalesce>();
  /** Per-step server times of the answers of this process (the 300-student test prints them). */
  readonly timings = { answers: 0, answerMs: 0, tallies: 0, tallyMs: 0 };

  constructor(core: ToolsCore) {
    this.#core = core;
  }

  #quizChanged(room: ClassRow, roomNumber: string, quizId: string): void {
    this.#core.coalesced(this.#quizSends, roomNumber, async () => {
      const started = performance.now();
      const tools = await this.#core.changed(room, roomNumber);
      // A quiz started meanwhile has sent its own; the teacher's view is of the quiz on the screens.
      if (tools.quiz?.id === quizId) await this.#sendQuizTally(room, roomNumber, quizId);
      this.timings.tallies += 1;
      this.timings.tallyMs += performance.now() - started;
    });
  }

  async #sendQuizTally(room: ClassRow, roomNumber: string, quizId: string): Promise<void> {
    const q = await this.#core.repo.quiz(quizId);
    if (!q) return;
    this.#core.bus.publish(seatMessage(roomNumber, room.create_user, 'quizTally', tallyOnly(await quizTally(this.#core.repo, q))));
  }

  async quizStart(
    actor: ToolsActor,
    p: { options: number; multiple: boolean; correct: Letter[]; limitSeconds: number; showOwn: boolean },
  ): Promise<QuizPublic> {
    this.#core.onlyCreator(actor);
    const room = await this.#core.openClass(actor);
    const row = await this.#core.repo.row(room.id);
    // A new quiz ends the one before it (its answers stay with the class).
    if (row.quiz_id) await this.#core.repo.setQuizStatus(row.quiz_id, ['open'], 'collected');
    const now = this.#core.clock.now();
    const id = randomBytes(9).toString('base64url');
    const correct = QUIZ_LETTERS.filter((l) => p.correct.includes(l)).join('');
    await this.#core.repo.startQuiz({
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
    if (p.limitSeconds)
      this.#core.scheduler.after(p.limitSeconds * 1000 + 50, () => this.#core.state(room.id, actor.room).then(() => undefined));
    const tools = await this.#core.changed(room, actor.room);
    await this.#sendQuizTally(room, actor.room, id);
    return tools.quiz!;
  }

  async quizAnswer(actor: ToolsActor, p: { id: string; choice: Letter[] }): Promise<{ choice: Letter[] }> {
    this.#core.onlyStudent(actor, 'answer');
    const started = performance.now();
    const room = await this.#core.openClass(actor, true);
    const q = await this.#core.quizForAnswer(p.id);
    const now = this.#core.clock.now();
    if (!q || q.room_id !== room.id || q.status !== 'open' || (q.ends_at && q.ends_at.getTime() <= now.getTime())) throw toolGone('quiz');
    if (p.choice.some((l) => QUIZ_LETTERS.indexOf(l) >= q.options)) throw illegalParams('letter outside the options');
    if (!q.multiple && p.choice.length !== 1) throw illegalParams('single choice');
    const choice = QUIZ_LETTERS.filter((l) => p.choice.includes(l));
    if (!(await this.#core.repo.answerQuiz(q.id, actor.uid, choice.join(''), now))) throw toolGone('quiz closed meanwhile');
    this.timings.answers += 1;
    this.timings.answerMs += performance.now() - started;
    this.#quizChanged(room, actor.room, q.id);
    return { choice };
  }

  async #ownQuiz(actor: ToolsActor, id: string): Promise<{ room: ClassRow; quiz: QuizRow }> {
    this.#core.onlyCreator(actor);
    const room = await this.#core.openClass(actor);
    const quiz = await this.#core.repo.quiz(id);
    if (!quiz || quiz.room_id !== room.id) throw toolGone('quiz');
    return { room, quiz };
  }

  async quizCollect(actor: ToolsActor, { id }: { id: string }): Promise<QuizPublic> {
    const { room } = await this.#ownQuiz(actor, id);
    if (!(await this.#core.repo.setQuizStatus(id, ['open'], 'collected'))) throw toolGone('quiz not open');
    const tools = await this.#core.changed(room, actor.room);
    await this.#sendQuizTally(room, actor.room, id);
    return tools.quiz?.id === id ? tools.quiz : await quizPublic(this.#core.repo, (await this.#core.repo.quiz(id))!);
  }

  async quizPublish(actor: ToolsActor, { id }: { id: string }): Promise<QuizPublic> {
    const { room } = await this.#ownQuiz(actor, id);
    if (!(await this.#core.repo.setQuizStatus(id, ['open', 'collected'], 'published'))) throw toolGone('quiz published');
    const tools = await this.#core.changed(room, actor.room);
    await this.#sendQuizTally(room, actor.room, id);
    return tools.quiz?.id === id ? tools.quiz : await quizPublic(this.#core.repo, (await this.#core.repo.quiz(id))!);
  }

  async quizClose(actor: ToolsActor, { id }: { id: string }): Promise<null> {
    const { room } = await this.#ownQuiz(actor, id);
    if (!(await this.#core.repo.clearCurrent(room.id, 'quiz_id', id))) throw toolGone('quiz not shown');
    await this.#core.repo.setQuizStatus(id, ['open'], 'collected');
    await this.#core.changed(room, actor.room);
    return null;
  }
}
