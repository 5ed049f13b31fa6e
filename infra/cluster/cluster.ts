/**
 * The whole product on one machine as it runs on several (ADR 095): PostgreSQL, Redis and an
 * S3-compatible store on loopback, web, media, worker and recorder nodes each in its own
 * `node server/main.ts` process with its own ROLE, and Debian's nginx in front of the web nodes.
 * `npm run cluster` (infra/cluster/main.ts) runs it for a person; the cluster tests start it with
 * `startCluster()` and kill and restart its nodes.
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, existsSync, statSync, writeFileSync } from 'node:fs';
import { mkdir, mkdtemp, open, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import pg from 'pg';
import { Redis } from 'ioredis';
import { openDatabase } from '#core/platform/db/database.ts';
import { migrateToLatest } from '#core/platform/db/migrate.ts';
import { startPostgres, type RunningPostgres } from '#tests/support/postgres.ts';
import { startRedis, type TestRedis } from '#tests/support/redis.ts';
import { freeLoopbackPort } from '#tests/support/ports.ts';

export interface ClusterOptions {
  /** Working dir for data/logs (default: a new temp dir, removed on stop; a given dir is kept). */
  dir?: string;
  /** Default 2 -> web-1, web-2. */
  webNodes?: number;
  /** Default 2 -> media-1, media-2. */
  mediaNodes?: number;
  /** Default 1 -> worker-1 (more -> worker-2 ...). */
  workers?: number;
  /** Default 1 -> recorder-1. */
  recorders?: number;
  /** Extra settings given to every node (e.g. MEDIA_REPORT_SECONDS). */
  env?: Record<string, string>;
  /** Progress lines (default: silent). */
  log?: (line: string) => void;
  /** A node that exits without kill()/stop() is started again after 2 s, like a supervisor would (main.ts). */
  supervise?: boolean;
}

export type NodeRole = 'web' | 'media' | 'worker' | 'recorder';

export interface ClusterNode {
  name: string;
  role: NodeRole;
  /** Its own loopback port (0 when it serves no HTTP). */
  port: number;
  /** http://127.0.0.1:<port> ('' when none). */
  url: string;
  /** Current process id. */
  pid: number;
  /** Its stdout+stderr (pino JSON lines), appended across restarts. */
  logPath: string;
  /** Default SIGKILL; resolves when the process exited. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** Starts it again with the same settings; resolves when it is healthy. */
  restart(): Promise<void>;
}

export interface Cluster {
  /** nginx in front: http://127.0.0.1:<port> (this is PUBLIC_URL). */
  url: string;
  nodes: ClusterNode[];
  node(name: string): ClusterNode;
  databaseUrl: string;
  redisUrl: string;
  /** S3_* settings. */
  s3Env: Record<string, string>;
  /** Pins a browser/client to one web node through nginx: the cookie (name/value) nginx honours. */
  pinCookie(webNode: string): { name: string; value: string };
  /** Stops every process, nginx, s3, redis, postgres; removes the temp dir. */
  stop(): Promise<void>;
  /** The working dir: logs/<node>.log, nginx.conf, nginx-access.log (which node answered each request). */
  dir: string;
}

export const PIN_COOKIE = 'banshu_node';
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const NGINX = process.env['NGINX_BIN'] ?? '/usr/sbin/nginx';
const HEALTH_TIMEOUT_MS = 60_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Settings a node process inherits from the launcher's environment (nothing else leaks in, e.g. vitest's NODE_ENV). */
function baseEnv(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of ['PATH', 'HOME', 'LANG', 'LC_ALL', 'TMPDIR', 'TZ']) {
    const v = process.env[key];
    if (v !== undefined) out[key] = v;
  }
  return out;
}

async function waitFor(what: string, deadline: number, check: () => Promise<boolean>, failed?: () => string | null): Promise<void> {
  for (;;) {
    const problem = failed?.();
    if (problem) throw new Error(`${what}: ${problem}`);
    try {
      if (await check()) return;
    } catch {
      // not yet
    }
    if (Date.now() > deadline) throw new Error(`${what}: not ready within ${String(HEALTH_TIMEOUT_MS / 1000)} s`);
    await sleep(100);
  }
}

