import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '#core/platform/db/database.ts';
import { postgresAdminUrl } from '#tests/support/database.ts';
import { ENGINES } from '#tests/support/engines-matrix.ts';
import { freshDatabase } from '#tests/support/engines.ts';

describe.each(ENGINES)('database layer [%s]', (engine) => {
  let h: DatabaseHandle | null = null;
  afterEach(async () => {
    await h?.close();
    h = null;
  });
  const open = async () => (h = await freshDatabase(engine, engine === 'postgres' ? postgresAdminUrl() : undefined));

  it('keeps concurrent transactions apart: a failed one rolls back, the others commit', async () => {
    const { db } = await open();
    // On PostgreSQL all five are open at once: each waits until every one has made its first insert.
    // PGlite runs one transaction at a time (one connection behind a mutex), so there they take turns.
    let opened = 0;
    let allOpen!: () => void;
    const everyoneIn = new Promise<void>((r) => (allOpen = r));
    const results = await Promise.allSettled(
      [1, 2, 3, 4, 5].map((i) =>
        db.transaction().execute(async (trx) => {
          await trx
            .insertInto('rate_hits')
            .values({ key: `k${i}`, at: new Date() })
            .execute();
          if (engine === 'postgres') {
            if (++opened === 5) allOpen();
            await everyoneIn;
          }
          if (i % 2 === 0) throw new Error('boom');
          await trx
            .insertInto('rate_hits')
            .values({ key: `k${i}b`, at: new Date() })
            .execute();
        }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'rejected', 'fulfilled']);
    const keys = (await db.selectFrom('rate_hits').select('key').orderBy('key').execute()).map((r) => r.key);
    expect(keys).toEqual(['k1', 'k1b', 'k3', 'k3b', 'k5', 'k5b']);
  });

  it('a plain query issued during a transaction does not join it', async () => {
    const { db } = await open();
    let release!: () => void;
    let begun!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const inside = new Promise<void>((r) => (begun = r));
    const tx = db.transaction().execute(async (trx) => {
      await trx.insertInto('rate_hits').values({ key: 'inside', at: new Date() }).execute();
      begun();
      await held;
      throw new Error('roll back');
    });
    await inside;
    const outside = db.insertInto('rate_hits').values({ key: 'outside', at: new Date() }).execute();
    if (engine === 'postgres') {
      // Its own connection: it commits while the transaction is still held open.
      await outside;
    } else {
      // PGlite queues it behind the transaction's mutex, so there is no event to wait for; this
      // only lets the query reach the queue before the transaction ends (the order is the subject).
      await new Promise((r) => setTimeout(r, 20));
    }
    release();
    await expect(tx).rejects.toThrow('roll back');
    await outside;
    const keys = (await db.selectFrom('rate_hits').select('key').execute()).map((r) => r.key);
    expect(keys).toEqual(['outside']);
  });

  it('returns bigint ids as strings on both engines', async () => {
    const { db } = await open();
    const row = await db
      .insertInto('users')
      .values({
        mobile: '13800000000',
        name: 'x',
        kind: 'teacher',
        promo_code: null,
        vip_room_time: null,
        vip_big_room_time: null,
        record_room_time: null,
        credit_window_until: null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    expect(typeof row.id).toBe('string');
    const n = await sql<{ n: string }>`select count(*) as n from users`.execute(db);
    expect(n.rows[0]!.n).toBe('1');
  });
});
