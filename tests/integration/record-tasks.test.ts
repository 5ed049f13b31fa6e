/**
 * The recording task store (ADR 071) on both engines: claims with FOR UPDATE SKIP LOCKED, the
 * lease and its take-over with resumed segments, the stop signal through renew, the start timeout
 * the claim query respects, and the package's allowance ending a recording (ADR 072).
 */
import { expect, it } from 'vitest';
import { RecordTaskLost, segmentKey } from '#core/recording/record-tasks.ts';
import { call } from '#tests/support/api.ts';
import { eachEngine } from '#tests/support/engines-matrix.ts';
import { busLog, recordingClass, roomRecordState, taskRow } from '#tests/support/recording.ts';
import type { TestServer } from '#tests/support/server.ts';

const tasksOf = (server: TestServer) => server.banshu.platform.services.recordTasks;

async function started(server: TestServer) {
  const c = await recordingClass(server);
  const r = await call(server.url, 'startTask', { roomNumber: c.roomNumber }, { token: c.teacher.token });
  expect(r.code).toBe('0');
  return { ...c, taskId: r.data.taskId };
}

const seg = (userId: string, taskId: string, seq: number) => ({
  seq,
  key: segmentKey(userId, taskId, seq),
  durationMs: 4000,
  bytes: 1000 + seq,
});

