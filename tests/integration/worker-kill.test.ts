/**
 * A worker killed mid-conversion while another worker runs (issue 18, ADR 097): two worker
 * processes (`node server/main.ts`, ROLE=worker, real converter, real PostgreSQL, one object
 * store), both idle when a long PDF is uploaded. The one that takes it (A, by its log) is
 * SIGKILLed mid-conversion; the other (B), which left the job alone while A's lease was beating,
 * takes it once the lease lapsed and finishes it: the document is converted with every page, one job row, retried once, and no page beyond
 * the last. The time from the kill to B's first page and to the end is printed and bounded.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { pageKey, thumbKey } from '#core/courseware/courseware-room.ts';
import { signIn } from '#tests/support/api.ts';
import { makePdf, uploadCourseware } from '#tests/support/courseware.ts';
import { postgresAdminUrl } from '#tests/support/database.ts';
import { sleep } from '#tests/support/room-client.ts';
import { startTestServer, type TestServer } from '#tests/support/server.ts';

const MAIN = path.resolve('server/main.ts');
const PAGES = 190;
const SECRET = 'w'.repeat(64);
const children: ChildProcess[] = [];
let web: TestServer;

beforeAll(async () => {
  // The web role only sends jobs: every conversion is done by the spawned worker processes.
  web = await startTestServer({
    engine: 'postgres',
    postgresAdminUrl: postgresAdminUrl(),
    realTime: true,
    env: { ROLE: 'web', MEDIA_PUBLIC_URL: 'http://127.0.0.1:9', SESSION_SECRET: SECRET },
    overrides: { jobs: true },
  });
}, 60_000);

afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await web?.close();
});

interface Worker {
  child: ChildProcess;
  log: () => string;
}

/** A worker process on the web server's database and object store; resolves once it is running. */
async function startWorker(): Promise<Worker> {
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
      SESSION_SECRET: SECRET,
      DATA_DIR: config.DATA_DIR,
      DATABASE_URL: platform.database.url!,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let log = '';
  child.stdout.on('data', (c: Buffer) => (log += c.toString()));
  child.stderr.on('data', (c: Buffer) => (log += c.toString()));
  await new Promise<void>((resolve, reject) => {
    const onData = () => {
      if (log.includes('Banshu is running')) resolve();
    };
    child.stdout.on('data', onData);
    child.once('exit', (code, signal) => reject(new Error(`worker exited ${String(code ?? signal)}: ${log.slice(-2000)}`)));
  });
  return { child, log: () => log };
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

async function jobs(prefix: string) {
  const r = await sql<{ state: string; retry_count: number }>`select state, retry_count from pgboss.job
    where name = 'courseware.convert' and singleton_key = ${prefix}`.execute(web.banshu.platform.database.db);
  return r.rows;
}

async function until<T>(what: string, read: () => Promise<T>, ok: (v: T) => boolean, ms: number): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > end) throw new Error(`timed out after ${String(ms)} ms waiting for ${what}: ${JSON.stringify(v)}`);
    await sleep(100);
  }
}

it('finishes on the other worker once the killed one’s lease lapsed, every page once', async () => {
  const workers = [await startWorker(), await startWorker()];
  const user = await signIn(web);
  const up = await uploadCourseware(web.url, user.token, makePdf(PAGES, { label: 'Failover' }), 'failover.pdf');
  expect(up.add.code).toBe('0');
  const id = up.add.data.documentId as string;
  const started = (w: Worker) => w.log().includes('"courseware conversion started"');
  await until(
    'a worker converting',
    () => row(id),
    (r) => r.page_count >= 3 || r.status !== 1,
    60_000,
  );
  const holders = workers.filter(started);
  // One worker took the job; the other, idle the whole time, left it alone (the lease beats).
  expect(holders).toHaveLength(1);
  const a = holders[0]!;
  const b = workers.find((w) => w !== a)!;
  const before = await row(id);
  expect(before.status).toBe(1);
  expect(await jobs(before.pages_prefix)).toEqual([{ state: 'active', retry_count: 0 }]);

  const killedAt = Date.now();
  await kill(a.child);
  const atKill = (await row(id)).page_count;
  expect(atKill).toBeLessThan(PAGES);
  // B starts the pages over (the count drops below what A had written), then goes past it.
  await until(
    'B takes the job',
    () => row(id),
    (r) => r.page_count < atKill || r.status !== 1,
    60_000,
  );
  const takenMs = Date.now() - killedAt;
  const final = await until(
    'a final status',
    () => row(id),
    (r) => r.status !== 1,
    90_000,
  );
  const doneMs = Date.now() - killedAt;
  console.info(
    `[worker-kill] ${String(atKill)} of ${String(PAGES)} pages at the kill; job taken again after ${String(takenMs)} ms; ` +
      `converted ${String(doneMs)} ms after the kill`,
  );

  expect(final.status).toBe(3);
  expect(final.page_count).toBe(PAGES);
  expect((JSON.parse(final.page_sizes) as unknown[]).length).toBe(PAGES);
  expect(started(b)).toBe(true);
  expect(b.log()).toContain('"courseware converted"');
  // One job, retried once (the killed attempt), completed; every page and thumb, nothing beyond.
  expect(await jobs(final.pages_prefix)).toEqual([{ state: 'completed', retry_count: 1 }]);
  const objects = web.banshu.platform.objects;
  for (const n of [1, PAGES / 2, PAGES]) {
    expect(await objects.head(pageKey(final.pages_prefix, n))).not.toBeNull();
    expect(await objects.head(thumbKey(final.pages_prefix, n))).not.toBeNull();
  }
  expect(await objects.head(pageKey(final.pages_prefix, PAGES + 1))).toBeNull();
  // Bounded by the lease (10 s), one supervise pass (10 s), the retry delay and the poll.
  expect(takenMs).toBeLessThan(30_000);
  await kill(b.child);
}, 240_000);
