/**
 * The task store of live streaming (ADR 085), as the recorders and the calls use it: recorders
 * claim a task with a lease they renew, report it live, reconnecting or failed; the teacher and the
 * class end it. The room follows through RoomState (liveState) and the room channel (roomLive,
 * which never carries the key nor the address).
 */
import type { Clock } from '../platform/clock.ts';
import { roomMessage, type EventBus } from '../platform/events.ts';
import type { RoomState } from '../rooms/room-state.ts';
import type { LiveFailure, LiveState, LiveStatus } from '../contracts/streaming.ts';
import { unseal } from './sealed.ts';
import type { LiveTaskRepository, LiveTaskRow } from './live.repository.ts';

export interface ClaimedLive {
  taskId: string;
  roomNumber: string;
  platform: string;
  /** The address to push to, key included: for the pusher's arguments only, never logged. */
  pushUrl: string;
  resumed: boolean;
  startedAt: Date | null;
}

const stateOf = (t: Pick<LiveTaskRow, 'state'> | undefined): LiveState =>
  t?.state === 'live' || t?.state === 'reconnecting' ? '1' : t?.state === 'starting' ? '2' : '0';

/** What the room is told of a task (no key, no address). */
export function liveStatus(t: LiveTaskRow | undefined, failure?: LiveFailure): LiveStatus {
  if (!t) return { taskId: '', liveState: '0', platform: '', startedAt: null, kbps: 0, reconnecting: false };
  const liveState = failure || t.state === 'done' || t.state === 'failed' ? '0' : stateOf(t);
  return {
    taskId: t.id,
    liveState,
    platform: t.platform,
    startedAt: liveState === '1' && t.started_at ? t.started_at.getTime() : null,
    kbps: liveState === '1' ? t.kbps : 0,
    reconnecting: liveState === '1' && t.state === 'reconnecting',
    ...(failure ? { failure } : {}),
  };
}

export class LiveTasks {
  readonly repo: LiveTaskRepository;
  private readonly state: RoomState;
  private readonly bus: EventBus;
  private readonly clock: Clock;
  private readonly secret: string;

  constructor(repo: LiveTaskRepository, state: RoomState, bus: EventBus, clock: Clock, secret: string) {
    this.repo = repo;
    this.state = state;
    this.bus = bus;
    this.clock = clock;
    this.secret = secret;
  }

  /** Tells the room: liveState through RoomState, the status as roomLive. */
  async tell(t: LiveTaskRow, failure?: LiveFailure): Promise<void> {
    const status = liveStatus(t, failure);
    await this.state.setLiveState(t.room_id, status.liveState);
    this.bus.publish(roomMessage(t.room_number, 'roomLive', status));
  }

  /** Like the recording's claim (record-tasks.ts); `onlyRooms`: only tasks of those rooms. */
  async claim(owner: string, onlyRooms?: string[]): Promise<ClaimedLive | null> {
    const got = await this.repo.leases.claim(owner, this.clock.now(), { onlyRooms });
    if (!got) return null;
    const { row } = got;
    let url: string;
    try {
      url = unseal(this.secret, row.push_secret);
    } catch {
      // Sealed with another secret (a recorder set up with a different SESSION_SECRET): it can never push this.
      await this.fail(row.id, owner, 'failed', 'the push address could not be opened (SESSION_SECRET differs)');
      return null;
    }
    return {
      taskId: row.id,
      roomNumber: row.room_number,
      platform: row.platform,
      pushUrl: url,
      resumed: got.previousOwner !== null,
      startedAt: row.started_at,
    };
  }

  /** Extends the lease with the bitrate; 'ended' when the task ended or another owner has it. */
  async renew(taskId: string, owner: string, kbps: number): Promise<'active' | 'ended'> {
    const row = await this.repo.leases.renew(taskId, owner, this.clock.now(), { kbps: Math.max(0, Math.min(1_000_000, Math.round(kbps))) });
    if (!row) return 'ended';
    if (row.state !== 'starting') this.bus.publish(roomMessage(row.room_number, 'roomLive', liveStatus(row)));
    return 'active';
  }

  /** A read between renewals: whether the teacher ended it (so the push stops within a fraction of a second). */
  async peek(taskId: string, owner: string): Promise<'active' | 'ended'> {
    const t = await this.repo.task(taskId);
    return t && t.owner === owner && (t.state === 'starting' || t.state === 'live' || t.state === 'reconnecting') ? 'active' : 'ended';
  }

  /** Bytes reach the platform: live (started_at kept across a reconnect or a takeover). */
  async live(taskId: string, owner: string): Promise<void> {
    const row = await this.repo.move(taskId, owner, 'live', this.clock.now());
    if (row) await this.tell(row);
  }

  /** The platform was lost; the pusher tries again. */
  async reconnecting(taskId: string, owner: string): Promise<void> {
    const row = await this.repo.move(taskId, owner, 'reconnecting');
    if (row) await this.tell(row);
  }

  /** The pusher gave up (a refused key, retries ran out, a broken session). */
  async fail(taskId: string, owner: string, why: LiveFailure, detail: string): Promise<void> {
    const before = await this.repo.end(taskId, 'failed', this.clock.now(), `${why}: ${detail}`, { owner });
    if (before) await this.tell({ ...before, state: 'failed' }, why);
  }

  /** The teacher, the creator leaving or the class ending. False when nothing was active. */
  async end(taskId: string): Promise<boolean> {
    const before = await this.repo.end(taskId, 'done', this.clock.now(), null);
    if (!before) return false;
    await this.tell({ ...before, state: 'done' });
    return true;
  }

  /** The start timeout: a task still 'starting' that no recorder holds fails ('timeout'). */
  async failUnclaimed(taskId: string): Promise<'failed' | 'held' | 'done'> {
    const failed = await this.repo.leases.failUnheld(taskId, this.clock.now(), 'timeout: no recorder took it in time');
    if (failed) {
      await this.tell(failed, 'timeout');
      return 'failed';
    }
    return (await this.repo.task(taskId))?.state === 'starting' ? 'held' : 'done';
  }
}
