/**
 * What every socket contract is made of (room, board, user, media signaling): each acknowledged
 * request is a pair of zod schemas, its payload and its answer; each event sent the other way is
 * one schema. The TypeScript types of both ends are inferred from them, so a wrong event name,
 * payload or answer is a compile error, and the server parses every payload with the same schema
 * (core/channel/dispatch.ts) before anything is stored or broadcast.
 */
import { z } from 'zod';

/** Every answer: code '0' or a code of core/platform/errors.ts. */
export interface Ack<T = null> {
  code: string;
  msg: string;
  data?: T;
}

/** One acknowledged request. */
export interface Call<P extends z.ZodType = z.ZodType, R extends z.ZodType = z.ZodType> {
  payload: P;
  answer: R;
}

export const call = <P extends z.ZodType, R extends z.ZodType>(payload: P, answer: R): Call<P, R> => ({ payload, answer });

/** socket.io's event map of a set of requests: (payload, ack) => void. */
export type Requests<C extends Record<string, Call>> = {
  [K in keyof C]: (payload: z.input<C[K]['payload']>, ack: (answer: Ack<z.output<C[K]['answer']>>) => void) => void;
};

/** socket.io's event map of a set of events. */
export type Events<E extends Record<string, z.ZodType>> = { [K in keyof E]: (payload: z.output<E[K]>) => void };

/** A request that carries nothing. */
export const noPayload = z.strictObject({});
/** An answer without data. */
export const noAnswer = z.null();
/** true when A and B are the same type (a schema checked against an interface it must match). */
export type SameType<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** A value of a type declared elsewhere (another contract): the type only, no runtime check. */
export const declared = <T>() => z.custom<T>(() => true);
/** A finite number in [min, max]. */
export const bounded = (min: number, max: number) => z.number().min(min).max(max);
/** A whole number in [min, max]. */
export const whole = (min: number, max: number) => z.number().int().min(min).max(max);

/**
 * Both halves of one channel: its requests (client -> server, acknowledged) and its events
 * (server -> client). The server's dispatcher parses the requests (core/channel/dispatch.ts); the
 * client's `openChannel` parses the answers and the events (core/channel/open.ts).
 */
export interface ChannelContract<C extends Record<string, Call>, E extends Record<string, z.ZodType>> {
  /** Names the channel in logs. */
  name: string;
  requests: C;
  events: E;
  /** How a request travels, when not as the socket event of its name carrying the payload (media: one envelope event). */
  wire?: (name: string, payload: unknown) => [event: string, payload: unknown];
}

export const channelContract = <C extends Record<string, Call>, E extends Record<string, z.ZodType>>(
  contract: ChannelContract<C, E>,
): ChannelContract<C, E> => contract;
