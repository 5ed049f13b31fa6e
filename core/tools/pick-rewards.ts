/**
 * The random pick and the rewards of the class tools (issue 30, ADR 113): the creator picks a
 * student at random among those here, and rewards chosen students or those who answered a
 * collected quiz right (once per quiz).
 */
import { randomInt } from 'node:crypto';
import { illegalParams, nobodyToPick, toolGone } from '../platform/errors.ts';
import { roomMessage } from '../platform/events.ts';
import type { PersonAt } from '../contracts/class-tools.ts';
import { quizTally } from './quiz.ts';
import type { ToolsActor, ToolsCore } from './tools-core.ts';

export class PickAndRewards {
  readonly #core: ToolsCore;

  constructor(core: ToolsCore) {
    this.#core = core;
  }

  // --- random pick ---

  /** Uniform among the students (member, tourist) seated and online now. */
  async pickRandom(actor: ToolsActor): Promise<PersonAt> {
    this.#core.onlyCreator(actor);
    const room = await this.#core.openClass(actor);
    const [online, seated] = await Promise.all([this.#core.presence.online(actor.room), this.#core.repo.students(room.id)]);
    const here = new Set(online.map((o) => o.userId));
    const students = seated.filter((s) => here.has(s.user_id) && s.user_id !== room.create_user);
    if (students.length === 0) throw nobodyToPick();
    const chosen = students[randomInt(students.length)]!;
    const at = this.#core.clock.now();
    await this.#core.repo.update(room.id, { pick_user: chosen.user_id, pick_at: at });
    await this.#core.changed(room, actor.room);
    return { userId: chosen.user_id, name: chosen.name, at: at.getTime() };
  }

  // --- rewards ---

  async reward(actor: ToolsActor, p: { userIds: string[] } | { quizRight: string }): Promise<{ rewards: Record<string, number> }> {
    this.#core.onlyCreator(actor);
    const room = await this.#core.openClass(actor);
    let winners: Array<{ userId: string; name: string }>;
    if ('userIds' in p) {
      const students = new Map((await this.#core.repo.students(room.id)).map((s) => [s.user_id, s.name]));
      const ids = [...new Set(p.userIds)];
      if (ids.some((id) => !students.has(id) || id === room.create_user)) throw illegalParams('not a student of this class');
      winners = ids.map((userId) => ({ userId, name: students.get(userId)! }));
    } else {
      const quiz = await this.#core.repo.quiz(p.quizRight);
      if (!quiz || quiz.room_id !== room.id || quiz.status === 'open') throw toolGone('quiz not collected');
      if (!(await this.#core.repo.markQuizRewarded(quiz.id, this.#core.clock.now()))) throw toolGone('quiz already rewarded');
      winners = (await quizTally(this.#core.repo, quiz)).answers.filter((a) => a.right).map((a) => ({ userId: a.userId, name: a.name }));
    }
    await this.#core.repo.addRewards(
      room.id,
      winners.map((w) => w.userId),
    );
    const tools = await this.#core.changed(room, actor.room);
    this.#core.bus.publish(
      roomMessage(actor.room, 'rewarded', {
        userIds: winners.map((w) => w.userId),
        names: winners.map((w) => w.name),
        by: actor.uid,
        at: this.#core.clock.now().getTime(),
      }),
    );
    return { rewards: tools.rewards };
  }
}
