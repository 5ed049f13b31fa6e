/**
 * The server side of bench/api, run as a child process so the load generator and the server do
 * not share an event loop. `node bench/lib/api-server.ts <bare|pglite|postgres>`, IPC only:
 *
 * - bare: a plain node:http handler that reads the body, parses it as JSON and answers the same
 *   `getRoomInfoByRoomNumber` envelope the product answers (given as BENCH_BARE_ANSWER), with the
 *   product's content type and cache header. No framework, no database: the reference.
 * - pglite | postgres: the whole product via tests/support/server.ts (API only, console SMS, its own
 *   fresh database; postgres needs BENCH_POSTGRES_ADMIN_URL).
 *
 * Messages: the child sends {type:'ready', url}; the parent may send {type:'code', id, mobile}
 * (answered with the newest outbox code for that mobile) and {type:'close'}. The child exits when
 * the parent goes away.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { TestServer } from '../../tests/support/server.ts';
import type { DB } from '../../core/platform/db/schema.ts';

export type ChildToParent = { type: 'ready'; url: string; pid: number; database: string | null } | { type: 'code'; id: number; code: string | null } | { type: 'closed' };
export type ParentToChild = { type: 'code'; id: number; mobile: string } | { type: 'close' };

/** Limits raised so a load of fresh sign-ins is measured, not refused. */
export const BENCH_SERVER_ENV: Record<string, string> = {
  LOG_LEVEL: 'silent',
  SMS_HOURLY_PER_ADDRESS: '10000000',
  SMS_HOURLY_PER_MOBILE: '1000',
  SMS_DAILY_PER_MOBILE: '1000',
  TOURIST_JOINS_PER_MINUTE: '10000000',
};

function send(m: ChildToParent): void {
  process.send?.(m);
}

async function startBare(): Promise<{ url: string; close(): Promise<void> }> {
  const answer = JSON.parse(process.env['BENCH_BARE_ANSWER'] ?? 'null') as { data?: { roomInfo?: { roomNumber?: string } } } | null;
  if (!answer?.data?.roomInfo) throw new Error('BENCH_BARE_ANSWER must hold a getRoomInfoByRoomNumber envelope');
  const roomInfo = answer.data.roomInfo;
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let roomNumber: unknown;
      try {
        roomNumber = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { roomNumber?: unknown }).roomNumber;
      } catch {
        roomNumber = undefined;
      }
      const body =
        typeof roomNumber === 'string'
          ? JSON.stringify({ ...answer, data: { roomInfo: { ...roomInfo, roomNumber } } })
          : JSON.stringify({ code: '5', msg: 'bad request', data: null });
      res.writeHead(200, {
        'Content-Type': 'application/json; charset=utf-8',
        'Content-Length': Buffer.byteLength(body),
        'Cache-Control': 'no-store',
      });
      res.end(body);
    });
  };
  const server = createServer(handler);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${String(port)}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Experiments, not the product's configuration: the same server as tests/support/server.ts, but
 * with a PostgreSQL pool of `max` connections instead of the product's default (bench --pg-pool=N),
 * and with `prepared`, every statement sent as a named prepared statement, so PostgreSQL parses and
 * plans each distinct SQL text once per connection (bench --pg-prepared).
 */
