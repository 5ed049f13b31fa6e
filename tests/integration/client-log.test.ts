/**
 * The client event log's server side (issue 27, ADR 102): batches at /api/addLog and POST /log,
 * every event parsed by its name's schema, bounded per address and per person in events a minute
 * (a batch that does not fit is dropped whole, and the answer says so), malformed or oversized
 * bodies refused with nothing written, and the operators' read (room, person, newest first, pages).
 */
import { expect, it } from 'vitest';
import { addLogInput, LOG_BATCH_MAX_EVENTS } from '#core/messaging/messaging.schema.ts';
import { LOG_PAGE_SIZE } from '#core/site/site.service.ts';
import { call, signIn } from '#tests/support/api.ts';
import { eachEngine } from '#tests/support/engines-matrix.ts';
import type { TestServer } from '#tests/support/server.ts';

const systemInfo = {
  browser: 'Chrome 140.0',
  os: 'Linux',
  screen: '1280x720@1',
  language: 'zh-CN',
  iMei: '3b1f7c1e-0000-4000-8000-000000000001',
  phone: false,
};
const checkDevices = { source: 'prejoin', camera: 'ok', microphone: 'denied' };

async function rows(server: TestServer) {
  return server.banshu.platform.database.db
    .selectFrom('client_logs')
    .select(['user_id', 'socket_type', 'room_number', 'message'])
    .orderBy('id')
    .execute();
}

