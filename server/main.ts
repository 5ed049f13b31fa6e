/**
 * The process entry: `node server/main.ts [--dev]`. Reads the settings, starts what ROLE names,
 * prints where it listens, and shuts down cleanly on SIGINT/SIGTERM.
 */
import { ConfigError } from '#core/platform/config.ts';
import { startBanshu } from './app.ts';

const dev = process.argv.includes('--dev');

try {
  // BUILD_DIR: another build to serve than build/ (the e2e tests' cluster serves build-e2e/, ADR 110).
  const buildDir = process.env['BUILD_DIR'];
  const banshu = await startBanshu(process.env, { web: { mode: dev ? 'dev' : 'build', ...(buildDir ? { buildDir } : {}) } });
  const { config, platform } = banshu;
  platform.logger.info({ url: banshu.url, role: config.ROLE, database: platform.database.kind }, 'Banshu is running');
  process.stdout.write(`\n  Banshu (板书) is running at ${config.PUBLIC_URL ?? banshu.url}\n`);
  if (config.devOutbox) process.stdout.write(`  Sign-in codes: printed in this log and at ${banshu.url}/dev/outbox\n\n`);

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    platform.logger.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    banshu.close().then(
      () => process.exit(0),
      (err: unknown) => {
        platform.logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('unhandledRejection', (err) => platform.logger.error({ err }, 'unhandled rejection'));
} catch (err) {
  if (err instanceof ConfigError) {
    process.stderr.write(`${err.message}\n`);
    process.exit(2);
  }
  if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') {
    process.stderr.write(`The port is already in use; set PORT to another one.\n`);
    process.exit(2);
  }
  throw err;
}
