/**
 * Demo rooms (issue 17, ADR 092): made without an account, a real room with the sample deck shown
 * and board power for everyone, counted per address, never billed, refused with 31011 once its
 * hours are up and closed by housekeeping.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { slideLayer } from '#core/contracts/courseware.ts';
import { SAMPLE_DECK_PREFIX } from '#core/courseware/sample-deck.ts';
import { call, signIn } from '#tests/support/api.ts';
import { connectBoard, createOp } from '#tests/support/board-client.ts';
import { ask, connectRoom } from '#tests/support/room-client.ts';
import { startTestServer, type TestServer } from '#tests/support/server.ts';

const HOUR = 3600_000;
const PER_HOUR = 3;
let server: TestServer;
const sockets: Array<{ close(): void }> = [];
let address = 0;
/** A client address of its own (the server trusts X-Real-IP in this file). */
const nextAddress = () => `10.17.0.${String(++address)}`;

beforeAll(async () => {
  server = await startTestServer({ env: { TRUST_PROXY: 'true', DEMO_CREATES_PER_HOUR: String(PER_HOUR), DEMO_ROOM_HOURS: '2' } });
});
afterAll(async () => {
  await server.close();
});
afterEach(() => {
  for (const s of sockets.splice(0)) s.close();
});

const db = () => server.banshu.platform.database.db;
const sessionOf = (setCookie: string | null) => /banshu_session=([^;]+)/.exec(setCookie ?? '')?.[1] ?? '';

async function createDemo(ip = nextAddress(), body: Record<string, unknown> = {}, lang?: string) {
  return call(server.url, 'createDemo', body, { headers: { 'x-real-ip': ip }, ...(lang ? { lang } : {}) });
}

