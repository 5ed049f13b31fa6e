/**
 * The channel clients of tests and benchmarks (room, board, user): a real socket.io socket, spoken
 * through the product's own client half, `openChannel(contract, socket)` of core/channel/open.ts
 * (ADR 108). So a test's answers and events are parsed by the same contract the browser parses
 * them with: a server that breaks its contract fails the test that heard it, with the schema's own
 * complaint, instead of handing the test something the browser would have dropped.
 *
 * `ask`, `waitFor` and `record` take the socket a `connect*` helper made (which channel it is
 * follows from there). A test that must send what no client would (a payload the contract
 * refuses, a request no contract has, a stroke out of bounds) says so by name: `rawAsk` and
 * `rawEmit`, the one path around the contract, kept for exactly those tests.
 */
import { io, type Socket } from 'socket.io-client';
import type { z } from 'zod';
import { CHANNEL_OFFLINE, openChannel, type Channel, type ChannelProblem } from '#core/channel/open.ts';
import type { Call, ChannelContract } from '#core/contracts/channel.ts';
import { boardChannel, type strokeProgressSchema } from '#core/contracts/board.ts';
import { roomChannel, type Ack } from '#core/contracts/room-events.ts';
import { userChannel } from '#core/contracts/user-events.ts';

export type RoomSocket = Socket;

export type ChannelName = 'room' | 'board' | 'user';
const contracts: Record<ChannelName, ChannelContract<Record<string, Call>, Record<string, z.ZodType>>> = {
  room: roomChannel,
  board: boardChannel,
  user: userChannel,
};

/** A socket's channel: the product's client half over it, and what it dropped. */
interface Linked {
  channel: Channel<Record<string, Call>, Record<string, z.ZodType>>;
  name: ChannelName;
  /** Messages that broke their schema, oldest first. */
  problems: ChannelProblem[];
  /** Told of each new problem (a waiting `waitFor` fails at once). */
  watchers: Set<(problem: ChannelProblem) => void>;
}
const linked = new WeakMap<Socket, Linked>();

/** Puts the product's channel client on a socket of `name`'s namespace (done by the `connect*` helpers). */
export function linkChannel(socket: Socket, name: ChannelName): Socket {
  const watchers = new Set<(problem: ChannelProblem) => void>();
  const problems: ChannelProblem[] = [];
  const channel = openChannel(contracts[name], socket, {
    log: (problem) => {
      // Shown in the test's output too: a `record` or `listen` that misses a dropped message says why.
      console.warn(`[test channel] ${describe(problem)}`);
      problems.push(problem);
      for (const w of [...watchers]) w(problem);
    },
  });
  linked.set(socket, { channel, name, problems, watchers });
  return socket;
}

function linkOf(socket: Socket): Linked {
  const found = linked.get(socket);
  if (!found) throw new Error('not a channel socket: make it with connectRoom, connectBoard or connectUser');
  return found;
}

/** What a channel's messages broke so far (a test may assert there were none). */
export function problemsOf(socket: Socket): readonly ChannelProblem[] {
  return linkOf(socket).problems;
}

const describe = (p: ChannelProblem) => `the ${p.channel} channel's ${p.kind} ${p.name} broke its schema: ${p.issue}`;

export interface ConnectOptions {
  lang?: string;
  /** The handshake's auth beyond the token (e.g. a client version). */
  auth?: Record<string, unknown>;
}

/** Connects to a channel's namespace with a token, without reconnection; rejects with the refusal's code. */
export function connectChannel(baseUrl: string, name: ChannelName, token: string, opts: ConnectOptions = {}): Promise<Socket> {
  const socket = io(`${baseUrl}/${name}`, {
    auth: { token, ...opts.auth },
    transports: ['websocket'],
    forceNew: true,
    reconnection: false,
    extraHeaders: opts.lang ? { lang: opts.lang } : {},
  });
  linkChannel(socket, name);
  return new Promise((resolve, reject) => {
    socket.once('connect', () => resolve(socket));
    socket.once('connect_error', (err: Error & { data?: Ack<never> }) => {
      socket.close();
      reject(Object.assign(new Error(err.message), { code: err.data?.code ?? err.message, msg: err.data?.msg }));
    });
  });
}

/** The room channel, with a join answer's `imToken`. */
export const connectRoom = (baseUrl: string, token: string, opts: ConnectOptions = {}): Promise<RoomSocket> =>
  connectChannel(baseUrl, 'room', token, opts);

/** The user channel (orders, documents), with a user token. */
export const connectUser = (baseUrl: string, token: string, opts: ConnectOptions = {}): Promise<Socket> =>
  connectChannel(baseUrl, 'user', token, opts);

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

