/**
 * Uploads without a session behind them (ADR 061): the phone link's token is checked before the
 * body is read (the answer comes while the client is still sending), an over-long body is refused
 * as it passes the limit, and only BOARD_PHONE_UPLOADS_AT_ONCE phone uploads are received at once.
 */
import { request, type ClientRequest, type IncomingMessage } from 'node:http';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { phoneUploadsInFlight } from '#server/web/board-images.ts';
import { call } from '#tests/support/api.ts';
import { boardRoom } from '#tests/support/board-client.ts';
import { startTestServer, type TestServer } from '#tests/support/server.ts';

let server: TestServer;
const AT_ONCE = 2;

beforeAll(async () => {
  server = await startTestServer({ env: { BOARD_PHONE_UPLOADS_AT_ONCE: String(AT_ONCE), BOARD_IMAGE_MAX_BYTES: '4000000' } });
});
afterAll(() => server.close());

interface Held {
  req: ClientRequest;
  response: Promise<IncomingMessage>;
}

/** Starts an upload that declares `declared` bytes and sends only its first 64 KiB: the rest is never written. */
function startUpload(path: string, declared: number, headers: Record<string, string> = {}): Held {
  const url = new URL(path, server.url);
  const req = request(url, { method: 'POST', headers: { 'content-type': 'image/jpeg', 'content-length': String(declared), ...headers } });
  const response = new Promise<IncomingMessage>((resolve, reject) => {
    req.on('response', resolve);
    req.on('error', reject);
  });
  // Destroying a held upload rejects a response nobody awaits any more.
  response.catch(() => undefined);
  req.write(Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(64 * 1024 - 4, 7)]));
  return { req, response };
}

async function bodyOf(res: IncomingMessage): Promise<{ code: string }> {
  let text = '';
  for await (const chunk of res) text += String(chunk);
  return JSON.parse(text) as { code: string };
}

async function phoneLink(): Promise<string> {
  const { teacher, roomNumber } = await boardRoom(server, 2, 0);
  const link = await call(server.url, 'createPhoneUploadLink', { roomNumber }, { token: teacher.token });
  expect(link.code).toBe('0');
  return new URL(link.data.url).searchParams.get('t')!;
}

it('refuses a forged phone link before reading the body: the answer comes while the client is still sending', async () => {
  for (const path of ['/board-images/phone?t=forged&w=10&h=10', '/board-images/phone', '/board-images']) {
    const held = startUpload(path, 3_000_000);
    // Only 64 KiB of 3 MB were written: an answer now proves the body was not awaited.
    const res = await held.response;
    expect(res.statusCode, path).toBe(401);
    expect((await bodyOf(res)).code).toBe('21001');
    expect(held.req.writableFinished).toBe(false);
    held.req.destroy();
  }
  expect(phoneUploadsInFlight(server.banshu.platform)).toBe(0);
});

it('refuses an upload as soon as it passes the limit, without waiting for its end', async () => {
  const t = await phoneLink();
  // Declared within the limit, but more is sent (a chunked body has no declared length).
  const req = request(new URL(`/board-images/phone?t=${encodeURIComponent(t)}`, server.url), {
    method: 'POST',
    headers: { 'content-type': 'image/jpeg', 'transfer-encoding': 'chunked' },
  });
  const response = new Promise<IncomingMessage>((resolve, reject) => {
    req.on('response', resolve);
    req.on('error', reject);
  });
  req.write(Buffer.alloc(2_500_000, 1));
  req.write(Buffer.alloc(2_500_000, 1));
  const res = await response;
  expect(res.statusCode).toBe(413);
  expect((await bodyOf(res)).code).toBe('32103');
  expect(req.writableFinished).toBe(false);
  req.destroy();
});

it('receives at most BOARD_PHONE_UPLOADS_AT_ONCE phone uploads at once; the next gets 503 at once, and a freed slot is reused', async () => {
  const t = await phoneLink();
  const path = `/board-images/phone?t=${encodeURIComponent(t)}&w=10&h=10`;
  const held: Held[] = [];
  for (let i = 0; i < AT_ONCE; i++) {
    held.push(startUpload(path, 1_000_000));
    await vi.waitFor(() => expect(phoneUploadsInFlight(server.banshu.platform)).toBe(i + 1));
  }
  const extra = startUpload(path, 1_000_000);
  const res = await extra.response;
  expect(res.statusCode).toBe(503);
  expect(res.headers['retry-after']).toBe('5');
  expect((await bodyOf(res)).code).toBe('34011');
  extra.req.destroy();
  expect(phoneUploadsInFlight(server.banshu.platform)).toBe(AT_ONCE);

  // A client that gives up frees its slot; the next upload is received in full.
  held[0]!.req.destroy();
  await vi.waitFor(() => expect(phoneUploadsInFlight(server.banshu.platform)).toBe(AT_ONCE - 1));
  const jpg = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(200, 7)]);
  const ok = await fetch(new URL(path, server.url), { method: 'POST', headers: { 'content-type': 'image/jpeg' }, body: jpg });
  expect(ok.status).toBe(200);
  expect(((await ok.json()) as { code: string }).code).toBe('0');
  for (const h of held.slice(1)) h.req.destroy();
  await vi.waitFor(() => expect(phoneUploadsInFlight(server.banshu.platform)).toBe(0));
});
