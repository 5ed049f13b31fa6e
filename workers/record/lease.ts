/**
 * A task's lease on the recorder (ADR 071, 109): renewed every third of its length for as long as
 * the task goes on. Between renewals nothing is read: a note for the task's room (the teacher's
 * stop, a push's end) wakes it, and it reads the task's state at once (`peek`). A note that was lost
 * costs at most one renewal period: each renewal answers the state too.
 */
import type { Logger } from '#core/platform/logger.ts';

/** A renewal or read that failed is tried again after this long. */
const RETRY_MS = 250;

export interface LeaseOptions {
  /** Renews the lease and answers the task's state. */
  renew: () => Promise<string>;
  /** Reads the task's state (after a note). */
  peek: () => Promise<string>;
  goesOn: (state: string) => boolean;
  onState: (state: string) => void;
  log: Logger;
  leaseSeconds: number;
  /** The process is closing: the lease is left to lapse. */
  closed: () => boolean;
  /** Subscribes the lease's wake-up to notes for its room; returns the unsubscribe. */
  onNote: (wake: () => void) => () => void;
}

export interface Lease {
  stop(): Promise<void>;
  /** Wakes the loop at once (the process closes). */
  wake(): void;
}

export function keepLease(o: LeaseOptions): Lease {
  let renewing = true;
  let noted = false;
  let wake: (() => void) | null = null;
  const poke = () => {
    noted = true;
    wake?.();
  };
  const off = o.onNote(poke);
  const every = Math.max(500, (o.leaseSeconds * 1000) / 3);
  const loop = (async () => {
    let renewedAt = Date.now();
    /** After a failed read, the next try waits this long at least (the database may be away a moment). */
    let retryAt = 0;
    while (renewing && !o.closed()) {
      if (!noted) {
        const wait = Math.max(0, Math.max(renewedAt + every, retryAt) - Date.now());
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, wait);
          t.unref();
          wake = () => {
            clearTimeout(t);
            resolve();
          };
        });
        wake = null;
      }
      if (!renewing || o.closed()) break;
      const heard = noted;
      noted = false;
      try {
        const renew = Date.now() - renewedAt >= every;
        if (!renew && !heard) continue;
        const state = renew ? await o.renew() : await o.peek();
        if (renew) renewedAt = Date.now();
        o.onState(state);
        if (!o.goesOn(state)) break;
      } catch (err) {
        o.log.warn({ err }, 'lease renewal failed');
        retryAt = Date.now() + RETRY_MS;
      }
    }
  })();
  return {
    stop: async () => {
      renewing = false;
      off();
      wake?.();
      await loop;
    },
    wake: () => wake?.(),
  };
}
