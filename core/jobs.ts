/**
 * Every job of the product, in one map: name -> payload -> handler. The worker role registers all
 * of them; start-up fails if one lacks a handler.
 */
import { z } from 'zod';
import type { JobMeta, QueueOptions, WorkOptions } from './platform/jobs.ts';
import type { Services } from './services.ts';

/** Scheduled jobs carry nothing (pg-boss's cron sends `{}`). */
const nothing = z.object({});

/**
 * The payload of each job as a zod schema: the worker parses every job it takes with its job's
 * schema before the handler runs (a malformed one fails with the reason logged, core/platform/jobs.ts).
 */
export const jobPayloadSchemas = {
  'housekeeping.purge': nothing,
  'rooms.closeExpired': nothing,
  /** Convert one uploaded courseware document (core/courseware/convert.job.ts). */
  'courseware.convert': z.object({ documentId: z.string().regex(/^\d{1,19}$/) }),
  /** Forget uploads that were signed but never registered (status 0 past the link's life). */
  'courseware.purgeUploads': nothing,
  /** Delete what was written to a registered upload's link after registration (ADR 056), once the link expired. */
  'courseware.dropUpload': z.object({ key: z.string().min(1).max(600) }),
  /** Make a saved studio take into a fast-start MP4 with a poster (core/studio/studio.service.ts). */
  'studio.remux': z.object({ recordId: z.string().regex(/^\d{1,19}$/) }),
  /** Drop studio uploads never saved within STUDIO_UPLOAD_HOURS. */
  'studio.purgeUploads': nothing,
};

export type JobPayloads = { [N in keyof typeof jobPayloadSchemas]: z.infer<(typeof jobPayloadSchemas)[N]> };

export type JobName = keyof JobPayloads;

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
