/**
 * One query layer (Kysely) over the embedded PGlite or a real PostgreSQL. Domain code gets a
 * `Kysely<DB>` and never knows which one it talks to.
 */
import { createHash } from 'node:crypto';
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

const PREPARABLE = /^\s*(select|insert|update|delete|with)\b/i;

/**
 * Sends data statements as named prepared statements (the name is a hash of the SQL text), so
 * PostgreSQL parses and plans each query shape once per connection instead of on every call.
 * Kysely builds the same text for the same query shape, so the set of names stays small.
 */
function preparingPool(pool: pg.Pool) {
  const names = new Map<string, string>();
  const nameFor = (text: string) => {
    let name = names.get(text);
    if (!name) {
      name = `k${createHash('sha1').update(text).digest('base64url').slice(0, 24)}`;
      if (names.size < 5000) names.set(text, name);
    }
    return name;
  };
  return {
    async connect() {
      const client = await pool.connect();
      return {
        query: (text: string, values: readonly unknown[]) =>
          PREPARABLE.test(text) ? client.query({ name: nameFor(text), text, values: [...values] }) : client.query(text, [...values]),
        release: () => client.release(),
      };
    },
    end: () => pool.end(),
  };
}

export function kyselyOnPostgres(url: string, max = 20): { db: Database; pool: pg.Pool } {
  const pool = new pg.Pool({ connectionString: url, max });
  // An idle client losing its server must not crash the process.
  pool.on('error', () => {});
  return { db: new Kysely<DB>({ dialect: new PostgresDialect({ pool: preparingPool(pool) as never }) }), pool };
}

/** `dataDir` null means an in-memory PGlite (tests). */
export async function openDatabase(opts: { url?: string | undefined; dataDir: string | null; poolSize?: number }): Promise<DatabaseHandle> {
  if (opts.url) {
    const { db } = kyselyOnPostgres(opts.url, opts.poolSize);
    return { db, kind: 'postgres', pglite: null, url: opts.url, close: () => db.destroy() };
  }
  return pgliteHandle(await openPglite(opts.dataDir));
}

/** A handle over an open PGlite (also a clone of one); closing it closes the instance. */
export function pgliteHandle(pglite: PGlite): DatabaseHandle {
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
