/**
 * The poll of the class tools (issue 30, ADR 113): the creator starts, closes, publishes and
 * dismisses it; students vote once, by name or anonymously (a keyed hash stands for the voter).
 * The live counts go to the creator's own connections alone (`pollTally`), coalesced.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { alreadyAnswered, illegalParams, toolGone } from '../platform/errors.ts';
import { seatMessage } from '../platform/events.ts';
import type { PollPublic, PollQuestion, PollTally } from '../contracts/class-tools.ts';
import type { ClassRow, Coalesce, ToolsActor, ToolsCore } from './tools-core.ts';
import type { PollRow, ToolsRepository } from './tools.repository.ts';

/** The poll as the room sees it: how many voted, and the counts once published. */
export async function pollPublic(repo: ToolsRepository, p: PollRow): Promise<PollPublic> {
  const questions = p.questions as PollQuestion[];
  return {
    id: p.id,
    anonymous: p.anonymous,
    status: p.status,
    questions,
    voters: await repo.countBallots(p.id),
    result: p.status === 'published' ? { counts: await pollCounts(repo, p) } : null,
  };
}

export async function pollCounts(repo: ToolsRepository, p: PollRow): Promise<number[][]> {
  const counts = (p.questions as PollQuestion[]).map((q) => q.options.map(() => 0));
  for (const c of await repo.pollCounts(p.id)) {
    const row = counts[c.question];
    if (row && c.option < row.length) row[c.option] = c.n;
  }
  return counts;
}

/** Who a ballot is kept under: the user, or for an anonymous poll a hash keyed by the poll's secret. */
export function voterOf(p: PollRow, uid: string): string | null {
  if (!p.anonymous) return uid;
  if (!p.voter_key) return null;
  return createHmac('sha256', p.voter_key).update(`${p.id}:${uid}`).digest('base64url');
}

export class PollTools {
  readonly #core: ToolsCore;
  readonly #pollSends = new Map<string, Coalesce>();

  constructor(core: ToolsCore) {
    this.#core = core;
  }

  #pollChanged(room: ClassRow, roomNumber: string, pollId: string): void {
    this.#core.coalesced(this.#pollSends, roomNumber, async () => {
      const tools = await this.#core.changed(room, roomNumber);
      if (tools.poll?.id === pollId) await this.#sendPollTally(room, roomNumber, pollId);
    });
  }

  async #sendPollTally(room: ClassRow, roomNumber: string, pollId: string): Promise<void> {
    const p = await this.#core.repo.poll(pollId);
    if (!p) return;
    const tally: PollTally = { id: p.id, counts: await pollCounts(this.#core.repo, p), voters: await this.#core.repo.countBallots(p.id) };
    this.#core.bus.publish(seatMessage(roomNumber, room.create_user, 'pollTally', tally));
  }

  async pollStart(actor: ToolsActor, p: { anonymous: boolean; questions: PollQuestion[] }): Promise<PollPublic> {
    this.#core.onlyCreator(actor);
    const room = await this.#core.openClass(actor);
    const row = await this.#core.repo.row(room.id);
    if (row.poll_id) await this.#core.repo.closePoll(row.poll_id);
    const id = randomBytes(9).toString('base64url');
    await this.#core.repo.startPoll({
      id,
      roomId: room.id,
      anonymous: p.anonymous,
      questions: p.questions,
      voterKey: p.anonymous ? randomBytes(32).toString('base64url') : null,
      startedAt: this.#core.clock.now(),
    });
    const tools = await this.#core.changed(room, actor.room);
    await this.#sendPollTally(room, actor.room, id);
    return tools.poll!;
  }

  async pollVote(actor: ToolsActor, v: { id: string; answers: number[][] }): Promise<{ answers: number[][] }> {
    this.#core.onlyStudent(actor, 'answer');
    const room = await this.#core.openClass(actor);
    const poll = await this.#core.repo.poll(v.id);
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
    const voter = voterOf(poll, actor.uid);
    if (!voter) throw toolGone('poll closed');
    const outcome = await this.#core.repo.vote(poll.id, voter, poll.anonymous ? null : answers, cells);
    if (outcome === 'closed') throw toolGone('poll closed meanwhile');
    if (outcome === 'again') throw alreadyAnswered();
    this.#pollChanged(room, actor.room, poll.id);
    return { answers };
  }

  async #ownPoll(actor: ToolsActor, id: string): Promise<{ room: ClassRow; poll: PollRow }> {
    this.#core.onlyCreator(actor);
    const room = await this.#core.openClass(actor);
    const poll = await this.#core.repo.poll(id);
    if (!poll || poll.room_id !== room.id) throw toolGone('poll');
    return { room, poll };
  }

  async pollClose(actor: ToolsActor, { id }: { id: string }): Promise<PollPublic> {
    const { room } = await this.#ownPoll(actor, id);
    const closed = await this.#core.repo.closePoll(id);
    if (!closed) throw toolGone('poll not open');
    await this.#core.changed(room, actor.room);
    await this.#sendPollTally(room, actor.room, id);
    return pollPublic(this.#core.repo, closed);
  }

  async pollPublish(actor: ToolsActor, { id }: { id: string }): Promise<PollPublic> {
    const { room } = await this.#ownPoll(actor, id);
    const published = await this.#core.repo.publishPoll(id);
    if (!published) throw toolGone('poll published');
    await this.#core.changed(room, actor.room);
    return pollPublic(this.#core.repo, published);
  }

  async pollDismiss(actor: ToolsActor, { id }: { id: string }): Promise<null> {
    const { room } = await this.#ownPoll(actor, id);
    if (!(await this.#core.repo.clearCurrent(room.id, 'poll_id', id))) throw toolGone('poll not shown');
    await this.#core.repo.closePoll(id);
    await this.#core.changed(room, actor.room);
    return null;
  }
}
