import { sql } from 'kysely';
import type { Database } from '../platform/db/database.ts';
import type { ClassToolsTable } from '../platform/db/schema.ts';
import type { Updateable } from 'kysely';

export type ToolsRow = Awaited<ReturnType<ToolsRepository['row']>>;
export type QuizRow = NonNullable<Awaited<ReturnType<ToolsRepository['quiz']>>>;
export type PollRow = NonNullable<Awaited<ReturnType<ToolsRepository['poll']>>>;

/**
 * The class tools' tables (migration 0016, ADR 113). Every move that others may race is one
 * conditional write here: an answer counts only while its quiz is open, a ballot once per voter,
 * the buzzer's round is won once.
 */
export class ToolsRepository {
  private readonly db: Database;
  constructor(db: Database) {
    this.db = db;
  }

  /** The room's current class (open or closed): its id, state and creator. */
  room(roomNumber: string) {
    return this.db
      .selectFrom('rooms')
      .select(['id', 'state', 'create_user'])
      .where('room_number', '=', roomNumber)
      .orderBy('created_at', 'desc')
      .limit(1)
      .executeTakeFirst();
  }

  /** The class's tools row (made on first use). */
  async row(roomId: string) {
    const found = await this.db.selectFrom('class_tools').selectAll().where('room_id', '=', roomId).executeTakeFirst();
    if (found) return found;
    await this.db
      .insertInto('class_tools')
      .values({ room_id: roomId })
      .onConflict((oc) => oc.column('room_id').doNothing())
      .execute();
    return this.db.selectFrom('class_tools').selectAll().where('room_id', '=', roomId).executeTakeFirstOrThrow();
  }

  async update(roomId: string, set: Updateable<ClassToolsTable>): Promise<void> {
    await this.row(roomId);
    await this.db.updateTable('class_tools').set(set).where('room_id', '=', roomId).execute();
  }

  userNames(ids: string[]) {
    if (ids.length === 0) return Promise.resolve([]);
    return this.db.selectFrom('users').select(['id', 'name']).where('id', 'in', ids).execute();
  }

  /** Students (member, tourist) seated in the class now, with names. */
  students(roomId: string) {
    return this.db
      .selectFrom('room_members')
      .innerJoin('users', 'users.id', 'room_members.user_id')
      .select(['room_members.user_id', 'users.name'])
      .where('room_members.room_id', '=', roomId)
      .where('room_members.left_at', 'is', null)
      .where('room_members.kicked_at', 'is', null)
      .where('room_members.role', 'in', ['member', 'tourist'])
      .execute();
  }

  // --- quiz ---

