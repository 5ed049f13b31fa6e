/**
 * Look-ups by room number from outside a class (ADR 066), against the real API server: the answer
 * does not name the creator unless the caller created or joined the room; anonymous look-ups and
 * visitor joins are counted per address (31006 past the limit, per minute and per hour), members
 * are never counted; and a class of 30 visitors behind one address joins at once at the defaults.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, signIn } from '#tests/support/api.ts';
import { eachEngine } from '#tests/support/engines-matrix.ts';
import { startTestServer, type TestServer } from '#tests/support/server.ts';

async function whiteboardClass(server: TestServer) {
  const teacher = await signIn(server);
  const created = await call(server.url, 'createRoom', { roomType: 2 }, { token: teacher.token });
  expect(created.code).toBe('0');
  return { teacher, roomNumber: created.data.roomInfo.roomNumber };
}

const CREATOR_FIELDS = ['createUser', 'createUserIdNumber', 'createUserName'] as const;

eachEngine('room look-ups by number', (server) => {
  it('name the creator only to the creator and the members', async () => {
    const { teacher, roomNumber } = await whiteboardClass(server());
    expect((await call(server().url, 'updateUserName', { userName: 'WangLaoshi' }, { token: teacher.token })).code).toBe('0');
    const member = await signIn(server());
    expect((await call(server().url, 'userJoinAgoraRoom', { roomNumber }, { token: member.token })).code).toBe('0');
    const stranger = await signIn(server());

    const anonymous = await call(server().url, 'getRoomInfoByRoomNumber', { roomNumber });
    expect(anonymous.code).toBe('0');
    // What a visitor's join page needs is there; who teaches is not.
    expect(anonymous.data.roomInfo).toMatchObject({ roomNumber, roomType: 2, state: 'open', participants: 1 });
    for (const f of CREATOR_FIELDS) expect(anonymous.data.roomInfo[f], f).toBe('');
    expect(JSON.stringify(anonymous.data)).not.toContain('WangLaoshi');
    const outsider = await call(server().url, 'getRoomInfoByRoomNumber', { roomNumber }, { token: stranger.token });
    for (const f of CREATOR_FIELDS) expect(outsider.data.roomInfo[f], f).toBe('');

    for (const who of [teacher, member]) {
      const info = await call(server().url, 'getRoomInfoByRoomNumber', { roomNumber }, { token: who.token });
      expect(info.data.roomInfo).toMatchObject({
        createUser: teacher.userId,
        createUserIdNumber: teacher.userId,
        createUserName: 'WangLaoshi',
      });
    }
  });

  it('lets a class of 30 visitors behind one address look the room up and join at once', async () => {
    const { roomNumber } = await whiteboardClass(server());
    const answers = await Promise.all(
      Array.from({ length: 30 }, async (_, i) => {
        // The lobby's and the visitor page's checks, then the join itself.
        const first = await call(server().url, 'getRoomInfoByRoomNumber', { roomNumber });
        const again = await call(server().url, 'getRoomInfoByRoomNumber', { roomNumber });
        const joined = await call(server().url, 'touristJoinRoom', { roomNumber, userName: `Pupil${String(i)}` });
        return [first.code, again.code, joined.code];
      }),
    );
    expect(answers.flat().filter((c) => c !== '0')).toEqual([]);
  });
});

eachEngine(
  'room look-ups from one address',
  (server) => {
    it('are limited per minute with 31006 (visitor joins count too), members never', async () => {
      const { teacher, roomNumber } = await whiteboardClass(server());
      const codes: string[] = [];
      for (let i = 0; i < 3; i++)
        codes.push((await call(server().url, 'getRoomInfoByRoomNumber', { roomNumber: String(200000 + i) })).code);
      codes.push((await call(server().url, 'touristJoinRoom', { roomNumber: '200009', userName: 'Guess' })).code);
      expect(codes).toEqual(['31002', '31002', '31002', '31006']);
      const refused = await call(server().url, 'getRoomInfoByRoomNumber', { roomNumber }, { lang: 'en' });
      expect(refused.code).toBe('31006');
      expect(refused.msg).toMatch(/too many/i);
      expect((await call(server().url, 'touristJoinRoom', { roomNumber, userName: 'Ann' })).code).toBe('31006');
      // The creator (and members) polling their own class are not counted.
      for (let i = 0; i < 5; i++) {
        expect((await call(server().url, 'getRoomInfoByRoomNumber', { roomNumber }, { token: teacher.token })).code).toBe('0');
      }
      // A signed-in account outside the room counts on its own, not on the address.
      const other = await signIn(server());
      expect((await call(server().url, 'getRoomInfoByRoomNumber', { roomNumber }, { token: other.token })).code).toBe('0');
      server().clock.advance(61_000);
      expect((await call(server().url, 'getRoomInfoByRoomNumber', { roomNumber })).code).toBe('0');
    });
  },
  { env: { ROOM_LOOKUPS_PER_MINUTE: '3' } },
);

eachEngine(
  'room look-ups over an hour',
  (server) => {
    it('are limited per hour too, so a slow walk stays slow', async () => {
      const codes: string[] = [];
      for (let i = 0; i < 5; i++) {
        codes.push((await call(server().url, 'getRoomInfoByRoomNumber', { roomNumber: String(300000 + i) })).code);
        server().clock.advance(61_000);
      }
      expect(codes).toEqual(['31002', '31002', '31002', '31002', '31006']);
      server().clock.advance(3600_000);
      expect((await call(server().url, 'getRoomInfoByRoomNumber', { roomNumber: '300009' })).code).toBe('31002');
    });
  },
  { env: { ROOM_LOOKUPS_PER_MINUTE: '100', ROOM_LOOKUPS_PER_HOUR: '4' } },
);

describe('the visitor page', () => {
  let pages: TestServer | null = null;
  beforeAll(async () => {
    pages = await startTestServer({ pages: true, env: { ROOM_LOOKUPS_PER_MINUTE: '2' } });
  }, 120_000);
  afterAll(async () => {
    await pages?.close();
  });

  it('counts its look-ups like the API, so pages are no free walk either', async () => {
    const status = async (path: string) => {
      const res = await fetch(new URL(path, pages!.url), { redirect: 'manual' });
      await res.body?.cancel();
      return res.status;
    };
    expect([await status('/userName/400001'), await status('/userName/400002'), await status('/userName/400003')]).toEqual([200, 200, 429]);
    expect((await call(pages!.url, 'getRoomInfoByRoomNumber', { roomNumber: '400004' })).code).toBe('31006');
  });
});
