import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { call, nextMobile, signIn } from '#tests/support/api.ts';
import { eachEngine } from '#tests/support/engines-matrix.ts';
import { postgresAdminUrl } from '#tests/support/database.ts';
import { startTestServer } from '#tests/support/server.ts';

const MIN = 60_000;

eachEngine('sendPhoneCode', (server) => {
  it('sends a 6-digit code to a valid mainland number', async () => {
    const mobile = nextMobile();
    const r = await call(server().url, 'sendPhoneCode', { mobile, area: '86' });
    expect(r).toMatchObject({ code: '0', status: 200 });
    const sent = (await server().outbox()).filter((m) => m.mobile === mobile);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.code).toMatch(/^\d{6}$/);
  });

  it('accepts the spec form encoding', async () => {
    const r = await call(server().url, 'sendPhoneCode', { mobile: nextMobile(), area: '86' }, { form: true });
    expect(r.code).toBe('0');
  });

  it('refuses other areas with 42014 and bad numbers with 5', async () => {
    expect((await call(server().url, 'sendPhoneCode', { mobile: nextMobile(), area: '1' })).code).toBe('42014');
    for (const mobile of ['12345678901', '1381234567', '138123456789', '23812345678', '1381234567a', '']) {
      expect((await call(server().url, 'sendPhoneCode', { mobile, area: '86' })).code, mobile).toBe('5');
    }
    expect(await server().outbox()).toHaveLength(0);
  });

  it('waits 60 s between sends to one number', async () => {
    const mobile = nextMobile();
    expect((await call(server().url, 'sendPhoneCode', { mobile })).code).toBe('0');
    expect((await call(server().url, 'sendPhoneCode', { mobile })).code).toBe('42001');
    server().clock.advance(61_000);
    expect((await call(server().url, 'sendPhoneCode', { mobile })).code).toBe('0');
  });

  it('limits a number per hour (42009) and per day (42010)', async () => {
    const mobile = nextMobile();
    const send = () => call(server().url, 'sendPhoneCode', { mobile }).then((r) => r.code);
    for (let i = 0; i < 5; i++) {
      expect(await send()).toBe('0');
      server().clock.advance(61_000);
    }
    expect(await send()).toBe('42009');
    server().clock.advance(60 * MIN);
    for (let i = 0; i < 5; i++) {
      expect(await send()).toBe('0');
      server().clock.advance(61_000);
    }
    server().clock.advance(60 * MIN);
    expect(await send()).toBe('42010');
    server().clock.advance(24 * 60 * MIN);
    expect(await send()).toBe('0');
  });

  it('answers in the request language', async () => {
    const en = await call(server().url, 'sendPhoneCode', { mobile: nextMobile(), area: '44' }, { lang: 'en' });
    expect(en.msg).toBe('SMS is not supported for this region');
    const zh = await call(server().url, 'sendPhoneCode', { mobile: nextMobile(), area: '44' });
    expect(zh.msg).toBe('该地区暂不支持短信');
    const accept = await call(server().url, 'sendPhoneCode', { mobile: 'x' }, { headers: { 'accept-language': 'en-GB,en;q=0.9' } });
    expect(accept.msg).toBe('Illegal parameters');
  });
});

eachEngine(
  'sendPhoneCode per address',
  (server) => {
    it('stops one address sending to many numbers (42003)', async () => {
      for (let i = 0; i < 3; i++) expect((await call(server().url, 'sendPhoneCode', { mobile: nextMobile() })).code).toBe('0');
      expect((await call(server().url, 'sendPhoneCode', { mobile: nextMobile() })).code).toBe('42003');
    });
  },
  { env: { SMS_HOURLY_PER_ADDRESS: '3' } },
);

