/**
 * Where a bus message goes on socket.io: the namespace, the socket.io room and the event. The web
 * channels emit by it on their own server (and, with REDIS_URL, through the Redis adapter), and
 * processes without channels emit by it through the Redis emitter (server/redis.ts), so the two
 * cannot drift apart.
 */
import { z } from 'zod';
import type { BusMessage } from '#core/platform/events.ts';
import { ROOM_NAMESPACE, roomEvents } from '#core/contracts/room-events.ts';
import { USER_NAMESPACE, userEvents, userKey } from '#core/contracts/user-events.ts';

/** The socket.io room of everyone joined to a classroom (namespace `/room`). */
export const roomKey = (room: string) => `room:${room}`;

/** The socket.io room of one person's connections in a classroom (namespace `/room`): who only they may hear. */
export const seatKey = (room: string, uid: string) => `seat:${room}:${uid}`;

export interface SocketRoute {
  nsp: typeof ROOM_NAMESPACE | typeof USER_NAMESPACE;
  room: string;
  event: string;
  payload: unknown;
}

export function socketRouteOf(m: BusMessage): SocketRoute {
  if ('room' in m.target && 'user' in m.target)
    return { nsp: ROOM_NAMESPACE, room: seatKey(m.target.room, m.target.user), event: m.event, payload: m.payload };
  if ('room' in m.target) return { nsp: ROOM_NAMESPACE, room: roomKey(m.target.room), event: m.event, payload: m.payload };
  return { nsp: USER_NAMESPACE, room: userKey(m.target.user), event: m.event, payload: m.payload };
}

const roomTarget = z.strictObject({ room: z.string().regex(/^[A-Za-z0-9]{1,64}$/) });
const userTarget = z.strictObject({ user: z.string().regex(/^[0-9]{1,19}$/) });
const seatTarget = z.strictObject({ room: roomTarget.shape.room, user: userTarget.shape.user });

/** One schema per event of a channel: its target, its name and its payload by the contract's schema of that event. */
function messagesOf(target: z.ZodType, events: Record<string, z.ZodType>): z.ZodType[] {
  return Object.entries(events).map(([event, payload]) => z.strictObject({ target, event: z.literal(event), payload }));
}

/**
 * A bus message as it crosses a process boundary: an event of the room or the user channel for
 * that kind of target, its payload parsed by the same schema the browser's channel parses it by
 * (core/contracts/room-events.ts, user-events.ts).
 */
export const busMessageSchema = z.union([
  ...messagesOf(roomTarget, roomEvents),
  ...messagesOf(userTarget, userEvents),
  ...messagesOf(seatTarget, roomEvents),
]);

/**
 * A message that is about to leave this process (the Redis emitter) or came from outside it,
 * parsed before it is routed: null when its target, event or payload is not one the contracts
 * allow.
 */
export function parseBusMessage(raw: unknown): BusMessage | null {
  const parsed = busMessageSchema.safeParse(raw);
  // Each member of the union is one event with its own payload schema, which is what BusMessage says.
  return parsed.success ? (parsed.data as BusMessage) : null;
}
