/**
 * Breakout groups on the room channel (issue 31), spread into room-events.ts. The teacher splits
 * the students into groups, each a space of its own inside the room: its own whiteboard page, its
 * own chat and its own voice and video on the media node (who is in which space is told to the
 * node, which forwards media only within a space). The server holds the groups in the database;
 * every change is told to the room as one whole `groups` event, and the join snapshot carries the
 * same state. Observers and the recorder always stay in the main room.
 */
import { z } from 'zod';
import { call, noPayload, whole } from './channel.ts';

/** A user id of this product: digits (as room-events.ts userIdSchema). */
const userId = z.string().regex(/^\d{1,18}$/);

/** At least this many groups, at most this many. */
export const GROUPS_MIN = 2;
export const GROUPS_MAX = 12;
/** A time limit of at most this many minutes (0: none). */
export const GROUPS_MAX_MINUTES = 240;
/** The students see the end coming this long before a time limit (a countdown on their screen). */
export const GROUPS_WARNING_SECONDS = 60;
/** "Return all" may give the groups at most this long (a countdown on every screen); 0 is now. */
export const GROUPS_MAX_RETURN_SECONDS = 300;
/** A broadcast to all groups: 1..this many characters (code points, NFC, trimmed). */
export const GROUPS_BROADCAST_MAX_CHARS = 200;
/** A group's name: 1..this many characters. */
export const GROUP_NAME_MAX_CHARS = 20;

/** A group number: 1..GROUPS_MAX. The main room is 0 where a place is asked for. */
const groupNo = whole(1, GROUPS_MAX);
const placeNo = whole(0, GROUPS_MAX);

const nameText = z
  .string()
  .max(GROUP_NAME_MAX_CHARS * 8)
  .transform((t) => t.normalize('NFC').trim())
  .refine((t) => {
    const n = [...t].length;
    return n > 0 && n <= GROUP_NAME_MAX_CHARS;
  }, 'name length');

export const groupsBroadcastTextSchema = z
  .string()
  .max(GROUPS_BROADCAST_MAX_CHARS * 8)
  .transform((t) => t.normalize('NFC').trim())
  .refine((t) => {
    const n = [...t].length;
    return n > 0 && n <= GROUPS_BROADCAST_MAX_CHARS;
  }, 'text length');

export const groupSchema = z.strictObject({
  /** 1..GROUPS_MAX, in order. */
  no: z.number(),
  name: z.string(),
  /** The group's leader (named by the teacher), or null. */
  leader: z.string().nullable(),
  /** The group's whiteboard page (roomExtend pageIndex numbering, `wb:{page}`): its board. */
  page: z.number(),
  /** Student user ids in the group, in the order they were placed. */
  members: z.array(z.string()),
  /** ms epoch when a member asked the teacher for help; 0 when nobody is asking. */
  helpAt: z.number(),
});
export type Group = z.infer<typeof groupSchema>;

export const groupsStateSchema = z.strictObject({
  /** 'off': no groups; 'running'; 'closing': "return all" counts down to `closingAt`. */
  status: z.enum(['off', 'running', 'closing']),
  /** Counts the room's group sessions (1 for the first); 0 before any. */
  round: z.number(),
  groups: z.array(groupSchema),
  /** The group the teacher is in now; 0 is the main room. */
  teacherIn: z.number(),
  /** The teacher's (the room's creator's) user id. */
  teacher: z.string(),
  /** Students may pick (or change) their own group. */
  allowChoose: z.boolean(),
  /** A student who arrives (or returns) while groups run: 'auto' into the smallest group, 'teacher' waits in the main room for the teacher. */
  lateJoiners: z.enum(['auto', 'teacher']),
  /** ms epoch (server time). */
  startedAt: z.number(),
  /** The time limit's end, ms epoch; 0 when there is none. */
  endsAt: z.number(),
  /** When "return all" brings everyone back, ms epoch; 0 unless closing. */
  closingAt: z.number(),
  /** What each group's board started from: a blank page, or the document slide the room showed. */
  background: z.strictObject({ documentId: z.string(), slide: z.number() }).nullable(),
  /** The groups' boards of the last session that ended, as whiteboard pages the teacher can show. */
  lastBoards: z.array(z.strictObject({ no: z.number(), name: z.string(), page: z.number() })),
  /** The server's clock when this was sent (ms epoch): countdowns run from it. */
  serverTime: z.number(),
});
export type GroupsState = z.infer<typeof groupsStateSchema>;