  async startQuiz(q: {
    id: string;
    roomId: string;
    options: number;
    multiple: boolean;
    correct: string;
    showOwn: boolean;
    startedAt: Date;
    endsAt: Date | null;
  }): Promise<void> {
    await this.row(q.roomId);
    await this.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('quizzes')
        .values({
          id: q.id,
          room_id: q.roomId,
          options: q.options,
          multiple: q.multiple,
          correct: q.correct,
          show_own: q.showOwn,
          status: 'open',
          started_at: q.startedAt,
          ends_at: q.endsAt,
        })
        .execute();
      await trx.updateTable('class_tools').set({ quiz_id: q.id }).where('room_id', '=', q.roomId).execute();
    });
  }

  quiz(id: string) {
    return this.db.selectFrom('quizzes').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /**
   * One answer, replacing the person's earlier one: written only while the quiz is open, before
   * its deadline and in an open class, in one statement that locks the quiz row, so a collect that commits first makes
   * it count nothing. True when written.
   */
  async answerQuiz(quizId: string, userId: string, choice: string, now: Date): Promise<boolean> {
    const written = await this.db
      .insertInto('quiz_answers')
      .columns(['quiz_id', 'user_id', 'choice', 'answered_at'])
      .expression((eb) =>
        eb
          .selectFrom('quizzes')
          .innerJoin('rooms', 'rooms.id', 'quizzes.room_id')
          .select([
            'quizzes.id',
            sql<string>`${userId}::bigint`.as('user_id'),
            sql<string>`${choice}::text`.as('choice'),
            sql<Date>`${now}::timestamptz`.as('answered_at'),
          ])
          .where('quizzes.id', '=', quizId)
          .where('quizzes.status', '=', 'open')
          .where('rooms.state', '=', 'open')
          .where((w) => w.or([w('quizzes.ends_at', 'is', null), w('quizzes.ends_at', '>', now)]))
          .forShare('quizzes'),
      )
      .onConflict((oc) => oc.columns(['quiz_id', 'user_id']).doUpdateSet({ choice, answered_at: now }))
      .executeTakeFirst();
    return Number(written.numInsertedOrUpdatedRows ?? 0) > 0;
  }

  /** Moves a quiz from one of `from` to `to`; the row after, or undefined when it was not in `from`. */
  setQuizStatus(id: string, from: Array<QuizRow['status']>, to: QuizRow['status']) {
    return this.db
      .updateTable('quizzes')
      .set({ status: to })
      .where('id', '=', id)
      .where('status', 'in', from)
      .returningAll()
      .executeTakeFirst();
  }

  /** Marks a quiz as rewarded once; false when it already was. */
  async markQuizRewarded(id: string, now: Date): Promise<boolean> {
    const r = await this.db
      .updateTable('quizzes')
      .set({ rewarded_at: now })
      .where('id', '=', id)
      .where('rewarded_at', 'is', null)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  countAnswers(quizId: string) {
    return this.db
      .selectFrom('quiz_answers')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('quiz_id', '=', quizId)
      .executeTakeFirstOrThrow()
      .then((r) => Number(r.n));
  }

  quizAnswers(quizId: string) {
    return this.db
      .selectFrom('quiz_answers')
      .innerJoin('users', 'users.id', 'quiz_answers.user_id')
      .select(['quiz_answers.user_id', 'users.name', 'quiz_answers.choice'])
      .where('quiz_answers.quiz_id', '=', quizId)
      .orderBy('quiz_answers.answered_at')
      .execute();
  }

  quizAnswerOf(quizId: string, userId: string) {
    return this.db
      .selectFrom('quiz_answers')
      .select('choice')
      .where('quiz_id', '=', quizId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
  }

  // --- poll ---

  async startPoll(p: { id: string; roomId: string; anonymous: boolean; questions: unknown; voterKey: string | null; startedAt: Date }) {
    await this.row(p.roomId);
    await this.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('polls')
        .values({
          id: p.id,
          room_id: p.roomId,
          anonymous: p.anonymous,
          status: 'open',
          questions: JSON.stringify(p.questions),
          voter_key: p.voterKey,
          started_at: p.startedAt,
        })
        .execute();
      await trx.updateTable('class_tools').set({ poll_id: p.id }).where('room_id', '=', p.roomId).execute();
    });
  }

  poll(id: string) {
    return this.db.selectFrom('polls').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /**
   * One ballot: in one transaction that locks the poll row (a close that commits first refuses
   * it), the ballot is written once per voter and each chosen option's count goes up by one.
   * 'closed' when the poll is not open, 'again' when this voter has a ballot, 'ok' when counted.
   */
  vote(pollId: string, voter: string, answers: number[][] | null, cells: Array<[number, number]>): Promise<'ok' | 'closed' | 'again'> {
    return this.db.transaction().execute(async (trx) => {
      const poll = await trx.selectFrom('polls').select('status').where('id', '=', pollId).forShare().executeTakeFirst();
      if (poll?.status !== 'open') return 'closed';
      const ballot = await trx
        .insertInto('poll_ballots')
        .values({ poll_id: pollId, voter, answers: answers ? JSON.stringify(answers) : null })
        .onConflict((oc) => oc.columns(['poll_id', 'voter']).doNothing())
        .executeTakeFirst();
      if (Number(ballot.numInsertedOrUpdatedRows ?? 0) === 0) return 'again';
      for (const [question, option] of cells) {
        await trx
          .insertInto('poll_counts')
          .values({ poll_id: pollId, question, option, n: 1 })
          .onConflict((oc) => oc.columns(['poll_id', 'question', 'option']).doUpdateSet({ n: sql`poll_counts.n + 1` }))
          .execute();
      }
      return 'ok';
    });
  }

  /** Closes an open poll and wipes its voter key (an anonymous poll's ballots can no longer be tied to anyone). */
  closePoll(id: string) {
    return this.db
      .updateTable('polls')
      .set({ status: 'closed', voter_key: null })
      .where('id', '=', id)
      .where('status', '=', 'open')
      .returningAll()
      .executeTakeFirst();
  }

  publishPoll(id: string) {
    return this.db
      .updateTable('polls')
      .set({ status: 'published', voter_key: null })
      .where('id', '=', id)
      .where('status', 'in', ['open', 'closed'])
      .returningAll()
      .executeTakeFirst();
  }

  pollCounts(pollId: string) {
    return this.db.selectFrom('poll_counts').select(['question', 'option', 'n']).where('poll_id', '=', pollId).execute();
  }

  countBallots(pollId: string) {
    return this.db
      .selectFrom('poll_ballots')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('poll_id', '=', pollId)
      .executeTakeFirstOrThrow()
      .then((r) => Number(r.n));
  }

  ballotOf(pollId: string, voter: string) {
    return this.db.selectFrom('poll_ballots').select('answers').where('poll_id', '=', pollId).where('voter', '=', voter).executeTakeFirst();
  }

  /** Takes a quiz or poll off the screens (its data stays with the class). */
  async clearCurrent(roomId: string, what: 'quiz_id' | 'poll_id', id: string): Promise<boolean> {
    const r = await this.db
      .updateTable('class_tools')
      .set({ [what]: null })
      .where('room_id', '=', roomId)
      .where(what, '=', id)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  // --- buzzer ---

  /** A new round: its number. */
  async openBuzzer(roomId: string): Promise<number> {
    await this.row(roomId);
    const r = await this.db
      .updateTable('class_tools')
      .set({ buzzer_round: sql`buzzer_round + 1`, buzzer_status: 'open', buzzer_winner: null, buzzer_won_at: null })
      .where('room_id', '=', roomId)
      .returning('buzzer_round')
      .executeTakeFirstOrThrow();
    return r.buzzer_round;
  }

  /** The press that wins `round`, if it is still open: one conditional update, so two nodes cannot both win. */
  async pressBuzzer(roomId: string, round: number, userId: string, at: Date): Promise<boolean> {
    const r = await this.db
      .updateTable('class_tools')
      .set({ buzzer_status: 'won', buzzer_winner: userId, buzzer_won_at: at })
      .where('room_id', '=', roomId)
      .where('buzzer_round', '=', round)
      .where('buzzer_status', '=', 'open')
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  // --- rewards ---

  async addRewards(roomId: string, userIds: string[]): Promise<void> {
    if (userIds.length === 0) return;
    await this.db
      .insertInto('tool_rewards')
      .values(userIds.map((user_id) => ({ room_id: roomId, user_id, count: 1 })))
      .onConflict((oc) => oc.columns(['room_id', 'user_id']).doUpdateSet({ count: sql`tool_rewards.count + 1` }))
      .execute();
  }

  rewards(roomId: string) {
    return this.db.selectFrom('tool_rewards').select(['user_id', 'count']).where('room_id', '=', roomId).execute();
  }
}
