/**
 * A `ROLE=recorder` process as operators run it (ADR 077), beside a test's `ROLE=web,media`
 * server: the same database, object store and Redis. Used by the media tests that record through
 * real processes (recorder-process, recorder-capacity, recording-whole).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestRedis } from './redis.ts';
import type { TestS3 } from './s3.ts';
import type { TestServer } from './server.ts';

const MAIN = path.resolve('server/main.ts');

/** What the recorders of one test share. */
export interface RecorderSite {
  web: TestServer;
  redis: TestRedis;
  s3: TestS3;
  dataDir: string;
  sessionSecret: string;
  /** Names the log files in the temporary directory (`banshu-<name>-<n>.log`), for a person reading a failure. */
  name: string;
}

export interface RecorderProcess {
  child: ChildProcess;
  /** Its log lines that are pino JSON, as they come. */
  lines: Array<Record<string, unknown>>;
  /** Its whole output so far (stdout and stderr). */
  log(): string;
  /** The log lines with message `msg` that pass `match`. */
  logged(msg: string, match?: (line: Record<string, unknown>) => boolean): Array<Record<string, unknown>>;
}

let started = 0;

/**
 * Starts a recorder on the site's database, store and Redis, with `env` over the defaults
 * (e.g. RECORDER_SLOTS); resolves once it logs 'recorder running', fails with its output if it exits first.
 */
export async function startRecorderProcess(site: RecorderSite, env: Record<string, string> = {}): Promise<RecorderProcess> {
  const child = spawn(process.execPath, [MAIN], {
    env: {
      PATH: process.env['PATH'] ?? '',
      HOME: process.env['HOME'] ?? '/tmp',
      NODE_ENV: 'test',
      ROLE: 'recorder',
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      SESSION_SECRET: site.sessionSecret,
      DATA_DIR: site.dataDir,
      DATABASE_URL: site.web.banshu.platform.database.url!,
      REDIS_URL: site.redis.url,
      MEDIA_PUBLIC_URL: site.web.url,
      // The recorder hears the room on the web tier's channels (ADR 109).
      PUBLIC_URL: site.web.url,
      ...site.s3.env,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const sink = createWriteStream(path.join(tmpdir(), `banshu-${site.name}-${String(++started)}.log`));
  let log = '';
  let partial = '';
  const lines: Array<Record<string, unknown>> = [];
  let running: (() => void) | null = null;
  child.stdout.on('data', (c: Buffer) => {
    sink.write(c);
    log += c.toString();
    const parts = (partial + c.toString()).split('\n');
    partial = parts.pop() ?? '';
    for (const line of parts) {
      try {
        const parsed = JSON.parse(line) as Record<string, unknown>;
        lines.push(parsed);
        if (parsed['msg'] === 'recorder running') running?.();
      } catch {
        // not a log line
      }
    }
  });
  child.stderr.on('data', (c: Buffer) => {
    sink.write(c);
    log += c.toString();
  });
  child.once('exit', () => sink.end());
  await new Promise<void>((resolve, reject) => {
    running = resolve;
    child.once('exit', (code, signal) => reject(new Error(`recorder exited ${String(code ?? signal)}: ${log.slice(-3000)}`)));
  });
  return {
    child,
    lines,
    log: () => log,
    logged: (msg, match = () => true) => lines.filter((l) => l['msg'] === msg && match(l)),
  };
}

/** SIGKILL (a crash, or the end of a test); resolves once the process is gone. */
export async function killProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await gone;
}
