/**
 * What end-to-end tests read on `window` (ADR 110). Only the test build has them: `npm run
 * build:e2e` (TEST_HOOKS=1, into build-e2e/, built by tests/e2e/global-build.ts before the e2e
 * files) defines `import.meta.env.TEST_HOOKS` true; the production build (`npm run build`, into
 * build/) defines it false, so `exposeForTests` is a no-op there and the names below are not in its
 * bundle (tests/e2e/production-bundle.test.ts reads build/client for them).
 */
export type TestHookName = 'board' | 'studio' | 'tools';

function expose(name: TestHookName, value: unknown): () => void {
  const key = name === 'board' ? '__banshuBoard' : name === 'studio' ? '__banshuStudio' : '__banshuTools';
  const w = window as unknown as Record<string, unknown>;
  w[key] = value;
  return () => {
    if (w[key] === value) Reflect.deleteProperty(w, key);
  };
}

function nothing(): () => void {
  return () => undefined;
}

/** Puts `value` on window for the e2e tests (test build only); returns what takes it off again. */
export const exposeForTests: (name: TestHookName, value: unknown) => () => void = import.meta.env.TEST_HOOKS ? expose : nothing;