async function beacon(server: TestServer, body: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${server.url}/log`, { method: 'POST', headers: { 'content-type': 'text/plain', ...headers }, body });
  return { status: res.status, text: await res.text() };
}

eachEngine(
  'client event log',
  (server) => {
    it('stores a batch from /api/addLog (JSON and form) and /log, each event with room, person, event and its parsed details', async () => {
      const t = await signIn(server());
      const r = await call(
        server().url,
        'addLog',
        {
          roomNumber: '123456',
          events: [
            { event: 'system_info', at: 1_700_000_000_000, details: systemInfo },
            { event: 'check_devices', details: checkDevices },
            { event: 'socket_disconnect', details: { reason: 'transport close' } },
            { event: 'socket_reconnect', details: { offlineMs: 3200, attempts: 1 } },
          ],
        },
        { token: t.token },
      );
      expect(r).toMatchObject({ code: '0', data: { stored: 4, dropped: 0 } });
      const form = await call(
        server().url,
        'addLog',
        { roomNumber: '654321', events: JSON.stringify([{ event: 'media_minutes', details: { audioMinutes: 1.5, videoMinutes: 0 } }]) },
        { form: true },
      );
      expect(form).toMatchObject({ code: '0', data: { stored: 1, dropped: 0 } });
      const b = await beacon(
        server(),
        JSON.stringify({
          roomNumber: '123456',
          events: [{ event: 'video_play_error', details: { name: 'NotAllowedError', userId: '7' } }],
        }),
        { cookie: `banshu_session=${t.token}` },
      );
      expect(b.status).toBe(204);
      expect(await rows(server())).toEqual([
        {
          user_id: t.userId,
          socket_type: 'system_info',
          room_number: '123456',
          message: JSON.stringify({ ...systemInfo, clientAt: 1_700_000_000_000 }),
        },
        { user_id: t.userId, socket_type: 'check_devices', room_number: '123456', message: JSON.stringify(checkDevices) },
        { user_id: t.userId, socket_type: 'socket_disconnect', room_number: '123456', message: '{"reason":"transport close"}' },
        { user_id: t.userId, socket_type: 'socket_reconnect', room_number: '123456', message: '{"offlineMs":3200,"attempts":1}' },
        { user_id: null, socket_type: 'media_minutes', room_number: '654321', message: '{"audioMinutes":1.5,"videoMinutes":0}' },
        { user_id: t.userId, socket_type: 'video_play_error', room_number: '123456', message: '{"name":"NotAllowedError","userId":"7"}' },
      ]);
    });

    it('refuses a batch with any malformed event, too many events or oversized details, writing nothing (code 5 / HTTP 4xx)', async () => {
      const ok = { event: 'socket_disconnect', details: { reason: 'ping timeout' } };
      const bad: Array<[string, unknown]> = [
        ['a known event missing a field', [ok, { event: 'system_info', details: { ...systemInfo, iMei: undefined } }]],
        ['a known event with an unknown field', [ok, { event: 'check_devices', details: { ...checkDevices, extra: 1 } }]],
        ['a known event with a wrong value', [{ event: 'check_devices', details: { ...checkDevices, camera: 'great' } }]],
        ['a negative minute', [{ event: 'media_minutes', details: { audioMinutes: -1, videoMinutes: 0 } }]],
        ['a bad event name', [{ event: 'Drop Table', details: {} }]],
        ['nested details of another event', [{ event: 'custom_thing', details: { deep: { a: 1 } } }]],
        ['an unknown key beside the event', [{ ...ok, sneaky: true }]],
        ['no events', []],
        ['too many events', Array.from({ length: LOG_BATCH_MAX_EVENTS + 1 }, () => ok)],
        [
          'oversized details',
          [{ event: 'custom_thing', details: Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`k${i}`, 'x'.repeat(900)])) }],
        ],
        ['events not a list', 'not json'],
      ];
      for (const [what, events] of bad) {
        const r = await call(server().url, 'addLog', { roomNumber: '123456', events });
        expect(r.code, what).toBe('5');
        const b = await beacon(server(), JSON.stringify({ roomNumber: '123456', events }));
        expect(b.status, what).toBe(400);
      }
      expect((await beacon(server(), '{broken')).status).toBe(400);
      const huge = await beacon(
        server(),
        JSON.stringify({ roomNumber: '1', events: [{ event: 'x', details: { a: 'y'.repeat(70_000) } }] }),
      );
      expect(huge.status).toBe(413);
      expect(huge.text).toContain('too large');
      const apiHuge = await call(server().url, 'addLog', { roomNumber: '1', message: 'z'.repeat(70_000) });
      expect(apiHuge.status).toBe(413);
      expect(await rows(server())).toEqual([]);
      // The schema itself: the spec's single event still parses (old clients), a body with events is always a batch.
      expect(addLogInput.safeParse({ socketType: 'connect', roomNumber: 1, message: { a: 1 } }).data).toEqual({
        roomNumber: '1',
        events: [{ socketType: 'connect', message: '{"a":1}' }],
      });
      expect(addLogInput.safeParse({ socketType: 'connect', events: 'x' }).success).toBe(false);
    });

    it('bounds events a minute per address and per person: a batch that does not fit is dropped whole, and the answer says so', async () => {
      const t = await signIn(server());
      const events = (n: number) => Array.from({ length: n }, (_, i) => ({ event: 'socket_disconnect', details: { reason: `r${i}` } }));
      const send = (n: number, token?: string) =>
        call(server().url, 'addLog', { roomNumber: '123456', events: events(n) }, token ? { token } : {});
      // Per person: 8 a minute.
      expect((await send(6, t.token)).data).toEqual({ stored: 6, dropped: 0 });
      expect((await send(3, t.token)).data).toEqual({ stored: 0, dropped: 3 });
      expect((await send(2, t.token)).data).toEqual({ stored: 2, dropped: 0 });
      // Per address: 12 a minute; the dropped batch above did not count against it.
      expect((await send(5)).data).toEqual({ stored: 0, dropped: 5 });
      expect((await send(4)).data).toEqual({ stored: 4, dropped: 0 });
      const b = await beacon(server(), JSON.stringify({ roomNumber: '123456', events: events(1) }));
      expect(b.status).toBe(429);
      expect(b.text).toContain('dropped 1');
      expect((await rows(server())).length).toBe(12);
      server().clock.advance(60_000);
      expect((await send(1, t.token)).data).toEqual({ stored: 1, dropped: 0 });
      expect((await rows(server())).length).toBe(13);
    });

    it('reads the log for operators: by room, by person, newest first, a page at a time', async () => {
      const site = server().banshu.platform.services.site;
      const a = await signIn(server());
      const viewer = await server().banshu.platform.services.account.authenticate(a.token);
      const one = (room: string, reason: string) =>
        addLogInput.parse({ roomNumber: room, events: [{ event: 'socket_disconnect', details: { reason } }] });
      for (let i = 0; i < LOG_PAGE_SIZE + 3; i++) {
        server().clock.advance(10_000); // inside every rate: one event a person each 20 s
        const answer = await site.addLog(i % 2 === 0 ? viewer : null, one(i < 10 ? '111111' : '222222', `n${i}`), '10.0.0.1');
        expect(answer).toEqual({ stored: 1, dropped: 0 });
      }
      const all1 = await site.logs({});
      expect(all1.rows.length).toBe(LOG_PAGE_SIZE);
      expect(all1.hasMore).toBe(true);
      expect(JSON.parse(all1.rows[0]!.message)).toEqual({ reason: `n${LOG_PAGE_SIZE + 2}` });
      const times = all1.rows.map((r) => r.at);
      expect([...times].sort((x, y) => y - x)).toEqual(times);
      const all2 = await site.logs({ page: 2 });
      expect(all2.rows.map((r) => JSON.parse(r.message).reason)).toEqual(['n2', 'n1', 'n0']);
      expect(all2.hasMore).toBe(false);
      const room = await site.logs({ roomNumber: '111111' });
      expect(room.rows.map((r) => r.roomNumber)).toEqual(Array(10).fill('111111'));
      const person = await site.logs({ userId: a.userId, roomNumber: '111111' });
      expect(person.rows.map((r) => JSON.parse(r.message).reason)).toEqual(['n8', 'n6', 'n4', 'n2', 'n0']);
      expect(person.rows[0]).toMatchObject({ userId: a.userId, event: 'socket_disconnect' });
      expect((await site.logs({ roomNumber: "1' or 1=1" })).rows.length).toBe(LOG_PAGE_SIZE); // not a number: no filter, no injection
    });
  },
  { env: { CLIENT_LOGS_PER_MINUTE: '12', CLIENT_LOGS_PER_PERSON_PER_MINUTE: '8' } },
);
