import { useCallback, useRef, useState } from 'react';
import { newRequestId, setActionRetryLookup } from './api.ts';

type Task = (requestId: string) => Promise<void>;

/** The running actions by request id: the 'network exception' message's RETRY re-runs the action (ADR 102). */
const running = new Map<string, () => unknown>();
setActionRetryLookup((requestId) => running.get(requestId));

/**
 * One request at a time (docs/product/01-account-and-lobby.md §4: the create and join locks). `run` ignores calls while one is in
 * flight, hands the task a fresh request id for this click (the task passes it to api() so its
 * retries reuse it), and releases the lock when the task settles: reply, error or timeout (api()
 * gives up after its timeout, so the lock and the spinner never outlive it). A RETRY of the
 * 'network exception' message runs the same task again with the same request id, so a server
 * that did the work the first time answers the same result.
 */
export function useRequestLock(): { busy: boolean; run: (task: Task) => Promise<void> } {
  const locked = useRef(false);
  const [busy, setBusy] = useState(false);
  const runWith = useCallback(async function go(task: Task, requestId: string): Promise<void> {
    if (locked.current) return;
    locked.current = true;
    setBusy(true);
    running.set(requestId, () => go(task, requestId));
    try {
      await task(requestId);
    } finally {
      running.delete(requestId);
      locked.current = false;
      setBusy(false);
    }
  }, []);
  const run = useCallback((task: Task) => runWith(task, newRequestId()), [runWith]);
  return { busy, run };
}
