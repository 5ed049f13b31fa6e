/**
 * One owner of room state (ADR 062): RoomState is the only writer of the rooms row, and every
 * cache of it hears each committed change at once, in the process that wrote and in any other
 * sharing the change relay. Here two service instances share one database (each engine) and one
 * in-process relay; a third on its own relay shows what a cache did before: it keeps the old value
 * for its time to live (the clock is a ManualClock that does not move, so that is forever here).
 */
import { expect, it } from 'vitest';
import { InMemoryEventBus } from '#core/platform/events.ts';
import { createLogger } from '#core/platform/logger.ts';
import { LocalRoomChangeRelay, type RoomChange, type RoomChangeRelay } from '#core/rooms/room-state.ts';
import { buildServices, type Services } from '#core/services.ts';
import { call, signIn } from '#tests/support/api.ts';
import { boardRoom, enter } from '#tests/support/board-client.ts';
import { eachEngine } from '#tests/support/engines-matrix.ts';
import type { TestServer } from '#tests/support/server.ts';

/** Another process's services on the same database, hearing room changes through `relay`. */
function otherInstance(server: TestServer, relay: RoomChangeRelay): Services {
  const p = server.banshu.platform;
  return buildServices({
    config: p.config,
    secret: p.secret,
    db: p.database.db,
    clock: server.clock,
    logger: createLogger('silent'),
    sms: { send: () => Promise.resolve() },
    outbox: null,
    events: new InMemoryEventBus(),
    objects: p.objects,
    jobs: null,
    presence: p.presence,
    scheduler: { after: () => undefined },
    payments: p.payments,
    roomChanges: relay,
  });
}

eachEngine(
  'room state: one writer, caches told of every change',
  (server) => {
    it('a write on one instance reaches the caches of the other at once: room info, the live row, the board rules', async () => {
      const s = server();
      const p = s.banshu.platform;
      const { roomNumber, teacher, students } = await boardRoom(s, 2, 1);
      const creator = { room: roomNumber, uid: teacher.userId, role: 'creator' as const };
      const student = { room: roomNumber, uid: students[0]!.userId, role: 'member' as const };
      const other = otherInstance(s, p.roomChanges);
      const isolated = otherInstance(s, new LocalRoomChangeRelay());
      const heard: RoomChange[] = [];
      other.roomState.onChange((c) => heard.push(c));

      // Every cache is filled on the other instances.
      for (const o of [other, isolated]) {
        expect(await o.rooms.getRoomInfo(roomNumber)).toMatchObject({ showState: '', wbPower: '0', participants: 2 });
        expect(await o.board.mayDraw(student)).toBe(false);
        await o.live.chat(student, 'cached', { name: 's' });
      }

      await p.services.live.patch(creator, { showState: 'ppt', wbPower: '1' });
      expect(heard).toContainEqual({ roomNumber, fields: expect.arrayContaining(['show_state', 'wb_power']) });
      // Read right after the write, on the other instance: the new value.
      expect(await other.rooms.getRoomInfo(roomNumber)).toMatchObject({ showState: 'ppt', wbPower: '1' });
      expect(await other.board.mayDraw(student)).toBe(true);
      // Without the relay the old value stays for the cache's time to live.
      expect(await isolated.rooms.getRoomInfo(roomNumber)).toMatchObject({ showState: '', wbPower: '0' });
      expect(await isolated.board.mayDraw(student)).toBe(false);

      // A seat taken through the first instance counts on the other at once.
      await enter(s, roomNumber, await signIn(s));
      expect(heard).toContainEqual({ roomNumber, fields: ['participants'] });
      expect((await other.rooms.getRoomInfo(roomNumber)).participants).toBe(3);
      expect((await isolated.rooms.getRoomInfo(roomNumber)).participants).toBe(2);

      // The class ends on the first instance: the other refuses a chat line at once (its row cache was dropped).
      await p.services.live.end(creator);
      expect(heard).toContainEqual({ roomNumber, fields: expect.arrayContaining(['state']) });
      await expect(other.live.chat(student, 'late', { name: 's' })).rejects.toMatchObject({ code: '31009' });
      await expect(other.rooms.getRoomInfo(roomNumber)).rejects.toMatchObject({ code: '31002' });
      expect(await other.board.mayDraw(student)).toBe(false);
    });

    it('writes inside a transaction are told once it commits, and not at all when it rolls back', async () => {
      const s = server();
      const state = s.banshu.platform.services.roomState;
      const teacher = await signIn(s);
      const heard: RoomChange[] = [];
      const stop = state.onChange((c) => heard.push(c));
      const values = {
        room_number: '990001',
        room_type: 2,
        create_user: teacher.userId,
        consumption: 'off' as const,
        is_vip: '0' as const,
        max_member: 30,
        created_at: new Date(),
      };
      await expect(
        state.transaction(async (trx) => {
          expect(await state.insertRoom(trx, values)).toBeDefined();
          expect(heard).toEqual([]);
          throw new Error('roll back');
        }),
      ).rejects.toThrow('roll back');
      expect(heard).toEqual([]);
      expect((await call(s.url, 'getRoomInfoByRoomNumber', { roomNumber: '990001' }, { token: teacher.token })).code).toBe('31002');

      await state.transaction(async (trx) => {
        await state.insertRoom(trx, values);
        expect(heard).toEqual([]);
      });
      expect(heard).toEqual([{ roomNumber: '990001', fields: expect.arrayContaining(['state', 'room_number', 'create_user']) }]);
      expect((await call(s.url, 'getRoomInfoByRoomNumber', { roomNumber: '990001' }, { token: teacher.token })).code).toBe('0');

      // A write with a transaction RoomState did not open would be told too early: refused.
      await expect(s.banshu.platform.database.db.transaction().execute((trx) => state.setEndsAt(trx, '1', new Date()))).rejects.toThrow(
        /RoomState.transaction/,
      );
      stop();
    });
  },
  { env: { ROOM_INFO_CACHE_MS: '60000' } },
);
