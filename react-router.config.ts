import type { Config } from '@react-router/dev/config';

export default {
  appDirectory: 'app',
  // The end-to-end tests' build (TEST_HOOKS=1, ADR 110) never lands where the product is served from.
  buildDirectory: process.env['TEST_HOOKS'] === '1' ? 'build-e2e' : 'build',
  ssr: true,
} satisfies Config;
