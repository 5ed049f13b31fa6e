/**
 * Where a bus message goes on socket.io: the namespace, the socket.io room and the event. The web
 * channels emit by it on their own server (and, with REDIS_URL, through the Redis adapter), and
 * processes without channels emit by it through the Redis emitter (server/redis.ts), so the two
 * cannot drift apart.
 */
import type { BusMessage } from '#core/platform/events.ts';
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
