/**
 * The job queue port and its pg-boss adapter. Job names, payloads and handlers are declared in one
 * map (core/jobs.ts); start-up fails when a declared job has no handler.
 */
import { PgBoss, fromPglite } from 'pg-boss';
import type { PGlite } from '@electric-sql/pglite';
import type { Logger } from './logger.ts';

/** Which attempt a handler is running: the last one is `retryCount === retryLimit`. */
export interface JobMeta {
  id: string;
  retryCount: number;
  retryLimit: number;
  signal: AbortSignal;
}

export interface WorkOptions {
  /** How often an idle worker looks for jobs (pg-boss default 2 s, at least 0.5 s). */
  pollingIntervalSeconds?: number;
}

export const JOB_RETRY_LIMIT = 3;

export interface JobQueue {
  send<P extends object>(name: string, payload: P, opts?: { singletonKey?: string; startAfterSeconds?: number }): Promise<string | null>;
  work<P extends object>(name: string, handler: (payload: P, meta: JobMeta) => Promise<void>, opts?: WorkOptions): Promise<void>;
  schedule(name: string, cron: string, payload?: object): Promise<void>;
  stop(): Promise<void>;
}

export async function startPgBoss(
  target: { pglite: PGlite } | { url: string },
  logger: Logger,
  opts: { maintenance?: boolean } = {},
): Promise<JobQueue> {
  // A process that only sends jobs (the web role) leaves supervision and cron to the workers.
  const roles = opts.maintenance === false ? { supervise: false, schedule: false } : {};
  const boss =
    'pglite' in target
      ? new PgBoss({ db: fromPglite(target.pglite), backend: 'pglite', ...roles })
      : new PgBoss({ connectionString: target.url, max: 4, ...roles });
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
        retryLimit: JOB_RETRY_LIMIT,
        retryBackoff: true,
      });
    },
    async work(name, handler, workOpts) {
      await ensureQueue(name);
      await boss.work<object>(name, workOpts?.pollingIntervalSeconds ? { pollingIntervalSeconds: workOpts.pollingIntervalSeconds } : {}, async (jobs) => {
        for (const job of jobs) {
          await handler(job.data as never, { id: job.id, retryCount: job.retryCount, retryLimit: JOB_RETRY_LIMIT, signal: job.signal });
        }
      });
    },
    async schedule(name, cron, payload) {
      await ensureQueue(name);
      await boss.schedule(name, cron, payload ?? {});
    },
    stop: () => boss.stop({ graceful: true, timeout: 5000 }),
  };
}
