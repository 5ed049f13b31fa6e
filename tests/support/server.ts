/**
 * A whole Banshu on a loopback port for a test: its own database (a fresh PGlite, or a fresh
 * PostgreSQL database when `postgresAdminUrl` is given), console SMS with the dev outbox, and a
 * clock the test may move.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ManualClock } from '#core/platform/clock.ts';
import { createLogger, type Logger } from '#core/platform/logger.ts';
import { startBanshu, type Banshu } from '#server/app.ts';
import type { PlatformOverrides } from '#server/platform.ts';
import { freshDatabase, type EngineName } from './engines.ts';

export interface TestServer {
  url: string;
  banshu: Banshu;
  clock: ManualClock;
  /** Codes sent so far, newest first. */
  outbox(): Promise<Array<{ mobile: string; code: string }>>;
  close(): Promise<void>;
}

export interface TestServerOptions {
  /** Default pglite. postgres needs the admin URL of the run's throwaway server. */
  engine?: EngineName;
  postgresAdminUrl?: string | undefined;
  /** Pages from the built app (`npm run build`); default API only. */
  pages?: boolean;
  /** Where the built pages are (default build/; the e2e tests serve build-e2e/, ADR 110). */
  buildDir?: string;
  env?: Record<string, string>;
  /** Adapters in place of the built-in ones (same ports the real adapters use). */
  overrides?: Pick<PlatformOverrides, 'payments' | 'converter' | 'jobs'>;
  /**
   * The clock runs with real time (plus whatever a test advances) instead of standing still: for
   * tests where other processes or real media share the timeline (the recorder's leases).
   */
  realTime?: boolean;
  /** The server's logger (a test that reads what was logged); default pino at TEST_LOG_LEVEL, silent. */
  logger?: Logger;
}

/** A ManualClock that moves with real time; `advance` and `set` still shift it. */
class RunningClock extends ManualClock {
  readonly #since = Date.now();
  override now(): Date {
    return new Date(super.now().getTime() + (Date.now() - this.#since));
  }
}

export async function startTestServer(opts: TestServerOptions = {}): Promise<TestServer> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'banshu-test-'));
  const database = await freshDatabase(opts.engine ?? 'pglite', opts.postgresAdminUrl);
  const clock = opts.realTime ? new RunningClock(Date.now()) : new ManualClock(Date.now());
  const env: Record<string, string> = {
    NODE_ENV: 'test',
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    LOG_LEVEL: process.env['TEST_LOG_LEVEL'] ?? 'silent',
    SMS_SENDER: 'console',
    // Most tests start recordings without wanting one made; the recorder's own tests turn it on.
    RECORDER_SLOTS: '0',
    ...opts.env,
  };
  const banshu = await startBanshu(env, {
    database,
    clock,
    jobs: false,
    ...opts.overrides,
    logger: opts.logger ?? createLogger(env['LOG_LEVEL'] ?? 'silent'),
    web: { mode: opts.pages ? 'build' : 'none', buildDir: path.resolve(opts.buildDir ?? 'build') },
  });
  return {
    url: banshu.url,
    banshu,
    clock,
    outbox: () => Promise.resolve(banshu.platform.services.devOutbox?.list() ?? []),
    async close() {
      await banshu.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
