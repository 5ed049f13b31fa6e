import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '#core/platform/clock.ts';
import { loadConfig } from '#core/platform/config.ts';
import { createLogger } from '#core/platform/logger.ts';
import { buildPlatform, type Platform } from '#server/platform.ts';
import { postgresAdminUrl } from '#tests/support/database.ts';
import { ENGINES } from '#tests/support/engines-matrix.ts';
import { freshDatabase } from '#tests/support/engines.ts';
import { startTestServer, type TestServer } from '#tests/support/server.ts';
import { until } from '#tests/support/until.ts';

describe.each(ENGINES)('jobs on pg-boss [%s]', (engine) => {
  let platform: Platform | null = null;
  afterEach(async () => {
    await platform?.close();
    platform = null;
  });

  it('the housekeeping job runs on the same database and purges what expired', async () => {
    const database = await freshDatabase(engine, engine === 'postgres' ? postgresAdminUrl() : undefined);
    const clock = new ManualClock(Date.now());
    platform = await buildPlatform(loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent' }), {
      database,
      clock,
      jobs: true,
      logger: createLogger('silent'),
    });
    const db = platform.database.db;
    const old = new Date(clock.now().getTime() - 3 * 24 * 3600_000);
    await db
      .insertInto('rate_hits')
      .values([
        { key: 'old', at: old },
        { key: 'new', at: clock.now() },
      ])
      .execute();
    expect(await platform.jobs!.send('housekeeping.purge', {})).toBeTruthy();
    const keys = await until(
      'the purge',
      async () => (await db.selectFrom('rate_hits').select('key').execute()).map((r) => r.key),
      (k) => k.length === 1,
      { timeoutMs: 20_000, everyMs: 200 },
    );
    expect(keys).toEqual(['new']);
  });
});

describe('signed object downloads', () => {
  let server: TestServer | null = null;
  afterEach(async () => {
    await server?.close();
    server = null;
  });

  it('serves a signed URL and refuses forged or expired ones', async () => {
    server = await startTestServer();
    const objects = server.banshu.platform.objects;
    await objects.put('docs/1/page-1.txt', new TextEncoder().encode('hello'), 'text/plain');
    const url = await objects.signedGetUrl('docs/1/page-1.txt', 60);
    expect(url.startsWith(`${server.url}/objects/`)).toBe(true);
    const ok = await fetch(url);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toContain('text/plain');
    expect(await ok.text()).toBe('hello');
    expect((await fetch(url.replace('page-1', 'page-2'))).status).toBe(403);
    expect((await fetch(url.replace(/sig=[^&]+/, 'sig=AAAA'))).status).toBe(403);
    expect((await fetch(`${server.url}/objects/..%2F..%2Fetc%2Fpasswd?exp=9999999999&sig=x`)).status).toBe(403);
  });
});
