/**
 * The bus's `groups` event becomes the media node's `groups` command (ADR 117): every member of a
 * group with its number, the teacher while visiting one; nothing when the groups are off. The
 * command fits the control call's size bound for a whole class.
 */
import { expect, it } from 'vitest';
import type { GroupsEvent } from '#core/contracts/groups.ts';
import { GROUPS_MAX } from '#core/contracts/groups.ts';
import { MEDIA_CONTROL_MAX_BYTES, mediaControlMessageSchema } from '#core/contracts/media-control.ts';
import type { BusMessage } from '#core/platform/events.ts';
import { commandFromBus, spacesOfGroups } from './media-control.ts';

const state = (over: Partial<GroupsEvent> = {}): GroupsEvent => ({
  status: 'running',
  round: 1,
  groups: [
    { no: 1, name: '1', leader: null, page: 3, members: ['11', '12'], helpAt: 0 },
    { no: 2, name: '2', leader: '13', page: 4, members: ['13', '14'], helpAt: 0 },
  ],
  teacherIn: 0,
  teacher: '99',
  allowChoose: false,
  lateJoiners: 'auto',
  startedAt: 1,
  endsAt: 0,
  closingAt: 0,
  background: null,
  lastBoards: [],
  serverTime: 1,
  outcome: 'started',
  userIds: [],
  ...over,
});

/** A `groups` message as the bus carries it (a malformed payload too: it may have crossed nodes). */
const bus = (payload: unknown, target: BusMessage['target'] = { room: 'ABC123' }) => ({ target, event: 'groups', payload }) as BusMessage;

it('translates every group’s members, and the visiting teacher, into the node’s map', () => {
  expect(commandFromBus(bus(state()))).toEqual({
    op: 'groups',
    room: 'ABC123',
    serverTime: 1,
    spaces: [
      ['11', 1],
      ['12', 1],
      ['13', 2],
      ['14', 2],
    ],
  });
  expect(spacesOfGroups(state({ teacherIn: 2, status: 'closing' }))).toContainEqual(['99', 2]);
  expect(spacesOfGroups(state({ teacherIn: 0 })).map(([u]) => u)).not.toContain('99');
});

it('groups that are off empty the map; a malformed or seat-targeted event is no command', () => {
  expect(commandFromBus(bus(state({ status: 'off', teacherIn: 0, outcome: 'ended' })))).toEqual({
    op: 'groups',
    room: 'ABC123',
    serverTime: 1,
    spaces: [],
  });
  expect(commandFromBus(bus({ status: 'running' }))).toBeNull();
  expect(commandFromBus(bus(state(), { room: 'ABC123', user: '11' }))).toBeNull();
  expect(commandFromBus(bus(state(), { user: '11' }))).toBeNull();
});

it('a class of 12 full groups and the teacher fits one control call', () => {
  const groups = Array.from({ length: GROUPS_MAX }, (_, i) => ({
    no: i + 1,
    name: String(i + 1),
    leader: null,
    page: i + 2,
    // 18-digit ids, the longest a user id is; 16 a group (GROUP_MAX_MEMBERS' default) and then some.
    members: Array.from({ length: 40 }, (_, j) => `${'1'.repeat(14)}${String(i).padStart(2, '0')}${String(j).padStart(2, '0')}`),
    helpAt: 0,
  }));
  const cmd = commandFromBus(bus(state({ groups, teacherIn: 5 })));
  expect(cmd?.op === 'groups' && cmd.spaces.length).toBe(GROUPS_MAX * 40 + 1);
  const body = JSON.stringify({ v: 1, id: '3f1c2a7e-0000-4000-8000-000000000000', at: Date.now(), ...cmd });
  expect(body.length).toBeLessThan(MEDIA_CONTROL_MAX_BYTES);
  expect(mediaControlMessageSchema.safeParse(JSON.parse(body)).success).toBe(true);
});