/** What a groups event reports besides the state. */
export const groupsOutcomeSchema = z.enum(['started', 'moved', 'chose', 'joined', 'left', 'leader', 'help', 'closing', 'ended', 'placed']);
export type GroupsOutcome = z.infer<typeof groupsOutcomeSchema>;

export const groupsEventSchema = groupsStateSchema.extend({
  outcome: groupsOutcomeSchema,
  /** Whom the change concerns (those moved, placed, the new leader, the one asking for help). */
  userIds: z.array(z.string()),
});
export type GroupsEvent = z.infer<typeof groupsEventSchema>;

export const groupsStartSchema = z.strictObject({
  /** How many groups. */
  count: whole(GROUPS_MIN, GROUPS_MAX),
  /**
   * 'random': the students online now, shuffled and dealt; 'even': dealt in the members list's
   * order; 'manual': as `groups` says (the teacher's dragging); 'choose': everyone starts in the
   * main room and picks a group (allowChoose is then on).
   */
  method: z.enum(['random', 'even', 'manual', 'choose']),
  /** For 'manual': `count` groups, each its students (a student in at most one); optional names and leaders. */
  groups: z
    .array(
      z.strictObject({
        userIds: z.array(userId).max(500),
        name: nameText.optional(),
        leader: userId.nullable().optional(),
      }),
    )
    .max(GROUPS_MAX)
    .optional(),
  /** Time limit in minutes; 0 none. */
  minutes: whole(0, GROUPS_MAX_MINUTES),
  allowChoose: z.boolean(),
  lateJoiners: z.enum(['auto', 'teacher']),
  /** 'blank' pages, or each group's page starts with the document slide the room shows now. */
  board: z.enum(['blank', 'courseware']),
});
export type GroupsStart = z.infer<typeof groupsStartSchema>;

/** Browser -> server. Every answer is the state after the change. */
export const groupsRoomRequests = {
  /** The teacher starts groups (31040 if they run already; 31042 if the board has too few free pages). */
  groupsStart: call(groupsStartSchema, groupsStateSchema),
  /** The teacher moves a student to a group, or to the main room (0). */
  groupsMove: call(z.strictObject({ userId, group: placeNo }), groupsStateSchema),
  /** A student picks their group while the teacher allows it (31044 otherwise; 31043 when it is full). */
  groupsChoose: call(z.strictObject({ group: groupNo }), groupsStateSchema),
  /** The teacher goes into a group (heard and seen there only) or back to the main room (0). */
  groupsVisit: call(z.strictObject({ group: placeNo }), groupsStateSchema),
  /** The teacher names a group's leader (a member of it) or none. */
  groupsLeader: call(z.strictObject({ group: groupNo, userId: userId.nullable() }), groupsStateSchema),
  /** The teacher's message to every group: the room event `groupsBroadcast`. */
  groupsBroadcast: call(z.strictObject({ text: groupsBroadcastTextSchema }), z.strictObject({ at: z.number() })),
  /** A student in a group asks the teacher for help (again: still asking); `cancel` takes it back. */
  groupsHelp: call(z.strictObject({ cancel: z.boolean().optional() }), groupsStateSchema),
  /** The teacher ends the groups: everyone returns after `afterSeconds` (0 now); again with 0 ends a countdown now. */
  groupsEnd: call(z.strictObject({ afterSeconds: whole(0, GROUPS_MAX_RETURN_SECONDS) }), groupsStateSchema),
  /** Anyone: the groups as they are now (a client that missed an event). */
  groupsState: call(noPayload, groupsStateSchema),
};

/** Server -> browser. */
export const groupsRoomEvents = {
  groups: groupsEventSchema,
  /** The teacher's message to all groups. */
  groupsBroadcast: z.strictObject({ text: z.string(), at: z.number(), by: z.string() }),
};

/** The join snapshot's part. */
export const groupsSnapshotFields = {
  groups: groupsStateSchema,
};

/** Where a person is now: the group number, or 0 for the main room. */
export function placeOf(state: Pick<GroupsState, 'status' | 'groups' | 'teacherIn'>, uid: string, isCreator: boolean): number {
  if (state.status === 'off') return 0;
  if (isCreator) return state.teacherIn;
  return state.groups.find((g) => g.members.includes(uid))?.no ?? 0;
}
