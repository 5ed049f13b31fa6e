import { reactRouter } from '@react-router/dev/vite';
import { defineConfig } from 'vite';

// Only the React Router plugin: tests use vitest.config.ts, and the custom Express server
// (server/main.ts) serves the build. Subpath imports (#app/*, #core/*) resolve through
// package.json "imports", which Vite supports natively.
// TEST_HOOKS=1 (npm run build:e2e) is the end-to-end tests' build: it keeps the window hooks of
// app/lib/test-hooks.ts and goes to build-e2e/ (react-router.config.ts); every other build drops
// them (ADR 110).
const testHooks = process.env['TEST_HOOKS'] === '1';

export default defineConfig({
  plugins: [reactRouter()],
  build: { target: 'es2022' },
  define: { 'import.meta.env.TEST_HOOKS': JSON.stringify(testHooks) },
});
