/**
 * The room event bus: how services, workers and media nodes tell browsers that something changed.
 * The web role binds it to socket.io rooms (and, distributed, to the Redis adapter); tests use the
 * in-memory bus and read what was published.
 *
 * A message is typed by the channel contracts: a room message carries an event of the room
 * channel's ServerToClient with that event's payload, a user message one of UserServerToClient's.
 * A wrong event name or payload at a `publish` call is a compile error.
 */
import type { ServerToClient } from '../contracts/room-events.ts';
import type { UserServerToClient } from '../contracts/user-events.ts';

export type RoomEvent = keyof ServerToClient;
export type UserEvent = keyof UserServerToClient;
/** An event's payload: the first parameter of its listener in the contract. */
export type RoomPayload<E extends RoomEvent> = Parameters<ServerToClient[E]>[0];
export type UserPayload<E extends UserEvent> = Parameters<UserServerToClient[E]>[0];

/** To everyone in a classroom (namespace `/room`). */
export type RoomMessage<E extends RoomEvent = RoomEvent> = {
  [K in E]: { target: { room: string }; event: K; payload: RoomPayload<K> };
}[E];
/** To every page one person has open (namespace `/user`). */
export type UserMessage<E extends UserEvent = UserEvent> = {
  [K in E]: { target: { user: string }; event: K; payload: UserPayload<K> };
}[E];

/**
 * To one person's own connections in one classroom (namespace `/room`, the seat key of
 * server/web/room-channel.ts): what only the teacher may see (a quiz's answers, ADR 113).
 */
export type SeatMessage<E extends RoomEvent = RoomEvent> = {
  [K in E]: { target: { room: string; user: string }; event: K; payload: RoomPayload<K> };
}[E];

export type BusMessage = RoomMessage | UserMessage | SeatMessage;

/**
 * A room message, for callers generic over the event. The event and its payload are checked
 * together here; TypeScript cannot see that a message of a generic event E is one member of the
 * union, hence the one widening.
 */
export function roomMessage<E extends RoomEvent>(room: string, event: E, payload: RoomPayload<E>): BusMessage {
  const message: RoomMessage<E> = { target: { room }, event, payload };
  return message as RoomMessage;
}

/** A user message, for callers generic over the event (the same widening as roomMessage). */
export function userMessage<E extends UserEvent>(user: string, event: E, payload: UserPayload<E>): BusMessage {
  const message: UserMessage<E> = { target: { user }, event, payload };
  return message as UserMessage;
}

/** A room event for one person's connections in that room (the same widening as roomMessage). */
export function seatMessage<E extends RoomEvent>(room: string, user: string, event: E, payload: RoomPayload<E>): BusMessage {
  const message: SeatMessage<E> = { target: { room, user }, event, payload };
  return message as SeatMessage;
}

export interface EventBus {
  publish(message: BusMessage): void;
  subscribe(listener: (message: BusMessage) => void): () => void;
}

export class InMemoryEventBus implements EventBus {
  readonly #listeners = new Set<(m: BusMessage) => void>();
  publish(message: BusMessage): void {
    for (const l of this.#listeners) l(message);
  }
  subscribe(listener: (m: BusMessage) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}
