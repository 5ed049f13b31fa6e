/**
 * The live start and end buttons' debounce (docs/product/02-live-classroom.md §6: 300 ms / 200 ms):
 * a click schedules the call after `ms` of quiet, a second click within the window replaces the
 * first (one call), and while the call runs every click is ignored. `onBusy` tells the button to
 * show a spinner and disable itself from the first click until the call has answered.
 */
export interface DebouncedCall {
  /** Schedules `call` (the latest one wins) unless one is running. */
  trigger: (call: () => Promise<unknown>) => void;
  /** Drops a scheduled call (the dialog closed); a running one finishes. */
  cancel: () => void;
  /** Scheduled or running. */
  busy: () => boolean;
}

export function debouncedCall(ms: number, onBusy: (busy: boolean) => void = () => undefined): DebouncedCall {
  let timer: ReturnType<typeof setTimeout> | null = null;
  let running = false;
  let latest: (() => Promise<unknown>) | null = null;
  const busy = () => running || timer !== null;
  return {
    trigger(call) {
      if (running) return;
      latest = call;
      if (timer) clearTimeout(timer);
      else onBusy(true);
      timer = setTimeout(() => {
        timer = null;
        const run = latest;
        latest = null;
        if (!run) return;
        running = true;
        void Promise.resolve()
          .then(run)
          .catch(() => undefined)
          .finally(() => {
            running = false;
            onBusy(false);
          });
      }, ms);
    },
    cancel() {
      if (!timer) return;
      clearTimeout(timer);
      timer = null;
      latest = null;
      if (!running) onBusy(false);
    },
    busy,
  };
}
