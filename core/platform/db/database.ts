/**
 * One query layer (Kysely) over the embedded PGlite or a real PostgreSQL. Domain code gets a
 * `Kysely<DB>` and never knows which one it talks to.
 */
import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { Kysely, PGliteDialect, PostgresDialect, type Dialect } from 'kysely';
import pg from 'pg';
import type { DB } from './schema.ts';

export type Database = Kysely<DB>;

export interface DatabaseHandle {
  db: Database;
  kind: 'pglite' | 'postgres';
  /** The PGlite instance when embedded (pg-boss runs on it too). */
  pglite: PGlite | null;
  /** A pg connection string when on PostgreSQL. */
  url: string | null;
  close(): Promise<void>;
}

/** int8 and numeric arrive as strings on both engines; ids are strings on the wire anyway. */
const INT8_OID = 20;

type PgliteQuery = PGlite['query'];
type QueryOptions = Parameters<PgliteQuery>[2];

/** Applies our type parsers on every query, whatever options the instance was created (or cloned) with. */
function withParsers<T extends { query: PgliteQuery }>(target: T): Pick<T, 'query'> {
  const query = ((q: string, params?: unknown[], options?: QueryOptions) =>
    target.query(q, params, { ...options, parsers: { [INT8_OID]: (v: string) => v, ...options?.parsers } })) as PgliteQuery;
  return { query };
}

/**
 * kysely's own PGlite dialect: its adapter declares a single connection, so kysely queues every
 * query and transaction behind one mutex (tests/integration/database.test.ts holds it to that).
 */
function pgliteDialect(pglite: PGlite): Dialect {
  const facade = {
    get closed() {
      return pglite.closed;
    },
    get ready() {
      return pglite.ready;
    },
    get waitReady() {
      return pglite.waitReady;
    },
    close: () => pglite.close(),
    query: withParsers(pglite).query,
    transaction: <T>(cb: (tx: { query: PgliteQuery }) => Promise<T>) => pglite.transaction((tx) => cb(withParsers(tx as never))),
  };
  const base = new PGliteDialect({ pglite: facade as never });
  return {
    createAdapter: () => base.createAdapter(),
    createDriver: () => base.createDriver(),
    createIntrospector: (db) => base.createIntrospector(db),
    createQueryCompiler: () => base.createQueryCompiler(),
  };
}

export async function openPglite(dataDir: string | null): Promise<PGlite> {
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  const pglite = await PGlite.create(dataDir ?? undefined, {
    parsers: { [INT8_OID]: (v: string) => v },
  });
  return pglite;
}

export function kyselyOnPglite(pglite: PGlite): Database {
  return new Kysely<DB>({ dialect: pgliteDialect(pglite) });
}

export function kyselyOnPostgres(url: string, max = 10): { db: Database; pool: pg.Pool } {
  const pool = new pg.Pool({ connectionString: url, max });
  // An idle client losing its server must not crash the process.
  pool.on('error', () => {});
  return { db: new Kysely<DB>({ dialect: new PostgresDialect({ pool }) }), pool };
}

/** `dataDir` null means an in-memory PGlite (tests). */
export async function openDatabase(opts: { url?: string | undefined; dataDir: string | null }): Promise<DatabaseHandle> {
  if (opts.url) {
    const { db } = kyselyOnPostgres(opts.url);
    return { db, kind: 'postgres', pglite: null, url: opts.url, close: () => db.destroy() };
  }
  const pglite = await openPglite(opts.dataDir);
  const db = kyselyOnPglite(pglite);
  return {
    db,
    kind: 'pglite',
    pglite,
    url: null,
    close: async () => {
      await db.destroy();
      if (!pglite.closed) await pglite.close();
    },
  };
}
