/**
 * A throwaway RTMP server for tests, standing in for a video platform's ingest (issue 14): Debian's
 * nginx with the nginx-rtmp module (packages `nginx` and `libnginx-mod-rtmp`), on 127.0.0.1 and a
 * free port, with its own configuration, pid file and logs in a temporary folder. One application,
 * `live`: a publisher pushes to rtmp://127.0.0.1:<port>/live/<stream key> and anyone may play the
 * same URL while it runs. With `onPublish`, nginx asks that HTTP URL first (a form-encoded POST with
 * `call=publish`, `app`, `name` = the stream key, `addr`, ...) and drops the publisher unless the
 * answer is 2xx, as a platform refuses a wrong key. `stop()` kills it (an outage, in a test);
 * `start()` brings it back on the same port.
 *
 *   const rtmp = await startRtmpServer({ onPublish: 'http://127.0.0.1:4321/publish' });
 *   // ffmpeg ... -f flv `${rtmp.url}/abcd-efgh-ijkl-mnop`
 *   ...
 *   await rtmp.close();
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freeLoopbackPort } from './ports.ts';

export interface RtmpServerOptions {
  /** An http:// URL nginx-rtmp POSTs to before it accepts a publish; a non-2xx answer refuses the stream. */
  onPublish?: string;
}

export interface TestRtmpServer {
  /** e.g. rtmp://127.0.0.1:41234/live; a stream is `${url}/${key}`. */
  url: string;
  port: number;
  /** nginx's error log (connections, hook calls and their answers at `info`), for diagnostics. */
  errorLog: string;
  /** Kills nginx and waits until nothing listens on the port (which stays reserved for start()). */
  stop(): Promise<void>;
  /** Starts it again on the same port and waits until it accepts connections. */
  start(): Promise<void>;
  /** stop(), then removes the temporary folder. Safe to call more than once. */
  close(): Promise<void>;
}

const NGINX = process.env.NGINX ?? '/usr/sbin/nginx';
const RTMP_MODULE = process.env.NGINX_RTMP_MODULE ?? '/usr/lib/nginx/modules/ngx_rtmp_module.so';
const READY_MS = 10_000;

