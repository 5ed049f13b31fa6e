/**
 * A worker killed mid-conversion on the local cluster (issue 18, ADR 097): one web node behind
 * nginx, two workers, PostgreSQL, Redis and the S3-compatible store. A long PDF is uploaded through
 * nginx to S3; the worker that took the conversion (its log says so) is SIGKILLed; the other worker
 * takes the job once the lease lapsed and converts it: every page, one job row retried once. The
 * killed worker is then started again (`restart()`) and the queue stays settled. Times printed.
 */
import { sql } from 'kysely';
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startCluster, type Cluster, type ClusterNode } from '../../infra/cluster/cluster.ts';
import { kyselyOnPostgres, type Database } from '#core/platform/db/database.ts';
import { call } from '#tests/support/api.ts';
import { makePdf, uploadCourseware } from '#tests/support/courseware.ts';
import { codeFromLogs } from './cluster-helpers.ts';
import { until } from '#tests/support/until.ts';
import { newMobile } from './helpers.ts';

const PAGES = 190;
let cluster: Cluster;
let db: Database;

beforeAll(async () => {
  cluster = await startCluster({ webNodes: 1, mediaNodes: 1, workers: 2, recorders: 0 });
  db = kyselyOnPostgres(cluster.databaseUrl, 2).db;
}, 120_000);

afterAll(async () => {
  await db?.destroy();
  await cluster?.stop();
});

async function signIn(): Promise<string> {
  const mobile = newMobile();
  expect((await call(cluster.url, 'sendPhoneCode', { mobile, area: '86' })).code).toBe('0');
  const sent = await until(
    'the code in a web log',
    () => codeFromLogs(cluster, mobile),
    (c) => c !== null,
    { timeoutMs: 10_000, everyMs: 100 },
  );
  const login = await call(cluster.url, 'loginUser', { mobile, code: sent!.code });
  expect(login.code).toBe('0');
  return login.data.userInfo.userToken;
}

const row = (id: string) => db.selectFrom('documents').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

async function jobs(prefix: string) {
  const r = await sql<{ state: string; retry_count: number }>`select state, retry_count from pgboss.job
    where name = 'courseware.convert' and singleton_key = ${prefix}`.execute(db);
  return r.rows;
}

/** How many conversions the worker's log says it started. */
async function startedIn(node: ClusterNode): Promise<number> {
  const text = await readFile(node.logPath, 'utf8').catch(() => '');
  return text.split('\n').filter((l) => l.includes('"courseware conversion started"')).length;
}

it('finishes the conversion on the other worker after the one converting is SIGKILLed', async () => {
  const token = await signIn();
  const up = await uploadCourseware(cluster.url, token, makePdf(PAGES, { label: 'Cluster' }), 'cluster.pdf');
  expect(up.add.code).toBe('0');
  const id = up.add.data.documentId;
  await until(
    'a worker converting',
    () => row(id),
    (r) => r.page_count >= 3 || r.status !== 1,
    { timeoutMs: 60_000, everyMs: 100 },
  );
  const workers = cluster.nodes.filter((n) => n.role === 'worker');
  const counts = await Promise.all(workers.map(startedIn));
  expect(counts.sort()).toEqual([0, 1]);
  const holder = workers[(await Promise.all(workers.map(startedIn))).indexOf(1)]!;
  const other = workers.find((w) => w !== holder)!;
  expect((await row(id)).status).toBe(1);

  const killedAt = Date.now();
  await holder.kill('SIGKILL');
  const atKill = (await row(id)).page_count;
  await until(
    'the other worker takes the job',
    () => row(id),
    (r) => r.page_count < atKill || r.status !== 1,
    { timeoutMs: 60_000, everyMs: 100 },
  );
  const takenMs = Date.now() - killedAt;
  const final = await until(
    'a final status',
    () => row(id),
    (r) => r.status !== 1,
    { timeoutMs: 90_000, everyMs: 100 },
  );
  const doneMs = Date.now() - killedAt;
  console.info(
    `[cluster-worker-kill] killed ${holder.name} at ${String(atKill)} of ${String(PAGES)} pages; ${other.name} took the job ` +
      `${String(takenMs)} ms after the kill and converted it ${String(doneMs)} ms after the kill`,
  );
  expect(final.status).toBe(3);
  expect(final.page_count).toBe(PAGES);
  expect((JSON.parse(final.page_sizes) as unknown[]).length).toBe(PAGES);
  expect(await startedIn(other)).toBe(1);
  expect(await jobs(final.pages_prefix)).toEqual([{ state: 'completed', retry_count: 1 }]);
  expect(takenMs).toBeLessThan(30_000);

  // The killed worker back: it finds nothing left over and converts nothing twice.
  await holder.restart();
  expect(await jobs(final.pages_prefix)).toEqual([{ state: 'completed', retry_count: 1 }]);
  expect(await startedIn(holder)).toBe(1);
  expect((await row(id)).status).toBe(3);
}, 240_000);
