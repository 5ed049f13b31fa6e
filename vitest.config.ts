// Test projects (see docs/decisions/006-testing.md). Deliberately separate from vite.config.ts:
// the React Router plugin builds the app and has no business in test runs.
// tests/run.ts runs unit + integration together, then the media files, then e2e, each on its own.
import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { MEDIA_FILES } from './tests/media-files.ts';

// Integration tests start real servers (PostgreSQL, Redis, LibreOffice, ffmpeg): on a 2-core
// machine more than two files at once only makes them slower and flakier.
const heavyWorkers = Math.max(1, Math.min(2, availableParallelism() - 1));

export default defineConfig({
  test: {
    // Subpath imports (#core/*, #app/*, ...) resolve through package.json "imports"; no aliases.
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['core/**/*.test.ts', 'app/**/*.test.ts', 'server/**/*.test.ts', 'media-server/**/*.test.ts', 'workers/**/*.test.ts'],
          environment: 'node',
          testTimeout: 10_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['tests/integration/**/*.test.ts'],
          exclude: MEDIA_FILES,
          environment: 'node',
          pool: 'forks',
          maxWorkers: heavyWorkers,
          testTimeout: 60_000,
          hookTimeout: 60_000,
          globalSetup: ['tests/support/global-postgres.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'media',
          include: MEDIA_FILES,
          environment: 'node',
          pool: 'forks',
          fileParallelism: false,
          testTimeout: 60_000,
          hookTimeout: 60_000,
          globalSetup: ['tests/support/global-postgres.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['tests/e2e/**/*.test.ts'],
          environment: 'node',
          pool: 'forks',
          // Several browsers and a server per file: one file at a time.
          fileParallelism: false,
          testTimeout: 120_000,
          hookTimeout: 120_000,
          // The test build with the window hooks the tests read (build-e2e/, ADR 110).
          globalSetup: ['tests/e2e/global-build.ts'],
        },
      },
    ],
  },
});
