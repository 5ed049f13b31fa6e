/**
 * The recording calls (issue 13): start and stop for the room's creator, the state for everyone in
 * the room, the owner's library (list, signed file links, delete, share links) and the shared
 * record for anyone holding a valid link. Another user's record is answered exactly like a missing
 * one. Timers (the start timeout, the package's allowance) come through the Scheduler port; a lost
 * timer is caught up by the reads that look at the room's task.
 */
import type { Viewer } from '../account/account.service.ts';
import type { BillingRepository } from '../billing/billing.repository.ts';
import type { Clock } from '../platform/clock.ts';
import type { Config } from '../platform/config.ts';
import { DomainError, notAllowed, roomNotFound } from '../platform/errors.ts';
import type { Logger } from '../platform/logger.ts';
import type { ObjectStore } from '../platform/objects.ts';
import type { RateLimiter } from '../platform/rate-limit.ts';
import type { TokenSigner } from '../platform/secrets.ts';
import type { Actor, Scheduler } from '../rooms/live.service.ts';
import type { LiveRepository } from '../rooms/live.repository.ts';
import {
  downloadFileName,
  videoExtensionOf,
  RECORD_SHARE_DAYS,
  RECORD_WATCH_PATH,
  type RecordingApiAnswers,
  type RecordRow,
  type RecordState,
} from '../contracts/recording.ts';
import { recordingAllowance } from './allowance.ts';
import type { RecordTasks } from './record-tasks.ts';
import type { RecordingRepository, RecordRowDb, TaskRow } from './recording.repository.ts';

type RecordingConfig = Pick<
  Config,
  'RECORDING_START_TIMEOUT_SECONDS' | 'RECORDING_LEASE_SECONDS' | 'ROOM_LOOKUPS_PER_MINUTE' | 'ROOM_LOOKUPS_PER_HOUR' | 'publicUrl'
>;

/** How long a signed file link lasts: a long recording is played (and seeked) on one link. */
const FILE_URL_TTL_SECONDS = 6 * 3600;
/** setTimeout's longest delay; a later allowance is checked again then. */
const MAX_TIMER_MS = 2_147_483_647;
const SHARE_SCOPE = 'record-share';

interface ShareClaims extends Record<string, unknown> {
  scope: string;
  fileId: string;
  userId: string;
}

const stateOf = (t: TaskRow | undefined): RecordState => (t?.state === 'recording' ? '1' : t?.state === 'starting' ? '2' : '0');

export class RecordingService {
  private readonly repo: RecordingRepository;
  readonly tasks: RecordTasks;
  private readonly live: { actorFor(viewer: { userId: string }, roomNumber: string): Promise<Actor> };
  private readonly rooms: Pick<LiveRepository, 'room'>;
  private readonly billing: Pick<BillingRepository, 'entitlements'>;
  private readonly objects: ObjectStore;
  private readonly signer: TokenSigner;
  private readonly limiter: RateLimiter;
  private readonly scheduler: Scheduler;
  private readonly clock: Clock;
  private readonly config: RecordingConfig;
  private readonly logger: Logger;

  constructor(o: {
    repo: RecordingRepository;
    tasks: RecordTasks;
    live: { actorFor(viewer: { userId: string }, roomNumber: string): Promise<Actor> };
    rooms: Pick<LiveRepository, 'room'>;
    billing: Pick<BillingRepository, 'entitlements'>;
    objects: ObjectStore;
    signer: TokenSigner;
    limiter: RateLimiter;
    scheduler: Scheduler;
    clock: Clock;
    config: RecordingConfig;
    logger: Logger;
  }) {
    this.repo = o.repo;
    this.tasks = o.tasks;
    this.live = o.live;
    this.rooms = o.rooms;
    this.billing = o.billing;
    this.objects = o.objects;
    this.signer = o.signer;
    this.limiter = o.limiter;
    this.scheduler = o.scheduler;
    this.clock = o.clock;
    this.config = o.config;
    this.logger = o.logger;
  }

