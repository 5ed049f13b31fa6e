/** A room-channel client for tests and benchmarks: connect with a join answer's token, ask with acks, wait for events. */
import { io, type Socket } from 'socket.io-client';
import type { z } from 'zod';
import type { boardChannel } from '#core/contracts/board.ts';
import type { Ack, roomChannel } from '#core/contracts/room-events.ts';
import type { userChannel } from '#core/contracts/user-events.ts';

export type RoomSocket = Socket;

export function connectRoom(baseUrl: string, token: string, opts: { lang?: string } = {}): Promise<RoomSocket> {
  const socket = io(`${baseUrl}/room`, {
    auth: { token },
    transports: ['websocket'],
    forceNew: true,
    reconnection: false,
    extraHeaders: opts.lang ? { lang: opts.lang } : {},
  });
  return new Promise((resolve, reject) => {
    socket.once('connect', () => resolve(socket));
    socket.once('connect_error', (err: Error & { data?: Ack<never> }) => {
      socket.close();
      reject(Object.assign(new Error(err.message), { code: err.data?.code ?? err.message }));
    });
  });
}

type RoomEvents = (typeof roomChannel)['events'];
type BoardEvents = (typeof boardChannel)['events'];
type UserEvents = (typeof userChannel)['events'];
type RoomRequests = (typeof roomChannel)['requests'];
type BoardRequests = (typeof boardChannel)['requests'];

/** An event of the room, board or user channel, by name. */
export type KnownEvent = keyof RoomEvents | keyof BoardEvents | keyof UserEvents;
/** Its payload as the contract says (a union where two channels share a name). */
export type EventPayload<K extends KnownEvent> =
  | (K extends keyof RoomEvents ? z.output<RoomEvents[K]> : never)
  | (K extends keyof BoardEvents ? z.output<BoardEvents[K]> : never)
  | (K extends keyof UserEvents ? z.output<UserEvents[K]> : never);

/** A request of the room or board channel, by name. */
export type KnownRequest = keyof RoomRequests | keyof BoardRequests;
/** Its answer's data as the contract says. */
export type AnswerData<K extends KnownRequest> =
  | (K extends keyof RoomRequests ? z.output<RoomRequests[K]['answer']> : never)
  | (K extends keyof BoardRequests ? z.output<BoardRequests[K]['answer']> : never);

/**
 * A test's view of an answer: `data` is what the contract says a '0' answer carries. A test checks
 * the code before it reads the data; a refusal has none (reading it fails the test).
 */
export interface Answer<T> {
  code: string;
  msg: string;
  data: T;
}

/**
 * Sends a request and resolves with its acknowledgement, as the server sent it (unparsed: a test
 * may send what the contract refuses, or a request no contract has). Typed by the contract when
 * the name is one of its requests.
 */
export function ask<K extends KnownRequest>(
  socket: RoomSocket,
  event: K,
  payload?: unknown,
  timeoutMs?: number,
): Promise<Answer<AnswerData<K>>>;
export function ask(socket: RoomSocket, event: string, payload?: unknown, timeoutMs?: number): Promise<Answer<unknown>>;
export function ask(socket: RoomSocket, event: string, payload: unknown = {}, timeoutMs = 5000): Promise<Answer<unknown>> {
  return socket.timeout(timeoutMs).emitWithAck(event, payload) as Promise<Answer<unknown>>;
}

/** Resolves with the first `event` whose payload passes `match` (typed by the contract that has the event). */
export function waitFor<K extends KnownEvent>(
  socket: RoomSocket,
  event: K,
  match?: (p: EventPayload<K>) => boolean,
  timeoutMs?: number,
): Promise<EventPayload<K>>;
export function waitFor<T = unknown>(socket: RoomSocket, event: string, match?: (p: T) => boolean, timeoutMs?: number): Promise<T>;
export function waitFor(
  socket: RoomSocket,
  event: string,
  match: (p: unknown) => boolean = () => true,
  timeoutMs = 5000,
): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      socket.off(event, on);
      reject(new Error(`no ${event} within ${timeoutMs} ms`));
    }, timeoutMs);
    const on = (p: unknown) => {
      if (!match(p)) return;
      clearTimeout(timer);
      socket.off(event, on);
      resolve(p);
    };
    socket.on(event, on);
  });
}

/** Collects every `event` from now on, to check later that nothing arrived. */
export function record<K extends KnownEvent>(socket: RoomSocket, event: K): Array<EventPayload<K>>;
export function record<T = unknown>(socket: RoomSocket, event: string): T[];
export function record(socket: RoomSocket, event: string): unknown[] {
  const seen: unknown[] = [];
  socket.on(event, (p: unknown) => seen.push(p));
  return seen;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
