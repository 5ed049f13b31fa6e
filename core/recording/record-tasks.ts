/**
 * The task store of cloud recording (ADR 071): recorders poll `claim` every second and hold a task
 * with a lease they renew; a task whose lease ran out is taken over by the next claim and resumed
 * from its next segment. Each state change is one conditional write checked against the owner, and
 * the room follows through RoomState (recordState) and the room channel (roomRecord,
 * roomRecordFailed, the customRoomEvent patch).
 */
import type { Clock } from '../platform/clock.ts';
import { roomMessage, userMessage, type EventBus } from '../platform/events.ts';
import type { RoomState } from '../rooms/room-state.ts';
import type { RecordState } from '../contracts/recording.ts';
import { mp4Schema, segmentSchema } from './recording.schema.ts';
import type { RecordingRepository, TaskRow, Trx } from './recording.repository.ts';

export interface ClaimedTask {
  taskId: string;
  roomNumber: string;
  userId: string;
  state: 'starting' | 'recording' | 'stopping';
  /** Someone owned it before (a crash or a restart). */
  resumed: boolean;
  /** max(seq)+1 of record_segments, 0 for a new task. */
  nextSeq: number;
  startedAt: Date | null;
}

export interface Segment {
  seq: number;
  key: string;
  durationMs: number;
  bytes: number;
}

/** The task is not this owner's any more (taken over, stopped before it started, failed or done). */
export class RecordTaskLost extends Error {
  override name = 'RecordTaskLost';
}

/** Where a task's objects live: `records/<userId>/<taskId>/`. */
export const taskPrefix = (userId: string, taskId: string) => `records/${userId}/${taskId}/`;
export const segmentKey = (userId: string, taskId: string, seq: number) =>
  `${taskPrefix(userId, taskId)}seg-${String(seq).padStart(6, '0')}.ts`;
export const mp4Key = (userId: string, taskId: string, fileId: string) => `${taskPrefix(userId, taskId)}${fileId}.mp4`;

/** Record types (docs/product): 1 a studio recording made in the browser, 2 a cloud recording of a class. */
export const RECORD_TYPE_STUDIO = 1;
export const RECORD_TYPE_CLASS = 2;

/** The library's name of a class recording: the room and when it began (UTC). */
export function recordFileName(roomNumber: string, at: Date): string {
  const stamp = at.toISOString().slice(0, 19).replace(/[-:]/g, '').replace('T', '-');
  return `${roomNumber}-${stamp}.mp4`;
}

export class RecordTasks {
  private readonly repo: RecordingRepository;
  private readonly state: RoomState;
  private readonly bus: EventBus;
  private readonly clock: Clock;

  constructor(repo: RecordingRepository, state: RoomState, bus: EventBus, clock: Clock) {
    this.repo = repo;
    this.state = state;
    this.bus = bus;
    this.clock = clock;
  }

  /** The room's recordState, saved through RoomState and told to the room as a patch. */
  async setRoomState(task: Pick<TaskRow, 'room_id' | 'room_number'>, to: RecordState, from?: RecordState[]): Promise<void> {
    if (await this.state.setRecordState(task.room_id, to, from)) {
      this.bus.publish(roomMessage(task.room_number, 'customRoomEvent', { recordState: to, by: '' }));
    }
  }

  /**
   * A 'starting' task younger than the start timeout, or a 'recording'/'stopping' task whose lease
   * expired; with `onlyRooms`, only of those rooms (a full recorder takes work for the rooms it composes).
   */
  async claim(owner: string, onlyRooms?: string[]): Promise<ClaimedTask | null> {
    const got = await this.repo.leases.claim(owner, this.clock.now(), {
      onlyRooms,
      startedAt: true,
      within: (trx, row) => this.repo.nextSeq(trx, row.id),
    });
    if (!got) return null;
    const { row } = got;
    return {
      taskId: row.id,
      roomNumber: row.room_number,
      userId: row.user_id,
      state: row.state as ClaimedTask['state'],
      resumed: got.previousOwner !== null,
      nextSeq: got.within ?? 0,
      startedAt: row.started_at,
    };
  }

  /**
   * The tasks `owner` could claim now outside `exceptRooms`, without taking them: what a recorder at
   * its capacity leaves to the others counts them as refusals (ADR 105).
   */
  async waiting(owner: string, exceptRooms: string[] = []): Promise<Array<{ taskId: string; roomNumber: string }>> {
    const rows = await this.repo.leases.waiting(owner, this.clock.now(), exceptRooms);
    return rows.map((r) => ({ taskId: r.id, roomNumber: r.room_number }));
  }

