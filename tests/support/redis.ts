/**
 * A throwaway Redis for tests: Debian's `redis-server` on 127.0.0.1 and a free port, nothing
 * written to disk. `stop()` kills it (an outage, in a test); `start()` brings it back on the same port.
 *
 *   const redis = await startRedis();
 *   await startBanshu({ ...env, REDIS_URL: redis.url });
 *   ...
 *   await redis.close();
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import { freeLoopbackPort } from './ports.ts';

export interface TestRedis {
  /** e.g. redis://127.0.0.1:41234 */
  url: string;
  port: number;
  /** Kills the server (the port stays reserved for start()). */
  stop(): Promise<void>;
  /** Starts it again on the same port. */
  start(): Promise<void>;
  close(): Promise<void>;
}

const BINARY = process.env.REDIS_SERVER ?? '/usr/bin/redis-server';

async function pong(url: string, deadline: number): Promise<void> {
  for (;;) {
    const client = new Redis(url, { lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
    client.on('error', () => undefined);
    try {
      await client.connect();
      if ((await client.ping()) === 'PONG') return;
    } catch {
      // not up yet
    } finally {
      client.disconnect();
    }
    if (Date.now() > deadline) throw new Error(`redis-server did not answer PONG at ${url}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function startRedis(): Promise<TestRedis> {
  const port = await freeLoopbackPort();
  const url = `redis://127.0.0.1:${port}`;
  let child: ChildProcess | null = null;
  let output = '';

  const start = async () => {
    output = '';
    const c = spawn(BINARY, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = c;
    c.stdout?.on('data', (d: Buffer) => (output += d.toString()));
    c.stderr?.on('data', (d: Buffer) => (output += d.toString()));
    const exited = new Promise<never>((_, reject) =>
      c.once('exit', (code) => reject(new Error(`redis-server exited (${code}): ${output.slice(-500)}`))),
    );
    exited.catch(() => undefined);
    await Promise.race([pong(url, Date.now() + 10_000), exited]);
  };

  const stop = async () => {
    const c = child;
    child = null;
    if (!c || c.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      c.once('exit', () => resolve());
      c.kill('SIGKILL');
    });
  };

  await start();
  return { url, port, start, stop, close: stop };
}
