// vitest globalSetup of the integration project: one throwaway PostgreSQL for the whole run.
// Tests read its superuser URL with inject('postgresAdminUrl') and make their own database with
// createTestDatabase() (see tests/support/postgres.ts).
import type { TestProject } from 'vitest/node';
import { startPostgres } from './postgres.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Superuser URL of the run's throwaway PostgreSQL server. */
    postgresAdminUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const started = Date.now();
  const server = await startPostgres();
  console.log(`[postgres] throwaway server at ${server.url} (started in ${String(Date.now() - started)} ms)`);
  project.provide('postgresAdminUrl', server.url);

  // vitest runs this teardown on a normal end and on failures; SIGINT/SIGTERM make it exit
  // through process.exit, where postgres.ts's exit hook and watchdog stop the server.
  return async () => {
    await server.stop();
  };
}
