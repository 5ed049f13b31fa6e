/**
 * Every job's payload, as a zod schema by job name (ADR 068): the worker parses each job it takes
 * with its job's schema before the handler runs (core/platform/jobs.ts); the handlers are in
 * core/jobs.ts.
 */
import { z } from 'zod';

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