async function count(table: 'credit_ledger' | 'orders' | 'rooms' | 'users' | 'documents'): Promise<number> {
  const r = await db()
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

describe('demo rooms', () => {
  it('makes a real room without an account: its own number, a demo host, the sample deck, board power for all', async () => {
    const before = { ledger: await count('credit_ledger'), orders: await count('orders') };
    const made = await createDemo(nextAddress(), {}, 'en');
    expect(made.code).toBe('0');
    const { roomInfo, endsAt } = made.data;
    const userInfo = made.data.userInfo!;
    expect(roomInfo).toMatchObject({ roomType: 1, state: 'open', wbPower: '1', isVIP: '0', showState: 'ppt', pptCurrentPage: 1 });
    expect(roomInfo.roomNumber).toMatch(/^[1-9]\d{5}$/);
    expect(endsAt).toBe(server.clock.now().getTime() + 2 * HOUR);
    expect(roomInfo.endsAt).toBe(endsAt);
    // The demo identity: a visitor without a phone, its session in the cookie.
    expect(userInfo).toMatchObject({ type: '4', mobile: '', name: 'Demo host', promoPoints: 0 });
    expect(sessionOf(made.setCookie)).toBe(userInfo.userToken);
    const row = await db().selectFrom('rooms').selectAll().where('room_number', '=', roomInfo.roomNumber).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ is_demo: true, create_user: userInfo.userId, consumption: 'off', trial_started_at: null });
    const host = await db().selectFrom('users').selectAll().where('id', '=', userInfo.userId).executeTakeFirstOrThrow();
    expect(host).toMatchObject({
      kind: 'tourist',
      mobile: null,
      vip_room_remaining_number: 0,
      credit_window_until: null,
      vip_room_time: null,
    });
    // Never billed: no ledger line, no order.
    expect(await count('credit_ledger')).toBe(before.ledger);
    expect(await count('orders')).toBe(before.orders);

    // The host joins as the creator and finds the sample deck shown: 4 pages, signed links that answer.
    const joined = await call(server.url, 'userJoinAgoraRoom', { roomNumber: roomInfo.roomNumber }, { token: userInfo.userToken });
    expect(joined.code).toBe('0');
    expect(joined.data.role).toBe('creator');
    const deck = joined.data.courseware!;
    expect(deck).toMatchObject({ documentType: 1, status: 3, pptTotalPage: 4, pptCurrentPage: 1 });
    expect(deck.images).toHaveLength(4);
    const page = await fetch(new URL(deck.images[1]!, server.url));
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/image\/jpeg/);
    expect((await page.arrayBuffer()).byteLength).toBeLessThan(80_000);
    const doc = await db().selectFrom('documents').selectAll().where('id', '=', deck.documentId).executeTakeFirstOrThrow();
    expect(doc).toMatchObject({ user_id: userInfo.userId, pages_prefix: SAMPLE_DECK_PREFIX, status: 3, page_count: 4 });

    // A second visitor joins by the number and may draw on the slide; the host turns the page.
    const visitor = await call(
      server.url,
      'touristJoinRoom',
      { roomNumber: roomInfo.roomNumber, userName: 'Ann' },
      { headers: { 'x-real-ip': nextAddress() } },
    );
    expect(visitor.code).toBe('0');
    expect(visitor.data.role).toBe('tourist');
    expect(visitor.data.courseware!.documentId).toBe(deck.documentId);
    const board = await connectBoard(server.url, visitor.data.wbtoken);
    sockets.push(board);
    const drawn = await ask(board, 'sync', createOp('demo-ink', 'demo-ink', slideLayer(deck.documentId, 1)));
    expect(drawn.code).toBe('0');
    const room = await connectRoom(server.url, joined.data.imToken);
    sockets.push(room);
    expect((await ask(room, 'joinRoom', {})).code).toBe('0');
    const turned = await ask(room, 'setCoursewarePage', { page: 2 });
    expect(turned.code).toBe('0');
    expect(turned.data.pptCurrentPage).toBe(2);
    expect((await ask(room, 'chat', { text: 'hello demo' })).code).toBe('0');
  });

  it('a signed-in teacher hosts a demo as themself, billed nothing', async () => {
    const teacher = await signIn(server);
    const ledger = await count('credit_ledger');
    const made = await call(
      server.url,
      'createDemo',
      { userName: '王老师' },
      { token: teacher.token, headers: { 'x-real-ip': nextAddress() } },
    );
    expect(made.code).toBe('0');
    expect(made.data.userInfo).toBeNull();
    expect(made.setCookie).toBeNull();
    expect(made.data.roomInfo.createUser).toBe(teacher.userId);
    expect(await count('credit_ledger')).toBe(ledger);
  });

  it('counts creations per address: past DEMO_CREATES_PER_HOUR 31012 in both languages, other addresses unaffected, an hour later again', async () => {
    const ip = nextAddress();
    for (let i = 0; i < PER_HOUR; i++) expect((await createDemo(ip)).code).toBe('0');
    const rooms = await count('rooms');
    const zh = await createDemo(ip, {}, 'zh');
    expect(zh).toMatchObject({ code: '31012', data: null });
    expect(zh.msg).toBe('创建演示教室太频繁，请稍后再试');
    const en = await createDemo(ip, {}, 'en');
    expect(en.code).toBe('31012');
    expect(en.msg).toBe('Too many demo rooms from your address, please try again later');
    expect(await count('rooms')).toBe(rooms);
    expect((await createDemo(nextAddress())).code).toBe('0');
    server.clock.advance(HOUR + 1000);
    expect((await createDemo(ip)).code).toBe('0');
  });

  it('refuses bad input, huge bodies and other origins, writing nothing', async () => {
    const before = { rooms: await count('rooms'), users: await count('users'), documents: await count('documents') };
    for (const userName of ['<b>x</b>', 'x'.repeat(11), 42, null, '\u202e12']) {
      const r = await createDemo(nextAddress(), { userName });
      expect(r.code, String(userName)).toBe('5');
    }
    const huge = await createDemo(nextAddress(), { userName: 'x'.repeat(200_000) });
    expect(huge.status).toBe(413);
    expect(huge.code).toBe('5');
    const cross = await call(server.url, 'createDemo', {}, { headers: { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' } });
    expect(cross.status).toBe(403);
    expect(cross.code).toBe('8');
    // Forged numbers: a demo status for what is no demo, a join of a number that does not exist.
    const demo = server.banshu.platform.services.demo;
    expect(await demo.status('12345')).toEqual({ kind: 'none' });
    expect(await demo.status("1' or 1=1")).toEqual({ kind: 'none' });
    const teacher = await signIn(server);
    const plain = await call(server.url, 'createRoom', { roomType: 2 }, { token: teacher.token });
    expect(await demo.status(plain.data.roomInfo.roomNumber)).toEqual({ kind: 'none' });
    const forged = await call(
      server.url,
      'touristJoinRoom',
      { roomNumber: '000000', userName: 'Ann' },
      { headers: { 'x-real-ip': nextAddress() } },
    );
    expect(forged.code).toBe('31002');
    expect(await count('rooms')).toBe(before.rooms + 1);
    expect(await count('documents')).toBe(before.documents);
  });

  it('past its hours every join, board and chat call is refused with 31011; housekeeping closes it', async () => {
    const made = await createDemo();
    const { roomInfo } = made.data;
    const userInfo = made.data.userInfo!;
    const roomNumber = roomInfo.roomNumber;
    const host = await call(server.url, 'userJoinAgoraRoom', { roomNumber }, { token: userInfo.userToken });
    const guest = await call(server.url, 'touristJoinRoom', { roomNumber, userName: 'Bo' }, { headers: { 'x-real-ip': nextAddress() } });
    expect(guest.code).toBe('0');
    const room = await connectRoom(server.url, host.data.imToken);
    sockets.push(room);
    expect((await ask(room, 'joinRoom', {})).code).toBe('0');
    const demo = server.banshu.platform.services.demo;
    expect(await demo.status(roomNumber)).toEqual({ kind: 'open', roomNumber, endsAt: roomInfo.endsAt });
    // A board connected before the end: it draws now, and is refused the moment the demo ends.
    const deckPage = slideLayer(guest.data.courseware!.documentId, 1);
    const earlyBoard = await connectBoard(server.url, guest.data.wbtoken);
    sockets.push(earlyBoard);
    expect((await ask(earlyBoard, 'sync', createOp('before-end', 'before-end', deckPage))).code).toBe('0');

    server.clock.advance(2 * HOUR);
    expect((await ask(earlyBoard, 'sync', createOp('after-end', 'after-end', deckPage))).code).toBe('31011');
    expect(await demo.status(roomNumber)).toEqual({ kind: 'ended', roomNumber });
    expect((await call(server.url, 'userJoinAgoraRoom', { roomNumber }, { token: userInfo.userToken })).code).toBe('31011');
    const late = await call(
      server.url,
      'touristJoinRoom',
      { roomNumber, userName: 'Cy' },
      { headers: { 'x-real-ip': nextAddress() }, lang: 'en' },
    );
    expect(late.code).toBe('31011');
    expect(late.msg).toBe('This demo room has ended, please start a new one');
    expect((await call(server.url, 'getRoomInfoByRoomNumber', { roomNumber }, { headers: { 'x-real-ip': nextAddress() } })).code).toBe(
      '31011',
    );
    expect((await ask(room, 'chat', { text: 'too late' })).code).toBe('31011');
    const wb = await call(
      server.url,
      'createWbToken',
      { userId: guest.data.userInfo!.userId, channelId: roomNumber },
      { token: guest.data.userInfo!.userToken },
    );
    expect(wb.code).toBe('31011');
    await expect(connectBoard(server.url, guest.data.wbtoken)).rejects.toMatchObject({ code: '31011' });
    await expect(connectRoom(server.url, guest.data.imToken)).rejects.toMatchObject({ code: '31011' });

    // Housekeeping (every minute, and a timer at the end on the node that made it) closes it.
    await server.banshu.platform.services.live.closeExpired();
    const row = await db()
      .selectFrom('rooms')
      .select(['state', 'closed_at'])
      .where('room_number', '=', roomNumber)
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    expect(row.state).toBe('closed');
    expect(await demo.status(roomNumber)).toEqual({ kind: 'ended', roomNumber });
  });
});
