/**
 * Revocations reach a media node that was away for a while (ADR 032 addendum): the sender keeps
 * trying for the media token's lifetime, since until then a revoked token could still be used.
 */
import { createServer, type Server } from 'node:http';
import { afterEach, expect, it } from 'vitest';
import { MEDIA_CONTROL_SIGNATURE_HEADER, verifyControl } from '#core/contracts/media-control.ts';
import { createLogger } from '#core/platform/logger.ts';
import { sendControl } from '#server/media-control.ts';

const SECRET = 'r'.repeat(48);
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/** A node that answers 503 (restarting) until `upAfterMs`, then accepts; it records each call. */
async function node(upAfterMs: number): Promise<{ url: string; calls: Array<{ at: number; valid: boolean }> }> {
  const started = Date.now();
  const calls: Array<{ at: number; valid: boolean }> = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const valid = !!verifyControl(SECRET, body, req.headers[MEDIA_CONTROL_SIGNATURE_HEADER], Date.now());
      calls.push({ at: Date.now() - started, valid });
      if (Date.now() - started < upAfterMs) return res.writeHead(503).end();
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"applied":true}');
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return { url: `http://127.0.0.1:${String(address.port)}`, calls };
}

const cmd = { op: 'removeUser' as const, room: '123456', userId: '42' };
const logger = createLogger('silent');

it('keeps trying a node that is restarting, and delivers once it is back (past the first 4 s)', async () => {
  const n = await node(5000);
  // Later tries 1 s apart here (10 s in production) to keep the test short.
  const delivered = await sendControl(n.url, SECRET, cmd, logger, { retryForMs: 30_000, laterDelayMs: 1000 });
  expect(delivered).toBe(true);
  // Tries at about 0, 0.3, 1.3, 4.3 s (refused), then 5.3 s (accepted); each a freshly signed call.
  expect(n.calls.length).toBe(5);
  expect(n.calls.every((c) => c.valid)).toBe(true);
  expect(n.calls.at(-1)!.at).toBeGreaterThanOrEqual(5000);
});

it('gives up when the token it revokes has expired anyway', async () => {
  const n = await node(60_000);
  const started = Date.now();
  expect(await sendControl(n.url, SECRET, cmd, logger, { retryForMs: 1500 })).toBe(false);
  expect(Date.now() - started).toBeLessThan(2500);
  expect(n.calls.length).toBe(3);
});

it('stops waiting at once when the process closes', async () => {
  const n = await node(60_000);
  const closing = new AbortController();
  const sent = sendControl(n.url, SECRET, cmd, logger, { retryForMs: 130_000, signal: closing.signal });
  // The first call was refused: the sender now waits before trying again.
  for (const end = Date.now() + 5000; n.calls.length === 0 && Date.now() < end;) await new Promise((r) => setImmediate(r));
  expect(n.calls.length).toBe(1);
  const abortedAt = Date.now();
  closing.abort();
  expect(await sent).toBe(false);
  expect(Date.now() - abortedAt).toBeLessThan(200);
});
