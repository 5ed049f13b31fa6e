/**
 * One query layer (Kysely) over the embedded PGlite or a real PostgreSQL. Domain code gets a
 * `Kysely<DB>` and never knows which one it talks to.
 */
import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import {
  Kysely,
  PGliteDialect,
  PostgresDialect,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type TransactionSettings,
  type QueryCompiler,
} from 'kysely';
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

/**
 * kysely's PGlite driver shares one connection object and keeps the open transaction on it, so two
 * concurrent transactions overwrite each other's commit handles and a plain query issued while a
 * transaction is open runs inside it. This driver hands the single connection to one user at a
 * time (a FIFO mutex), which is what PGlite does internally anyway.
 */
class SerialDriver implements Driver {
  readonly #inner: Driver;
  #tail: Promise<void> = Promise.resolve();
  readonly #releases = new Map<DatabaseConnection, Array<() => void>>();

  constructor(inner: Driver) {
    this.#inner = inner;
  }
  init(): Promise<void> {
    return this.#inner.init();
  }
  async acquireConnection(): Promise<DatabaseConnection> {
    let release!: () => void;
    const turn = new Promise<void>((r) => (release = r));
    const prev = this.#tail;
    this.#tail = prev.then(() => turn);
    await prev;
    const conn = await this.#inner.acquireConnection();
    const list = this.#releases.get(conn) ?? [];
    list.push(release);
    this.#releases.set(conn, list);
    return conn;
  }
  async releaseConnection(conn: DatabaseConnection): Promise<void> {
    await this.#inner.releaseConnection(conn);
    const release = this.#releases.get(conn)?.shift();
    release?.();
  }
  beginTransaction(conn: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    return this.#inner.beginTransaction(conn, settings);
  }
  commitTransaction(conn: DatabaseConnection): Promise<void> {
    return this.#inner.commitTransaction(conn);
  }
  rollbackTransaction(conn: DatabaseConnection): Promise<void> {
    return this.#inner.rollbackTransaction(conn);
  }
  savepoint(conn: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    return this.#inner.savepoint!(conn, name, compile);
  }
  rollbackToSavepoint(conn: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    return this.#inner.rollbackToSavepoint!(conn, name, compile);
  }
  releaseSavepoint(conn: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    return this.#inner.releaseSavepoint!(conn, name, compile);
  }
  destroy(): Promise<void> {
    return this.#inner.destroy();
  }
}

type PgliteQuery = PGlite['query'];
type QueryOptions = Parameters<PgliteQuery>[2];

/** Applies our type parsers on every query, whatever options the instance was created (or cloned) with. */
function withParsers<T extends { query: PgliteQuery }>(target: T): Pick<T, 'query'> {
  const query = ((q: string, params?: unknown[], options?: QueryOptions) =>
    target.query(q, params, { ...options, parsers: { [INT8_OID]: (v: string) => v, ...options?.parsers } })) as PgliteQuery;
  return { query };
}

function serialPgliteDialect(pglite: PGlite): Dialect {
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
    createDriver: () => new SerialDriver(base.createDriver()),
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
  return new Kysely<DB>({ dialect: serialPgliteDialect(pglite) });
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
