/** Runs a suite once per database engine, each test on its own fresh database and server. */
import { afterEach, beforeEach, describe } from 'vitest';
import { postgresAdminUrl } from './database.ts';
import type { EngineName } from './engines.ts';
import { startTestServer, type TestServer, type TestServerOptions } from './server.ts';

export const ENGINES: EngineName[] = ['pglite', 'postgres'];

/** `get()` returns the current test's server; `env` may raise or lower limits for the suite. */
export function eachEngine(
  title: string,
  body: (get: () => TestServer, engine: EngineName) => void,
  opts: Omit<TestServerOptions, 'engine'> = {},
): void {
  describe.each(ENGINES)(`${title} [%s]`, (engine) => {
    let server: TestServer | null = null;
    beforeEach(async () => {
      server = await startTestServer({ ...opts, engine, postgresAdminUrl: engine === 'postgres' ? postgresAdminUrl() : undefined });
    });
    afterEach(async () => {
      await server?.close();
      server = null;
    });
    body(() => {
      if (!server) throw new Error('no server for this test');
      return server;
    }, engine);
  });
}
