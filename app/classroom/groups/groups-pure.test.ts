import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '#core/contracts/room-events.ts';
import type { GroupsState } from '#core/contracts/groups.ts';
import {
  chatOfPlace,
  chatTextOf,
  columnOf,
  deal,
  fitColumns,
  groupLabel,
  groupsClock,
  keyMove,
  moveName,
  NO_GROUPS,
  placementOf,
  shuffled,
  unplaced,
} from './groups-pure.ts';
import { GroupsStore, type GroupsAck } from './groups-store.ts';

const running = (over: Partial<GroupsState> = {}): GroupsState => ({
  ...NO_GROUPS,
  status: 'running',
  round: 1,
  teacher: '1',
  startedAt: 1000,
  serverTime: 1000,
  groups: [
    { no: 1, name: '1', leader: '11', page: 3, members: ['11', '12'], helpAt: 0 },
    { no: 2, name: 'Otters', leader: null, page: 4, members: ['21', '22'], helpAt: 5000 },
  ],
  ...over,
});

const line = (id: string, group?: number): ChatMessage => ({
  id,
  uid: '11',
  name: 'A',
  text: id,
  at: Number(id),
  ...(group ? { group } : {}),
});

describe('the split before starting', () => {
  it('deals names in turn into the groups, none left unplaced', () => {
    expect(deal(['a', 'b', 'c', 'd', 'e'], 2)).toEqual([[], ['a', 'c', 'e'], ['b', 'd']]);
    expect(deal([], 3)).toEqual([[], [], [], []]);
  });

  it('shuffles a copy (every name once)', () => {
    const ids = ['a', 'b', 'c', 'd'];
    const out = shuffled(ids, () => 0);
    expect(out).not.toBe(ids);
    expect([...out].sort()).toEqual(ids);
    expect(out).toEqual(['b', 'c', 'd', 'a']);
  });

  it('fits the columns to a new count: names of groups gone go back unplaced; arrivals unplaced; leavers out', () => {
    const cols = [['x'], ['a', 'c'], ['b'], ['d']];
    expect(fitColumns(cols, 2, ['a', 'b', 'c', 'd', 'x', 'n'])).toEqual([['d', 'x', 'n'], ['a', 'c'], ['b']]);
    expect(fitColumns(cols, 4, ['a', 'd'])).toEqual([[], ['a'], [], ['d'], []]);
  });

  it('moves a name by drag (to a column) and by keyboard (arrows wrap, digits pick a group, 0 unplaced)', () => {
    const cols = [[], ['a', 'b'], ['c']];
    const moved = moveName(cols, 'a', 2);
    expect(moved).toEqual([[], ['b'], ['c', 'a']]);
    expect(columnOf(moved, 'a')).toBe(2);
    expect(moveName(cols, 'zz', 1)).toBe(cols);
    expect(moveName(cols, 'a', 5)).toBe(cols);
    expect(keyMove(cols, 'a', 'ArrowRight')).toBe(2);
    expect(keyMove(cols, 'c', 'ArrowRight')).toBe(0);
    expect(keyMove(cols, 'a', 'ArrowLeft')).toBe(0);
    expect(keyMove(cols, 'a', '2')).toBe(2);
    expect(keyMove(cols, 'a', '0')).toBe(0);
    expect(keyMove(cols, 'a', '1')).toBeNull();
    expect(keyMove(cols, 'a', '7')).toBeNull();
    expect(keyMove(cols, 'a', 'x')).toBeNull();
  });
});

describe('where a person is', () => {
  it('places students by membership, the teacher by teacherIn, everyone in the main room with no groups', () => {
    const s = running({ teacherIn: 2 });
    expect(placementOf(s, '11', false)).toMatchObject({ place: 1, leader: true });
    expect(placementOf(s, '22', false)).toMatchObject({ place: 2, leader: false });
    expect(placementOf(s, '99', false)).toEqual({ place: 0, group: null, leader: false });
    expect(placementOf(s, '1', true).place).toBe(2);
    expect(placementOf({ ...s, status: 'off' }, '11', false).place).toBe(0);
    expect(unplaced(s, ['11', '99', '22', '98'])).toEqual(['99', '98']);
  });

  it('says a default name in the language and a given name as it is', () => {
    const t = (_k: 'groups.groupN', o: { n: number }) => `Group ${o.n}`;
    expect(groupLabel({ no: 1, name: '1' }, t)).toBe('Group 1');
    expect(groupLabel({ no: 2, name: 'Otters' }, t)).toBe('Otters');
  });

  it('counts down the limit (warning in its last minute), and a return before it', () => {
    const s = running({ endsAt: 100_000 });
    expect(groupsClock(s, 30_000)).toEqual({ kind: 'limit', left: 70_000, warn: false });
    expect(groupsClock(s, 41_000)).toEqual({ kind: 'limit', left: 59_000, warn: true });
    expect(groupsClock(s, 200_000)).toEqual({ kind: 'limit', left: 0, warn: true });
    expect(groupsClock({ ...s, status: 'closing', closingAt: 50_000 }, 20_000)).toEqual({ kind: 'closing', left: 30_000, warn: true });
    expect(groupsClock(running(), 5)).toBeNull();
    expect(groupsClock({ ...s, status: 'off' }, 5)).toBeNull();
  });
});

