import { describe, expect, it } from 'vitest';
import type { ClassTools } from '#core/contracts/class-tools.ts';
import { pollTallyOf, tallyOf, ToolsStore, type ToolsAck } from './tools-store.ts';
import { NO_TOOLS } from './types.ts';

const quiz = (id: string): NonNullable<ClassTools['quiz']> => ({
  id,
  options: 4,
  multiple: false,
  status: 'open',
  startedAt: 1,
  endsAt: 0,
  answered: 0,
  showOwn: true,
  result: null,
});

describe('the tools store', () => {
  it('takes the snapshot whole, with the offset of its server time', () => {
    const store = new ToolsStore();
    store.snapshot(
      {
        tools: { ...NO_TOOLS, quiz: quiz('q1') },
        toolsPrivate: null,
        myAnswers: { quiz: ['B'], poll: null, pollVoted: false },
        serverTime: 1_000_000,
      },
      1_300_000,
      0,
    );
    const v = store.getSnapshot();
    expect(v.offset).toBe(-300_000);
    expect(v.mine.quiz).toEqual(['B']);
    expect(v.tools.quiz?.id).toBe('q1');
  });
  it('replaces the state with each event; a new quiz drops the last answer, the same keeps it', () => {
    const store = new ToolsStore();
    store.snapshot(
      { tools: { ...NO_TOOLS, quiz: quiz('q1') }, myAnswers: { quiz: ['B'], poll: null, pollVoted: false }, serverTime: 5000 },
      5000,
      0,
    );
    store.tools({ ...NO_TOOLS, quiz: { ...quiz('q1'), answered: 3 }, serverTime: 6000 }, 6010, 1000);
    expect(store.getSnapshot().mine.quiz).toEqual(['B']);
    expect(store.getSnapshot().tools.quiz?.answered).toBe(3);
    store.tools({ ...NO_TOOLS, quiz: quiz('q2'), serverTime: 7000 }, 7000, 2000);
    expect(store.getSnapshot().mine.quiz).toBeNull();
    // The least delayed reading: the snapshot's 0 beats the event's -10.
    expect(store.getSnapshot().offset).toBe(0);
  });
  it('shows the teacher’s tallies only for the quiz and poll showing now', () => {
    const store = new ToolsStore();
    store.snapshot({ tools: { ...NO_TOOLS, quiz: quiz('q1') }, serverTime: 1 }, 1, 0);
    store.tally({ id: 'q0', tally: [1, 0, 0, 0], answered: 1, answers: [], accuracy: 1, correct: ['A'] });
    expect(tallyOf(store.getSnapshot())).toBeNull();
    store.tally({ id: 'q1', tally: [0, 2, 0, 0], answered: 2, answers: [], accuracy: 0.5, correct: ['B'] });
    expect(tallyOf(store.getSnapshot())?.answered).toBe(2);
    store.pollTally({ id: 'p1', counts: [[1, 0]], voters: 1 });
    expect(pollTallyOf(store.getSnapshot())).toBeNull();
  });
  it('sends the requests with the ids of what shows, and keeps an answer the server took', async () => {
    const sent: Array<[string, object]> = [];
    let answer: ToolsAck = { code: '0', msg: '', data: { choice: ['C'] } };
    const store = new ToolsStore((event, payload) => {
      sent.push([event, payload]);
      return Promise.resolve(answer);
    });
    store.snapshot({ tools: { ...NO_TOOLS, quiz: quiz('q1'), buzzer: { round: 4, status: 'open', winner: null } }, serverTime: 1 }, 1, 0);
    expect(await store.actions.quizAnswer(['C'])).toBe(true);
    expect(store.getSnapshot().mine.quiz).toEqual(['C']);
    await store.actions.buzzerPress();
    await store.actions.quizCollect();
    expect(sent).toEqual([
      ['quizAnswer', { id: 'q1', choice: ['C'] }],
      ['buzzerPress', { round: 4 }],
      ['quizCollect', { id: 'q1' }],
    ]);
    // A refusal changes nothing here (the room channel toasts it).
    answer = { code: '31020', msg: 'gone' };
    expect(await store.actions.quizAnswer(['A'])).toBe(false);
    expect(store.getSnapshot().mine.quiz).toEqual(['C']);
  });
  it('plays each reward once it is heard', () => {
    const store = new ToolsStore();
    store.rewarded({ userIds: ['2'], names: ['Ann'], by: '1', at: 5 });
    expect(store.getSnapshot().rewarded?.names).toEqual(['Ann']);
  });
});
