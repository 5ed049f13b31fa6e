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
import { startTestServer, type TestServer } from '../../tests/support/server.ts';

export type ChildToParent = { type: 'ready'; url: string } | { type: 'code'; id: number; code: string | null } | { type: 'closed' };
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

async function main(): Promise<void> {
  const kind = process.argv[2];
  let server: { url: string; close(): Promise<void> };
  let product: TestServer | null = null;
  if (kind === 'bare') {
    server = await startBare();
  } else if (kind === 'pglite' || kind === 'postgres') {
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
  send({ type: 'ready', url: server.url });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
