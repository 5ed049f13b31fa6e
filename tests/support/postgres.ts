// A throwaway PostgreSQL for tests, started from Debian's binaries (package `postgresql`).
// One server per test run (see tests/support/global-postgres.ts); one database per test.
import { execFile, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFile, mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freeLoopbackPort } from './ports.ts';

const run = promisify(execFile);

export interface RunningPostgres {
  /** Superuser connection URL, e.g. postgres://postgres@127.0.0.1:54321/postgres */
  url: string;
  /** Stops the server and deletes its files. Safe to call more than once. */
  stop(): Promise<void>;
}

export interface TestDatabase {
  url: string;
  name: string;
  /** Drops the database (terminating leftover connections). Safe to call more than once. */
  drop(): Promise<void>;
}

/** Highest installed /usr/lib/postgresql/<version>/bin, or PG_BIN_DIR when set. */
export async function findPostgresBinDir(): Promise<string> {
  const override = process.env.PG_BIN_DIR;
  if (override) {
    if (!existsSync(join(override, 'initdb'))) throw new Error(`PG_BIN_DIR=${override} has no initdb`);
    return override;
  }
  const base = '/usr/lib/postgresql';
  let entries: string[] = [];
  try {
    entries = await readdir(base);
  } catch {
    // handled below
  }
  const versions = entries
    .filter((name) => /^\d+(\.\d+)?$/.test(name) && existsSync(join(base, name, 'bin', 'initdb')))
    .sort((a, b) => Number.parseFloat(b) - Number.parseFloat(a));
  const best = versions[0];
  if (best === undefined) {
    throw new Error(`no PostgreSQL server binaries under ${base}/*/bin; install the Debian package 'postgresql' (bash infra/setup does)`);
  }
  return join(base, best, 'bin');
}

interface OsUser {
  uid: number;
  gid: number;
}

/** initdb refuses to run as root, so as root we run the binaries as Debian's `postgres` user. */
async function serverUser(): Promise<OsUser | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  try {
    const uid = Number((await run('id', ['-u', 'postgres'])).stdout.trim());
    const gid = Number((await run('id', ['-g', 'postgres'])).stdout.trim());
    return { uid, gid };
  } catch {
    throw new Error("running as root, but there is no 'postgres' OS user to run PostgreSQL as (Debian's postgresql package creates it)");
  }
}

function asServerUser(user: OsUser | undefined, file: string, args: string[]): [string, string[]] {
  return user ? ['runuser', ['-u', 'postgres', '--', file, ...args]] : [file, args];
}

function describeFailure(error: unknown): string {
  if (error && typeof error === 'object') {
    const { stderr, stdout, message } = error as { stderr?: unknown; stdout?: unknown; message?: unknown };
    const parts = [message, stderr, stdout].filter((part) => typeof part === 'string' && part.trim() !== '');
    return parts.join('\n');
  }
  return String(error);
}

/**
 * A watchdog that stops the server if this process dies without calling stop() (SIGKILL, crash):
 * a stray postmaster would otherwise keep running and its temp folder would stay behind.
 */
