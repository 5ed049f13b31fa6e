/**
 * The lease rules of core/platform/db/leased-tasks.ts (ADR 071, 085, 111), on the one helper that
 * both the recording and the live push tables use, on both engines: claim, renew, expiry and
 * takeover, the start timeout, one compositor per room, and a worker at capacity asking only for
 * its rooms. Times are given, not waited for: the helper takes `now`.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '#core/platform/db/database.ts';
import type { LeasedTasks } from '#core/platform/db/leased-tasks.ts';
import { LiveTaskRepository, type LiveTaskRow } from '#core/streaming/live.repository.ts';
import { RecordingRepository, type TaskRow } from '#core/recording/recording.repository.ts';
import { postgresAdminUrl } from '#tests/support/database.ts';
import { freshDatabase } from '#tests/support/engines.ts';
import { ENGINES } from '#tests/support/engines-matrix.ts';

const CONFIG = { RECORDING_LEASE_SECONDS: 6, RECORDING_START_TIMEOUT_SECONDS: 12 };
const T0 = new Date('2026-03-01T10:00:00Z');
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);

describe.each(ENGINES)('leased tasks [%s]', (engine) => {
  let h: DatabaseHandle;
  let record: LeasedTasks<TaskRow>;
  let live: LeasedTasks<LiveTaskRow>;
  let userId: string;

  beforeEach(async () => {
    h = await freshDatabase(engine, engine === 'postgres' ? postgresAdminUrl() : undefined);
    record = new RecordingRepository(h.db, CONFIG).leases;
    live = new LiveTaskRepository(h.db, CONFIG).leases;
    const user = await h.db
      .insertInto('users')
      .values({
        name: 'T',
        kind: 'tourist',
        mobile: null,
        promo_code: null,
        vip_room_time: null,
        vip_big_room_time: null,
        record_room_time: null,
        credit_window_until: null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    userId = user.id;
  });
  afterEach(async () => {
    await h.close();
  });

  let rooms = 0;
  async function room(): Promise<{ id: string; number: string }> {
    const number = String(800_000_000 + ++rooms);
    const r = await h.db
      .insertInto('rooms')
      .values({
        room_number: number,
        room_type: 2,
        create_user: userId,
        consumption: 'off',
        is_vip: '0',
        max_member: 10,
        state: 'open',
        created_at: T0,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return { id: r.id, number };
  }

  async function recordTask(createdAt = T0) {
    const r = await room();
    const t = await h.db
      .insertInto('record_tasks')
      .values({ room_id: r.id, room_number: r.number, user_id: userId, state: 'starting', created_at: createdAt })
      .returning('id')
      .executeTakeFirstOrThrow();
    return { taskId: t.id, room: r };
  }

  async function liveTask(r: { id: string; number: string }) {
    const t = await h.db
      .insertInto('live_tasks')
      .values({
        room_id: r.id,
        room_number: r.number,
        user_id: userId,
        platform: 'custom',
        push_secret: 'sealed',
        state: 'starting',
        created_at: T0,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return t.id;
  }

  const setState = (taskId: string, state: 'recording' | 'stopping' | 'done') =>
    h.db.updateTable('record_tasks').set({ state }).where('id', '=', taskId).execute();

  it('claims the oldest waiting task once, with a lease from now, and never the same task twice', async () => {
    const older = await recordTask(at(-2));
    const newer = await recordTask(at(-1));
    const first = await record.claim('w1', T0);
    expect(first).toMatchObject({ previousOwner: null, row: { id: older.taskId, owner: 'w1' } });
    expect(first!.row.lease_until).toEqual(at(6));
    const second = await record.claim('w2', T0);
    expect(second?.row.id).toBe(newer.taskId);
    expect(await record.claim('w3', T0)).toBeNull();
  });

  it('renews only for the owner and only while active, and a renewed lease is not taken over', async () => {
    const { taskId } = await recordTask();
    await record.claim('w1', T0);
    await setState(taskId, 'recording');
    expect(await record.renew(taskId, 'w2', at(5))).toBeUndefined();
    const renewed = await record.renew(taskId, 'w1', at(5));
    expect(renewed?.lease_until).toEqual(at(11));
    // Past the first lease but inside the renewed one: nobody takes it.
    expect(await record.claim('w2', at(8))).toBeNull();
    await setState(taskId, 'done');
    expect(await record.renew(taskId, 'w1', at(9))).toBeUndefined();
  });

  it('a running task whose lease ran out is taken over by the next claim, which learns who had it', async () => {
    const { taskId } = await recordTask();
    await record.claim('w1', T0);
    await setState(taskId, 'recording');
    // At the lease's last instant it is still held.
    expect(await record.claim('w2', at(6))).toBeNull();
    const taken = await record.claim('w2', at(6.001));
    expect(taken).toMatchObject({ previousOwner: 'w1', row: { id: taskId, owner: 'w2', state: 'recording' } });
    // The one who lost it can renew no more.
    expect(await record.renew(taskId, 'w1', at(7))).toBeUndefined();
    expect(await record.renew(taskId, 'w2', at(7))).toBeDefined();
  });

  it('a starting task waits for a worker until the start timeout, then only the timeout may fail it', async () => {
    const late = await recordTask(at(-12));
    expect(await record.claim('w1', T0)).toBeNull();
    expect(await record.waiting('w1', T0, [])).toEqual([]);
    const fresh = await recordTask(at(-11));
    expect((await record.waiting('w1', T0, [])).map((t) => t.id)).toEqual([fresh.taskId]);
    // Held with a live lease: the timeout leaves it; once the lease ran out, it fails.
    await record.claim('w1', T0);
    expect(await record.failUnheld(fresh.taskId, at(3), 'no recorder')).toBeUndefined();
    expect(await record.failUnheld(fresh.taskId, at(7), 'no recorder')).toMatchObject({ state: 'failed', lease_until: null });
    expect(await record.failUnheld(late.taskId, T0, 'no recorder')).toMatchObject({ state: 'failed', failure: 'no recorder' });
  });

  it('one compositor per room: a room whose push another worker holds is left to it, in both tables', async () => {
    const { taskId, room: r } = await recordTask();
    const pushId = await liveTask(r);
    expect((await live.claim('w1', T0))?.row.id).toBe(pushId);
    expect(await record.claim('w2', T0)).toBeNull();
    expect(await record.waiting('w2', T0, [])).toEqual([]);
    expect((await record.claim('w1', T0))?.row.id).toBe(taskId);
    // The other way round, once the push's lease ran out and w2 holds the recording.
    await h.db
      .updateTable('record_tasks')
      .set({ owner: 'w2', lease_until: at(100), state: 'recording' })
      .where('id', '=', taskId)
      .execute();
    await h.db.updateTable('live_tasks').set({ state: 'live' }).where('id', '=', pushId).execute();
    expect(await live.claim('w3', at(7))).toBeNull();
    expect((await live.claim('w2', at(7)))?.previousOwner).toBe('w1');
  });

  it('asks only for the rooms given (none: nothing), and counts what it leaves', async () => {
    const a = await recordTask(at(-2));
    const b = await recordTask(at(-1));
    expect(await record.claim('w1', T0, { onlyRooms: [] })).toBeNull();
    expect((await record.waiting('w1', T0, [a.room.number])).map((t) => t.id)).toEqual([b.taskId]);
    expect((await record.claim('w1', T0, { onlyRooms: [b.room.number] }))?.row.id).toBe(b.taskId);
  });

  it('writes the table’s own columns with the claim and the renewal, in the claim’s transaction', async () => {
    const { taskId } = await recordTask();
    const got = await record.claim('w1', T0, {
      startedAt: true,
      within: async (trx, row) =>
        (await trx.selectFrom('record_tasks').select('owner').where('id', '=', row.id).executeTakeFirstOrThrow()).owner,
    });
    expect(got?.within).toBe('w1');
    expect(got?.row.started_at).toEqual(T0);
    // Kept on a takeover.
    await setState(taskId, 'recording');
    expect((await record.claim('w2', at(7), { startedAt: true }))?.row.started_at).toEqual(T0);
    const r2 = await room();
    const pushId = await liveTask(r2);
    await live.claim('w1', T0);
    expect((await live.renew(pushId, 'w1', at(1), { kbps: 2500 }))?.kbps).toBe(2500);
  });
});
