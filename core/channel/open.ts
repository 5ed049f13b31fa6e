/**
 * The client half of every socket channel (ADR 108), the twin of the dispatcher beside it
 * (dispatch.ts): `openChannel(contract, socket)` sends the contract's requests and parses each
 * answer by the request's answer schema, and parses each server-to-client event by its schema
 * before any handler sees it. A message that breaks its schema is told to the channel's log and
 * dropped; the channel, and the client above it, stay up and go on with the next message.
 *
 * It is typed against the few socket methods it uses (ChannelSocket): socket.io-client's Socket has
 * them, and a test's fake socket can implement them. The socket's life (connect, reconnect, auth)
 * stays with the client that made it; the channel only adds and removes its own listeners.
 */
import type { z } from 'zod';
import type { Ack, Call, ChannelContract } from '#core/contracts/channel.ts';

/** A request that could not reach the server or got no answer in time (no connection, timeout, disconnect). */
export const CHANNEL_OFFLINE = 'network';
/** The server answered something its contract does not allow: the answer is dropped and this code given instead. */
export const CHANNEL_BAD_ANSWER = '9';
export const DEFAULT_TIMEOUT_MS = 10_000;

/** What a channel needs of a socket (socket.io-client's Socket satisfies it). */
export interface ChannelSocket {
  readonly connected: boolean;
  on(event: string, listener: (...args: unknown[]) => void): unknown;
  off(event: string, listener?: (...args: unknown[]) => void): unknown;
  /** An emit whose acknowledgement fails with an error after `ms` (or when the connection drops). */
  timeout(ms: number): { emit(event: string, payload: unknown, ack: (err: Error | null, answer?: unknown) => void): unknown };
}

/** A message that broke its schema: where, which and why (the first issue). */
export interface ChannelProblem {
  channel: string;
  kind: 'answer' | 'event';
  name: string;
  issue: string;
}

export interface ChannelOptions {
  /** Where a message that broke its schema is told (the browser's client log, a test's list). */
  log: (problem: ChannelProblem) => void;
  /** How long a request waits for its answer, unless the request says otherwise. */
  timeoutMs?: number;
}

export type AnswerOf<C extends Record<string, Call>, K extends keyof C> = Ack<z.output<C[K]['answer']>>;

export interface Channel<C extends Record<string, Call>, E extends Record<string, z.ZodType>> {
  /**
   * Sends one request and resolves with its answer, never rejects: code '0' with `data` parsed by
   * the answer schema; the server's refusal as it came; CHANNEL_OFFLINE when it could not be asked
   * or answered in time; CHANNEL_BAD_ANSWER when the answer broke its schema (logged).
   */
  request<K extends keyof C & string>(
    name: K,
    payload: z.input<C[K]['payload']>,
    options?: { timeoutMs?: number },
  ): Promise<AnswerOf<C, K>>;
  /** `request` with a callback, called in the acknowledgement's own turn (for state that must change before anything else runs). */
  call<K extends keyof C & string>(
    name: K,
    payload: z.input<C[K]['payload']>,
    done: (answer: AnswerOf<C, K>) => void,
    options?: { timeoutMs?: number },
  ): void;
  /** Sends a request whose answer nobody waits for (a report); it is still acknowledged by the server. */
  send<K extends keyof C & string>(name: K, payload: z.input<C[K]['payload']>): void;
  /** Calls `handler` with each event of that name that passes its schema; returns the unsubscribe. */
  on<K extends keyof E & string>(event: K, handler: (payload: z.output<E[K]>) => void): () => void;
  /** The socket is connected now. */
  readonly connected: boolean;
  /** Removes every listener this channel added (the socket itself is left as it is). */
  close(): void;
}

/** The first issue of a failed parse, short (a path and a message). */
function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid';
  const path = issue.path.map(String).join('.');
  return (path ? `${path}: ${issue.message}` : issue.message).slice(0, 200);
}

const isEnvelope = (v: unknown): v is { code: string; msg?: unknown; data?: unknown } =>
  typeof v === 'object' && v !== null && typeof (v as { code?: unknown }).code === 'string';

export function openChannel<C extends Record<string, Call>, E extends Record<string, z.ZodType>>(
  contract: ChannelContract<C, E>,
  socket: ChannelSocket,
  options: ChannelOptions,
): Channel<C, E> {
  const defaultTimeout = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  /** One socket listener per event: it parses once, then hands the payload to every handler of the event. */
  const listeners = new Map<string, { listener: (payload: unknown) => void; handlers: Set<(payload: never) => void> }>();
  const wire = (name: string, payload: unknown): [string, unknown] => (contract.wire ? contract.wire(name, payload) : [name, payload]);
  const problem = (kind: ChannelProblem['kind'], name: string, issue: string) => {
    try {
      options.log({ channel: contract.name, kind, name, issue });
    } catch {
      // a log that fails never takes the channel down
    }
  };

  /** The answer as the contract allows it, or the code that says why not. */
  const answerOf = (name: string, err: Error | null, raw: unknown): Ack<unknown> => {
    if (err) return { code: CHANNEL_OFFLINE, msg: '' };
    if (!isEnvelope(raw) || (raw.msg !== undefined && typeof raw.msg !== 'string')) {
      problem('answer', name, 'not an answer {code, msg, data}');
      return { code: CHANNEL_BAD_ANSWER, msg: '' };
    }
    const msg = typeof raw.msg === 'string' ? raw.msg : '';
    if (raw.code !== '0') return { code: raw.code, msg };
    const parsed = contract.requests[name]!.answer.safeParse(raw.data ?? null);
    if (!parsed.success) {
      problem('answer', name, firstIssue(parsed.error));
      return { code: CHANNEL_BAD_ANSWER, msg: '' };
    }
    return { code: '0', msg, data: parsed.data };
  };

  const call: Channel<C, E>['call'] = (name, payload, done, callOptions) => {
    if (!socket.connected) return done({ code: CHANNEL_OFFLINE, msg: '' });
    const [event, body] = wire(name, payload);
    socket.timeout(callOptions?.timeoutMs ?? defaultTimeout).emit(event, body, (err, raw) => {
      done(answerOf(name, err, raw) as AnswerOf<C, typeof name>);
    });
  };

  return {
    call,
    request(name, payload, requestOptions) {
      return new Promise((resolve) => call(name, payload, resolve, requestOptions));
    },
    send(name, payload) {
      if (!socket.connected) return;
      const [event, body] = wire(name, payload);
      socket.timeout(defaultTimeout).emit(event, body, () => undefined);
    },
    on(event, handler) {
      let entry = listeners.get(event);
      if (!entry) {
        const schema = contract.events[event]!;
        const handlers = new Set<(payload: never) => void>();
        const listener = (payload: unknown) => {
          const parsed = schema.safeParse(payload);
          if (!parsed.success) return problem('event', event, firstIssue(parsed.error));
          for (const h of [...handlers]) h(parsed.data as never);
        };
        entry = { listener, handlers };
        listeners.set(event, entry);
        socket.on(event, listener);
      }
      const { handlers, listener } = entry;
      // A handler added twice is called twice, as a socket's own listeners are.
      const own = (payload: never) => handler(payload);
      handlers.add(own);
      return () => {
        if (!handlers.delete(own) || handlers.size > 0 || listeners.get(event) !== entry) return;
        listeners.delete(event);
        socket.off(event, listener);
      };
    },
    get connected() {
      return socket.connected;
    },
    close() {
      for (const [event, { listener }] of listeners) socket.off(event, listener);
      listeners.clear();
    },
  };
}
