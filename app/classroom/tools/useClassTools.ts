/**
 * The class tools for React (ADR 114): the store's view through useSyncExternalStore, the server's
 * time ticking while a timer or a limit needs it, and the test hook (test build only).
 */
import { useEffect, useState, useSyncExternalStore } from 'react';
import { exposeForTests } from '#app/lib/test-hooks.ts';
import { timerShownMs } from './clock.ts';
import { beeps } from './sound.ts';
import type { ToolsStore, ToolsView } from './tools-store.ts';

export function useToolsView(store: ToolsStore): ToolsView {
  return useSyncExternalStore(store.subscribe, store.getSnapshot, store.getSnapshot);
}

/** The server's time now (this browser's clock plus the offset), refreshed every `everyMs` while `on`. */
export function useServerNow(offset: number, on: boolean, everyMs = 100): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!on) return;
    const tick = () => setNow(Date.now());
    tick();
    const timer = setInterval(tick, everyMs);
    return () => clearInterval(timer);
  }, [on, everyMs]);
  return now + offset;
}

/** window.__banshuTools in the test build: the server time as this page reckons it, and the timer as shown. */
export function useToolsTestHook(store: ToolsStore): void {
  useEffect(
    () =>
      exposeForTests('tools', {
        serverNow: () => Date.now() + store.getSnapshot().offset,
        offset: () => store.getSnapshot().offset,
        timerShownMs: () => {
          const { tools, offset } = store.getSnapshot();
          return tools.timer ? timerShownMs(tools.timer, Date.now() + offset) : null;
        },
        view: () => store.getSnapshot(),
        beeps: () => beeps.count,
      }),
    [store],
  );
}
