/**
 * Hostile input on every HTTP route that is not /api: `/log`, `/payments/notify/*`,
 * `/board-images*` and the disk store's signed object links (GET and PUT). Oversized or malformed
 * bodies, wrong content types and bad signatures get a 4xx with a readable answer, never a 500.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SANDBOX_SIGNATURE_HEADER } from '#core/platform/payments.ts';
import { call } from '#tests/support/api.ts';
import { boardRoom } from '#tests/support/board-client.ts';
import { TEST_GATEWAY_SECRET } from '#tests/support/payments.ts';
import { startTestServer, type TestServer } from '#tests/support/server.ts';

let server: TestServer;
let wbToken = '';
/** A signed PUT for a 1000-byte PDF, and a signed GET of an object that exists. */
let put: { url: string; contentType: string } = { url: '', contentType: '' };
let get = '';

beforeAll(async () => {
  server = await startTestServer({ env: { PAYMENT_GATEWAY_SECRET: TEST_GATEWAY_SECRET } });
  const { teacher } = await boardRoom(server, 2, 0);
  wbToken = teacher.wbToken;
  const signed = await call(
    server.url,
    'createUpyunSign',
    { fileName: 'a.pdf', fileSize: 1000, fileHash: 'd41d8cd98f00b204e9800998ecf8427e' },
    { token: teacher.token },
  );
  expect(signed.code).toBe('0');
  put = { url: new URL(signed.data.uploadUrl, server.url).href, contentType: String(signed.data.headers['Content-Type']) };
  const disk = server.banshu.platform.diskObjects!;
  await disk.put('probe/a.txt', Buffer.from('hello'), 'text/plain');
  get = new URL(await disk.signedGetUrl('probe/a.txt', 60), server.url).href;
});
afterAll(() => server.close());

interface Row {
  what: string;
  method: 'GET' | 'POST' | 'PUT';
  path: () => string;
  headers?: () => Record<string, string>;
  body?: string | Uint8Array<ArrayBuffer>;
  status: number;
  /** A word the answer must contain, so the client learns what was wrong. */
  says: RegExp;
}

const big = (n: number) => 'x'.repeat(n);
const bearer = () => ({ authorization: `Bearer ${wbToken}`, 'content-type': 'application/json' });
const tampered = (url: string, key: string, value: string) => {
  const u = new URL(url);
  u.searchParams.set(key, value);
  return u.href;
};

const rows: Row[] = [
  { what: '/log too large', method: 'POST', path: () => '/log', body: big(70_000), status: 413, says: /too large/i },
  { what: '/log malformed JSON', method: 'POST', path: () => '/log', body: '{"a":', status: 400, says: /bad body/ },
  {
    what: '/log unknown charset',
    method: 'POST',
    path: () => '/log',
    headers: () => ({ 'content-type': 'text/plain; charset=klingon' }),
    body: 'a=1',
    status: 415,
    says: /charset/,
  },
  { what: 'notify too large', method: 'POST', path: () => '/payments/notify/sandbox', body: big(9000), status: 413, says: /too large/i },
  { what: 'notify not JSON', method: 'POST', path: () => '/payments/notify/sandbox', body: '<xml/>', status: 400, says: /fail/ },
  {
    what: 'notify forged signature',
    method: 'POST',
    path: () => '/payments/notify/sandbox',
    headers: () => ({ 'content-type': 'application/json', [SANDBOX_SIGNATURE_HEADER]: 'f'.repeat(64) }),
    body: JSON.stringify({ orderId: 'BS20260101000000000001', amount: 100, txn: 'T1' }),
    status: 400,
    says: /fail/,
  },
  { what: 'notify unknown gateway', method: 'POST', path: () => '/payments/notify/nope', body: '{}', status: 400, says: /fail/ },
  { what: 'board image without token', method: 'POST', path: () => '/board-images', body: 'x', status: 401, says: /"code":"21001"/ },
  {
    what: 'board image forged token',
    method: 'POST',
    path: () => '/board-images',
    headers: () => ({ authorization: 'Bearer forged' }),
    body: 'x',
    status: 401,
    says: /"code":"21001"/,
  },
  { what: 'phone photo forged link', method: 'POST', path: () => '/board-images/phone?t=forged', body: 'x', status: 401, says: /21001/ },
  { what: 'image urls without token', method: 'POST', path: () => '/board-images/urls', body: '{}', status: 401, says: /21001/ },
  {
    what: 'image urls malformed JSON',
    method: 'POST',
    path: () => '/board-images/urls',
    headers: bearer,
    body: '{"keys":',
    status: 400,
    says: /"5"/,
  },
  {
    what: 'image urls too large',
    method: 'POST',
    path: () => '/board-images/urls',
    headers: bearer,
    body: JSON.stringify({ keys: [big(70_000)] }),
    status: 413,
    says: /"5"/,
  },
  { what: 'object GET unsigned', method: 'GET', path: () => '/objects/probe/a.txt', status: 403, says: /invalid/ },
  { what: 'object GET forged signature', method: 'GET', path: () => tampered(get, 'sig', 'AAAA'), status: 403, says: /invalid/ },
  { what: 'object GET other expiry', method: 'GET', path: () => tampered(get, 'exp', '1'), status: 403, says: /invalid/ },
  { what: 'object GET undecodable key', method: 'GET', path: () => '/objects/%E0%A4%A?exp=1&sig=x', status: 400, says: /bad key/i },
  { what: 'object PUT unsigned', method: 'PUT', path: () => '/objects/probe/b.pdf', body: 'x', status: 403, says: /invalid/ },
  {
    what: 'object PUT wrong content type',
    method: 'PUT',
    path: () => put.url,
    headers: () => ({ 'content-type': 'text/html' }),
    body: new Uint8Array(1000),
    status: 403,
    says: /invalid/,
  },
  {
    what: 'object PUT larger than signed',
    method: 'PUT',
    path: () => put.url,
    headers: () => ({ 'content-type': put.contentType }),
    body: new Uint8Array(2000),
    status: 413,
    says: /larger than signed/,
  },
  {
    what: 'object PUT smaller than signed',
    method: 'PUT',
    path: () => put.url,
    headers: () => ({ 'content-type': put.contentType }),
    body: new Uint8Array(10),
    status: 400,
    says: /signed size/,
  },
  {
    what: 'object PUT forged size',
    method: 'PUT',
    path: () => tampered(put.url, 'size', '10'),
    headers: () => ({ 'content-type': put.contentType }),
    body: new Uint8Array(10),
    status: 403,
    says: /invalid/,
  },
  {
    what: 'object PUT undecodable key',
    method: 'PUT',
    path: () => '/objects/%E0%A4%A?exp=1&size=1&sig=x',
    body: 'x',
    status: 400,
    says: /bad key/i,
  },
];

it.each(rows)('$what: $status with a readable answer, never 500', async (row) => {
  const res = await fetch(new URL(row.path(), server.url), {
    method: row.method,
    headers: row.headers?.() ?? (row.body === undefined ? {} : { 'content-type': 'text/plain' }),
    ...(row.body === undefined ? {} : { body: row.body }),
  });
  const text = await res.text();
  expect(res.status, text).toBe(row.status);
  expect(text).toMatch(row.says);
});

it('still serves what is well formed', async () => {
  expect((await fetch(new URL('/log', server.url), { method: 'POST', body: 'socketType=x&message=hi' })).status).toBe(204);
  const ok = await fetch(get);
  expect(ok.status).toBe(200);
  expect(await ok.text()).toBe('hello');
});