  /**
   * Extends the lease. 'stopping' when a stop was asked (or the package's allowance ran out, which
   * asks it now); 'lost' when another owner has it or it ended.
   */
  async renew(taskId: string, owner: string): Promise<'recording' | 'stopping' | 'lost'> {
    const now = this.clock.now();
    const row = await this.repo.leases.renew(taskId, owner, now);
    if (!row) return 'lost';
    if (row.state === 'stopping') return 'stopping';
    if (row.allowed_until && row.allowed_until.getTime() <= now.getTime()) {
      await this.requestStop(taskId);
      const after = await this.repo.task(taskId);
      return after?.state === 'stopping' && after.owner === owner ? 'stopping' : 'lost';
    }
    return 'recording';
  }

  /**
   * A read between renewals (no write): whether a stop was asked, so a recording ends within a
   * fraction of a second of the teacher's click rather than at the next renewal.
   */
  async peek(taskId: string, owner: string): Promise<'recording' | 'stopping' | 'lost'> {
    const t = await this.repo.task(taskId);
    if (!t || t.owner !== owner || t.state === 'done' || t.state === 'failed') return 'lost';
    return t.state === 'stopping' ? 'stopping' : 'recording';
  }

  /** When the stop was asked (null: not asked): the recorder cuts what it recorded after it. */
  async stopRequestedAt(taskId: string): Promise<Date | null> {
    return (await this.repo.task(taskId))?.stop_requested_at ?? null;
  }

  /** First media flowing: starting -> recording, recordState '1' (through RoomState), room event roomRecord with startedAt. */
  async started(taskId: string, owner: string, at?: Date): Promise<void> {
    // `at`: the recorder's first frame (a busy process reports it a moment later).
    const now = this.clock.now();
    const when = at && at.getTime() <= now.getTime() && now.getTime() - at.getTime() < 60_000 ? at : now;
    const row = await this.repo.markStarted(taskId, owner, when);
    if (!row) {
      // A resumed task that was recording already: nothing to announce again.
      const now = await this.repo.task(taskId);
      if (now?.owner === owner && (now.state === 'recording' || now.state === 'stopping')) return;
      throw new RecordTaskLost(`task ${taskId} is not ${owner}'s to start`);
    }
    await this.setRoomState(row, '1', ['2']);
    // started_at is when the first frame was composed (kept across a resume): the creator's elapsed time counts from it.
    const startedAt = (row.started_at ?? this.clock.now()).getTime();
    this.bus.publish(roomMessage(row.room_number, 'roomRecord', { code: '0', taskId, recordState: '1', startedAt }));
  }

