/**
 * The server side of bench/api, run as a child process so the load generator and the server do
 * not share an event loop. `node bench/lib/api-server.ts <bare|pglite|postgres>`, IPC only:
 *
 * - bare: a plain node:http handler that reads the body, parses it as JSON and answers the same
 *   `getRoomInfoByRoomNumber` envelope the product answers (given as BENCH_BARE_ANSWER), with the
 *   product's content type and cache header. No framework, no database: the reference.
 * - pglite | postgres: the whole product via tests/support/server.ts (API only, console SMS, its own
 *   fresh database; postgres needs BENCH_POSTGRES_ADMIN_URL), with the product's own settings
 *   except BENCH_SERVER_ENV and any `NAME=value` arguments after the kind, which are merged over it
 *   (`node bench/lib/api-server.ts postgres ROOM_INFO_CACHE_MS=0`).
 *   Its clock is the real one (the test server's ManualClock would stand still, and shared
 *   room-info look-ups would then never expire).
 *
 * Messages: the child sends {type:'ready', url}; the parent may send {type:'code', id, mobile}
 * (answered with the newest outbox code for that mobile), {type:'stats', id} (answered with the
 * number of statements sent to PostgreSQL so far; null on other kinds) and {type:'close'}. The
 * child exits when the parent goes away.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { TestServer } from '../../tests/support/server.ts';

export type ChildToParent =
  | { type: 'ready'; url: string; pid: number; database: string | null }
  | { type: 'code'; id: number; code: string | null }
  | { type: 'stats'; id: number; statements: number | null }
  | { type: 'closed' };
export type ParentToChild = { type: 'code'; id: number; mobile: string } | { type: 'stats'; id: number } | { type: 'close' };

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

/** `NAME=value` arguments after the kind: settings merged over BENCH_SERVER_ENV (e.g. ROOM_INFO_CACHE_MS=0). */
export function parseOverrides(argv: string[]): Record<string, string> {
  const overrides: Record<string, string> = {};
  for (const a of argv) {
    const m = /^([A-Z][A-Z0-9_]*)=(.*)$/s.exec(a);
    if (!m) throw new Error(`not a NAME=value setting: ${a}`);
    overrides[m[1]!] = m[2]!;
  }
  return overrides;
}

/**
 * Counts the statements the product sends to PostgreSQL (every `pg` client query: data statements,
 * BEGIN/COMMIT, the session look-up), so the parent can show round trips per request. Patched
 * before the product is loaded; the product and this file resolve the same `pg` module.
 */
async function countPostgresStatements(): Promise<() => number> {
  const { default: pg } = await import('pg');
  let statements = 0;
  const proto = pg.Client.prototype as unknown as { query: (...a: unknown[]) => unknown };
  const query = proto.query;
  proto.query = function (this: unknown, ...a: unknown[]) {
    statements++;
    return query.apply(this, a);
  };
  return () => statements;
}

async function main(): Promise<void> {
  const [kind, ...rest] = process.argv.slice(2);
  const overrides = parseOverrides(rest);
  let server: { url: string; close(): Promise<void> };
  let product: TestServer | null = null;
  let statements: (() => number) | null = null;
  if (kind === 'bare') {
    server = await startBare();
  } else if (kind === 'pglite' || kind === 'postgres') {
    if (kind === 'postgres') statements = await countPostgresStatements();
    // Loaded only here, so the bare handler's process carries none of the product.
    const { startTestServer } = await import('../../tests/support/server.ts');
    product = await startTestServer({
      engine: kind,
      postgresAdminUrl: process.env['BENCH_POSTGRES_ADMIN_URL'],
      env: { ...BENCH_SERVER_ENV, ...overrides },
    });
    // The test server's clock stands still unless a test moves it; under load the product must see
    // time pass (ROOM_INFO_CACHE_MS entries expire, sessions and codes age), so it reads the real one.
    product.clock.now = () => new Date();
    server = product;
  } else {
    throw new Error(`usage: node bench/lib/api-server.ts <bare|pglite|postgres> [NAME=value ...] (got ${String(kind)})`);
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
    } else if (m.type === 'stats') {
      send({ type: 'stats', id: m.id, statements: statements?.() ?? null });
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
