/**
 * Bodies a page action cannot read (ADR 098), from the built pages (`npm run build`): every route
 * module with an action, at its document address and its data address (`.data`, what the client
 * router posts), gets each malformed body of the table; each answer is a 4xx with a sentence, never
 * a 500, and the tables those actions write to stay as they were. Well-formed forms still work.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signIn } from '#tests/support/api.ts';
import { startTestServer, type TestServer } from '#tests/support/server.ts';

const ADMIN = '13912340098';
let server: TestServer;
let adminToken = '';

beforeAll(async () => {
  server = await startTestServer({ pages: true, env: { ADMIN_MOBILES: ADMIN } });
  adminToken = (await signIn(server, ADMIN)).token;
}, 120_000);
afterAll(async () => {
  await server?.close();
});

/** The page actions, by route file, with the address that reaches each and what it writes. */
const ACTIONS: Record<string, { address: string; signedIn: boolean; good: Record<string, string> }> = {
  'home.tsx': { address: '/home', signedIn: false, good: { name: '张老师', mobile: '13800138000', organisation: '', message: 'hi' } },
  'admin.tsx': { address: '/admin', signedIn: true, good: { intent: 'publish', title: 'Notice', content: 'Class at nine' } },
};

it('knows every page action in app/routes', () => {
  const dir = path.resolve('app/routes');
  const withAction = readdirSync(dir).filter((f) => /export async function action\b/.test(readFileSync(path.join(dir, f), 'utf8')));
  expect(withAction.sort()).toEqual(Object.keys(ACTIONS).sort());
});

const BOUNDARY = '----banshu98';
const multipart = (fields: Record<string, string>) =>
  Object.entries(fields)
    .map(([k, v]) => `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`)
    .join('') + `--${BOUNDARY}--\r\n`;

interface Bad {
  what: string;
  contentType?: string;
  body: (good: Record<string, string>) => string | Uint8Array<ArrayBuffer>;
  status: number;
  says: RegExp;
}

const BAD: Bad[] = [
  {
    what: 'truncated multipart',
    contentType: `multipart/form-data; boundary=${BOUNDARY}`,
    body: (good) => multipart(good).slice(0, -30),
    status: 400,
    says: /multipart/,
  },
  {
    what: 'multipart without a boundary',
    contentType: 'multipart/form-data',
    body: (good) => multipart(good),
    status: 400,
    says: /boundary/,
  },
  { what: 'JSON', contentType: 'application/json', body: (good) => JSON.stringify(good), status: 415, says: /content type/ },
  { what: 'plain text', contentType: 'text/plain', body: () => 'name=a', status: 415, says: /content type/ },
  { what: 'no content type, empty', body: () => '', status: 415, says: /content type/ },
  {
    what: '5 MB form',
    contentType: 'application/x-www-form-urlencoded',
    body: (good) => new URLSearchParams({ ...good, message: 'x'.repeat(5 * 1024 * 1024) }).toString(),
    status: 413,
    says: /too large/,
  },
  {
    what: 'unknown charset',
    contentType: 'application/x-www-form-urlencoded; charset=klingon',
    body: (good) => new URLSearchParams(good).toString(),
    status: 415,
    says: /charset/,
  },
  {
    what: 'Latin-1 declared',
    contentType: 'application/x-www-form-urlencoded; charset=ISO-8859-1',
    body: (good) => new URLSearchParams(good).toString(),
    status: 415,
    says: /charset/,
  },
  {
    what: 'escapes that are not UTF-8',
    contentType: 'application/x-www-form-urlencoded',
    body: (good) => `${new URLSearchParams(good).toString()}&name=%C0%AF%FF`,
    status: 400,
    says: /UTF-8/,
  },
  {
    what: 'raw bytes that are not UTF-8',
    contentType: 'application/x-www-form-urlencoded',
    body: () => new Uint8Array([0x6e, 0x61, 0x6d, 0x65, 0x3d, 0xd5, 0xc5, 0xff]),
    status: 400,
    says: /UTF-8/,
  },
];

async function rows(): Promise<{ trials: number; announcements: number }> {
  const db = server.banshu.platform.database.db;
  const trials = await db
    .selectFrom('trial_applications')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .executeTakeFirstOrThrow();
  const notes = await db
    .selectFrom('announcements')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .executeTakeFirstOrThrow();
  return { trials: Number(trials.n), announcements: Number(notes.n) };
}

const post = (address: string, signedIn: boolean, contentType: string | undefined, body: string | Uint8Array<ArrayBuffer>) =>
  fetch(new URL(address, server.url), {
    method: 'POST',
    headers: { ...(contentType ? { 'content-type': contentType } : {}), ...(signedIn ? { token: adminToken } : {}) },
    body,
    redirect: 'manual',
  });

describe.each(Object.entries(ACTIONS))('%s', (_file, action) => {
  const cases = BAD.flatMap((bad) => [action.address, `${action.address}.data`].map((address) => ({ ...bad, address })));
  it.each(cases)('$what to $address: $status, nothing written', async (bad) => {
    const before = await rows();
    const res = await post(bad.address, action.signedIn, bad.contentType, bad.body(action.good));
    const text = await res.text();
    expect(res.status, text).toBe(bad.status);
    expect(text).toMatch(bad.says);
    expect(await rows()).toEqual(before);
  });

  it('still takes a well-formed form, form-encoded and multipart, and writes it', async () => {
    const before = await rows();
    const encoded = await post(
      action.address,
      action.signedIn,
      'application/x-www-form-urlencoded',
      new URLSearchParams(action.good).toString(),
    );
    expect(encoded.status, await encoded.text()).toBe(200);
    const parts = await post(
      `${action.address}.data`,
      action.signedIn,
      `multipart/form-data; boundary=${BOUNDARY}`,
      multipart(action.good),
    );
    expect(parts.status, await parts.text()).toBe(200);
    const after = await rows();
    const key = action.address === '/home' ? 'trials' : 'announcements';
    expect(after[key]).toBe(before[key] + 2);
  });
});
