/**
 * The room channel (socket.io namespace `/room`), shared by the server and the browser.
 * A connection proves who it is with the join answer's `imToken` (handshake `auth.token`).
 * Every client request is acknowledged with `{code, msg, data?}`: code '0' or a code of
 * core/platform/errors.ts. Each request and event is a zod schema below (core/contracts/channel.ts);
 * the server parses, checks, persists, then broadcasts; nothing a client says is rebroadcast
 * unchecked.
 */
import { z } from 'zod';
import type { RoomInfo } from './api.ts';
import { classToolsRoomEvents, classToolsRoomRequests, classToolsSnapshotFields } from './class-tools.ts';
import { call, channelContract, noAnswer, noPayload, whole, type Events, type Requests, type SameType } from './channel.ts';
import { groupsRoomEvents, groupsRoomRequests, groupsSnapshotFields } from './groups.ts';
import { coursewareRoomEvents, coursewareRoomRequests, roomCoursewareSchema } from './courseware.ts';
import { recordingRoomEvents } from './recording.ts';
import { roomExtendTextSchema } from './room-extend.ts';
import { liveRoomEvents } from './streaming.ts';
import { stageRoomEvents, stageRoomRequests, stageStateSchema } from './stage.ts';

export type { Ack } from './channel.ts';

export const ROOM_NAMESPACE = '/room';
/**
 * A client joining with an older `version` is told to reload the page (error '10'). 2: the stage
 * replaced the microphone slot (ADR 112). 3: breakout groups (ADR 116): chat lines by place.
 */
export const ROOM_PROTOCOL_VERSION = 3;

export const CHAT_MAX_CHARS = 30;
export const CHAT_HISTORY = 100;

/** The shared views of a room (`showState`); '' is the videos. */
export const VIEWS = ['', 'wb', 'ppt', 'image', 'screen', 'video'] as const;

/** The class mode (ADR 099): 'lecture' closes the students' microphones unless the teacher invited them. */
export const classModeSchema = z.enum(['discuss', 'lecture']);
export type ClassModeValue = z.infer<typeof classModeSchema>;

export const roleSchema = z.enum(['creator', 'member', 'tourist', 'observer', 'recorder']);
export type Role = z.infer<typeof roleSchema>;

/** A user id of this product: digits. */
export const userIdSchema = z.string().regex(/^\d{1,18}$/);

/** 0 unknown, 1-6 (docs/product/decisions.md bands: 1-2 strong, 3-4 moderate, 5-6 weak). */
export const networkQualitySchema = whole(0, 6);

export const memberSchema = z.strictObject({
  userId: z.string(),
  name: z.string(),
  role: roleSchema,
  networkQuality: networkQualitySchema,
  online: z.boolean(),
});
export type Member = z.infer<typeof memberSchema>;

export const chatMessageSchema = z.strictObject({
  id: z.string(),
  uid: z.string(),
  name: z.string(),
  text: z.string(),
  at: z.number(),
  /** A breakout group's line (issue 31): its group number; absent in the main room. */
  group: z.number().optional(),
});
export type ChatMessage = z.infer<typeof chatMessageSchema>;

/**
 * Fields of the room a patch may carry (at least one); who may change which is decided by the
 * live service (the creator's fields, anyone's own networkQuality).
 */
export const roomPatchSchema = z
  .strictObject({
    // A string (not the enum type), as RoomInfo.showState is; the value is one of VIEWS.
    showState: z
      .string()
      .refine((v) => (VIEWS as readonly string[]).includes(v), 'view')
      .optional(),
    pptId: z
      .string()
      .regex(/^[A-Za-z0-9_-]{0,64}$/)
      .optional(),
    pptCurrentPage: whole(0, 10_000).optional(),
    wbPower: z.enum(['0', '1']).optional(),
    roomExtend: roomExtendTextSchema.optional(), // a JSON object, at most 4 KiB (room-extend.ts)
    networkQuality: networkQualitySchema.optional(),
  })
  .refine((p) => Object.keys(p).length > 0, 'empty patch');
export type RoomPatch = z.infer<typeof roomPatchSchema>;

/** A chat line as typed: NFC, trimmed, 1..CHAT_MAX_CHARS characters (code points). */
export const chatTextSchema = z
  .string()
  .max(CHAT_MAX_CHARS * 8)
  .transform((t) => t.normalize('NFC').trim())
  .refine((t) => {
    const n = [...t].length;
    return n > 0 && n <= CHAT_MAX_CHARS;
  }, 'text length');