describe('the chat of a place', () => {
  it('shows the main room the lines with no group, a group its own lines only', () => {
    const lines = [line('1'), line('2', 1), line('3', 2), line('4'), line('5', 1)];
    expect(chatOfPlace(lines, 0).map((m) => m.id)).toEqual(['1', '4']);
    expect(chatOfPlace(lines, 1).map((m) => m.id)).toEqual(['2', '5']);
    expect(chatOfPlace(lines, 2).map((m) => m.id)).toEqual(['3']);
    expect(chatOfPlace(lines, 3)).toEqual([]);
    // A group of an earlier session had the same number: its lines are not this session's.
    expect(chatOfPlace(lines, 1, 3).map((m) => m.id)).toEqual(['5']);
    expect(chatOfPlace(lines, 0, 3).map((m) => m.id)).toEqual(['1', '4']);
  });

  it('takes a broadcast as the server will: trimmed, NFC, 1..max characters', () => {
    expect(chatTextOf('  hi  ', 5)).toBe('hi');
    expect(chatTextOf('   ', 5)).toBeNull();
    expect(chatTextOf('😀😀😀', 3)).toBe('😀😀😀');
    expect(chatTextOf('abcdef', 5)).toBeNull();
  });
});

describe('the groups store', () => {
  it('takes the snapshot and each event whole, keeps the outcome, and drops a late event of an older round', () => {
    const store = new GroupsStore();
    store.snapshot({ groups: running({ round: 2, serverTime: Date.now() + 5000 }), serverTime: Date.now() });
    expect(store.getSnapshot().state.round).toBe(2);
    expect(store.getSnapshot().offset).toBeGreaterThan(4000);
    store.event({ ...running({ round: 1, status: 'off' }), outcome: 'ended', userIds: [] });
    expect(store.getSnapshot().state.status).toBe('running');
    store.event({ ...running({ round: 2, teacherIn: 1, serverTime: Date.now() + 5000 }), outcome: 'joined', userIds: ['1'] });
    expect(store.getSnapshot().state.teacherIn).toBe(1);
    expect(store.getSnapshot().last).toMatchObject({ outcome: 'joined', userIds: ['1'] });
  });

  it('keeps the broadcasts of the session (once each), forgets them when a new one starts', () => {
    const store = new GroupsStore();
    store.snapshot({ groups: running(), serverTime: 1 });
    store.broadcast({ text: 'hi', at: 5, by: '1' });
    store.broadcast({ text: 'hi', at: 5, by: '1' });
    expect(store.getSnapshot().broadcasts).toHaveLength(1);
    store.event({ ...running({ round: 2 }), outcome: 'started', userIds: [] });
    expect(store.getSnapshot().broadcasts).toEqual([]);
  });

  it('sends each request by the contract name and answers whether the server took it', async () => {
    const sent: Array<[string, object]> = [];
    const store = new GroupsStore((event, payload) => {
      sent.push([event, payload]);
      return Promise.resolve<GroupsAck>({ code: event === 'groupsChoose' ? '31044' : '0', msg: '' });
    });
    expect(await store.actions.move('11', 2)).toBe(true);
    expect(await store.actions.choose(1)).toBe(false);
    await store.actions.help(true);
    await store.actions.help();
    await store.actions.end(30);
    await store.actions.leader(1, null);
    expect(sent).toEqual([
      ['groupsMove', { userId: '11', group: 2 }],
      ['groupsChoose', { group: 1 }],
      ['groupsHelp', { cancel: true }],
      ['groupsHelp', {}],
      ['groupsEnd', { afterSeconds: 30 }],
      ['groupsLeader', { group: 1, userId: null }],
    ]);
  });
});
