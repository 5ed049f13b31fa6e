import { useCallback, useRef, useState } from 'react';
import { newRequestId } from './api.ts';

/**
 * One request at a time (docs/product/01-account-and-lobby.md §4: the create and join locks). `run` ignores calls while one is in
 * flight, hands the task a fresh request id for this click (the task passes it to api() so its
 * retries reuse it), and releases the lock when the task settles, reply or error.
 */
export function useRequestLock(): { busy: boolean; run: (task: (requestId: string) => Promise<void>) => Promise<void> } {
  const locked = useRef(false);
  const [busy, setBusy] = useState(false);
  const run = useCallback(async (task: (requestId: string) => Promise<void>) => {
    if (locked.current) return;
    locked.current = true;
    setBusy(true);
    try {
      await task(newRequestId());
    } finally {
      locked.current = false;
      setBusy(false);
    }
  }, []);
  return { busy, run };
}