eachEngine('record tasks', (server, engine) => {
  it('two recorders claiming at once never take the same task', async () => {
    const s = server();
    const rooms = await Promise.all([started(s), started(s), started(s)]);
    const claims = await Promise.all(['r1', 'r2', 'r3', 'r4', 'r5', 'r6'].map((o) => tasksOf(s).claim(o)));
    const won = claims.filter((c) => c !== null);
    expect(won).toHaveLength(3);
    expect(new Set(won.map((c) => c.taskId))).toEqual(new Set(rooms.map((r) => r.taskId)));
    for (const c of won) expect(c).toMatchObject({ state: 'starting', resumed: false, nextSeq: 0 });
    // Each task has exactly the owner that won it.
    const owners = await Promise.all(won.map((c) => taskRow(s, c.taskId)));
    expect(new Set(owners.map((o) => o.owner)).size).toBe(3);
    expect(await tasksOf(s).claim('r7')).toBeNull();
  });

  // PGlite has one connection: a second transaction cannot hold a lock beside the claim.
  it.runIf(engine === 'postgres')('a task locked by another claimer is skipped, not waited for (SKIP LOCKED)', async () => {
    const s = server();
    const first = await started(s);
    const second = await started(s);
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let locked!: () => void;
    const lockTaken = new Promise<void>((r) => (locked = r));
    const other = s.banshu.platform.database.db.transaction().execute(async (trx) => {
      await trx.selectFrom('record_tasks').select('id').where('id', '=', first.taskId).forUpdate().execute();
      locked();
      await held;
    });
    await lockTaken;
    try {
      const claim = tasksOf(s).claim('r1');
      const blocked = new Promise<'blocked'>((r) => setTimeout(() => r('blocked'), 5000).unref());
      const got = await Promise.race([claim, blocked]);
      expect(got).not.toBe('blocked');
      expect(got).toMatchObject({ taskId: second.taskId });
    } finally {
      release();
      await other;
    }
    expect((await tasksOf(s).claim('r2'))?.taskId).toBe(first.taskId);
  });

  it('started: recordState 1 and roomRecord; an expired lease is taken over with resumed and the next seq', async () => {
    const s = server();
    const { roomNumber, teacher, taskId } = await started(s);
    const bus = busLog(s);
    const a = await tasksOf(s).claim('rec-a');
    expect(a).toMatchObject({ taskId, roomNumber, userId: teacher.userId, resumed: false, nextSeq: 0 });
    await tasksOf(s).started(taskId, 'rec-a');
    expect(await roomRecordState(s, roomNumber)).toBe('1');
    const startedAt = (await taskRow(s, taskId)).started_at!.getTime();
    expect(bus).toContainEqual({
      target: { room: roomNumber },
      event: 'roomRecord',
      payload: { code: '0', taskId, recordState: '1', startedAt },
    });
    expect(bus).toContainEqual({ target: { room: roomNumber }, event: 'customRoomEvent', payload: { recordState: '1', by: '' } });
    await tasksOf(s).addSegment(taskId, 'rec-a', seg(teacher.userId, taskId, 0));
    await tasksOf(s).addSegment(taskId, 'rec-a', seg(teacher.userId, taskId, 1));
    // A segment outside the task's prefix is refused.
    await expect(
      tasksOf(s).addSegment(taskId, 'rec-a', { ...seg(teacher.userId, taskId, 2), key: 'records/1/2/seg-000002.ts' }),
    ).rejects.toThrow();

    // The lease is alive: nobody else gets it.
    expect(await tasksOf(s).claim('rec-b')).toBeNull();
    expect(await tasksOf(s).renew(taskId, 'rec-a')).toBe('recording');
    s.clock.advance(6_001);
    const b = await tasksOf(s).claim('rec-b');
    expect(b).toMatchObject({ taskId, state: 'recording', resumed: true, nextSeq: 2 });
    // The stale owner hears 'lost' and can write nothing any more.
    expect(await tasksOf(s).renew(taskId, 'rec-a')).toBe('lost');
    await expect(tasksOf(s).addSegment(taskId, 'rec-a', seg(teacher.userId, taskId, 2))).rejects.toBeInstanceOf(RecordTaskLost);
    await tasksOf(s).addSegment(taskId, 'rec-b', seg(teacher.userId, taskId, 2));
    // A resumed recording calling started again announces nothing new.
    await tasksOf(s).started(taskId, 'rec-b');
    expect(bus.filter((m) => m.event === 'roomRecord')).toHaveLength(1);
    expect((await tasksOf(s).segments(taskId)).map((x) => x.seq)).toEqual([0, 1, 2]);
  });

  it('renew says stopping after stopTask; finish lists the MP4 and tells the owner', async () => {
    const s = server();
    const { roomNumber, teacher, taskId } = await started(s);
    const bus = busLog(s);
    await tasksOf(s).claim('rec-a');
    await tasksOf(s).started(taskId, 'rec-a');
    await tasksOf(s).addSegment(taskId, 'rec-a', seg(teacher.userId, taskId, 0));
    expect((await call(s.url, 'stopTask', { roomNumber, taskId }, { token: teacher.token })).code).toBe('0');
    expect(await roomRecordState(s, roomNumber)).toBe('0');
    expect(await tasksOf(s).renew(taskId, 'rec-a')).toBe('stopping');
    // Listed at once, transcoding.
    const listed = await call(s.url, 'getRecordList', { recordType: 2, pageSize: 10 }, { token: teacher.token });
    expect(listed.data.total).toBe(1);
    expect(listed.data.recordList[0]).toMatchObject({ taskId, fileSize: '', roomNumber, type: 2 });
    const fileId = listed.data.recordList[0]!.fileId;
    const key = await tasksOf(s).finalKey(taskId, 'rec-a');
    expect(key).toBe(`records/${teacher.userId}/${taskId}/${fileId}.mp4`);
    // Not the owner: refused.
    await expect(tasksOf(s).finish(taskId, 'rec-b', { key, bytes: 5000, durationMs: 60_000 })).rejects.toBeInstanceOf(RecordTaskLost);
    await tasksOf(s).finish(taskId, 'rec-a', { key, bytes: 5000, durationMs: 60_000 });
    expect(bus).toContainEqual({ target: { user: teacher.userId }, event: 'roomRecord', payload: { code: '0', taskId, fileId } });
    const after = await call(s.url, 'getRecordList', { recordType: 2, pageSize: 10 }, { token: teacher.token });
    expect(after.data.recordList[0]).toMatchObject({ fileId, fileSize: '5000', durationMs: 60_000 });
    expect((await taskRow(s, taskId)).state).toBe('done');
    expect(await tasksOf(s).renew(taskId, 'rec-a')).toBe('lost');
  });

  it('the claim refuses a starting task past the start timeout; a failure before the start tells the room', async () => {
    const s = server();
    const late = await started(s);
    s.clock.advance(15_001);
    expect(await tasksOf(s).claim('rec-a')).toBeNull();
    // The timeout's conditional update wins over nothing: it fails the task and the room goes back to '0'.
    const bus = busLog(s);
    expect(await tasksOf(s).failUnclaimed(late.taskId)).toBe('failed');
    expect(await roomRecordState(s, late.roomNumber)).toBe('0');
    expect(bus).toContainEqual({
      target: { room: late.roomNumber },
      event: 'roomRecordFailed',
      payload: { taskId: late.taskId, reason: 'timeout' },
    });

    // A claimed task is not the timeout's to fail; its recorder gives up itself.
    const fresh = await started(s);
    await tasksOf(s).claim('rec-b');
    expect(await tasksOf(s).failUnclaimed(fresh.taskId)).toBe('held');
    await tasksOf(s).fail(fresh.taskId, 'rec-b', 'the SFU is gone');
    expect(await taskRow(s, fresh.taskId)).toMatchObject({ state: 'failed', failure: 'the SFU is gone' });
    expect(await roomRecordState(s, fresh.roomNumber)).toBe('0');
    expect(bus).toContainEqual({
      target: { room: fresh.roomNumber },
      event: 'roomRecordFailed',
      payload: { taskId: fresh.taskId, reason: 'failed' },
    });
  });

  it('waiting lists what a claim could take, outside the rooms asked, and takes nothing (a full recorder counts its refusals, ADR 105)', async () => {
    const s = server();
    const a = await started(s);
    const b = await started(s);
    const mine = async (except: string[] = []) =>
      (await tasksOf(s).waiting('rec-a', except))
        .filter((t) => t.taskId === a.taskId || t.taskId === b.taskId)
        // Both were created at the same (manual) instant: in the order they were started.
        .sort((x, y) => (x.taskId === a.taskId ? -1 : y.taskId === a.taskId ? 1 : 0));
    expect(await mine()).toEqual([
      { taskId: a.taskId, roomNumber: a.roomNumber },
      { taskId: b.taskId, roomNumber: b.roomNumber },
    ]);
    expect(await mine([a.roomNumber])).toEqual([{ taskId: b.taskId, roomNumber: b.roomNumber }]);
    expect((await taskRow(s, b.taskId)).owner).toBeNull();
    // A task held under a live lease waits for nobody; once its lease lapsed it waits again.
    expect(await tasksOf(s).claim('rec-b', [a.roomNumber])).toMatchObject({ taskId: a.taskId });
    expect(await mine()).toEqual([{ taskId: b.taskId, roomNumber: b.roomNumber }]);
    s.clock.advance(6_001);
    expect((await mine()).map((t) => t.taskId)).toEqual([a.taskId, b.taskId]);
    // Past the start timeout the claim refuses a 'starting' task, and waiting does not list it.
    await tasksOf(s).started(a.taskId, 'rec-b');
    s.clock.advance(9_000);
    expect((await mine()).map((t) => t.taskId)).toEqual([a.taskId]);
    expect(await tasksOf(s).claim('rec-c', [b.roomNumber])).toBeNull();
  });

  it('a recorder giving up after the stop takes the transcoding row out of the library', async () => {
    const s = server();
    const { roomNumber, teacher, taskId } = await started(s);
    await tasksOf(s).claim('rec-a');
    await tasksOf(s).started(taskId, 'rec-a');
    expect((await call(s.url, 'stopTask', { roomNumber, taskId }, { token: teacher.token })).code).toBe('0');
    expect((await call(s.url, 'getRecordList', { recordType: 2, pageSize: 10 }, { token: teacher.token })).data.total).toBe(1);
    const bus = busLog(s);
    await tasksOf(s).fail(taskId, 'rec-a', 'the join failed');
    expect((await call(s.url, 'getRecordList', { recordType: 2, pageSize: 10 }, { token: teacher.token })).data.total).toBe(0);
    // The room was told at the stop; a failure after it says nothing more.
    expect(bus).toEqual([]);
  });

  it('the package allowance ends a recording: renew says stopping once it passed', async () => {
    const s = server();
    const { roomNumber, taskId } = await started(s);
    await tasksOf(s).claim('rec-a');
    await tasksOf(s).started(taskId, 'rec-a');
    const row = await taskRow(s, taskId);
    expect(row.allowed_until).not.toBeNull();
    s.clock.set(row.allowed_until!.getTime() + 1);
    expect(await tasksOf(s).renew(taskId, 'rec-a')).toBe('stopping');
    expect(await roomRecordState(s, roomNumber)).toBe('0');
    expect((await taskRow(s, taskId)).record_id).not.toBeNull();
  });
});