async function httpOk(url: string): Promise<boolean> {
  const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
  await res.arrayBuffer();
  return res.ok;
}

/** The last lines of a log, for an error message. */
async function tail(file: string, lines = 15): Promise<string> {
  try {
    return (await readFile(file, 'utf8')).trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

interface NodeSpec {
  name: string;
  role: NodeRole;
  port: number;
  env: Record<string, string>;
  logPath: string;
}

class Node implements ClusterNode {
  readonly name: string;
  readonly role: NodeRole;
  readonly port: number;
  readonly url: string;
  readonly logPath: string;
  pid = 0;
  #child: ChildProcess | null = null;
  #exited: Promise<void> = Promise.resolve();
  #expected = false;
  #stopped = false;
  readonly #spec: NodeSpec;
  readonly #log: (line: string) => void;
  readonly #supervise: boolean;
  readonly #spawned: () => void;

  constructor(spec: NodeSpec, log: (line: string) => void, supervise: boolean, spawned: () => void) {
    this.#spec = spec;
    this.name = spec.name;
    this.role = spec.role;
    this.port = spec.port;
    this.url = spec.port ? `http://127.0.0.1:${String(spec.port)}` : '';
    this.logPath = spec.logPath;
    this.#log = log;
    this.#supervise = supervise;
    this.#spawned = spawned;
  }

  /** Spawns the process and resolves when it is healthy. */
  async start(): Promise<void> {
    const from = existsSync(this.logPath) ? statSync(this.logPath).size : 0;
    const out = createWriteStream(this.logPath, { flags: 'a' });
    await new Promise<void>((resolve, reject) => {
      out.once('open', () => resolve());
      out.once('error', reject);
    });
    this.#expected = false;
    const child = spawn(process.execPath, [path.join(ROOT, 'server/main.ts')], {
      cwd: ROOT,
      env: { ...baseEnv(), ...this.#spec.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.#child = child;
    this.pid = child.pid ?? 0;
    this.#spawned();
    child.stdout.pipe(out, { end: false });
    child.stderr.pipe(out, { end: false });
    let exitNote: string | null = null;
    this.#exited = new Promise<void>((resolve) => {
      child.once('exit', (code, signal) => {
        exitNote = `exited (${signal ?? String(code)})`;
        if (this.#child === child) this.#child = null;
        // Let the pipes drain into the log before it is closed.
        setTimeout(() => {
          out.end();
          resolve();
        }, 50);
        if (!this.#expected && !this.#stopped) this.#unexpected(exitNote);
      });
    });
    const deadline = Date.now() + HEALTH_TIMEOUT_MS;
    try {
      await waitFor(
        this.name,
        deadline,
        () => this.#healthy(from),
        () => exitNote,
      );
    } catch (err) {
      await this.kill('SIGKILL');
      throw new Error(`${(err as Error).message}\n${await tail(this.logPath)}`, { cause: err });
    }
    this.#log(`${this.name} (${this.role}) ready${this.url ? ` at ${this.url}` : ''}, pid ${String(this.pid)}`);
  }

  async #healthy(fromByte: number): Promise<boolean> {
    if (this.role === 'web') return httpOk(`${this.url}/healthz`);
    if (this.role === 'media') return httpOk(`${this.url}/socket.io/?EIO=4&transport=polling`);
    // worker, recorder: no HTTP; the process says it is running once its platform is up.
    const fh = await open(this.logPath, 'r');
    try {
      const { size } = await fh.stat();
      const buf = Buffer.alloc(Math.max(0, size - fromByte));
      await fh.read(buf, 0, buf.length, fromByte);
      return buf.toString('utf8').includes('"msg":"Banshu is running"');
    } finally {
      await fh.close();
    }
  }

  #unexpected(note: string): void {
    this.#log(`${this.name} ${note} unexpectedly; its log: ${this.logPath}`);
    if (!this.#supervise) return;
    void (async () => {
      await sleep(2000);
      if (this.#stopped || this.#child) return;
      this.#log(`${this.name}: starting it again`);
      await this.start().catch((err: unknown) => this.#log(`${this.name} did not start again: ${(err as Error).message}`));
    })();
  }

  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const child = this.#child;
    this.#expected = true;
    if (child && child.exitCode === null && child.signalCode === null) child.kill(signal);
    await this.#exited;
  }

  async restart(): Promise<void> {
    await this.kill('SIGKILL');
    await this.start();
  }

  /** For stop(): a clean shutdown (SIGTERM), SIGKILL after 10 s. */
  async stop(): Promise<void> {
    this.#stopped = true;
    const child = this.#child;
    if (!child) return this.#exited;
    const force = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await this.kill('SIGTERM');
    clearTimeout(force);
  }
}

interface S3Child {
  env: Record<string, string>;
  child: ChildProcess;
}

async function startS3Child(logPath: string): Promise<S3Child> {
  const child = spawn(process.execPath, [path.join(ROOT, 'infra/cluster/s3-child.ts'), 'banshu'], {
    cwd: ROOT,
    env: baseEnv(),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const err = createWriteStream(logPath, { flags: 'a' });
  child.stderr.pipe(err);
  const line = await new Promise<string>((resolve, reject) => {
    const rl = createInterface({ input: child.stdout });
    rl.once('line', (l) => resolve(l));
    child.once('exit', (code) => reject(new Error(`the S3 server exited (${String(code)}); see ${logPath}`)));
  });
  const { env } = JSON.parse(line) as { env: Record<string, string> };
  return { env, child };
}

async function startNginx(dir: string, port: number, web: Array<{ name: string; port: number }>): Promise<ChildProcess> {
  const template = await readFile(path.join(ROOT, 'infra/cluster/nginx.template.conf'), 'utf8');
  const server = (p: number) => `127.0.0.1:${String(p)}`;
  const upstream = (id: string, first: { port: number } | null) => {
    const lines = web.map((w) =>
      first && w.port !== first.port
        ? `        server ${server(w.port)} backup;`
        : `        server ${server(w.port)} max_fails=1 fail_timeout=5s;`,
    );
    return `    upstream ${id} {\n${lines.join('\n')}\n        keepalive 32;\n    }`;
  };
  const poolId = (name: string) => `banshu_${name.replaceAll('-', '_')}`;
  const upstreams = [upstream('banshu_web', null), ...web.map((w) => upstream(poolId(w.name), w))].join('\n');
  const pinMap = web.map((w) => `        ${w.name} ${poolId(w.name)};`).join('\n');
  const servedMap = web.map((w) => `        "~(^|[ ,])127\\.0\\.0\\.1:${String(w.port)}$" ${w.name};`).join('\n');
  const conf = template
    .replace('{{USER}}', process.getuid?.() === 0 ? 'user root;' : '')
    .replaceAll('{{DIR}}', dir)
    .replace('{{UPSTREAMS}}', upstreams)
    .replace('{{PIN_MAP}}', pinMap)
    .replace('{{SERVED_MAP}}', servedMap)
    .replace('{{PORT}}', String(port));
  await mkdir(path.join(dir, 'nginx-tmp'), { recursive: true });
  const confPath = path.join(dir, 'nginx.conf');
  await writeFile(confPath, conf);
  // -e: the error log before the configuration is read (nginx would try /var/log/nginx otherwise).
  const errorLog = path.join(dir, 'nginx-error.log');
  execFileSync(NGINX, ['-t', '-q', '-p', dir, '-e', errorLog, '-c', confPath], { stdio: 'pipe' });
  // Its own process group: the watchdog kills the master and its workers together.
  const child = spawn(NGINX, ['-p', dir, '-e', errorLog, '-c', confPath], { stdio: 'ignore', detached: true });
  let exited: string | null = null;
  child.once('exit', (code) => (exited = `nginx exited (${String(code)})`));
  await waitFor(
    'nginx',
    Date.now() + 10_000,
    async () => {
      await fetch(`http://127.0.0.1:${String(port)}/healthz`, { signal: AbortSignal.timeout(1000) }).then((r) => r.arrayBuffer());
      return true;
    },
    () => exited,
  );
  return child;
}

/**
 * A watchdog that outlives a launcher killed without stop() (SIGKILL, a test runner's timeout):
 * it SIGKILLs every process in the pid file and removes the folder, so nothing is left running.
 */
function startWatchdog(pidFile: string, removeDir: string | null): ChildProcess {
  const quote = (v: string) => `'${v.replaceAll("'", `'\\''`)}'`;
  const script = [
    `while kill -0 ${String(process.pid)} 2>/dev/null; do sleep 1; done`,
    `[ -f ${quote(pidFile)} ] && kill -9 -- $(cat ${quote(pidFile)}) 2>/dev/null`,
    removeDir ? `sleep 1; rm -rf ${quote(removeDir)}` : 'true',
  ].join('; ');
  const child = spawn('bash', ['-c', script], { detached: true, stdio: 'ignore' });
  child.unref();
  return child;
}

/** The redis-server's pid (INFO server), for the watchdog. */
async function redisProcessId(url: string): Promise<number> {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await client.connect();
    const info = await client.info('server');
    return Number(/process_id:(\d+)/.exec(info)?.[1] ?? 0);
  } catch {
    return 0;
  } finally {
    client.disconnect();
  }
}

async function migrate(url: string): Promise<string[]> {
  const database = await openDatabase({ url, dataDir: null, poolSize: 2 });
  try {
    return await migrateToLatest(database.db as never);
  } finally {
    await database.close();
  }
}

export async function startCluster(options: ClusterOptions = {}): Promise<Cluster> {
  const log = options.log ?? (() => undefined);
  const counts = {
    web: options.webNodes ?? 2,
    media: options.mediaNodes ?? 2,
    worker: options.workers ?? 1,
    recorder: options.recorders ?? 1,
  };
  const ownDir = options.dir === undefined;
  const dir = options.dir ?? (await mkdtemp(path.join(tmpdir(), 'banshu-cluster-')));
  await mkdir(path.join(dir, 'logs'), { recursive: true });

  let postgres: RunningPostgres | null = null;
  let redis: TestRedis | null = null;
  let s3: S3Child | null = null;
  let nginx: ChildProcess | null = null;
  const nodes: Node[] = [];
  let redisPid = 0;
  const pidFile = path.join(dir, 'pids');
  const writePids = () => {
    const pids = [...nodes.map((n) => n.pid), s3?.child.pid ?? 0, redisPid].filter((p) => p > 0).map(String);
    // nginx by its process group (-pid): a SIGKILLed master leaves its workers running.
    if (nginx?.pid) pids.push(`-${String(nginx.pid)}`);
    writeFileSync(pidFile, pids.join(' '));
  };
  const watchdog = startWatchdog(pidFile, ownDir ? dir : null);

  let stopped: Promise<void> | null = null;
  const stop = () =>
    (stopped ??= (async () => {
      await Promise.allSettled(nodes.map((n) => n.stop()));
      if (nginx && nginx.exitCode === null) {
        const n = nginx;
        await new Promise<void>((resolve) => {
          n.once('exit', () => resolve());
          n.kill('SIGTERM');
        });
      }
      if (s3 && s3.child.exitCode === null) {
        const c = s3.child;
        await new Promise<void>((resolve) => {
          c.once('exit', () => resolve());
          c.kill('SIGTERM');
        });
      }
      await redis?.close();
      await postgres?.stop();
      try {
        if (watchdog.pid) process.kill(watchdog.pid, 'SIGKILL');
      } catch {
        // already gone
      }
      if (ownDir) await rm(dir, { recursive: true, force: true });
      log('cluster stopped');
    })());

  try {
    log(`cluster folder ${dir}`);
    [postgres, redis, s3] = await Promise.all([startPostgres(), startRedis(), startS3Child(path.join(dir, 'logs', 's3.log'))]);
    const adminUrl = new URL(postgres.url);
    const admin = new pg.Client({ connectionString: postgres.url });
    await admin.connect();
    try {
      await admin.query("create database banshu template template0 encoding 'UTF8'");
    } finally {
      await admin.end();
    }
    adminUrl.pathname = '/banshu';
    const databaseUrl = adminUrl.toString();
    redisPid = await redisProcessId(redis.url);
    writePids();
    log(`PostgreSQL ${databaseUrl}, Redis ${redis.url}, S3 ${s3.env['S3_ENDPOINT'] ?? ''}`);
    // Migrations once, before any node (each node would otherwise race to apply them).
    const applied = await migrate(databaseUrl);
    log(`database migrated (${String(applied.length)} migrations)`);

    const nginxPort = await freeLoopbackPort();
    const publicUrl = `http://127.0.0.1:${String(nginxPort)}`;
    const shared: Record<string, string> = {
      NODE_ENV: 'development',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      PUBLIC_URL: publicUrl,
      DATABASE_URL: databaseUrl,
      REDIS_URL: redis.url,
      ...s3.env,
      SESSION_SECRET: randomBytes(32).toString('hex'),
      MEDIA_PLACEMENT: 'registry',
      PG_POOL_SIZE: '10',
      ...options.env,
    };

    const specs: NodeSpec[] = [];
    const add = async (role: NodeRole, index: number) => {
      const name = `${role}-${String(index)}`;
      const port = role === 'web' || role === 'media' ? await freeLoopbackPort() : 0;
      const env: Record<string, string> = { ...shared, ROLE: role, DATA_DIR: path.join(dir, 'data', name) };
      if (role === 'web') Object.assign(env, { PORT: String(port), TRUST_PROXY: 'true' });
      if (role === 'media') {
        // Each media node its own UDP range, so two on one machine never compete for a port.
        const base = 40000 + (index - 1) * 1000;
        Object.assign(env, {
          MEDIA_PORT: String(port),
          MEDIA_PUBLIC_URL: `http://127.0.0.1:${String(port)}`,
          MEDIA_NODE_ID: name,
          MEDIA_LISTEN_IP: '127.0.0.1',
          MEDIA_RTC_MIN_PORT: String(base),
          MEDIA_RTC_MAX_PORT: String(base + 999),
        });
      }
      Object.assign(env, options.env);
      specs.push({ name, role, port, env, logPath: path.join(dir, 'logs', `${name}.log`) });
    };
    for (const role of ['web', 'media', 'worker', 'recorder'] as const) {
      for (let i = 1; i <= counts[role]; i++) await add(role, i);
    }
    for (const spec of specs) nodes.push(new Node(spec, log, options.supervise ?? false, writePids));

    // Media nodes first: the web nodes read the registry's node addresses into their page policy at start.
    await Promise.all(nodes.filter((n) => n.role === 'media').map((n) => n.start()));
    await Promise.all(nodes.filter((n) => n.role !== 'media').map((n) => n.start()));

    const web = nodes.filter((n) => n.role === 'web');
    if (web.length) {
      nginx = await startNginx(dir, nginxPort, web);
      writePids();
      nginx.on('exit', (code) => {
        if (!stopped) log(`nginx exited (${String(code)}); its log: ${path.join(dir, 'nginx-error.log')}`);
      });
    }
    log(`Banshu cluster ready at ${publicUrl}`);

    return {
      url: publicUrl,
      nodes,
      node(name: string) {
        const n = nodes.find((x) => x.name === name);
        if (!n) throw new Error(`no node ${name} (nodes: ${nodes.map((x) => x.name).join(', ')})`);
        return n;
      },
      databaseUrl,
      redisUrl: redis.url,
      s3Env: { ...s3.env },
      pinCookie(webNode: string) {
        if (!web.some((w) => w.name === webNode)) throw new Error(`no web node ${webNode}`);
        return { name: PIN_COOKIE, value: webNode };
      },
      stop,
      dir,
    };
  } catch (err) {
    await stop().catch(() => undefined);
    throw err;
  }
}
