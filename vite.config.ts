import { reactRouter } from '@react-router/dev/vite';
import { defineConfig } from 'vite';

// Only the React Router plugin: tests use vitest.config.ts, and the custom Express server
// (server/main.ts) serves the build. Subpath imports (#app/*, #core/*) resolve through
// package.json "imports", which Vite supports natively.
export default defineConfig({
  plugins: [reactRouter()],
  build: { target: 'es2022' },
});