eachEngine('loginUser and sessions', (server) => {
  const codeFor = async (mobile: string) => {
    expect((await call(server().url, 'sendPhoneCode', { mobile })).code).toBe('0');
    return (await server().outbox()).find((m) => m.mobile === mobile)!.code;
  };

  it('creates the teacher on first sign-in and sets an httpOnly session cookie', async () => {
    const mobile = nextMobile();
    const code = await codeFor(mobile);
    const r = await call(server().url, 'loginUser', { mobile, code, userType: '1' });
    expect(r.code).toBe('0');
    expect(r.data.userInfo).toMatchObject({ mobile, type: '1', name: `老师${mobile.slice(-4)}` });
    expect(r.data.userInfo.userToken).toMatch(/^[0-9a-f]{64}$/);
    expect(r.data.userInfo.promoCode).toMatch(/^[A-Z2-9]{6}$/);
    expect(r.setCookie).toMatch(/banshu_session=[0-9a-f]{64}; Path=\/; HttpOnly; SameSite=Lax/);
    // The same person signing in again is the same user.
    server().clock.advance(61_000);
    const again = await call(server().url, 'loginUser', { mobile, code: await codeFor(mobile) });
    expect(again.data.userInfo.userId).toBe(r.data.userInfo.userId);
    expect(again.data.userInfo.userToken).not.toBe(r.data.userInfo.userToken);
  });

  it('uses a code once', async () => {
    const mobile = nextMobile();
    const code = await codeFor(mobile);
    expect((await call(server().url, 'loginUser', { mobile, code })).code).toBe('0');
    const second = await call(server().url, 'loginUser', { mobile, code }, { lang: 'en' });
    expect(second).toMatchObject({ code: '42004', msg: 'Phone number or code incorrect', data: null });
  });

  it('lets a code expire after 5 minutes', async () => {
    const mobile = nextMobile();
    const code = await codeFor(mobile);
    server().clock.advance(5 * MIN + 1000);
    expect((await call(server().url, 'loginUser', { mobile, code })).code).toBe('42004');
  });

  it('kills a code after 5 wrong tries', async () => {
    const mobile = nextMobile();
    const code = await codeFor(mobile);
    const wrong = code === '000000' ? '111111' : '000000';
    for (let i = 0; i < 5; i++) expect((await call(server().url, 'loginUser', { mobile, code: wrong })).code).toBe('42004');
    expect((await call(server().url, 'loginUser', { mobile, code })).code).toBe('42004');
  });

  it('accepts 4 wrong tries before the right one', async () => {
    const mobile = nextMobile();
    const code = await codeFor(mobile);
    const wrong = code === '000000' ? '111111' : '000000';
    for (let i = 0; i < 4; i++) expect((await call(server().url, 'loginUser', { mobile, code: wrong })).code).toBe('42004');
    expect((await call(server().url, 'loginUser', { mobile, code })).code).toBe('0');
  });

  it('refuses a code sent to another number', async () => {
    const a = nextMobile();
    const b = nextMobile();
    const code = await codeFor(a);
    await codeFor(b);
    const codeB = (await server().outbox()).find((m) => m.mobile === b)!.code;
    if (codeB !== code) expect((await call(server().url, 'loginUser', { mobile: b, code })).code).toBe('42004');
    expect((await call(server().url, 'loginUser', { mobile: a, code })).code).toBe('0');
  });

  it('queryUserInfoByToken: header, body and cookie tokens; 7, 6 and 21001 otherwise', async () => {
    const { token, userId, mobile } = await signIn(server());
    const viaHeader = await call(server().url, 'queryUserInfoByToken', {}, { token });
    expect(viaHeader.data.userInfo).toMatchObject({ userId, mobile, promoPoints: 0 });
    expect(viaHeader.data.userInfo.userToken).toBe('');
    expect((await call(server().url, 'queryUserInfoByToken', { token })).code).toBe('0');
    expect((await call(server().url, 'queryUserInfoByToken', {}, { cookie: `banshu_session=${token}` })).code).toBe('0');
    expect((await call(server().url, 'queryUserInfoByToken', {})).code).toBe('7');
    expect((await call(server().url, 'queryUserInfoByToken', {}, { token: 'abc' })).code).toBe('6');
    expect((await call(server().url, 'queryUserInfoByToken', {}, { token: 'f'.repeat(64) })).code).toBe('21001');
  });

  it('logout ends the session on the server', async () => {
    const { token } = await signIn(server());
    const out = await call(server().url, 'logout', {}, { token });
    expect(out.code).toBe('0');
    expect(out.setCookie).toMatch(/banshu_session=; .*Max-Age=0/);
    expect((await call(server().url, 'queryUserInfoByToken', {}, { token })).code).toBe('21001');
  });

  it('sessions expire', async () => {
    const { token } = await signIn(server());
    server().clock.advance(31 * 24 * 60 * MIN);
    expect((await call(server().url, 'queryUserInfoByToken', {}, { token })).code).toBe('21001');
  });
});