  /** The open room and the caller's role in it (31002/31009/31004 as the room channel answers). */
  async #room(viewer: Viewer, roomNumber: string) {
    const actor = await this.live.actorFor(viewer, roomNumber);
    const room = await this.rooms.room(roomNumber);
    if (!room) throw roomNotFound();
    return { actor, room };
  }

  /** Starting tasks past the start timeout whose timer was lost (a restarted process) fail now. */
  async #catchUp(roomId: string): Promise<void> {
    const cutoff = new Date(this.clock.now().getTime() - this.config.RECORDING_START_TIMEOUT_SECONDS * 1000);
    for (const t of await this.repo.staleStarting(roomId, cutoff)) await this.tasks.failUnclaimed(t.id);
  }

  async startTask(viewer: Viewer, roomNumber: string): Promise<RecordingApiAnswers['startTask']> {
    const { actor, room } = await this.#room(viewer, roomNumber);
    if (actor.role !== 'creator' || room.create_user !== viewer.userId) throw notAllowed('creator only');
    if (room.room_type > 4) throw notAllowed('only classes are recorded in the cloud');
    await this.#catchUp(room.id);
    const now = this.clock.now();
    const user = await this.billing.entitlements(viewer.userId);
    const allowedUntil = user ? recordingAllowance(user, now) : null;
    if (!allowedUntil) throw new DomainError('37004');
    const task = await this.repo.insertTask({ roomId: room.id, roomNumber: room.room_number, userId: viewer.userId, now, allowedUntil });
    if (!task) throw new DomainError('37002');
    await this.tasks.setRoomState(task, '2');
    this.scheduler.after(this.config.RECORDING_START_TIMEOUT_SECONDS * 1000, () => this.#startTimeout(task.id));
    this.#watchAllowance(task.id, allowedUntil);
    return { taskId: task.id };
  }

  /** No recorder took it in time: roomRecordFailed. A recorder holding it is given its lease to start or let go. */
  async #startTimeout(taskId: string): Promise<void> {
    if ((await this.tasks.failUnclaimed(taskId)) === 'held') {
      this.scheduler.after(this.config.RECORDING_LEASE_SECONDS * 1000, () => this.#startTimeout(taskId));
    }
  }

  /** Stops the recording when the package's allowance ends (renew checks it too, should this timer be lost). */
  #watchAllowance(taskId: string, until: Date): void {
    const delay = until.getTime() - this.clock.now().getTime();
    if (delay > MAX_TIMER_MS) {
      this.scheduler.after(MAX_TIMER_MS, () => Promise.resolve(this.#watchAllowance(taskId, until)));
      return;
    }
    this.scheduler.after(Math.max(0, delay), async () => {
      const t = await this.repo.task(taskId);
      if (t && (t.state === 'starting' || t.state === 'recording')) {
        this.logger.info({ taskId }, 'recording stopped: the package allowance ended');
        await this.tasks.requestStop(taskId);
      }
    });
  }

  async stopTask(viewer: Viewer, roomNumber: string, taskId: string): Promise<RecordingApiAnswers['stopTask']> {
    const { actor, room } = await this.#room(viewer, roomNumber);
    if (actor.role !== 'creator' || room.create_user !== viewer.userId) throw notAllowed('creator only');
    const task = await this.repo.task(taskId);
    if (!task || task.room_id !== room.id || (task.state !== 'starting' && task.state !== 'recording')) throw new DomainError('37003');
    await this.tasks.requestStop(task.id);
    return {};
  }

  async getRoomMemberRecordState(viewer: Viewer, roomNumber: string): Promise<RecordingApiAnswers['getRoomMemberRecordState']> {
    const { room } = await this.#room(viewer, roomNumber);
    await this.#catchUp(room.id);
    const task = await this.repo.liveTaskOfRoom(room.id);
    const recordState = stateOf(task);
    // When it began, only while it records (a starting task may be claimed without media yet).
    const startedAt = recordState === '1' && task?.started_at ? { startedAt: task.started_at.getTime() } : {};
    return { recordState, taskId: task?.id ?? '', ...startedAt };
  }

  /**
   * A join answer's userRecordInfo with the running task's id (the creator's stop button needs it
   * after a reload); read only while the room records.
   */
  async joinRecordInfo(
    roomNumber: string,
    info: { taskId: string; recordState: RecordState },
  ): Promise<{ taskId: string; recordState: RecordState }> {
    if (info.recordState === '0') return info;
    const room = await this.rooms.room(roomNumber);
    const task = room ? await this.repo.liveTaskOfRoom(room.id) : undefined;
    return { taskId: task?.id ?? '', recordState: stateOf(task) };
  }

  /** The creator left, or the class ended: its recording stops. Never fails the caller (logged). */
  async stopRoom(roomId: string, why: 'creator left' | 'room closed'): Promise<void> {
    try {
      const task = await this.repo.liveTaskOfRoom(roomId);
      if (!task) return;
      this.logger.info({ taskId: task.id, why }, 'recording stopped with the room');
      await this.tasks.requestStop(task.id);
    } catch (err) {
      this.logger.error({ err, roomId, why }, 'stopping the room recording failed');
    }
  }

  #row(r: RecordRowDb): RecordRow {
    return {
      id: r.id,
      fileId: r.id,
      taskId: r.task_id ?? '',
      fileName: r.file_name,
      fileSize: r.file_size === null ? '' : String(r.file_size),
      durationMs: r.duration_ms,
      createTime: r.created_at.getTime(),
      type: r.type === 2 ? 2 : 1,
      roomNumber: r.room_number ?? '',
      ...(r.failure ? { failed: true } : {}),
    };
  }

  async getRecordList(
    viewer: Viewer,
    i: { recordType: 1 | 2; pageSize: number; pageTime: number | null },
  ): Promise<RecordingApiAnswers['getRecordList']> {
    const { rows, total } = await this.repo.list(
      viewer.userId,
      i.recordType,
      i.pageSize,
      i.pageTime === null ? null : new Date(i.pageTime),
    );
    return { recordList: rows.map((r) => this.#row(r)), total };
  }

  /** The caller's record; another user's id, a deleted one and a missing one are all 37001. */
  async #own(viewer: Viewer, fileId: string): Promise<RecordRowDb> {
    const r = await this.repo.ownRecord(viewer.userId, fileId);
    if (!r) throw new DomainError('37001');
    return r;
  }

  #sign(r: RecordRowDb, ttlSeconds: number, download: boolean): Promise<string> {
    if (!r.object_key) throw new DomainError('37005');
    return this.objects.signedGetUrl(
      r.object_key,
      ttlSeconds,
      download ? { downloadName: downloadFileName(r.file_name, videoExtensionOf(r.object_key)) } : undefined,
    );
  }

  async getRecordFileUrl(
    viewer: Viewer,
    i: { fileId: string; taskId?: string | undefined; download?: boolean | undefined },
  ): Promise<RecordingApiAnswers['getRecordFileUrl']> {
    const r = await this.#own(viewer, i.fileId);
    if (i.taskId && i.taskId !== r.task_id) throw new DomainError('37001');
    const fileUrl = await this.#sign(r, FILE_URL_TTL_SECONDS, i.download === true);
    return r.poster_key ? { fileUrl, posterUrl: await this.objects.signedGetUrl(r.poster_key, FILE_URL_TTL_SECONDS) } : { fileUrl };
  }

  /** The row and every object of it (the MP4 and the segments); not while its MP4 is still being made. */
  async delRecord(viewer: Viewer, fileId: string): Promise<RecordingApiAnswers['delRecord']> {
    const r = await this.#own(viewer, fileId);
    const task = r.task_id ? await this.repo.task(r.task_id) : undefined;
    if (!r.object_key && task && (task.state === 'starting' || task.state === 'recording' || task.state === 'stopping')) {
      throw new DomainError('37005');
    }
    const keys = new Set<string>();
    for (const key of [r.object_key, r.source_key, r.poster_key]) if (key) keys.add(key);
    if (r.task_id) for (const s of await this.repo.segments(r.task_id)) keys.add(s.key);
    for (const key of keys) await this.objects.delete(key);
    await this.repo.deleteRecord(r.id, r.task_id);
    return {};
  }

  async createRecordShareLink(viewer: Viewer, fileId: string): Promise<RecordingApiAnswers['createRecordShareLink']> {
    const r = await this.#own(viewer, fileId);
    if (!r.object_key) throw new DomainError('37005');
    const nowMs = this.clock.now().getTime();
    const ttl = RECORD_SHARE_DAYS * 86_400;
    const claims: ShareClaims = { scope: SHARE_SCOPE, fileId: r.id, userId: r.user_id };
    const token = this.signer.sign(claims, ttl, nowMs);
    return { url: `${this.config.publicUrl}${RECORD_WATCH_PATH}/${token}`, expiresAt: (Math.floor(nowMs / 1000) + ttl) * 1000 };
  }

  /** No session: a valid, unexpired link to a record that still exists. Counted per address like room look-ups. */
  async getSharedRecord(ip: string, token: string): Promise<RecordingApiAnswers['getSharedRecord']> {
    const key = `record-share:ip:${ip}`;
    const ok =
      (await this.limiter.hit(`${key}:m`, this.config.ROOM_LOOKUPS_PER_MINUTE, 60_000)) &&
      (await this.limiter.hit(`${key}:h`, this.config.ROOM_LOOKUPS_PER_HOUR, 3_600_000));
    if (!ok) throw new DomainError('37009');
    // Signature first (time 0: never expired), then the expiry, so a forged and an expired link differ.
    const claims = this.signer.verify<ShareClaims>(token, 0);
    if (!claims || claims.scope !== SHARE_SCOPE || typeof claims.fileId !== 'string' || typeof claims.userId !== 'string') {
      throw new DomainError('37006');
    }
    const nowMs = this.clock.now().getTime();
    if (claims.exp * 1000 < nowMs) throw new DomainError('37007');
    const r = await this.repo.ownRecord(claims.userId, claims.fileId);
    if (!r) throw new DomainError('37001');
    const ttl = Math.max(60, Math.min(FILE_URL_TTL_SECONDS, claims.exp - Math.floor(nowMs / 1000)));
    return {
      fileName: r.file_name,
      fileUrl: await this.#sign(r, ttl, false),
      fileSize: r.file_size === null ? '' : String(r.file_size),
      durationMs: r.duration_ms,
      createTime: r.created_at.getTime(),
    };
  }
}
