/**
 * The pure rules of the classroom's breakout groups (issue 31, ADR 118): the teacher's split
 * before starting (dealing names into columns, moving one by hand or by keyboard), where a person
 * is and how it is said, the time left, and which chat lines a person sees. No React, no socket:
 * the server decides every change (core/contracts/groups.ts); these only prepare and show.
 */
import type { ChatMessage } from '#core/contracts/room-events.ts';
import { GROUPS_WARNING_SECONDS, placeOf, type Group, type GroupsState } from '#core/contracts/groups.ts';

/** The state before any groups (and until the join snapshot says otherwise). */
export const NO_GROUPS: GroupsState = {
  status: 'off',
  round: 0,
  groups: [],
  teacherIn: 0,
  teacher: '',
  allowChoose: false,
  lateJoiners: 'auto',
  startedAt: 0,
  endsAt: 0,
  closingAt: 0,
  background: null,
  lastBoards: [],
  serverTime: 0,
};

/** The split being prepared by hand: `columns[0]` not placed yet, `columns[g]` group g. */
export type Columns = string[][];

/** `count` groups, the students dealt in turn (1, 2, .., count, 1, ..) in the given order; none unplaced. */
export function deal(ids: readonly string[], count: number): Columns {
  const columns: Columns = Array.from({ length: count + 1 }, () => []);
  ids.forEach((id, i) => columns[1 + (i % count)]!.push(id));
  return columns;
}

/** A shuffled copy (Fisher-Yates); `random` returns [0, 1). */
export function shuffled<T>(items: readonly T[], random: () => number = Math.random): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/**
 * The columns for `count` groups after the count changed: each name keeps its group while that
 * group exists; names of groups that went away go back to the unplaced column; students not in
 * any column yet (they arrived) are added unplaced; those who left are taken out.
 */
export function fitColumns(columns: Columns, count: number, students: readonly string[]): Columns {
  const present = new Set(students);
  const next: Columns = Array.from({ length: count + 1 }, (_, g) => (g === 0 ? [] : (columns[g] ?? []).filter((id) => present.has(id))));
  const placed = new Set(next.flat());
  for (const column of columns.slice(count + 1)) for (const id of column) if (present.has(id) && !placed.has(id)) next[0]!.push(id);
  for (const id of columns[0] ?? []) if (present.has(id) && !placed.has(id) && !next[0]!.includes(id)) next[0]!.push(id);
  const known = new Set(next.flat());
  for (const id of students) if (!known.has(id)) next[0]!.push(id);
  return next;
}

/** The column a name is in, or -1. */
export function columnOf(columns: Columns, id: string): number {
  return columns.findIndex((c) => c.includes(id));
}

/** Moves a name to column `to` (0: unplaced), at its end; unchanged if it is not there or `to` does not exist. */
export function moveName(columns: Columns, id: string, to: number): Columns {
  const from = columnOf(columns, id);
  if (from < 0 || to < 0 || to >= columns.length || from === to) return columns;
  return columns.map((c, g) => (g === from ? c.filter((x) => x !== id) : g === to ? [...c, id] : c));
}

/** The keyboard's move: ArrowRight / ArrowLeft to the next / previous column (wrapping), a digit to that group (0 unplaced). */
export function keyMove(columns: Columns, id: string, key: string): number | null {
  const from = columnOf(columns, id);
  if (from < 0) return null;
  const n = columns.length;
  if (key === 'ArrowRight') return (from + 1) % n;
  if (key === 'ArrowLeft') return (from - 1 + n) % n;
  if (/^\d$/.test(key)) {
    const to = Number(key);
    return to < n && to !== from ? to : null;
  }
  return null;
}

/** Where a person is: the place (0 main room), the group (when in one), and whether they lead it. */
export interface Placement {
  place: number;
  group: Group | null;
  leader: boolean;
}

export function placementOf(state: GroupsState, uid: string, isCreator: boolean): Placement {
  const place = placeOf(state, uid, isCreator);
  const group = place > 0 ? (state.groups.find((g) => g.no === place) ?? null) : null;
  return { place, group, leader: !!group && group.leader === uid };
}

/** Groups running (or counting down to their return). */
export function groupsOn(state: Pick<GroupsState, 'status'>): boolean {
  return state.status !== 'off';
}

/**
 * A group's name as shown: the server's default names ("1".."N", the group's number) become the
 * language's "Group N"; a name the teacher gave is shown as it is.
 */
export function groupLabel(group: { no: number; name: string }, t: (key: 'groups.groupN', options: { n: number }) => string): string {
  return group.name === String(group.no) || group.name === '' ? t('groups.groupN', { n: group.no }) : group.name;
}

/** The clock the banner and the overview show: the return's countdown first, else the time limit; null with neither. */
export interface GroupsClock {
  kind: 'closing' | 'limit';
  /** ms left (never below 0). */
  left: number;
  /** The last GROUPS_WARNING_SECONDS of the limit, or a return counting down. */
  warn: boolean;
}

export function groupsClock(state: GroupsState, serverNow: number): GroupsClock | null {
  if (state.status === 'closing' && state.closingAt > 0)
    return { kind: 'closing', left: Math.max(0, state.closingAt - serverNow), warn: true };
  if (state.status !== 'off' && state.endsAt > 0) {
    const left = Math.max(0, state.endsAt - serverNow);
    return { kind: 'limit', left, warn: left <= GROUPS_WARNING_SECONDS * 1000 };
  }
  return null;
}

/**
 * The chat lines of a place: the main room's (no group) in place 0, group g's lines in group g,
 * of the session that started at `since` (a group of an earlier session had the same number).
 */
export function chatOfPlace(messages: readonly ChatMessage[], place: number, since = 0): ChatMessage[] {
  return messages.filter((m) => (m.group ?? 0) === place && (place === 0 || m.at >= since));
}

/** The members of a group that the overview shows, with each one's name (unknown ids by their id). */
export function namesOf(ids: readonly string[], names: ReadonlyMap<string, string>): Array<{ userId: string; name: string }> {
  return ids.map((userId) => ({ userId, name: names.get(userId) ?? userId }));
}

/** Students not in any group while groups run (waiting in the main room, or choosing). */
export function unplaced(state: GroupsState, students: readonly string[]): string[] {
  const placed = new Set(state.groups.flatMap((g) => g.members));
  return students.filter((id) => !placed.has(id));
}
/** A short text as the server will take it: NFC, trimmed, 1..max characters (code points); null if not. */
export function chatTextOf(raw: string, max: number): string | null {
  const text = raw.normalize('NFC').trim();
  const n = [...text].length;
  return n === 0 || n > max ? null : text;
}
