/**
 * Cross-site requests from the same site (ADR 060): every port of 127.0.0.1 is the same site, so
 * the SameSite=Lax session cookie rides along with a form another port's page submits. Such a page
 * auto-submits forms to the API and to a page action and opens the user's `/user` socket with the
 * cookie: nothing may change on the server and the socket must receive nothing. The product's own
 * pages keep working with the same cookie.
 */
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SESSION_COOKIE } from '#core/contracts/api.ts';
import { call, signIn } from '#tests/support/api.ts';
import { startWorld, type World } from './helpers.ts';

let world: World;
let attacker: Server;
let attackerUrl = '';

/** The attacker's page: one hidden form per write, each into its own frame, and a raw socket.io handshake. */
function attackPage(target: string, goodsId: string): string {
  const ws = target.replace(/^http/, 'ws');
  const form = (i: number, action: string, fields: Record<string, string>) =>
    `<iframe name="f${i}"></iframe><form id="form${i}" target="f${i}" method="post" action="${target}${action}">` +
    Object.entries(fields)
      .map(([k, v]) => `<input name="${k}" value="${v}">`)
      .join('') +
    '</form>';
  const forms = [
    form(0, '/api/updateUserName', { userName: 'Pwned' }),
    form(1, '/api/createOrder', { goodsId }),
    form(2, '/api/createAgoraRoom', { roomType: '1', consumption: 'off' }),
    form(3, '/api/createRoom', { roomType: '2' }),
    form(4, '/?index', { name: 'Mallory', mobile: '13900000999', organisation: 'X', message: 'cross-site' }),
  ];
  return `<!doctype html><html><body>${forms.join('')}
<script>
window.loaded = 0;
window.received = [];
window.socketDone = false;
for (let i = 0; i < ${forms.length}; i++) {
  document.querySelector('iframe[name=f' + i + ']').addEventListener('load', () => { window.loaded += 1; });
  document.getElementById('form' + i).submit();
}
const socket = new WebSocket('${ws}/socket.io/?EIO=4&transport=websocket');
socket.onmessage = (e) => {
  window.received.push(String(e.data));
  if (String(e.data).startsWith('0')) socket.send('40/user,');
  if (String(e.data).startsWith('40/user') || String(e.data).startsWith('44/user')) window.socketDone = true;
};
socket.onclose = () => { window.socketDone = true; };
</script></body></html>`;
}

beforeAll(async () => {
  world = await startWorld();
  attacker = createServer();
  await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
  const address = attacker.address();
  attackerUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => attacker.close(() => resolve()));
  await world.close();
});

async function counts(): Promise<Record<string, number>> {
  const db = world.server.banshu.platform.database.db;
  const out: Record<string, number> = {};
  for (const t of ['rooms', 'orders', 'trial_applications', 'sessions'] as const) {
    const r = await db
      .selectFrom(t)
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow();
    out[t] = Number(r.n);
  }
  return out;
}

it('a page of another port of the same host can neither write with the cookie nor open the user socket', async () => {
  const server = world.server;
  const { token } = await signIn(server);
  const goods = await call(server.url, 'getGoodsList', {}, { token });
  const goodsId = goods.data.goodsList[0]!.goodsId;
  const nameBefore = (await call(server.url, 'queryUserInfoByToken', {}, { token })).data.userInfo.name;
  const before = await counts();

  attacker.removeAllListeners('request');
  attacker.on('request', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(attackPage(server.url, goodsId));
  });
  const { context, page } = await world.person();
  await context.addCookies([{ name: SESSION_COOKIE, value: token, domain: '127.0.0.1', path: '/', httpOnly: true, sameSite: 'Lax' }]);

  await page.goto(attackerUrl);
  // Every form got its answer and the socket either connected or was closed.
  await page.waitForFunction(() => (window as unknown as { loaded: number }).loaded === 5);
  await page.waitForFunction(() => (window as unknown as { socketDone: boolean }).socketDone);

  expect(await page.evaluate(() => (window as unknown as { received: string[] }).received)).toEqual([]);
  expect(await counts()).toEqual(before);
  const after = await call(server.url, 'queryUserInfoByToken', {}, { token });
  expect(after.code).toBe('0');
  expect(after.data.userInfo.name).toBe(nameBefore);

  // The product's own pages, with the same cookie, still write and open the socket.
  await page.goto(`${server.url}/login`);
  const own = await page.evaluate(async () => {
    const res = await fetch('/api/updateUserName', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ userName: 'Mine' }),
    });
    return ((await res.json()) as { code: string }).code;
  });
  expect(own).toBe('0');
  const connected = await page.evaluate(
    () =>
      new Promise<string>((resolve) => {
        const socket = new WebSocket(`${location.origin.replace(/^http/, 'ws')}/socket.io/?EIO=4&transport=websocket`);
        socket.onmessage = (e) => {
          if (String(e.data).startsWith('0')) socket.send('40/user,');
          if (String(e.data).startsWith('40/user')) {
            resolve(String(e.data).slice(0, 8));
            socket.close();
          }
        };
        socket.onclose = () => resolve('closed');
      }),
  );
  expect(connected).toBe('40/user,');
  expect((await call(server.url, 'queryUserInfoByToken', {}, { token })).data.userInfo.name).toBe('Mine');
});

it('the API still serves clients that send the token header, and refuses a foreign Origin with the cookie', async () => {
  const server = world.server;
  const { token } = await signIn(server);
  const byHeader = await call(server.url, 'getConsumptionStatus', {}, { token, headers: { origin: attackerUrl } });
  expect(byHeader.code).toBe('0');
  const byCookie = await call(
    server.url,
    'getConsumptionStatus',
    {},
    { cookie: `${SESSION_COOKIE}=${token}`, headers: { origin: attackerUrl } },
  );
  expect(byCookie.status).toBe(403);
  expect(byCookie.code).toBe('8');
  const sameSite = await call(
    server.url,
    'getConsumptionStatus',
    {},
    { cookie: `${SESSION_COOKIE}=${token}`, headers: { 'sec-fetch-site': 'same-site' } },
  );
  expect(sameSite.status).toBe(403);
  const ours = await call(
    server.url,
    'getConsumptionStatus',
    {},
    { cookie: `${SESSION_COOKIE}=${token}`, headers: { origin: server.url } },
  );
  expect(ours.code).toBe('0');
});