eachEngine('user info and names', (server) => {
  it('getUserInfoById gives name and id only, to signed-in users', async () => {
    const a = await signIn(server());
    const b = await signIn(server());
    const r = await call(server().url, 'getUserInfoById', { id: a.userId }, { token: b.token });
    expect(r.data).toEqual({ userInfo: { userId: a.userId, name: `老师${a.mobile.slice(-4)}` } });
    expect((await call(server().url, 'getUserInfoById', { id: a.userId })).code).toBe('7');
    expect((await call(server().url, 'getUserInfoById', { id: '999999' }, { token: b.token })).code).toBe('5');
  });

  it('getUserInfo shows your own account in full and others by name only', async () => {
    const a = await signIn(server());
    const b = await signIn(server());
    const own = await call(server().url, 'getUserInfo', { userId: a.userId }, { token: a.token });
    expect(own.data.userInfo).toMatchObject({ mobile: a.mobile });
    const other = await call(server().url, 'getUserInfo', { userId: a.userId }, { token: b.token });
    expect(other.data.userInfo).toEqual({ userId: a.userId, name: `老师${a.mobile.slice(-4)}` });
    expect(JSON.stringify(other)).not.toContain(a.mobile);
  });

  it('updateUserName applies the one name rule', async () => {
    const a = await signIn(server());
    for (const good of ['王老师', 'Ms Li', '  Tom 2  ', '李A 3']) {
      const r = await call(server().url, 'updateUserName', { userName: good }, { token: a.token });
      expect(r.code, good).toBe('0');
      expect(r.data.userInfo.name).toBe(good.trim());
    }
    for (const bad of ['', '   ', 'Abcdefghijk', 'a  b', 'tom😀', '<b>x</b>', "x' or 1=1", 'a\nb', 'ｘ\u200b']) {
      expect((await call(server().url, 'updateUserName', { userName: bad }, { token: a.token })).code, JSON.stringify(bad)).toBe('5');
    }
    const info = await call(server().url, 'queryUserInfoByToken', {}, { token: a.token });
    expect(info.data.userInfo.name).toBe('李A 3');
    expect((await call(server().url, 'updateUserName', { userName: 'Bob' })).code).toBe('7');
  });
});

describe('SMS over the http sender', () => {
  it('POSTs {mobile, code, purpose} as JSON to the webhook, and a failed delivery leaves no usable code', async () => {
    const received: Array<{ body: unknown; auth: string | undefined }> = [];
    let fail = false;
    const hook = createServer((req: IncomingMessage, res) => {
      let raw = '';
      req.on('data', (c: Buffer) => (raw += c.toString()));
      req.on('end', () => {
        received.push({ body: JSON.parse(raw) as unknown, auth: req.headers.authorization });
        res.statusCode = fail ? 500 : 200;
        res.end('{}');
      });
    });
    await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
    const port = (hook.address() as AddressInfo).port;
    const server = await startTestServer({
      engine: 'postgres',
      postgresAdminUrl: postgresAdminUrl(),
      env: { SMS_SENDER: 'http', SMS_WEBHOOK_URL: `http://127.0.0.1:${port}/sms`, SMS_WEBHOOK_TOKEN: 'hook-secret' },
    });
    try {
      const mobile = nextMobile();
      expect((await call(server.url, 'sendPhoneCode', { mobile })).code).toBe('0');
      expect(received).toHaveLength(1);
      const body = received[0]!.body as { mobile: string; code: string; purpose: string };
      expect(body).toMatchObject({ mobile, purpose: 'login' });
      expect(body.code).toMatch(/^\d{6}$/);
      expect(received[0]!.auth).toBe('Bearer hook-secret');
      expect(server.banshu.platform.services.devOutbox).toBeNull();
      expect((await call(server.url, 'loginUser', { mobile, code: body.code })).code).toBe('0');

      fail = true;
      const other = nextMobile();
      const failed = await call(server.url, 'sendPhoneCode', { mobile: other });
      expect(failed.code).toBe('42015');
      fail = false;
      // Not delivered, so not counted: the user may ask again at once.
      expect((await call(server.url, 'sendPhoneCode', { mobile: other })).code).toBe('0');
      const failedCode = (received[1]!.body as { code: string }).code;
      const goodCode = (received[2]!.body as { code: string }).code;
      if (failedCode !== goodCode) expect((await call(server.url, 'loginUser', { mobile: other, code: failedCode })).code).toBe('42004');
    } finally {
      await server.close();
      hook.close();
    }
  });
});