function startWatchdog(pgCtl: [string, string[]], dir: string): number | undefined {
  const quote = (value: string) => `'${value.replaceAll("'", `'\\''`)}'`;
  const stopCommand = [pgCtl[0], ...pgCtl[1]].map(quote).join(' ');
  const script = `while kill -0 ${String(process.pid)} 2>/dev/null; do sleep 1; done; ${stopCommand} >/dev/null 2>&1; rm -rf ${quote(dir)}`;
  const child = spawn('bash', ['-c', script], { detached: true, stdio: 'ignore' });
  child.unref();
  return child.pid;
}

async function startOnce(): Promise<RunningPostgres> {
  const bin = await findPostgresBinDir();
  const user = await serverUser();
  const dir = await mkdtemp(join(tmpdir(), 'banshu-pg-'));
  const dataDir = join(dir, 'data');
  const socketDir = join(dir, 'socket');
  const logFile = join(dir, 'server.log');
  await mkdir(socketDir);
  if (user) await run('chown', ['-R', `${String(user.uid)}:${String(user.gid)}`, dir]);

  const cleanupDir = async () => {
    await rm(dir, { recursive: true, force: true });
  };

  try {
    const [initdb, initdbArgs] = asServerUser(user, join(bin, 'initdb'), [
      '--pgdata',
      dataDir,
      '--username',
      'postgres',
      '--auth',
      'trust',
      '--encoding',
      'UTF8',
      '--locale',
      'C',
      '--no-sync',
      '--no-instructions',
    ]);
    await run(initdb, initdbArgs, { env: { ...process.env, LC_ALL: 'C' } });
  } catch (error) {
    await cleanupDir();
    throw new Error(`initdb failed:\n${describeFailure(error)}`, { cause: error });
  }

  const port = await freeLoopbackPort();
  // Speed over durability: the data is thrown away at the end of the run.
  await appendFile(
    join(dataDir, 'postgresql.conf'),
    [
      '',
      '# banshu test server',
      `port = ${String(port)}`,
      "listen_addresses = '127.0.0.1'",
      `unix_socket_directories = '${socketDir}'`,
      'fsync = off',
      'synchronous_commit = off',
      'full_page_writes = off',
      'max_connections = 300',
      "log_min_messages = 'warning'",
      '',
    ].join('\n'),
  );

  const pgCtl = join(bin, 'pg_ctl');
  const [startFile, startArgs] = asServerUser(user, pgCtl, ['--pgdata', dataDir, '--log', logFile, '--wait', '--timeout', '60', 'start']);
  try {
    await run(startFile, startArgs);
  } catch (error) {
    let log = '';
    try {
      log = execFileSync('tail', ['-n', '30', logFile], { encoding: 'utf8' });
    } catch {
      // no log written
    }
    await cleanupDir();
    throw new Error(`pg_ctl start failed on port ${String(port)}:\n${describeFailure(error)}\n${log}`, { cause: error });
  }

  const stopCommand = asServerUser(user, pgCtl, ['--pgdata', dataDir, '--mode', 'immediate', '--wait', 'stop']);
  const watchdogPid = startWatchdog(stopCommand, dir);

  // Synchronous last resort for a normal process exit that skipped stop() (e.g. process.exit()).
  const onExit = () => {
    try {
      execFileSync(stopCommand[0], stopCommand[1], { stdio: 'ignore' });
    } catch {
      // already stopped
    }
  };
  process.once('exit', onExit);

  let stopped: Promise<void> | undefined;
  const stop = () => {
    stopped ??= (async () => {
      process.off('exit', onExit);
      try {
        await run(stopCommand[0], stopCommand[1]);
      } catch {
        // already stopped; the folder is removed below either way
      }
      if (watchdogPid !== undefined) {
        try {
          process.kill(watchdogPid);
        } catch {
          // watchdog already gone
        }
      }
      await cleanupDir();
    })();
    return stopped;
  };

  return { url: `postgres://postgres@127.0.0.1:${String(port)}/postgres`, stop };
}

/** Starts a fresh PostgreSQL server on a free loopback port, in a new temporary folder. */
export async function startPostgres(): Promise<RunningPostgres> {
  // The free port is picked before the server binds it; another process may take it in between.
  let lastError: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      return await startOnce();
    } catch (error) {
      lastError = error;
    }
  }
  throw lastError instanceof Error ? lastError : new Error(String(lastError));
}

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

/** Creates a uniquely named, empty database on the server behind adminUrl. */
export async function createTestDatabase(adminUrl: string): Promise<TestDatabase> {
  const name = `test_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    // template0: never inherits objects somebody created in template1.
    await admin.query(`create database "${name}" template template0 encoding 'UTF8'`);
  } finally {
    await admin.end();
  }

  let dropped: Promise<void> | undefined;
  const drop = () => {
    dropped ??= (async () => {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      try {
        await client.query(`drop database if exists "${name}" with (force)`);
      } finally {
        await client.end();
      }
    })();
    return dropped;
  };

  return { url: withDatabase(adminUrl, name), name, drop };
}
