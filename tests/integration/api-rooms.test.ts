import { expect, it } from 'vitest';
import { call, signIn } from '#tests/support/api.ts';
import { eachEngine } from '#tests/support/engines-matrix.ts';
import type { TestServer } from '#tests/support/server.ts';

const HOUR = 3600_000;

async function credits(
  server: TestServer,
  userId: string,
  patch: Parameters<TestServer['banshu']['platform']['services']['billingRepo']['grant']>[1],
) {
  await server.banshu.platform.services.billingRepo.grant(userId, patch);
}

async function countRows(server: TestServer, table: 'rooms' | 'users' | 'room_members' | 'sessions'): Promise<number> {
  const r = await server.banshu.platform.database.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

eachEngine('creating rooms', (server) => {
  it('creates each room type with the caps of the configuration', async () => {
    const t = await signIn(server());
    const mini = await call(server().url, 'createAgoraRoom', { roomType: 1, consumption: 'off' }, { token: t.token });
    expect(mini.data.roomInfo).toMatchObject({
      roomType: 1,
      maxMember: 2,
      maxOrdinary: '1',
      isVIP: '0',
      createUser: t.userId,
      state: 'open',
    });
    expect(mini.data.roomInfo.roomNumber).toMatch(/^[1-9]\d{5}$/);
    const expected: Record<string, number> = { '2': 200, '3': 3, '4': 2 };
    for (const type of ['2', '3', '4']) {
      const r = await call(server().url, 'createRoom', { roomType: type }, { token: t.token, form: true });
      expect(r.code, type).toBe('0');
      expect(r.data.roomInfo).toMatchObject({ roomType: Number(type), maxMember: expected[type], isVIP: '0' });
    }
    const list = await call(server().url, 'getMyRoomList', {}, { token: t.token });
    expect(list.data.roomList.map((r: { roomType: number }) => r.roomType)).toEqual([4, 3, 2, 1]);
    const numbers = list.data.roomList.map((r: { roomNumber: string }) => r.roomNumber);
    expect(list.data.roomList[0]!.inviteUrl).toBe(`${server().url}/live/${numbers[0]}`);
    expect(list.data.roomList[1]!.inviteUrl).toBe(`${server().url}/record/${numbers[1]}`);
    expect(list.data.roomList[2]!.inviteUrl).toBe(`${server().url}/bb/${numbers[2]}`);
    expect(list.data.roomList[3]!.inviteUrl).toBe(`${server().url}/${numbers[3]}`);
  });

  it('refuses wrong room types, visitors and strangers', async () => {
    const t = await signIn(server());
    expect((await call(server().url, 'createRoom', { roomType: 1 }, { token: t.token })).code).toBe('5');
    expect((await call(server().url, 'createRoom', { roomType: 5 }, { token: t.token })).code).toBe('5');
    expect((await call(server().url, 'createAgoraRoom', { roomType: 2 }, { token: t.token })).code).toBe('5');
    expect((await call(server().url, 'createAgoraRoom', { roomType: 1 })).code).toBe('7');
    const room = await call(server().url, 'createRoom', { roomType: 2 }, { token: t.token });
    const tourist = await call(server().url, 'touristJoinRoom', { roomNumber: room.data.roomInfo.roomNumber, userName: 'Ann' });
    const tt = tourist.data.userInfo!.userToken;
    expect((await call(server().url, 'createRoom', { roomType: 2 }, { token: tt })).code).toBe('31004');
  });

  it('a paid mini class spends one credit, then opens a 3 hour window', async () => {
    const t = await signIn(server());
    const paid = () => call(server().url, 'createAgoraRoom', { roomType: 1, consumption: 'on' }, { token: t.token });
    const status = () => call(server().url, 'getConsumptionStatus', {}, { token: t.token }).then((r) => r.data);
    expect(await status()).toEqual({ status: 0, number: 0 });
    expect((await paid()).code).toBe('21007');
    expect(await countRows(server(), 'rooms')).toBe(0);

    await credits(server(), t.userId, { vip_room_remaining_number: 5 });
    expect(await status()).toEqual({ status: 0, number: 5 });
    const first = await paid();
    expect(first.data.roomInfo).toMatchObject({ isVIP: '1', maxMember: 4 });
    expect(await status()).toEqual({ status: 1, number: 4 });
    server().clock.advance(2 * HOUR);
    expect((await paid()).code).toBe('0');
    expect(await status()).toEqual({ status: 1, number: 4 });
    server().clock.advance(HOUR + 60_000);
    expect(await status()).toEqual({ status: 0, number: 4 });
    expect((await paid()).code).toBe('0');
    expect(await status()).toEqual({ status: 1, number: 3 });
    const vip = await call(server().url, 'getUserVipInfo', {}, { token: t.token });
    expect(vip.data.vipUserInfo).toMatchObject({ vipRoomRemainingNumber: 3, vipRoomTime: 0 });
  });

  it('a VIP creates paid mini classes without spending credits', async () => {
    const t = await signIn(server());
    await credits(server(), t.userId, {
      vip_room_time: new Date(server().clock.now().getTime() + 30 * 24 * HOUR),
      vip_room_remaining_number: 2,
    });
    const r = await call(server().url, 'createAgoraRoom', { roomType: 1, consumption: 'on' }, { token: t.token });
    expect(r.data.roomInfo).toMatchObject({ isVIP: '1', maxMember: 4 });
    expect((await call(server().url, 'getConsumptionStatus', {}, { token: t.token })).data).toEqual({ status: 1, number: 2 });
  });

  it('a big-class package sets the large class cap', async () => {
    const t = await signIn(server());
    await credits(server(), t.userId, {
      vip_big_room_people_number: 20,
      vip_big_room_time: new Date(server().clock.now().getTime() + HOUR),
    });
    const r = await call(server().url, 'createRoom', { roomType: 4 }, { token: t.token });
    expect(r.data.roomInfo).toMatchObject({ roomType: 4, maxMember: 20, isVIP: '1' });
    server().clock.advance(2 * HOUR);
    const later = await call(server().url, 'createRoom', { roomType: 4 }, { token: t.token });
    expect(later.data.roomInfo).toMatchObject({ maxMember: 2, isVIP: '0' });
  });

  it('getUserVipInfo answers 21006 when there is nothing', async () => {
    const t = await signIn(server());
    expect((await call(server().url, 'getUserVipInfo', {}, { token: t.token })).code).toBe('21006');
    expect((await call(server().url, 'getUserVipInfo', {})).code).toBe('7');
  });

  it('a double click makes one room (same requestId), even when concurrent', async () => {
    const t = await signIn(server());
    await credits(server(), t.userId, { vip_room_remaining_number: 1 });
    const requestId = 'req-1234567890';
    const [a, b] = await Promise.all([
      call(server().url, 'createAgoraRoom', { roomType: 1, consumption: 'on' }, { token: t.token, requestId }),
      call(server().url, 'createAgoraRoom', { roomType: 1, consumption: 'on' }, { token: t.token, requestId }),
    ]);
    expect(a.code).toBe('0');
    expect(b.code).toBe('0');
    expect(a.data.roomInfo.roomNumber).toBe(b.data.roomInfo.roomNumber);
    expect(await countRows(server(), 'rooms')).toBe(1);
    expect((await call(server().url, 'getConsumptionStatus', {}, { token: t.token })).data.number).toBe(0);
    // A new click is a new room.
    const c = await call(server().url, 'createAgoraRoom', { roomType: 1 }, { token: t.token, requestId: 'req-abcdefghij' });
    expect(c.data.roomInfo.roomNumber).not.toBe(a.data.roomInfo.roomNumber);
  });

  it('creates many rooms in a row (prepared statements turn generic after five runs)', async () => {
    const t = await signIn(server());
    const numbers = new Set<string>();
    for (let i = 0; i < 12; i++) {
      const r = await call(server().url, 'createAgoraRoom', { roomType: 1 }, { token: t.token });
      expect(r.code, `room ${i}`).toBe('0');
      numbers.add(r.data.roomInfo.roomNumber);
    }
    expect(numbers.size).toBe(12);
  });

  it('pages the room list', async () => {
    const t = await signIn(server());
    for (let i = 0; i < 5; i++) {
      expect((await call(server().url, 'createRoom', { roomType: 2 }, { token: t.token })).code).toBe('0');
      server().clock.advance(1000);
    }
    const p1 = await call(server().url, 'getMyRoomList', { pageSize: 2 }, { token: t.token });
    expect(p1.data.roomList).toHaveLength(2);
    expect(p1.data.hasMore).toBe(true);
    const p2 = await call(server().url, 'getMyRoomList', { pageSize: 2, pageTime: p1.data.nextPageTime }, { token: t.token });
    const p3 = await call(server().url, 'getMyRoomList', { pageSize: 2, pageTime: p2.data.nextPageTime }, { token: t.token });
    expect(p3.data).toMatchObject({ hasMore: false });
    const all = [...p1.data.roomList, ...p2.data.roomList, ...p3.data.roomList].map((r: { roomNumber: string }) => r.roomNumber);
    expect(new Set(all).size).toBe(5);
    const other = await signIn(server());
    expect((await call(server().url, 'getMyRoomList', {}, { token: other.token })).data.roomList).toEqual([]);
  });
});

eachEngine('looking up and joining rooms', (server) => {
  const setup = async (roomType = 1) => {
    const teacher = await signIn(server());
    const created = await call(
      server().url,
      roomType === 1 ? 'createAgoraRoom' : 'createRoom',
      { roomType, consumption: 'off' },
      { token: teacher.token },
    );
    return { teacher, roomNumber: created.data.roomInfo.roomNumber };
  };

  it('getRoomInfoByRoomNumber finds open rooms, and 31002 otherwise', async () => {
    const { roomNumber, teacher } = await setup();
    // The creator asks: only they and the room's members see who created it (ADR 066).
    const r = await call(server().url, 'getRoomInfoByRoomNumber', { roomNumber }, { token: teacher.token });
    expect(r.data.roomInfo).toMatchObject({ roomNumber, roomType: 1, createUser: teacher.userId, participants: 0 });
    // Look-ups are shared for a moment, but a join here shows at once.
    const student = await signIn(server());
    await call(server().url, 'userJoinAgoraRoom', { roomNumber }, { token: student.token });
    expect((await call(server().url, 'getRoomInfoByRoomNumber', { roomNumber })).data.roomInfo.participants).toBe(1);
    const missing = roomNumber === '999999' ? '999998' : '999999';
    for (const n of [missing, '12345', 'abcdefghijk', '', '12 456']) {
      expect((await call(server().url, 'getRoomInfoByRoomNumber', { roomNumber: n })).code, n).toBe('31002');
    }
  });

  it('joins the creator and members with their roles and signed tokens', async () => {
    const { roomNumber, teacher } = await setup(2);
    const mine = await call(server().url, 'userJoinAgoraRoom', { roomNumber }, { token: teacher.token });
    expect(mine.data).toMatchObject({ role: 'creator', userType: '1', userIdForNumber: teacher.userId });
    const student = await signIn(server());
    const theirs = await call(server().url, 'userJoinAgoraRoom', { roomNumber, userType: '1' }, { token: student.token });
    expect(theirs.data).toMatchObject({ role: 'member', roomInfo: { participants: 2 } });
    const rooms = server().banshu.platform.services.rooms;
    expect(rooms.verifyRoomToken(theirs.data.imToken, 'room')).toMatchObject({ room: roomNumber, uid: student.userId, role: 'member' });
    expect(rooms.verifyRoomToken(theirs.data.wbtoken, 'board')).toMatchObject({ room: roomNumber, uid: student.userId });
    expect(rooms.verifyRoomToken(theirs.data.wbtoken, 'room')).toBeNull();
    expect(rooms.verifyRoomToken(`${theirs.data.imToken.slice(0, -2)}xx`, 'room')).toBeNull();
    // Only the creator may join as the screen-share publisher.
    expect((await call(server().url, 'userJoinAgoraRoom', { roomNumber, userType: '2' }, { token: student.token })).code).toBe('31004');
    expect((await call(server().url, 'userJoinAgoraRoom', { roomNumber, userType: '2' }, { token: teacher.token })).code).toBe('0');
    expect((await call(server().url, 'userJoinAgoraRoom', { roomNumber: '000000' }, { token: student.token })).code).toBe('31002');
    expect((await call(server().url, 'userJoinAgoraRoom', { roomNumber })).code).toBe('7');
  });

  it('a free mini class holds the teacher and one more: the next gets 31003', async () => {
    const { roomNumber, teacher } = await setup(1);
    const a = await signIn(server());
    const b = await signIn(server());
    expect((await call(server().url, 'userJoinAgoraRoom', { roomNumber }, { token: a.token })).code).toBe('0');
    expect((await call(server().url, 'userJoinAgoraRoom', { roomNumber }, { token: b.token })).code).toBe('31003');
    const tourist = await call(server().url, 'touristJoinRoom', { roomNumber, userName: 'Ann' });
    expect(tourist.code).toBe('31003');
    // Seated people come back; the creator is never locked out of their own room.
    expect((await call(server().url, 'userJoinAgoraRoom', { roomNumber }, { token: a.token })).code).toBe('0');
    expect((await call(server().url, 'userJoinAgoraRoom', { roomNumber }, { token: teacher.token })).code).toBe('0');
  });

  it('twelve people racing for the last two seats: exactly two get in', async () => {
    const { roomNumber } = await setup(3); // audio class: the teacher and 2 students
    const people = [];
    for (let i = 0; i < 12; i++) people.push(await signIn(server()));
    const answers = await Promise.all(people.map((p) => call(server().url, 'userJoinAgoraRoom', { roomNumber }, { token: p.token })));
    const codes = answers.map((a) => a.code).sort();
    expect(codes).toEqual(['0', '0', ...Array<string>(10).fill('31003')]);
    const info = await call(server().url, 'getRoomInfoByRoomNumber', { roomNumber });
    expect(info.data.roomInfo.participants).toBe(2);
  });

  it('the audio class hour starts when its teacher first enters', async () => {
    const { roomNumber, teacher } = await setup(3);
    expect((await call(server().url, 'getRoomInfoByRoomNumber', { roomNumber })).data.roomInfo.endsAt).toBe(0);
    const start = server().clock.now().getTime();
    const joined = await call(server().url, 'userJoinAgoraRoom', { roomNumber }, { token: teacher.token });
    expect(joined.data.roomInfo.endsAt).toBe(start + 3600_000);
  });

  it('tourists join by number and name, with a session of their own', async () => {
    const { roomNumber } = await setup(2);
    const r = await call(server().url, 'touristJoinRoom', { roomNumber, userName: ' 小明 ' });
    expect(r.code).toBe('0');
    expect(r.data).toMatchObject({ role: 'tourist', userInfo: { name: '小明', type: '4', mobile: '' } });
    expect(r.setCookie).toMatch(/banshu_session=[0-9a-f]{64}/);
    const me = await call(server().url, 'queryUserInfoByToken', {}, { token: r.data.userInfo!.userToken });
    expect(me.data.userInfo).toMatchObject({ name: '小明', type: '4' });
  });

  it('a tourist join that fails writes nothing', async () => {
    const { roomNumber } = await setup(1);
    const a = await signIn(server());
    await call(server().url, 'userJoinAgoraRoom', { roomNumber }, { token: a.token });
    const users = await countRows(server(), 'users');
    const sessions = await countRows(server(), 'sessions');
    expect((await call(server().url, 'touristJoinRoom', { roomNumber, userName: 'Ann' })).code).toBe('31003');
    expect((await call(server().url, 'touristJoinRoom', { roomNumber: '000001', userName: 'Ann' })).code).toBe('31002');
    expect((await call(server().url, 'touristJoinRoom', { roomNumber, userName: '<img src=x>' })).code).toBe('5');
    expect(await countRows(server(), 'users')).toBe(users);
    expect(await countRows(server(), 'sessions')).toBe(sessions);
  });
});

eachEngine(
  'tourist joins per address',
  (server) => {
    it('are rate limited (31006), so room numbers cannot be guessed by brute force', async () => {
      const codes: string[] = [];
      for (let i = 0; i < 4; i++) {
        codes.push((await call(server().url, 'touristJoinRoom', { roomNumber: String(100000 + i), userName: 'Guess' })).code);
      }
      expect(codes).toEqual(['31002', '31002', '31002', '31006']);
      server().clock.advance(61_000);
      expect((await call(server().url, 'touristJoinRoom', { roomNumber: '100009', userName: 'Guess' })).code).toBe('31002');
    });
  },
  { env: { TOURIST_JOINS_PER_MINUTE: '3' } },
);
