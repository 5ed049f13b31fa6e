/**
 * The one dispatcher of every socket channel (room, board, user; the media node's signaling):
 * for each request it counts the connection's burst (through the Clock port), parses the payload
 * with the request's schema of its contract (a failure is answered '5' and nothing else happens),
 * runs the route's gate (join state, rights), calls one service method, and answers
 * `{code, msg, data}`: '0' with the data, a DomainError's own code, or '9' for anything
 * unexpected, which alone is logged. Refusing a handshake is written here once too.
 */
import type { Namespace, Socket } from 'socket.io';
import type { z } from 'zod';
import type { Ack, Call } from '#core/contracts/channel.ts';
import type { Clock } from '#core/platform/clock.ts';
import { isDomainError, messageFor, refreshPage, type ErrorCode, type Lang } from '#core/platform/errors.ts';
import type { Logger } from '#core/platform/logger.ts';

/** What one request of a contract runs: its service call, and what must hold before it. */
export interface Route<P, R> {
  run(payload: P): Promise<R> | R;
  /** Throws a DomainError when this connection may not ask this now (e.g. before joining). */
  gate?: () => void;
  /** A tighter limit of this request alone, per second (answered with the flood code too). */
  perSecond?: number;
}

export type Routes<C extends Record<string, Call>> = {
  [K in keyof C]: Route<z.output<C[K]['payload']>, z.output<C[K]['answer']>>;
};

export interface DispatchOptions {
  /** Names the channel in logs. */
  channel: string;
  clock: Clock;
  logger: Logger;
  lang: Lang;
  /** Requests one connection may make per second (a flood guard), and the code past it. */
  perSecond: number;
  floodCode: ErrorCode;
  /** Said with an unexpected failure in the log (room, user). */
  context?: () => Record<string, unknown>;
}

/**
 * Counts hits per name in fixed one-second windows of the clock: one per connection, so a flood
 * costs the flooder only.
 */
export class BurstWindow {
  readonly #clock: Clock;
  #at = Number.NEGATIVE_INFINITY;
  #counts = new Map<string, number>();
  constructor(clock: Clock) {
    this.#clock = clock;
  }
  /** Counts one `name`; false once it is past `limit` in this second. */
  hit(name: string, limit: number): boolean {
    const now = this.#clock.now().getTime();
    if (now - this.#at >= 1000 || now < this.#at) {
      this.#at = now;
      this.#counts = new Map();
    }
    const n = (this.#counts.get(name) ?? 0) + 1;
    this.#counts.set(name, n);
    return n <= limit;
  }
}

/** A client older than this server is told to reload the page ('10'). */
export function checkVersion(version: number | undefined, current: number): void {
  if (version !== undefined && version < current) throw refreshPage(`protocol ${version} < ${current}`);
}

export const answerOf = (lang: Lang, code: ErrorCode): Ack<never> => ({ code, msg: messageFor(code, lang) });
const success = <T>(lang: Lang, data: T): Ack<T> => ({ code: '0', msg: lang === 'en' ? 'success' : '成功', data });

export class Dispatcher<C extends Record<string, Call>> {
  readonly #contract: C;
  readonly #routes: Routes<C>;
  readonly #o: DispatchOptions;
  readonly burst: BurstWindow;

  constructor(contract: C, routes: Routes<C>, options: DispatchOptions) {
    this.#contract = contract;
    this.#routes = routes;
    this.#o = options;
    this.burst = new BurstWindow(options.clock);
  }

  /**
   * Answers one request through `ack` (a request without a callback is dropped: every request is
   * acknowledged). `message` names it and gives its payload; it may throw a DomainError (an
   * envelope that is off), which is answered like any other.
   */
  handle(ack: unknown, message: () => [name: string, payload: unknown]): void {
    if (typeof ack !== 'function') return;
    const reply = ack as (a: Ack<unknown>) => void;
    const { lang } = this.#o;
    if (!this.burst.hit('*', this.#o.perSecond)) return reply(answerOf(lang, this.#o.floodCode));
    let name = '?';
    void (async () => {
      const [n, payload] = message();
      name = n;
      if (!Object.hasOwn(this.#contract, name)) return answerOf(lang, '5');
      const call = this.#contract[name]!;
      const route = this.#routes[name as keyof C];
      const parsed = call.payload.safeParse(payload);
      if (!parsed.success) return answerOf(lang, '5');
      route.gate?.();
      if (route.perSecond !== undefined && !this.burst.hit(name, route.perSecond)) return answerOf(lang, this.#o.floodCode);
      const data: unknown = await route.run(parsed.data as never);
      return success(lang, data ?? null);
    })().then(reply, (err: unknown) => {
      if (isDomainError(err)) return reply(answerOf(lang, err.code));
      this.#o.logger.error({ err, event: name, ...this.#o.context?.() }, `${this.#o.channel} request failed`);
      reply(answerOf(lang, '9'));
    });
  }

  /**
   * Every request of the contract as a socket event of its name; any other event that asks for an
   * answer is answered '5'.
   */
  bind(socket: Socket): void {
    socket.onAny((event: unknown, ...args: unknown[]) => {
      const ack = args.at(-1);
      if (typeof event !== 'string' || typeof ack !== 'function') return;
      this.handle(ack, () => [event, args.length > 1 ? args[0] : undefined]);
    });
  }
}

/**
 * The handshake of a namespace: `admit` returns the connection's data or throws; a refusal reaches
 * the client as `connect_error` with `data: {code, msg}`.
 */
export function admitConnections<D>(
  nsp: Namespace,
  langOf: (socket: Socket) => Lang,
  admit: (socket: Socket, lang: Lang) => Promise<D>,
): void {
  nsp.use((socket, next) => {
    const lang = langOf(socket);
    admit(socket, lang).then(
      (data) => {
        socket.data = data;
        next();
      },
      (err: unknown) => {
        const code: ErrorCode = isDomainError(err) ? err.code : '9';
        next(Object.assign(new Error(code), { data: answerOf(lang, code) }));
      },
    );
  });
}
