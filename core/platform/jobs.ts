/**
 * The job queue port and its pg-boss adapter. Job names, payloads and handlers are declared in one
 * map (core/jobs.ts); start-up fails when a declared job has no handler.
 */
import { PgBoss, fromPglite } from 'pg-boss';
import type { PGlite } from '@electric-sql/pglite';
import { z } from 'zod';
import { jobPayloadSchemas, type JobName, type JobPayloads } from '../contracts/jobs.ts';
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
  /** How often a running job tells the queue it is alive (pg-boss default: half the queue's heartbeatSeconds). */
  heartbeatRefreshSeconds?: number;
}

/**
 * Per-queue lease (ADR 068): a job whose worker stops beating its heart for `heartbeatSeconds`
 * (at least 10) is retried by the supervisor; `expireInSeconds` bounds an attempt that keeps beating.
 */
export interface QueueOptions {
  heartbeatSeconds?: number;
  expireInSeconds?: number;
}

/** How often a supervising process looks for expired leases (pg-boss default 60 s; ADR 068). */
export const SUPERVISE_SECONDS = 10;

export const JOB_RETRY_LIMIT = 3;

export interface JobQueue {
  send<N extends JobName>(
    name: N,
    payload: JobPayloads[N],
    opts?: { singletonKey?: string; startAfterSeconds?: number },
  ): Promise<string | null>;
  /** The handler runs with the payload its job's schema parsed; a malformed job fails (reason logged) without running it. */
  work<N extends JobName>(name: N, handler: (payload: JobPayloads[N], meta: JobMeta) => Promise<void>, opts?: WorkOptions): Promise<void>;
  schedule(name: JobName, cron: string): Promise<void>;
  /** The states of the jobs sent with this singleton key, newest first (ADR 068: resume at start-up). */
  jobStates(name: JobName, singletonKey: string): Promise<string[]>;
  stop(): Promise<void>;
}

/** A job whose payload its schema refused: it fails (pg-boss records the message) and the worker goes on. */
export class MalformedJob extends Error {
  override name = 'MalformedJob';
}

/** Job N's payload, parsed by its schema; throws MalformedJob with the schema's reasons. */
export function parseJobPayload<N extends JobName>(name: N, data: unknown): JobPayloads[N] {
  const parsed = jobPayloadSchemas[name].safeParse(data);
  if (!parsed.success) throw new MalformedJob(`malformed ${name} payload: ${z.prettifyError(parsed.error)}`);
  // The schema looked up by N parsed it: its output is job N's payload (TypeScript cannot follow N through the lookup).
  return parsed.data as JobPayloads[N];
}

export async function startPgBoss(
  target: { pglite: PGlite } | { url: string },
  logger: Logger,
  opts: { maintenance?: boolean; notifyQueues?: readonly string[]; queues?: Readonly<Record<string, QueueOptions>> } = {},
): Promise<JobQueue> {
  // A process that only sends jobs (the web role) leaves supervision and cron to the workers, who
  // look for lapsed leases every SUPERVISE_SECONDS (the monitor pass is what fails them).
  const roles =
    opts.maintenance === false
      ? { supervise: false, schedule: false }
      : { superviseIntervalSeconds: SUPERVISE_SECONDS, monitorIntervalSeconds: SUPERVISE_SECONDS };
  // Queues whose workers wake on NOTIFY the moment a job is sent (polling stays as the floor).
  const notifyQueues = new Set(opts.notifyQueues ?? []);
  const listen = notifyQueues.size > 0 ? { useListenNotify: true } : {};
  const boss =
    'pglite' in target
      ? new PgBoss({ db: fromPglite(target.pglite), backend: 'pglite', ...roles, ...listen })
      : new PgBoss({ connectionString: target.url, max: 4, ...roles, ...listen });
  boss.on('error', (err: unknown) => logger.error({ err }, 'job queue error'));
  await boss.start();
  const created = new Set<string>();
  const ensureQueue = async (name: string) => {
    if (created.has(name)) return;
    const lease = opts.queues?.[name];
    await boss.createQueue(name, { ...(notifyQueues.has(name) ? { notify: true } : {}), ...lease });
    // A queue made before its lease was declared keeps the options it was created with.
    if (lease && Object.keys(lease).length > 0) await boss.updateQueue(name, lease);
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
      // With NOTIFY on, an idle worker would otherwise poll only every 30 s, and a wake-up that
      // arrives while it is busy is not repeated: a backlog drains at the polling interval.
      const every = workOpts?.pollingIntervalSeconds;
      const polling = every ? { pollingIntervalSeconds: every, notifyPollingIntervalSeconds: every } : {};
      const refresh = workOpts?.heartbeatRefreshSeconds ? { heartbeatRefreshSeconds: workOpts.heartbeatRefreshSeconds } : {};
      await boss.work<object>(name, { ...polling, ...refresh }, async (jobs) => {
        for (const job of jobs) {
          let payload: JobPayloads[typeof name];
          try {
            payload = parseJobPayload(name, job.data);
          } catch (err) {
            logger.error({ err, job: name, id: job.id }, 'job payload malformed: the job fails without running');
            throw err;
          }
          await handler(payload, { id: job.id, retryCount: job.retryCount, retryLimit: JOB_RETRY_LIMIT, signal: job.signal });
        }
      });
    },
    async schedule(name, cron) {
      await ensureQueue(name);
      await boss.schedule(name, cron, {});
    },
    async jobStates(name, singletonKey) {
      await ensureQueue(name);
      const jobs = await boss.findJobs(name, { key: singletonKey });
      return jobs.sort((a, b) => b.createdOn.getTime() - a.createdOn.getTime()).map((j) => j.state);
    },
    stop: () => boss.stop({ graceful: true, timeout: 5000 }),
  };
}
