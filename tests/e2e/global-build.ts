/**
 * The e2e project's global set-up: builds the test build (`npm run build:e2e`: TEST_HOOKS=1, into
 * build-e2e/) that every e2e server serves, with the window hooks the tests read (ADR 110). It is
 * built afresh on every e2e run, so it is never older than the code; the production build
 * (`npm run build`, build/) never carries the hooks (tests/e2e/production-bundle.test.ts).
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';

export default function buildForTests(): void {
  const root = path.join(import.meta.dirname, '..', '..');
  const started = Date.now();
  const result = spawnSync(process.execPath, [path.join(root, 'node_modules/@react-router/dev/bin.cjs'), 'build'], {
    cwd: root,
    // NODE_ENV is 'test' inside vitest; left so, the build would take React's development bundle
    // (several times the CPU in the page: four browsers in media.test.ts missed their frames).
    env: { ...process.env, TEST_HOOKS: '1', NODE_ENV: 'production' },
    encoding: 'utf8',
  });
  if (result.status !== 0) {
    throw new Error(`the e2e build (TEST_HOOKS=1 react-router build) failed:\n${result.stdout}\n${result.stderr}`);
  }
  process.stdout.write(`e2e build (build-e2e/, test hooks on) in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
}
