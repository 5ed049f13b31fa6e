/**
 * What the room-channel benches share: a realtime server in a child process (realtime-server.ts),
 * socket.io bots on its `/room` namespace, and their acknowledged requests.
 */
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { io, type Socket } from 'socket.io-client';
import type { ServerToParent } from './realtime-server.ts';

const root = path.join(import.meta.dirname, '..', '..');

export interface Ack<T = unknown> {
  code: string;
  data: T;
}

/** A request on the room channel, answered within 30 s. */
export const ask = <T = unknown>(s: Socket, event: string, payload: unknown = {}): Promise<Ack<T>> =>
  s.timeout(30_000).emitWithAck(event, payload) as Promise<Ack<T>>;

/** A bot's connection to the room channel with its room token. */
export function connect(url: string, token: string): Promise<Socket> {
  const s = io(`${url}/room`, { auth: { token }, transports: ['websocket'], forceNew: true, reconnection: false });
  return new Promise((resolve, reject) => {
    s.once('connect', () => resolve(s));
    s.once('connect_error', reject);
  });
}

/** The realtime server on `engine` in a child process; `next(type)` waits for its next message of that type. */
export function startServer(engine: string, env: Record<string, string>): { proc: ChildProcess; next: <T>(type: string) => Promise<T> } {
  const proc = fork(path.join(root, 'bench/lib/realtime-server.ts'), [engine, 'WHITEBOARD_CAP=100000'], {
    cwd: root,
    execArgv: ['--expose-gc'],
    env: { ...process.env, ...env },
    serialization: 'advanced',
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const next = <T>(type: string) =>
    new Promise<T>((resolve, reject) => {
      const on = (m: ServerToParent) => {
        if (m.type === 'error') reject(new Error(m.message));
        else if (m.type === type) {
          proc.off('message', on);
          resolve(m as T);
        }
      };
      proc.on('message', on);
      proc.once('exit', (code) => reject(new Error(`server exited ${String(code)}`)));
    });
  return { proc, next };
}
