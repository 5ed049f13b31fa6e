/**
 * Every job of the product, in one map: name -> payload -> handler. The worker role registers all
 * of them; start-up fails if one lacks a handler.
 */
import type { Services } from './services.ts';

export interface JobPayloads {
  'housekeeping.purge': Record<string, never>;
  'rooms.closeExpired': Record<string, never>;
}

export type JobName = keyof JobPayloads;

export type JobHandlers = { [N in JobName]: (payload: JobPayloads[N]) => Promise<void> };

export function jobHandlers(services: Services): JobHandlers {
  return {
    'housekeeping.purge': () => services.account.purgeExpired(),
    'rooms.closeExpired': async () => {
      await services.live.closeExpired();
    },
  };
}

/** Recurring jobs (cron, UTC). */
export const schedules: Array<{ name: JobName; cron: string }> = [
  { name: 'housekeeping.purge', cron: '17 * * * *' },
  { name: 'rooms.closeExpired', cron: '* * * * *' },
];
