/**
 * The Content-Security-Policy on real responses (ADR 067), from the built pages (`npm run build`):
 * a page carries a policy with a nonce of its own, and every script the page writes carries that
 * nonce (so the browser runs them and nothing else inline); API answers carry the allow-nothing one.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '#tests/support/server.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ pages: true, env: { MEDIA_PUBLIC_URL: 'https://media.example.edu:8443' } });
  // Loading the built pages takes a while on a busy machine.
}, 120_000);
afterAll(async () => {
  await server?.close();
});

it('gives every page its own nonce, and every script of the page carries it', async () => {
  const nonces = new Set<string>();
  for (const path of ['/', '/login', '/help', '/userName/123456', '/no-such-page']) {
    const res = await fetch(new URL(path, server.url), { redirect: 'manual' });
    const policy = res.headers.get('content-security-policy') ?? '';
    const nonce = /'nonce-([A-Za-z0-9+/=]+)'/.exec(policy)?.[1];
    expect(nonce, path).toBeTruthy();
    nonces.add(nonce!);
    expect(policy).toContain(`script-src 'self' 'nonce-${nonce!}'`);
    expect(policy).toContain("frame-ancestors 'none'");
    expect(policy).toContain('wss://media.example.edu:8443');
    const html = await res.text();
    if (res.status >= 300 && res.status < 400) continue;
    const scripts = [...html.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
    expect(scripts.length, path).toBeGreaterThan(0);
    for (const tag of scripts) expect(tag, path).toContain(`nonce="${nonce!}"`);
  }
  expect(nonces.size).toBe(5);
});

it('answers the API with a policy that allows nothing', async () => {
  const res = await fetch(new URL('/api/getRoomInfoByRoomNumber', server.url), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"roomNumber":"123456"}',
  });
  expect(res.headers.get('content-security-policy')).toBe(
    "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  );
  await res.body?.cancel();
});
