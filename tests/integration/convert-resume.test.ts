/**
 * Jobs safe against a killed process (ADR 068): a worker process (ROLE=worker, real converter, real
 * PostgreSQL) is SIGKILLed in the middle of a long PDF; once a worker runs again the document is
 * final within 90 s (converted, or failed with a reason), not 'converting' until pg-boss's
 * 15-minute expiry. Also: a document some earlier crash left converting with no job at all is
 * queued again at a worker's start, and one whose job used up its retries is failed and deletable.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { call, signIn } from '#tests/support/api.ts';
import { makePdf, uploadCourseware } from '#tests/support/courseware.ts';
import { postgresAdminUrl } from '#tests/support/database.ts';
import { startTestServer, type TestServer } from '#tests/support/server.ts';
import { until } from '#tests/support/until.ts';

const MAIN = path.resolve('server/main.ts');
const children: ChildProcess[] = [];
let web: TestServer;

beforeAll(async () => {
  // The web role only sends jobs: every conversion below is done by the spawned worker processes.
  web = await startTestServer({
    engine: 'postgres',
    postgresAdminUrl: postgresAdminUrl(),
    env: { ROLE: 'web', MEDIA_PUBLIC_URL: 'http://127.0.0.1:9', SESSION_SECRET: 's'.repeat(64) },
    overrides: { jobs: true },
  });
}, 60_000);

afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await web?.close();
});

/** A worker process on the web server's database and object store; resolves once it is running. */
async function startWorker(): Promise<ChildProcess> {
  const { config, platform } = web.banshu;
  const child = spawn(process.execPath, [MAIN], {
    env: {
      PATH: process.env['PATH'] ?? '',
      HOME: process.env['HOME'] ?? '/tmp',
      NODE_ENV: 'test',
      ROLE: 'worker',
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      SESSION_SECRET: 's'.repeat(64),
      DATA_DIR: config.DATA_DIR,
      DATABASE_URL: platform.database.url!,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let log = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (c: Buffer) => {
      log += c.toString();
      if (log.includes('Banshu is running')) resolve();
    });
    child.stderr.on('data', (c: Buffer) => (log += c.toString()));
    child.once('exit', (code, signal) => reject(new Error(`worker exited ${String(code ?? signal)}: ${log.slice(-2000)}`)));
  });
  return child;
}

async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await gone;
}

async function row(id: string) {
  return web.banshu.platform.database.db.selectFrom('documents').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

describe('a conversion whose worker is killed', () => {
  it('is final within 90 s of a worker being back, and then deletable', async () => {
    const user = await signIn(web);
    const up = await uploadCourseware(web.url, user.token, makePdf(180, { label: 'Long' }), 'long.pdf');
    expect(up.add.code).toBe('0');
    const id = up.add.data.documentId;
    const first = await startWorker();
    try {
      // Mid-conversion: some pages written, most not.
      await until(
        'a few pages',
        () => row(id),
        (r) => r.page_count >= 3,
        60_000,
      );
      await kill(first);
      const killed = await row(id);
      expect(killed.status).toBe(1);
      expect(killed.page_count).toBeLessThan(180);
      // The teacher cannot delete it while it converts.
      expect((await call(web.url, 'delUserDocument', { taskId: killed.task_id, documentId: id }, { token: user.token })).code).toBe(
        '34007',
      );

      const second = await startWorker();
      const back = Date.now();
      try {
        const final = await until(
          'a final status',
          () => row(id),
          (r) => r.status !== 1,
          90_000,
        );
        const seconds = (Date.now() - back) / 1000;
        console.info(`restart -> final: ${seconds.toFixed(1)} s (status ${String(final.status)}, ${String(final.page_count)} pages)`);
        if (final.status === 3) expect(final.page_count).toBe(180);
        else expect(final.fail_reason).not.toBe('');
        const del = await call(web.url, 'delUserDocument', { taskId: final.task_id, documentId: id }, { token: user.token });
        expect(del.code).toBe('0');
      } finally {
        await kill(second);
      }
    } finally {
      await kill(first);
    }
  }, 240_000);

  it('at a worker start: one left converting with no job is queued again; one whose job gave up fails with a reason', async () => {
    const user = await signIn(web);
    const db = web.banshu.platform.database.db;
    const orphan = await uploadCourseware(web.url, user.token, makePdf(2, { label: 'Orphan' }), 'orphan.pdf');
    const spent = await uploadCourseware(web.url, user.token, makePdf(2, { label: 'Spent' }), 'spent.pdf');
    const orphanId = orphan.add.data.documentId;
    const spentId = spent.add.data.documentId;
    const [o, s] = [await row(orphanId), await row(spentId)];
    // As a crash leaves them: the orphan's job is gone (never sent, or deleted); the spent one's
    // job failed on its last retry without its handler ever settling the document.
    await sql`delete from pgboss.job where name = 'courseware.convert' and singleton_key = ${o.pages_prefix}`.execute(db);
    await sql`update pgboss.job set state = 'failed', retry_count = retry_limit, completed_on = now()
      where name = 'courseware.convert' and singleton_key = ${s.pages_prefix}`.execute(db);
    expect([(await row(orphanId)).status, (await row(spentId)).status]).toEqual([1, 1]);
    const worker = await startWorker();
    try {
      const done = await until(
        'the orphan converted',
        () => row(orphanId),
        (r) => r.status !== 1,
        60_000,
      );
      expect([done.status, done.page_count]).toEqual([3, 2]);
      const failed = await row(spentId);
      expect([failed.status, failed.fail_reason]).toEqual([2, 'failed']);
      const del = await call(web.url, 'delUserDocument', { taskId: failed.task_id, documentId: spentId }, { token: user.token });
      expect(del.code).toBe('0');
    } finally {
      await kill(worker);
    }
  }, 120_000);
});
