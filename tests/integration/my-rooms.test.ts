/** "My classrooms" on the server (ADR 087): pages with a total, the type filter, live now, end and delete by the creator only. */
import { expect, it } from 'vitest';
import { call, signIn } from '#tests/support/api.ts';
import { eachEngine } from '#tests/support/engines-matrix.ts';

interface Item {
  roomNumber: string;
  roomType: number;
  state: string;
  roomId: string;
  live: boolean;
}

eachEngine('my classrooms', (server) => {
  it('pages by number with the total, filters by type on the server', async () => {
    const t = await signIn(server());
    for (let i = 0; i < 7; i++) {
      const r = await call(server().url, 'createRoom', { roomType: i % 2 ? 3 : 2 }, { token: t.token });
      expect(r.code).toBe('0');
      server().clock.advance(1000);
    }
    const p1 = await call(server().url, 'getMyRoomList', { page: 1, pageSize: 3 }, { token: t.token });
    expect(p1.data).toMatchObject({ total: 7, page: 1, hasMore: true });
    expect(p1.data.roomList).toHaveLength(3);
    const p3 = await call(server().url, 'getMyRoomList', { page: 3, pageSize: 3 }, { token: t.token });
    expect(p3.data).toMatchObject({ total: 7, page: 3, hasMore: false });
    expect(p3.data.roomList).toHaveLength(1);
    const p2 = await call(server().url, 'getMyRoomList', { page: '2', pageSize: '3' }, { token: t.token, form: true });
    const all = [...p1.data.roomList, ...p2.data.roomList, ...p3.data.roomList].map((r: Item) => r.roomId);
    expect(new Set(all).size).toBe(7);
    const audio = await call(server().url, 'getMyRoomList', { page: 1, pageSize: 10, roomType: 3 }, { token: t.token });
    expect(audio.data.total).toBe(3);
    expect(audio.data.roomList.every((r: Item) => r.roomType === 3)).toBe(true);
    expect(audio.data.roomList.every((r: Item) => r.state === 'open' && r.live === false)).toBe(true);
    expect((await call(server().url, 'getMyRoomList', { roomType: 5 }, { token: t.token })).code).toBe('5');
    expect((await call(server().url, 'getMyRoomList', { page: 0 }, { token: t.token })).code).toBe('5');
  });

  it('ends an open class and deletes a closed one, for the creator only', async () => {
    const t = await signIn(server());
    const other = await signIn(server());
    const created = await call(server().url, 'createRoom', { roomType: 2 }, { token: t.token });
    const roomNumber = created.data.roomInfo.roomNumber;
    const [item] = (await call(server().url, 'getMyRoomList', { page: 1 }, { token: t.token })).data.roomList as Item[];
    expect(item).toMatchObject({ roomNumber, state: 'open' });

    // Someone else: neither end nor delete; the room stays as it was.
    expect((await call(server().url, 'endMyRoom', { roomNumber }, { token: other.token })).code).toBe('31004');
    expect((await call(server().url, 'delMyRoom', { roomId: item!.roomId }, { token: other.token })).code).toBe('31004');
    expect((await call(server().url, 'endMyRoom', { roomNumber })).code).toBe('7');

    // An open class is ended first.
    expect((await call(server().url, 'delMyRoom', { roomId: item!.roomId }, { token: t.token })).code).toBe('31010');
    expect((await call(server().url, 'endMyRoom', { roomNumber }, { token: t.token })).code).toBe('0');
    expect((await call(server().url, 'endMyRoom', { roomNumber }, { token: t.token })).code).toBe('31009');
    const closed = (await call(server().url, 'getMyRoomList', { page: 1 }, { token: t.token })).data.roomList as Item[];
    expect(closed[0]).toMatchObject({ roomNumber, state: 'closed' });
    expect((await call(server().url, 'userJoinAgoraRoom', { roomNumber }, { token: other.token })).code).not.toBe('0');

    expect((await call(server().url, 'delMyRoom', { roomId: item!.roomId }, { token: other.token })).code).toBe('31004');
    expect((await call(server().url, 'delMyRoom', { roomId: item!.roomId }, { token: t.token })).code).toBe('0');
    const after = await call(server().url, 'getMyRoomList', { page: 1 }, { token: t.token });
    expect(after.data).toMatchObject({ total: 0, roomList: [] });
    // Once deleted, it is gone for its creator too.
    expect((await call(server().url, 'delMyRoom', { roomId: item!.roomId }, { token: t.token })).code).toBe('31004');
    expect((await call(server().url, 'delMyRoom', { roomId: '999999999' }, { token: t.token })).code).toBe('31004');
  });
});