/** A request of the room or board channel, by name (the user channel takes none). */
export type KnownRequest = keyof RoomRequests | keyof BoardRequests;
/** Its payload as the contract takes it. */
export type RequestPayload<K extends KnownRequest> =
  | (K extends keyof RoomRequests ? z.input<RoomRequests[K]['payload']> : never)
  | (K extends keyof BoardRequests ? z.input<BoardRequests[K]['payload']> : never);
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
 * Sends a request of the socket's channel and resolves with its answer, parsed by the request's
 * answer schema (the product's `request`). Rejects when no answer came in `timeoutMs` (or the
 * socket is down), and when the answer broke its schema (naming the schema's complaint).
 */
export async function ask<K extends KnownRequest>(
  socket: RoomSocket,
  event: K,
  payload?: RequestPayload<K>,
  timeoutMs = 5000,
): Promise<Answer<AnswerData<K>>> {
  const answer = await askOrOffline(socket, event, payload, timeoutMs);
  if (!answer) throw new Error(`no answer to ${event} within ${timeoutMs} ms (or the socket is down)`);
  return answer;
}

/**
 * `ask` as a browser's request fails while its node is gone: null when the socket is down or no
 * answer came in `timeoutMs` (for tests that kill a server under a stream of requests). Still
 * rejects when the answer broke its schema.
 */
export async function askOrOffline<K extends KnownRequest>(
  socket: RoomSocket,
  event: K,
  payload?: RequestPayload<K>,
  timeoutMs = 5000,
): Promise<Answer<AnswerData<K>> | null> {
  const { channel, name, problems } = linkOf(socket);
  if (!(event in contracts[name].requests)) throw new Error(`${event} is not a request of the ${name} channel (rawAsk sends anything)`);
  const before = problems.length;
  const answer = await channel.request(event, payload ?? {}, { timeoutMs });
  const broke = problems.slice(before).find((p) => p.kind === 'answer' && p.name === event);
  if (broke) throw new Error(describe(broke));
  return answer.code === CHANNEL_OFFLINE ? null : (answer as Answer<AnswerData<K>>);
}

/** Sends a request of the socket's channel whose answer nobody waits for (the product's `send`: e.g. an operation in flight when the socket closes). */
export function send<K extends KnownRequest>(socket: RoomSocket, event: K, payload: RequestPayload<K>): void {
  const { channel, name } = linkOf(socket);
  if (!(event in contracts[name].requests)) throw new Error(`${event} is not a request of the ${name} channel`);
  channel.send(event, payload);
}

/**
 * The raw path, for tests that send what the contract refuses or no contract has: emits `event`
 * with `payload` as given and resolves with the acknowledgement as the server sent it, unparsed.
 */
export function rawAsk(socket: Socket, event: string, payload: unknown = {}, timeoutMs = 5000): Promise<Answer<unknown>> {
  return socket.timeout(timeoutMs).emitWithAck(event, payload) as Promise<Answer<unknown>>;
}

/** The raw path without an acknowledgement (a malformed stroke, a request whose answer is not awaited on purpose). */
export function rawEmit(socket: Socket, event: string, ...args: unknown[]): void {
  socket.emit(event, ...args);
}

/**
 * A batch of a live stroke on a board socket. The product sends it as the browser's board store
 * does (a plain emit, no answer); the contract's schema is the payload's type.
 */
export function sendStroke(socket: Socket, progress: z.input<typeof strokeProgressSchema>): void {
  if (linkOf(socket).name !== 'board') throw new Error('a stroke goes on the board channel');
  socket.emit('stroke', progress);
}

function eventOf(socket: Socket, event: string): Linked {
  const link = linkOf(socket);
  if (!(event in contracts[link.name].events)) throw new Error(`${event} is not an event of the ${link.name} channel`);
  return link;
}

/**
 * Resolves with the first `event` whose payload, parsed by the contract, passes `match`. Rejects at
 * once when an `event` breaks its schema, and after `timeoutMs` without a match.
 */
export function waitFor<K extends KnownEvent>(
  socket: RoomSocket,
  event: K,
  match: (p: EventPayload<K>) => boolean = () => true,
  timeoutMs = 5000,
): Promise<EventPayload<K>> {
  const { channel, watchers } = eventOf(socket, event);
  return new Promise((resolve, reject) => {
    const done = () => {
      clearTimeout(timer);
      off();
      watchers.delete(watch);
    };
    const timer = setTimeout(() => {
      done();
      reject(new Error(`no ${event} within ${timeoutMs} ms`));
    }, timeoutMs);
    const watch = (p: ChannelProblem) => {
      if (p.kind !== 'event' || p.name !== event) return;
      done();
      reject(new Error(describe(p)));
    };
    watchers.add(watch);
    const off = channel.on(event, (p) => {
      if (!match(p as EventPayload<K>)) return;
      done();
      resolve(p as EventPayload<K>);
    });
  });
}

/** Calls `handler` with every `event` from now on, parsed by the contract; returns the unsubscribe. */
export function listen<K extends KnownEvent>(socket: RoomSocket, event: K, handler: (p: EventPayload<K>) => void): () => void {
  return eventOf(socket, event).channel.on(event, (p) => handler(p as EventPayload<K>));
}

/** Collects every `event` from now on (parsed by the contract), to check later what arrived or that nothing did. */
export function record<K extends KnownEvent>(socket: RoomSocket, event: K): Array<EventPayload<K>> {
  const seen: Array<EventPayload<K>> = [];
  eventOf(socket, event).channel.on(event, (p) => seen.push(p as EventPayload<K>));
  return seen;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
