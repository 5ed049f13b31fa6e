/**
 * Announcements (publish, pageTime paging), feedback with its drawn captcha (35001, 35002, the
 * hourly limit 35003), client logs from /api/addLog and /log, the trial form's storage, and the
 * admin page that refuses everyone outside ADMIN_MOBILES.
 */
import { expect, it } from 'vitest';
import { call, nextMobile, signIn } from '#tests/support/api.ts';
import { eachEngine } from '#tests/support/engines-matrix.ts';
import type { TestServer } from '#tests/support/server.ts';

const ADMIN = '13312345678';

async function captcha(server: TestServer, token: string): Promise<{ status: number; type: string; code: string }> {
  const res = await fetch(`${server.url}/feedback/captcha?t=${Date.now()}`, { headers: { cookie: `banshu_session=${token}` } });
  const svg = await res.text();
  // The digits are drawn as glyphs in order; a test may read them where a person would look.
  const code = [...svg.matchAll(/>(\d)<\/text>/g)].map((m) => m[1]).join('');
  return { status: res.status, type: res.headers.get('content-type') ?? '', code };
}

async function count(server: TestServer, table: 'feedback' | 'client_logs' | 'announcements' | 'trial_applications'): Promise<number> {
  const r = await server.banshu.platform.database.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

eachEngine(
  'announcements, feedback and logs',
  (server) => {
    it('lists published announcements newest first, 10 a page with pageTime, to signed-in users', async () => {
      const t = await signIn(server());
      const empty = await call(server().url, 'getAdminMessageList', { pageSize: 10 }, { token: t.token });
      expect(empty.data).toMatchObject({ messageList: [], messageTotal: 0, hasMore: false });
      const messaging = server().banshu.platform.services.messaging;
      for (let i = 1; i <= 12; i++) {
        server().clock.advance(1000);
        await messaging.publish({ title: `Notice ${i}`, content: `Body ${i}\nline two`, author: 'test' });
      }
      const p1 = await call(server().url, 'getAdminMessageList', { pageSize: 10, pageTime: 0 }, { token: t.token });
      expect(p1.data.messageTotal).toBe(12);
      expect(p1.data.messageList.map((m: { title: string }) => m.title)).toEqual(Array.from({ length: 10 }, (_, i) => `Notice ${12 - i}`));
      expect(p1.data.messageList[0]).toMatchObject({ content: 'Body 12\nline two' });
      const p2 = await call(server().url, 'getAdminMessageList', { pageSize: 10, pageTime: p1.data.nextPageTime }, { token: t.token });
      expect(p2.data.messageList.map((m: { title: string }) => m.title)).toEqual(['Notice 2', 'Notice 1']);
      expect(p2.data.hasMore).toBe(false);
      expect((await call(server().url, 'getAdminMessageList', {})).code).toBe('7');
      await expect(messaging.publish({ title: '  ', content: 'x', author: 'test' })).rejects.toMatchObject({ code: '5' });
      await expect(messaging.publish({ title: 'x'.repeat(61), content: 'x', author: 'test' })).rejects.toMatchObject({ code: '5' });
    });

    it('feedback needs the drawn captcha: 35002 without one, 35001 when wrong, one use each, at most 50 characters', async () => {
      const t = await signIn(server());
      const submit = (content: string, code: string) => call(server().url, 'createFeedbackCaptcha', { content, code }, { token: t.token });
      expect((await submit('Nice product', '1234')).code).toBe('35002');
      const c = await captcha(server(), t.token);
      expect(c.status).toBe(200);
      expect(c.type).toContain('image/svg+xml');
      expect(c.code).toMatch(/^\d{4}$/);
      const wrong = String((Number(c.code) + 1) % 10000).padStart(4, '0');
      expect((await submit('Nice product', wrong)).code).toBe('35001');
      expect((await submit('x'.repeat(51), c.code)).code).toBe('5');
      expect((await submit('  \n ', c.code)).code).toBe('5');
      expect((await submit('Nice   product\r\n\r\nthanks', `${c.code[0]}-${c.code.slice(1)}`)).code).toBe('0');
      expect((await submit('Again', c.code)).code).toBe('35002');
      const rows = await server().banshu.platform.database.db.selectFrom('feedback').select(['content', 'user_id']).execute();
      expect(rows).toEqual([{ content: 'Nice product\nthanks', user_id: t.userId }]);
      // A refreshed image replaces the code; five wrong tries kill it.
      const old = await captcha(server(), t.token);
      const fresh = await captcha(server(), t.token);
      if (old.code !== fresh.code) expect((await submit('Old code', old.code)).code).toBe('35001');
      const bad = String((Number(fresh.code) + 5) % 10000).padStart(4, '0');
      for (let i = 0; i < 5; i++) await submit('Guess', bad);
      expect((await submit('Right too late', fresh.code)).code).toBe('35002');
      // Expired captcha.
      const late = await captcha(server(), t.token);
      server().clock.advance(301_000);
      expect((await submit('Too late', late.code)).code).toBe('35002');
      // The image needs a session.
      expect((await fetch(`${server().url}/feedback/captcha`)).status).toBe(401);
    });

    it('feedback is rate limited per person (35003)', async () => {
      const t = await signIn(server());
      for (let i = 0; i < 2; i++) {
        const c = await captcha(server(), t.token);
        expect((await call(server().url, 'createFeedbackCaptcha', { content: `Idea ${i}`, code: c.code }, { token: t.token })).code).toBe(
          '0',
        );
      }
      const c = await captcha(server(), t.token);
      expect((await call(server().url, 'createFeedbackCaptcha', { content: 'One more', code: c.code }, { token: t.token })).code).toBe(
        '35003',
      );
      expect(await count(server(), 'feedback')).toBe(2);
      server().clock.advance(3_601_000);
      const next = await captcha(server(), t.token);
      expect((await call(server().url, 'createFeedbackCaptcha', { content: 'Later', code: next.code }, { token: t.token })).code).toBe('0');
    });

    it('stores client events from /api/addLog and /log, with or without a session, and drops floods', async () => {
      const t = await signIn(server());
      const r = await call(
        server().url,
        'addLog',
        { socketType: 'connect', roomNumber: '123456', message: JSON.stringify({ a: 1 }) },
        { token: t.token },
      );
      expect(r.code).toBe('0');
      const form = await call(server().url, 'addLog', { socketType: 'disconnect', roomNumber: '123456', message: 'x' }, { form: true });
      expect(form.code).toBe('0');
      const beacon = await fetch(`${server().url}/log`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain' },
        body: JSON.stringify({ socketType: 'system_info', message: { os: 'Linux' } }),
      });
      expect(beacon.status).toBe(204);
      expect((await fetch(`${server().url}/log`, { method: 'POST', body: '{broken' })).status).toBe(400);
      const rows = await server()
        .banshu.platform.database.db.selectFrom('client_logs')
        .select(['user_id', 'socket_type', 'room_number', 'message'])
        .orderBy('id')
        .execute();
      expect(rows).toEqual([
        { user_id: t.userId, socket_type: 'connect', room_number: '123456', message: '{"a":1}' },
        { user_id: null, socket_type: 'disconnect', room_number: '123456', message: 'x' },
        { user_id: null, socket_type: 'system_info', room_number: '', message: '{"os":"Linux"}' },
      ]);
      for (let i = 0; i < 10; i++) await call(server().url, 'addLog', { socketType: 'flood', message: String(i) });
      expect(await count(server(), 'client_logs')).toBe(5);
    });

    it('keeps trial applications for operators, rate limited per address (36001)', async () => {
      const site = server().banshu.platform.services.site;
      await site.applyTrial({
        name: 'Li Lei',
        mobile: '13800001111',
        organisation: 'No. 1 School',
        message: 'Ten teachers',
        ip: '10.0.0.1',
      });
      await expect(
        site.applyTrial({ name: '', mobile: '13800001111', organisation: '', message: '', ip: '10.0.0.1' }),
      ).rejects.toMatchObject({ code: '5' });
      await expect(site.applyTrial({ name: 'Han', mobile: '123', organisation: '', message: '', ip: '10.0.0.1' })).rejects.toMatchObject({
        code: '5',
      });
      await site.applyTrial({ name: 'Han Meimei', mobile: '13800002222', organisation: '', message: '', ip: '10.0.0.1' });
      await expect(
        site.applyTrial({ name: 'Third', mobile: '13800003333', organisation: '', message: '', ip: '10.0.0.1' }),
      ).rejects.toMatchObject({ code: '36001' });
      await site.applyTrial({ name: 'Other place', mobile: '13800003333', organisation: '', message: '', ip: '10.0.0.2' });
      expect((await site.latestTrials()).map((r) => r.name).sort()).toEqual(['Han Meimei', 'Li Lei', 'Other place']);
    });
  },
  { env: { FEEDBACK_PER_HOUR: '2', CLIENT_LOGS_PER_MINUTE: '5', TRIAL_APPLICATIONS_PER_HOUR: '2', ADMIN_MOBILES: ADMIN } },
);

eachEngine(
  'operators',
  (server) => {
    it('only ADMIN_MOBILES are admins', async () => {
      const site = server().banshu.platform.services.site;
      expect(site.isAdmin({ userId: '1', name: 'a', mobile: ADMIN, type: '1' })).toBe(true);
      expect(site.isAdmin({ userId: '2', name: 'b', mobile: nextMobile(), type: '1' })).toBe(false);
      expect(site.isAdmin({ userId: '3', name: 'c', mobile: ADMIN, type: '4' })).toBe(false);
      expect(site.isAdmin(null)).toBe(false);
    });
  },
  { env: { ADMIN_MOBILES: `${ADMIN},13300000000` } },
);
