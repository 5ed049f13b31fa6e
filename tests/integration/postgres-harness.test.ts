// The harness itself: the run's throwaway PostgreSQL answers, and each test database is isolated.
import pg from 'pg';
import { afterAll, describe, expect, test } from 'vitest';
import { freshPostgresDatabase, postgresAdminUrl } from '#tests/support/database.ts';
import type { TestDatabase } from '#tests/support/postgres.ts';

async function query<Row extends pg.QueryResultRow>(url: string, sql: string): Promise<Row[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<Row>(sql)).rows;
  } finally {
    await client.end();
  }
}

describe('throwaway PostgreSQL', () => {
  const databases: TestDatabase[] = [];
  afterAll(async () => {
    await Promise.all(databases.map((db) => db.drop()));
  });

  test('listens on loopback and answers select version() with 15.x', async () => {
    const url = new URL(postgresAdminUrl());
    expect(url.hostname).toBe('127.0.0.1');
    const [row] = await query<{ version: string }>(url.toString(), 'select version()');
    expect(row?.version).toMatch(/^PostgreSQL 15\.\d+/);
  });

  test('createTestDatabase gives isolated databases', async () => {
    const first = await freshPostgresDatabase();
    const second = await freshPostgresDatabase();
    databases.push(first, second);
    expect(first.name).not.toBe(second.name);

    await query(first.url, 'create table marker (id int primary key)');
    await query(first.url, 'insert into marker values (1)');

    const inFirst = await query<{ n: string }>(first.url, 'select count(*) as n from marker');
    expect(inFirst[0]?.n).toBe('1');
    const inSecond = await query<{ found: string | null }>(second.url, "select to_regclass('public.marker') as found");
    expect(inSecond[0]?.found).toBeNull();
  });

  test('drop() removes the database', async () => {
    const db = await freshPostgresDatabase();
    await query(db.url, 'select 1');
    await db.drop();
    const rows = await query<{ datname: string }>(postgresAdminUrl(), `select datname from pg_database where datname = '${db.name}'`);
    expect(rows).toEqual([]);
  });
});
