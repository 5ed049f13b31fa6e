/**
 * The two database engines every database test runs on. Each test gets its own database: a clone
 * of a migrated PGlite template (a third of a second) or a fresh PostgreSQL database.
 */
import type { PGlite } from '@electric-sql/pglite';
import { kyselyOnPglite, openDatabase, openPglite, pgliteHandle, type DatabaseHandle } from '#core/platform/db/database.ts';
import { migrateToLatest } from '#core/platform/db/migrate.ts';
import { createTestDatabase } from './postgres.ts';

export type EngineName = 'pglite' | 'postgres';

let template: Promise<PGlite> | null = null;

async function pgliteTemplate(): Promise<PGlite> {
  template ??= (async () => {
    const p = await openPglite(null);
    await migrateToLatest(kyselyOnPglite(p) as never);
    return p;
  })();
  return template;
}

/** A fresh, migrated database on the engine; `close()` also drops it. */
export async function freshDatabase(engine: EngineName, postgresAdminUrl?: string): Promise<DatabaseHandle> {
  if (engine === 'pglite') {
    return pgliteHandle((await (await pgliteTemplate()).clone()) as PGlite);
  }
  if (!postgresAdminUrl) throw new Error('postgres engine needs the run’s admin URL');
  const created = await createTestDatabase(postgresAdminUrl);
  const handle = await openDatabase({ url: created.url, dataDir: null });
  await migrateToLatest(handle.db as never);
  return {
    ...handle,
    close: async () => {
      await handle.close();
      await created.drop();
    },
  };
}