/** A room as the API and the room channel tell it (core/contracts/api.ts RoomInfo; checked equal below). */
export const roomInfoSchema = z.strictObject({
  roomNumber: z.string(),
  roomType: z.union([z.literal(1), z.literal(2), z.literal(3), z.literal(4)]),
  createUser: z.string(),
  createUserIdNumber: z.string(),
  createUserName: z.string(),
  maxMember: z.number(),
  maxOrdinary: z.string(),
  isVIP: z.enum(['0', '1']),
  consumption: z.enum(['on', 'off']),
  showState: z.string(),
  wbPower: z.enum(['0', '1']),
  roomExtend: z.string(),
  pptId: z.string(),
  pptCurrentPage: z.number(),
  participants: z.number(),
  state: z.enum(['open', 'closed']),
  createTime: z.number(),
  endsAt: z.number(),
  isRecordStatus: z.enum(['0', '1']),
  recordState: z.enum(['0', '1', '2']),
  liveState: z.enum(['0', '1', '2']),
  mode: classModeSchema,
  trialEndsAt: z.number(),
});
/** A change of the room info: any of its fields (the patch answer). */
export const roomInfoPatchSchema = roomInfoSchema.partial();
/** Compiles only while the schema and the RoomInfo interface say the same. */
type _RoomInfoChecked = [SameType<z.output<typeof roomInfoSchema>, RoomInfo>] extends [true] ? true : never;
export const ROOM_INFO_SCHEMA_CHECKED: _RoomInfoChecked = true;

export const roomSnapshotSchema = z.strictObject({
  roomInfo: roomInfoSchema,
  you: z.strictObject({ userId: z.string(), name: z.string(), role: roleSchema }),
  members: z.array(memberSchema),
  messages: z.array(chatMessageSchema),
  /** The stage and the raised hands (core/contracts/stage.ts, ADR 112). */
  stage: stageStateSchema,
  teacherOnline: z.boolean(),
  serverTime: z.number(),
  /** The courseware the room shows now, freshly signed (core/contracts/courseware.ts). */
  courseware: roomCoursewareSchema.optional(),
  /** The class tools (core/contracts/class-tools.ts, ADR 113): tools, toolsPrivate, myAnswers. */
  ...classToolsSnapshotFields,
  /** The breakout groups (core/contracts/groups.ts, ADR 116). */
  ...groupsSnapshotFields,
});
export type RoomSnapshot = z.infer<typeof roomSnapshotSchema>;

/** Browser -> server: payload and answer of each request. */
export const roomRequests = {
  /** `version`: the client's ROOM_PROTOCOL_VERSION; an older one is answered '10' (reload). */
  joinRoom: call(z.strictObject({ version: whole(0, 1_000_000).optional() }), roomSnapshotSchema),
  leaveRoom: call(noPayload, noAnswer),
  customRoomEvent: call(roomPatchSchema, roomInfoPatchSchema),
  chat: call(z.strictObject({ text: chatTextSchema }), chatMessageSchema),
  kickout: call(z.strictObject({ userId: userIdSchema }), noAnswer),
  endRoom: call(noPayload, noAnswer),
  startTrial: call(noPayload, z.strictObject({ trialEndsAt: z.number() })),
  /** The class mode (ADR 099): the creator's alone; told to the room as a customRoomEvent `{mode, by}`. */
  setMode: call(z.strictObject({ mode: classModeSchema }), z.strictObject({ mode: classModeSchema })),
  ...coursewareRoomRequests,
  ...classToolsRoomRequests,
  ...stageRoomRequests,
  ...groupsRoomRequests,
};

/** Server -> browser. */
export const roomEvents = {
  /** A patch of the room info, after the server applied it; `by` is who changed it. */
  customRoomEvent: roomInfoPatchSchema.extend({ by: z.string() }),
  members: z.strictObject({ members: z.array(memberSchema), teacherOnline: z.boolean(), participants: z.number() }),
  messageevent: chatMessageSchema,
  kickout: z.strictObject({ userId: z.string() }),
  roomClosed: z.strictObject({ reason: z.enum(['ended', 'expired', 'idle']) }),
  ...coursewareRoomEvents,
  ...recordingRoomEvents,
  ...liveRoomEvents,
  ...classToolsRoomEvents,
  ...stageRoomEvents,
  ...groupsRoomEvents,
};

/** Browser -> server. */
export type ClientToServer = Requests<typeof roomRequests>;
/** Server -> browser. */
export type ServerToClient = Events<typeof roomEvents>;

/** Both halves of the room channel (the server's dispatcher, the browser's openChannel). */
export const roomChannel = channelContract({ name: 'room', requests: roomRequests, events: roomEvents });
