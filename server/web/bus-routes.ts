/**
 * Where a bus message goes on socket.io: the namespace, the socket.io room and the event. The web
 * channels emit by it on their own server (and, with REDIS_URL, through the Redis adapter), and
 * processes without channels emit by it through the Redis emitter (server/redis.ts), so the two
 * cannot drift apart.
 */
import { z } from 'zod';
import type { BusMessage, RoomEvent, UserEvent } from '#core/platform/events.ts';
import { ROOM_NAMESPACE } from '#core/contracts/room-events.ts';
import { USER_NAMESPACE, userKey } from '#core/contracts/user-events.ts';

/** The socket.io room of everyone joined to a classroom (namespace `/room`). */
export const roomKey = (room: string) => `room:${room}`;

export interface SocketRoute {
  nsp: typeof ROOM_NAMESPACE | typeof USER_NAMESPACE;
  room: string;
  event: string;
  payload: unknown;
}

export function socketRouteOf(m: BusMessage): SocketRoute {
  if ('room' in m.target) return { nsp: ROOM_NAMESPACE, room: roomKey(m.target.room), event: m.event, payload: m.payload };
  return { nsp: USER_NAMESPACE, room: userKey(m.target.user), event: m.event, payload: m.payload };
}

/** Every event of the room channel's ServerToClient, at run time (the check below fails to compile when one is missing). */
const ROOM_EVENTS = [
  'customRoomEvent',
  'members',
  'messageevent',
  'mic',
  'kickout',
  'roomClosed',
  'documentConvert',
  'courseware',
  'videoControl',
  'roomRecord',
  'roomRecordFailed',
  'roomLive',
] as const satisfies readonly RoomEvent[];
const USER_EVENTS = [
  'paymentSuccess',
  'addDocumentConvertEvent',
  'documentStatus',
  'roomRecord',
  'studioRecord',
] as const satisfies readonly UserEvent[];
/** Compiles only when every contract event is listed (a new event must be added here to cross processes). */
export const EVERY_EVENT_LISTED: [Exclude<RoomEvent | UserEvent, (typeof ROOM_EVENTS)[number] | (typeof USER_EVENTS)[number]>] extends [
  never,
]
  ? true
  : false = true;

const payload = z.record(z.string(), z.unknown());
/** A bus message as it crosses a process boundary: a known event for its kind of target, an object payload. */
export const busMessageSchema = z.union([
  z.object({ target: z.object({ room: z.string().regex(/^[A-Za-z0-9]{1,64}$/) }).strict(), event: z.enum(ROOM_EVENTS), payload }).strict(),
  z.object({ target: z.object({ user: z.string().regex(/^[0-9]{1,19}$/) }).strict(), event: z.enum(USER_EVENTS), payload }).strict(),
]);

/**
 * A message that is about to leave this process (the Redis emitter) or came from outside it,
 * parsed before it is routed: null when its target, event or payload is not one the contracts
 * allow. Payload fields are the contracts' types (their per-event schemas belong to the contract files).
 */
export function parseBusMessage(raw: unknown): BusMessage | null {
  const parsed = busMessageSchema.safeParse(raw);
  // The event names and targets were checked above; the payload's fields are as published.
  return parsed.success ? (raw as BusMessage) : null;
}