  /** Runs `fn` in a transaction holding the task, only while `owner` holds it in one of `states`. */
  async #owned(taskId: string, owner: string, states: TaskRow['state'][], fn: (trx: Trx, t: TaskRow) => Promise<void>): Promise<TaskRow> {
    return this.repo.db.transaction().execute(async (trx) => {
      const t = await this.repo.lockTask(trx, taskId);
      if (!t || t.owner !== owner || !states.includes(t.state)) throw new RecordTaskLost(`task ${taskId} is not ${owner}'s`);
      await fn(trx, t);
      return t;
    });
  }

  /** The records row of a task, made now if the stop has not made it yet. */
  async #recordOf(trx: Trx, t: TaskRow, now: Date): Promise<string> {
    if (t.record_id) return t.record_id;
    const rec = await this.repo.insertRecord(trx, {
      userId: t.user_id,
      taskId: t.id,
      roomNumber: t.room_number,
      fileName: recordFileName(t.room_number, t.started_at ?? t.created_at),
      type: RECORD_TYPE_CLASS,
      now,
    });
    await this.repo.setTask(trx, t.id, { record_id: rec.id });
    return rec.id;
  }

  async addSegment(taskId: string, owner: string, s: Segment): Promise<void> {
    const seg = segmentSchema.parse(s);
    await this.#owned(taskId, owner, ['starting', 'recording', 'stopping'], async (trx, t) => {
      if (!seg.key.startsWith(taskPrefix(t.user_id, taskId))) throw new Error(`segment key outside the task: ${seg.key}`);
      await this.repo.upsertSegment(trx, taskId, seg, this.clock.now());
    });
  }

  segments(taskId: string): Promise<Segment[]> {
    return this.repo.segments(taskId);
  }

  /**
   * Where the joined MP4 goes (`records/<userId>/<taskId>/<fileId>.mp4`): the records row is made
   * here if the stop has not made it yet (a recording that ends without a stop, e.g. a broken session).
   */
  async finalKey(taskId: string, owner: string): Promise<string> {
    let key = '';
    await this.#owned(taskId, owner, ['recording', 'stopping'], async (trx, t) => {
      key = mp4Key(t.user_id, taskId, await this.#recordOf(trx, t, this.clock.now()));
    });
    return key;
  }

  /** The MP4 is in the store: records row gets key, size, duration; task done; user event roomRecord. */
  async finish(taskId: string, owner: string, mp4: { key: string; bytes: number; durationMs: number }): Promise<void> {
    const file = mp4Schema.parse(mp4);
    const now = this.clock.now();
    let fileId = '';
    const t = await this.#owned(taskId, owner, ['recording', 'stopping'], async (trx, t) => {
      if (!file.key.startsWith(taskPrefix(t.user_id, taskId)) || !file.key.endsWith('.mp4'))
        throw new Error(`MP4 key outside the task: ${file.key}`);
      fileId = await this.#recordOf(trx, t, now);
      await this.repo.completeRecord(trx, fileId, file);
      await this.repo.setTask(trx, taskId, { state: 'done', finished_at: now, lease_until: null });
    });
    if (t.state === 'recording') await this.setRoomState(t, '0', ['1', '2']);
    this.bus.publish(userMessage(t.user_id, 'roomRecord', { code: '0', taskId, fileId }));
  }

  /** Gives up: state failed; recordState '0'; roomRecordFailed to the room when it never started. */
  async fail(taskId: string, owner: string, reason: string): Promise<void> {
    const now = this.clock.now();
    const t = await this.#owned(taskId, owner, ['starting', 'recording', 'stopping'], async (trx, t) => {
      await this.repo.setTask(trx, taskId, { state: 'failed', failure: reason.slice(0, 500), finished_at: now, lease_until: null });
      // A stopped recording listed as 'transcoding' will never get its MP4: it leaves the library.
      if (t.record_id) await this.repo.hideRecord(trx, t.record_id, now);
    });
    if (t.state === 'stopping') return;
    await this.setRoomState(t, '0', ['1', '2']);
    if (t.state === 'starting') this.bus.publish(roomMessage(t.room_number, 'roomRecordFailed', { taskId, reason: 'failed' }));
  }

  /**
   * A stop (the creator, the creator leaving, the class ending, the package's allowance): a task
   * still starting fails quietly; a recording one goes to 'stopping' and its records row is made
   * now (size null: 'transcoding'). recordState '0'. Null when there was nothing to stop.
   */
  async requestStop(taskId: string): Promise<{ state: 'stopping' | 'failed'; fileId: string | null } | null> {
    const now = this.clock.now();
    const out = await this.repo.db.transaction().execute(async (trx) => {
      const t = await this.repo.lockTask(trx, taskId);
      if (!t) return null;
      if (t.state === 'starting') {
        await this.repo.setTask(trx, taskId, {
          state: 'failed',
          failure: 'stopped before it started',
          finished_at: now,
          lease_until: null,
        });
        return { t, state: 'failed' as const, fileId: null };
      }
      if (t.state !== 'recording') return null;
      const fileId = await this.#recordOf(trx, t, now);
      await this.repo.setTask(trx, taskId, { state: 'stopping', stop_requested_at: now });
      // The recorder holding it hears it at once (ADR 109); its lease renewal is the net.
      await this.repo.wakeRecorders(t.room_number, trx);
      return { t, state: 'stopping' as const, fileId };
    });
    if (!out) return null;
    await this.setRoomState(out.t, '0', ['1', '2']);
    return { state: out.state, fileId: out.fileId };
  }

  /**
   * The start timeout: a task still 'starting' that no recorder holds fails, with roomRecordFailed
   * and recordState '0'. 'held' when a recorder has it (it is checked again later), 'done' otherwise.
   */
  async failUnclaimed(taskId: string): Promise<'failed' | 'held' | 'done'> {
    const row = await this.repo.leases.failUnheld(taskId, this.clock.now(), 'no recorder took it in time');
    if (row) {
      await this.setRoomState(row, '0', ['1', '2']);
      this.bus.publish(roomMessage(row.room_number, 'roomRecordFailed', { taskId, reason: 'timeout' }));
      return 'failed';
    }
    const now = await this.repo.task(taskId);
    return now?.state === 'starting' ? 'held' : 'done';
  }
}
