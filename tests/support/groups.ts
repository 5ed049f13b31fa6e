/**
 * Breakout groups (issue 31) as the protocol tests see them: what each person heard (every
 * `groups` and `groupsBroadcast` event with the time it arrived), and the checks every step of the
 * load, reconnect and cluster tests makes: the state is a partition of the class's students over
 * the groups and the main room, and each person's own view (their last `groups` event, their
 * `groupsState` answer) is the room's state.
 */
import { expect } from 'vitest';
import { placeOf, type GroupsEvent, type GroupsState } from '#core/contracts/groups.ts';
import type { ChatMessage } from '#core/contracts/room-events.ts';
import { ask, listen, type RoomSocket } from './room-client.ts';

/** Everything one socket heard of the groups (and the chat), each with `performance.now()` at arrival. */
export interface Heard {
  groups: Array<{ at: number; event: GroupsEvent }>;
  broadcasts: Array<{ at: number; text: string; by: string }>;
  lines: Array<{ at: number; line: ChatMessage }>;
}

/** Starts recording what `socket` hears (from now on). */
export function hear(socket: RoomSocket): Heard {
  const h: Heard = { groups: [], broadcasts: [], lines: [] };
  listen(socket, 'groups', (event) => h.groups.push({ at: performance.now(), event }));
  listen(socket, 'groupsBroadcast', (b) => h.broadcasts.push({ at: performance.now(), text: b.text, by: b.by }));
  listen(socket, 'messageevent', (line) => h.lines.push({ at: performance.now(), line }));
  return h;
}

/** The state without what differs between two tellings of the same state (the clock, the outcome). */
export function stateOf(s: GroupsState | GroupsEvent): Omit<GroupsState, 'serverTime'> {
  // A state has no outcome or userIds: they come out undefined and are dropped all the same.
  const { serverTime: _t, outcome: _o, userIds: _u, ...state } = s as GroupsEvent;
  return state;
}

/**
 * Checks that `state` puts every one of `students` in exactly one place (one group, or the main
 * room) and nobody else in any group; answers each student's place (0: the main room).
 */
export function partition(state: GroupsState | GroupsEvent, students: readonly string[], count: number): Map<string, number> {
  const known = new Set(students);
  if (state.status === 'off') {
    expect(state.groups, 'no groups while off').toEqual([]);
  } else {
    expect(
      state.groups.map((g) => g.no),
      'groups 1..N in order',
    ).toEqual(Array.from({ length: count }, (_, i) => i + 1));
  }
  const seen = new Map<string, number>();
  for (const g of state.groups) {
    for (const uid of g.members) {
      expect(known.has(uid), `group ${g.no} holds ${uid}, not a student of the class`).toBe(true);
      expect(seen.has(uid), `${uid} is in group ${seen.get(uid)} and in group ${g.no}`).toBe(false);
      seen.set(uid, g.no);
    }
  }
  const places = new Map<string, number>();
  for (const uid of students) {
    const place = placeOf(state, uid, false);
    expect(place, `placeOf(${uid})`).toBe(seen.get(uid) ?? 0);
    places.set(uid, place);
  }
  // Every student once: those in groups and those in the main room add up to the class.
  const inGroups = state.groups.reduce((n, g) => n + g.members.length, 0);
  expect(inGroups + students.filter((u) => places.get(u) === 0).length).toBe(students.length);
  return places;
}

/** How many of `places` are in each of 0 (the main room) .. count. */
export function sizes(places: Map<string, number>, count: number): number[] {
  const out = new Array<number>(count + 1).fill(0);
  for (const p of places.values()) out[p]! += 1;
  return out;
}

/**
 * Each person's own view agrees with `state`: the last `groups` event they heard (or, when they
 * heard none since they joined, their join snapshot's groups) is that state, and (when `sockets`
 * are given) their own `groupsState` answer is too.
 */
export async function viewsAgree(
  state: GroupsState,
  people: ReadonlyArray<{ userId: string; heard: Heard; socket?: RoomSocket; snapshot?: GroupsState }>,
  ask_ = true,
): Promise<void> {
  const want = stateOf(state);
  for (const p of people) {
    const last = p.heard.groups.at(-1)?.event ?? p.snapshot;
    expect(last, `${p.userId} heard no groups event`).toBeDefined();
    expect(stateOf(last!), `${p.userId}'s view (last groups event or join snapshot)`).toEqual(want);
  }
  if (!ask_) return;
  const answers = await Promise.all(people.filter((p) => p.socket).map((p) => ask(p.socket!, 'groupsState', {}, 20_000)));
  answers.forEach((a, i) => {
    expect(a.code, `groupsState of person ${i}`).toBe('0');
    expect(stateOf(a.data)).toEqual(want);
  });
}

/** The median and the largest of some numbers. */
export function medianMax(xs: readonly number[]): { median: number; max: number } {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  const median = s.length === 0 ? NaN : s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
  return { median, max: s.at(-1) ?? NaN };
}
