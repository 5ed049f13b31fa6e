/** A room-channel client for tests and benchmarks: connect with a join answer's token, ask with acks, wait for events. */
import { io, type Socket } from 'socket.io-client';
import type { Ack } from '#core/contracts/room-events.ts';

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

export function ask<T = any>(socket: RoomSocket, event: string, payload: unknown = {}, timeoutMs = 5000): Promise<Ack<T>> {
  return socket.timeout(timeoutMs).emitWithAck(event, payload) as Promise<Ack<T>>;
}

/** Resolves with the first `event` whose payload passes `match`. */
export function waitFor<T = any>(socket: RoomSocket, event: string, match: (p: T) => boolean = () => true, timeoutMs = 5000): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      socket.off(event, on);
      reject(new Error(`no ${event} within ${timeoutMs} ms`));
    }, timeoutMs);
    const on = (p: T) => {
      if (!match(p)) return;
      clearTimeout(timer);
      socket.off(event, on);
      resolve(p);
    };
    socket.on(event, on);
  });
}

/** Collects every `event` from now on, to check later that nothing arrived. */
export function record<T = any>(socket: RoomSocket, event: string): T[] {
  const seen: T[] = [];
  socket.on(event, (p: T) => seen.push(p));
  return seen;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