/** True when something accepts a TCP connection on 127.0.0.1:port. */
async function accepts(port: number): Promise<boolean> {
  return await new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

function config(dir: string, port: number, options: RtmpServerOptions): string {
  const onPublish = options.onPublish;
  return [
    `load_module ${RTMP_MODULE};`,
    // One process in the foreground: it is our child, so stop() is one kill and an exit event, with
    // no master left holding the port while a worker drains, and no switch to the `nobody` user.
    'daemon off;',
    'master_process off;',
    `pid ${path.join(dir, 'nginx.pid')};`,
    `error_log ${path.join(dir, 'error.log')} info;`,
    'events { worker_connections 256; }',
    'rtmp {',
    '  server {',
    `    listen 127.0.0.1:${String(port)};`,
    '    application live {',
    '      live on;',
    '      record off;',
    // A player that joins mid-stream starts on a key frame, so a probe never sees a broken picture.
    '      wait_key on;',
    ...(onPublish === undefined ? [] : [`      on_publish ${onPublish};`]),
    '    }',
    '  }',
    '}',
    '',
  ].join('\n');
}

async function tail(file: string, lines = 20): Promise<string> {
  try {
    return (await readFile(file, 'utf8')).trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

/**
 * A watchdog that kills nginx if this process dies without close() (a crashed or SIGKILLed test
 * worker): the server would otherwise keep the port and its folder forever.
 */
function startWatchdog(pidFile: string, dir: string): ChildProcess {
  const quote = (value: string) => `'${value.replaceAll("'", `'\\''`)}'`;
  const script =
    `while kill -0 ${String(process.pid)} 2>/dev/null; do sleep 1; done; ` +
    `[ -s ${quote(pidFile)} ] && kill -9 "$(cat ${quote(pidFile)})" 2>/dev/null; rm -rf ${quote(dir)}`;
  const child = spawn('bash', ['-c', script], { detached: true, stdio: 'ignore' });
  child.unref();
  return child;
}

export async function startRtmpServer(options: RtmpServerOptions = {}): Promise<TestRtmpServer> {
  for (const [file, pkg] of [
    [NGINX, 'nginx'],
    [RTMP_MODULE, 'libnginx-mod-rtmp'],
  ] as const) {
    if (!existsSync(file)) throw new Error(`${file} is missing: install the Debian package '${pkg}' (bash infra/setup does)`);
  }
  // The URL goes into nginx.conf as one token; nginx-rtmp's HTTP client has no TLS.
  if (options.onPublish !== undefined && !/^http:\/\/[^\s;{}'"]+$/.test(options.onPublish)) {
    throw new Error(`onPublish must be a plain http:// URL, got ${options.onPublish}`);
  }
  const dir = await mkdtemp(path.join(tmpdir(), 'banshu-rtmp-'));
  const confFile = path.join(dir, 'nginx.conf');
  const pidFile = path.join(dir, 'nginx.pid');
  const errorLog = path.join(dir, 'error.log');
  let port = 0;
  let child: ChildProcess | null = null;

  const start = async () => {
    if (child) return;
    await rm(pidFile, { force: true });
    // -e: the log nginx writes before it has read the configuration; Debian's default is
    // /var/log/nginx/error.log, which is not ours to write.
    const c = spawn(NGINX, ['-p', dir, '-c', confFile, '-e', errorLog], { stdio: ['ignore', 'ignore', 'pipe'] });
    child = c;
    let stderr = '';
    let spawnError: Error | undefined;
    c.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<void>((resolve) => {
      c.once('exit', () => resolve());
      c.once('error', (error) => {
        spawnError = error;
        resolve();
      });
    });
    // Ready when nginx has written its pid file (which it does only after binding the port) and the
    // port accepts: the port alone could be another process that took it in the meantime.
    const ready = async () => (await readFile(pidFile, 'utf8').catch(() => '')).trim() === String(c.pid) && (await accepts(port));
    const deadline = Date.now() + READY_MS;
    while (!(await ready())) {
      const gone = c.exitCode !== null || c.signalCode !== null || spawnError !== undefined;
      if (gone || Date.now() > deadline) {
        if (!gone) c.kill('SIGKILL');
        await exited;
        child = null;
        const why = gone
          ? `exited (${spawnError?.message ?? String(c.exitCode ?? c.signalCode)})`
          : `did not accept connections within ${String(READY_MS)} ms`;
        throw new Error(`nginx (rtmp) on 127.0.0.1:${String(port)} ${why}:\n${stderr}${await tail(errorLog)}`);
      }
      await new Promise((r) => setTimeout(r, 25));
    }
  };

  const stop = async () => {
    const c = child;
    child = null;
    if (c && c.exitCode === null && c.signalCode === null) {
      await new Promise<void>((resolve) => {
        c.once('exit', () => resolve());
        c.kill('SIGKILL');
      });
    }
    // A killed nginx leaves its pid file; the watchdog must not kill whoever gets that pid next.
    await rm(pidFile, { force: true });
    const deadline = Date.now() + READY_MS;
    while (await accepts(port)) {
      if (Date.now() > deadline) throw new Error(`127.0.0.1:${String(port)} still accepts connections after nginx was stopped`);
      await new Promise((r) => setTimeout(r, 25));
    }
  };

  // The port is picked before nginx binds it; another process may take it in between.
  let lastError: unknown;
  for (let attempt = 0; attempt < 3 && port === 0; attempt++) {
    const candidate = await freeLoopbackPort();
    await writeFile(confFile, config(dir, candidate, options));
    port = candidate;
    try {
      await start();
    } catch (error) {
      lastError = error;
      port = 0;
    }
  }
  if (port === 0) {
    await rm(dir, { recursive: true, force: true });
    throw lastError instanceof Error ? lastError : new Error(String(lastError));
  }

  const watchdog = startWatchdog(pidFile, dir);
  const onExit = () => child?.kill('SIGKILL');
  process.once('exit', onExit);

  let closed: Promise<void> | undefined;
  const close = () => {
    closed ??= (async () => {
      process.off('exit', onExit);
      await stop();
      watchdog.kill();
      await rm(dir, { recursive: true, force: true });
    })();
    return closed;
  };

  return { url: `rtmp://127.0.0.1:${String(port)}/live`, port, errorLog, start, stop, close };
}

/**
 * The HTTP hook nginx asks before it takes a stream (`on_publish`): 403 for the `refused` keys, 200
 * for any other. Its `url` goes to `startRtmpServer({ onPublish })`.
 */
export async function startPublishHook(refused: readonly string[]): Promise<{ url: string; close(): Promise<void> }> {
  const hook = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      res.statusCode = refused.includes(new URLSearchParams(body).get('name') ?? '') ? 403 : 200;
      res.end();
    });
  });
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
  const { port } = hook.address() as { port: number };
  return { url: `http://127.0.0.1:${String(port)}/publish`, close: () => new Promise<void>((r) => hook.close(() => r())) };
}
