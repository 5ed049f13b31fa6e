/**
 * A web node in its own process (tests/support/web-node-child.ts), for the cluster tests that kill
 * one the hard way: `kill('SIGKILL')` leaves no chance to close anything, as a machine that dies.
 * The in-process nodes of those tests (startBanshu) stay for inspection; this one is the victim.
 *
 *   const a = await startWebProcess({ ...env, ROLE: 'web' });
 *   ... clients on a.url ...
 *   await a.kill();            // SIGKILL, resolves once it exited
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';

export interface WebProcess {
  url: string;
  pid: number;
  /** Sends `signal` (default SIGKILL); resolves once the process exited. Again: nothing. */
  kill(signal?: NodeJS.Signals): Promise<void>;
}

const CHILD = path.resolve('tests/support/web-node-child.ts');

/** Starts it on `env` (the node's whole environment besides PATH and HOME); resolves once it listens. */
export async function startWebProcess(env: Record<string, string>, timeoutMs = 60_000): Promise<WebProcess> {
  const child = spawn(process.execPath, [CHILD], {
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '/tmp', ...env },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  const out = child.stdout;
  const err = child.stderr;
  if (!out || !err) throw new Error('no pipes to the web node');
  let stderr = '';
  err.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-4000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the web node did not start within ${String(timeoutMs)} ms: ${stderr}`));
    }, timeoutMs);
    const lines = createInterface({ input: out });
    lines.on('line', (line) => {
      try {
        const { url } = JSON.parse(line) as { url?: string };
        if (url) {
          clearTimeout(timer);
          resolve(url);
        }
      } catch {
        // a log line, not the announcement
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`the web node exited (${String(signal ?? code)}) before it listened: ${stderr}`));
    });
  });
  return {
    url,
    pid: child.pid ?? 0,
    async kill(signal: NodeJS.Signals = 'SIGKILL') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}
