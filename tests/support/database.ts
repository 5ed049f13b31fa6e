// Per-test PostgreSQL databases on the run's throwaway server (integration project only).
import { inject } from 'vitest';
import { createTestDatabase, type TestDatabase } from './postgres.ts';

/** The run's throwaway server; only available in the integration project. */
export function postgresAdminUrl(): string {
  const url = inject('postgresAdminUrl');
  if (!url) throw new Error('no throwaway PostgreSQL: this helper only works in the vitest "integration" project');
  return url;
}

/** A fresh, empty database for one test or one file; call drop() in afterEach/afterAll. */
export async function freshPostgresDatabase(): Promise<TestDatabase> {
  return await createTestDatabase(postgresAdminUrl());
}