async function startExperiment(max: number, prepared: boolean): Promise<TestServer> {
  const [{ mkdtemp, rm }, { tmpdir }, path, { ManualClock }, { createLogger }, { startBanshu }, { Kysely, PostgresDialect }, { default: pg }, { createHash }, { migrateToLatest }, { createTestDatabase }] =
    await Promise.all([
      import('node:fs/promises'),
      import('node:os'),
      import('node:path'),
      import('../../core/platform/clock.ts'),
      import('../../core/platform/logger.ts'),
      import('../../server/app.ts'),
      import('kysely'),
      import('pg'),
      import('node:crypto'),
      import('../../core/platform/db/migrate.ts'),
      import('../../tests/support/postgres.ts'),
    ]);
  const adminUrl = process.env['BENCH_POSTGRES_ADMIN_URL'];
  if (!adminUrl) throw new Error('BENCH_PG_POOL needs BENCH_POSTGRES_ADMIN_URL');
  const created = await createTestDatabase(adminUrl);
  const pool = new pg.Pool({ connectionString: created.url, max });
  pool.on('error', () => {});
  if (prepared) {
    pool.on('connect', (client) => {
      const query = client.query.bind(client) as (...a: unknown[]) => unknown;
      (client as { query: unknown }).query = (text: unknown, values?: unknown) =>
        // Not `on conflict ... where state = $1`: under a generic plan PostgreSQL cannot match the
        // parameter to the partial unique index and fails (core/rooms/room.repository.ts insertRoom).
        typeof text === 'string' && !text.includes(' on conflict ')
          ? query({ name: `b${createHash('sha1').update(text).digest('hex').slice(0, 20)}`, text, values })
          : query(text, values);
    });
  }
  const kdb = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  await migrateToLatest(kdb as never);
  const dataDir = await mkdtemp(path.join(tmpdir(), 'banshu-bench-'));
  const env: Record<string, string> = { NODE_ENV: 'test', PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, SMS_SENDER: 'console', ...BENCH_SERVER_ENV };
  const clock = new ManualClock(Date.now());
  const banshu = await startBanshu(env, {
    database: {
      db: kdb,
      kind: 'postgres',
      pglite: null,
      url: created.url,
      close: async () => {
        await kdb.destroy();
        await created.drop();
      },
    },
    clock,
    jobs: false,
    logger: createLogger(process.env['BENCH_LOG_LEVEL'] ?? 'silent'),
    web: { mode: 'none' },
  });
  return {
    url: banshu.url,
    banshu,
    clock,
    outbox: () => Promise.resolve(banshu.platform.services.devOutbox?.list() ?? []),
    async close() {
      await banshu.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

async function main(): Promise<void> {
  const kind = process.argv[2];
  let server: { url: string; close(): Promise<void> };
  let product: TestServer | null = null;
  if (kind === 'bare') {
    server = await startBare();
  } else if (kind === 'postgres' && (process.env['BENCH_PG_POOL'] || process.env['BENCH_PG_PREPARED'])) {
    product = await startExperiment(Number(process.env['BENCH_PG_POOL'] || 10), process.env['BENCH_PG_PREPARED'] === '1');
    server = product;
  } else if (kind === 'pglite' || kind === 'postgres') {
    // Loaded only here, so the bare handler's process carries none of the product.
    const { startTestServer } = await import('../../tests/support/server.ts');
    product = await startTestServer({
      engine: kind,
      postgresAdminUrl: process.env['BENCH_POSTGRES_ADMIN_URL'],
      env: BENCH_SERVER_ENV,
    });
    server = product;
  } else {
    throw new Error(`usage: node bench/lib/api-server.ts <bare|pglite|postgres> (got ${String(kind)})`);
  }

  let closing = false;
  const close = async () => {
    if (closing) return;
    closing = true;
    await server.close();
    if (process.connected) {
      send({ type: 'closed' });
      process.disconnect();
    }
    process.exit(0);
  };
  process.on('disconnect', () => void close());
  process.on('message', (raw) => {
    const m = raw as ParentToChild;
    if (m.type === 'close') {
      void close();
    } else if (m.type === 'code') {
      void (product?.outbox() ?? Promise.resolve([])).then((list) => {
        send({ type: 'code', id: m.id, code: list.find((e) => e.mobile === m.mobile)?.code ?? null });
      });
    }
  });
  // The PostgreSQL database's name, so the parent can find its backends' CPU time.
  const dbUrl = product?.banshu.platform.database.url;
  send({ type: 'ready', url: server.url, pid: process.pid, database: dbUrl ? decodeURIComponent(new URL(dbUrl).pathname.slice(1)) : null });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
