/**
 * The job queue port and its pg-boss adapter. Job names, payloads and handlers are declared in one
 * map (core/jobs.ts); start-up fails when a declared job has no handler.
 */
import { PgBoss, fromPglite } from 'pg-boss';
import type { PGlite } from '@electric-sql/pglite';
import type { Logger } from './logger.ts';

export interface JobQueue {
  send<P extends object>(name: string, payload: P, opts?: { singletonKey?: string; startAfterSeconds?: number }): Promise<string | null>;
  work<P extends object>(name: string, handler: (payload: P) => Promise<void>): Promise<void>;
  schedule(name: string, cron: string, payload?: object): Promise<void>;
  stop(): Promise<void>;
}

export async function startPgBoss(
  target: { pglite: PGlite } | { url: string },
  logger: Logger,
): Promise<JobQueue> {
  const boss =
    'pglite' in target
      ? new PgBoss({ db: fromPglite(target.pglite), backend: 'pglite' })
      : new PgBoss({ connectionString: target.url, max: 4 });
  boss.on('error', (err: unknown) => logger.error({ err }, 'job queue error'));
  await boss.start();
  const created = new Set<string>();
  const ensureQueue = async (name: string) => {
    if (created.has(name)) return;
    await boss.createQueue(name);
    created.add(name);
  };
  return {
    async send(name, payload, opts) {
      await ensureQueue(name);
      return boss.send(name, payload, {
        ...(opts?.singletonKey ? { singletonKey: opts.singletonKey } : {}),
        ...(opts?.startAfterSeconds ? { startAfter: opts.startAfterSeconds } : {}),
        retryLimit: 3,
        retryBackoff: true,
      });
    },
    async work(name, handler) {
      await ensureQueue(name);
      await boss.work<object>(name, async (jobs) => {
        for (const job of jobs) await handler(job.data as never);
      });
    },
    async schedule(name, cron, payload) {
      await ensureQueue(name);
      await boss.schedule(name, cron, payload ?? {});
    },
    stop: () => boss.stop({ graceful: true, timeout: 5000 }),
  };
}
