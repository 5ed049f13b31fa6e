/**
 * Every job of the product, in one map: name -> handler (the payloads' schemas are in
 * core/contracts/jobs.ts). The worker role registers all
 * of them; start-up fails if one lacks a handler.
 */
import type { JobName, JobPayloads } from './contracts/jobs.ts';
import type { JobMeta, QueueOptions, WorkOptions } from './platform/jobs.ts';
import type { Services } from './services.ts';

export type { JobName, JobPayloads };

export type JobHandlers = { [N in JobName]: (payload: JobPayloads[N], meta: JobMeta) => Promise<void> };

export function jobHandlers(services: Services): JobHandlers {
  return {
    'housekeeping.purge': () => services.account.purgeExpired(),
    'rooms.closeExpired': async () => {
      await services.live.closeExpired();
    },
    'courseware.convert': (payload, meta) => services.courseware.runConversion(payload, meta),
    'courseware.purgeUploads': async () => {
      await services.courseware.purgeStaleUploads();
    },
    'courseware.dropUpload': (payload) => services.courseware.dropUpload(payload.key),
    'studio.remux': (payload, meta) => services.studio.remux(payload, meta),
    'studio.purgeUploads': async () => {
      await services.studio.purgeExpired();
    },
  };
}

/** Per-queue worker options: a conversion is picked up quickly (the first page should show within a second). */
export const jobOptions: Partial<Record<JobName, WorkOptions>> = {
  'courseware.convert': { pollingIntervalSeconds: 0.5, heartbeatRefreshSeconds: 3 },
  'studio.remux': { pollingIntervalSeconds: 0.5, heartbeatRefreshSeconds: 3 },
};

/**
 * Per-queue leases (ADR 068): a conversion whose worker was killed stops beating and is retried
 * within about 20 s of the kill (10 s lease + a supervise pass every 10 s), not after pg-boss's
 * default 15-minute expiry; a live one is bounded by the conversion time limit and a minute.
 */
export function queueOptions(config: { COURSEWARE_CONVERT_SECONDS: number }): Partial<Record<JobName, QueueOptions>> {
  return {
    'courseware.convert': { heartbeatSeconds: 10, expireInSeconds: config.COURSEWARE_CONVERT_SECONDS + 60 },
    // A take's remux is bounded like a conversion, with at least 10 minutes (core/studio/studio.service.ts).
    'studio.remux': { heartbeatSeconds: 10, expireInSeconds: Math.max(600, config.COURSEWARE_CONVERT_SECONDS) + 60 },
  };
}

/** Queues whose workers are woken by NOTIFY as a job is sent (no polling delay before a conversion starts). */
export const notifyQueues: readonly JobName[] = ['courseware.convert', 'studio.remux'];

/** Recurring jobs (cron, UTC). */
export const schedules: Array<{ name: JobName; cron: string }> = [
  { name: 'housekeeping.purge', cron: '17 * * * *' },
  { name: 'rooms.closeExpired', cron: '* * * * *' },
  { name: 'courseware.purgeUploads', cron: '41 * * * *' },
  { name: 'studio.purgeUploads', cron: '47 * * * *' },
];
