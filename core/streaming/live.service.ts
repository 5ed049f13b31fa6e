/**
 * The live streaming calls (issue 14, ADR 085): start and end for the room's creator, the state for
 * everyone in the room, the platforms for the creator's dialog. The key is checked here by the same
 * rule the dialog uses, sealed with the server's secret before it is stored, and never answered,
 * logged or told to the room.
 */
import type { Viewer } from '../account/account.service.ts';
import type { Clock } from '../platform/clock.ts';
import type { Config } from '../platform/config.ts';
import { DomainError, notAllowed, roomNotFound } from '../platform/errors.ts';
import type { Logger } from '../platform/logger.ts';
import type { Actor, Scheduler } from '../rooms/live.service.ts';
import type { LiveRepository } from '../rooms/live.repository.ts';
import { CUSTOM_PLATFORM, customPushUrlProblem, pushUrl, streamKeyProblem, type LiveApiAnswers } from '../contracts/streaming.ts';
import { seal } from './sealed.ts';
import { liveStatus, type LiveTasks } from './live-tasks.ts';

type StreamingConfig = Pick<Config, 'LIVE_PLATFORMS' | 'LIVE_CUSTOM_URL' | 'RECORDING_START_TIMEOUT_SECONDS' | 'RECORDING_LEASE_SECONDS'>;

/** The push address for a platform and what the teacher typed, or the live code that refuses it. */
export function pushAddress(
  config: Pick<Config, 'LIVE_PLATFORMS' | 'LIVE_CUSTOM_URL'>,
  platform: string,
  typed: string,
): { url: string } | { refused: '38001' | '38002' | '38005' | '38006' } {
  if (platform === CUSTOM_PLATFORM) {
    if (!config.LIVE_CUSTOM_URL) return { refused: '38002' };
    return customPushUrlProblem(typed) === null ? { url: typed.trim() } : { refused: '38005' };
  }
  const known = config.LIVE_PLATFORMS.find((p) => p.name === platform);
  if (!known) return { refused: '38002' };
  const problem = streamKeyProblem(typed);
  if (problem === 'empty') return { refused: '38006' };
  if (problem === 'malformed') return { refused: '38001' };
  return { url: pushUrl(known.url, typed) };
}

export class StreamingService {
  readonly tasks: LiveTasks;
  private readonly live: { actorFor(viewer: { userId: string }, roomNumber: string): Promise<Actor> };
  private readonly rooms: Pick<LiveRepository, 'room'>;
  private readonly scheduler: Scheduler;
  private readonly clock: Clock;
  private readonly config: StreamingConfig;
  private readonly logger: Logger;
  private readonly secret: string;

  constructor(o: {
    tasks: LiveTasks;
    live: { actorFor(viewer: { userId: string }, roomNumber: string): Promise<Actor> };
    rooms: Pick<LiveRepository, 'room'>;
    scheduler: Scheduler;
    clock: Clock;
    config: StreamingConfig;
    logger: Logger;
    secret: string;
  }) {
    this.tasks = o.tasks;
    this.live = o.live;
    this.rooms = o.rooms;
    this.scheduler = o.scheduler;
    this.clock = o.clock;
    this.config = o.config;
    this.logger = o.logger;
    this.secret = o.secret;
  }

  async #room(viewer: Viewer, roomNumber: string) {
    const actor = await this.live.actorFor(viewer, roomNumber);
    const room = await this.rooms.room(roomNumber);
    if (!room) throw roomNotFound();
    return { actor, room };
  }

  async #creatorRoom(viewer: Viewer, roomNumber: string) {
    const { actor, room } = await this.#room(viewer, roomNumber);
    if (actor.role !== 'creator' || room.create_user !== viewer.userId) throw notAllowed('creator only');
    return room;
  }

  /** Starting tasks past the start timeout whose timer was lost (a restarted process) fail now. */
  async #catchUp(roomId: string): Promise<void> {
    const now = this.clock.now();
    const cutoff = new Date(now.getTime() - this.config.RECORDING_START_TIMEOUT_SECONDS * 1000);
    for (const t of await this.tasks.repo.staleStarting(roomId, cutoff, now)) await this.tasks.failUnclaimed(t.id);
  }

  async startLive(viewer: Viewer, roomNumber: string, platform: string, typed: string): Promise<LiveApiAnswers['startLive']> {
    const room = await this.#creatorRoom(viewer, roomNumber);
    const address = pushAddress(this.config, platform, typed);
    if ('refused' in address) throw new DomainError(address.refused, `platform ${platform.slice(0, 64)}`);
    await this.#catchUp(room.id);
    const task = await this.tasks.repo.insertTask({
      roomId: room.id,
      roomNumber: room.room_number,
      userId: viewer.userId,
      platform,
      pushSecret: seal(this.secret, address.url),
      now: this.clock.now(),
    });
    if (!task) throw new DomainError('38003');
    this.logger.info({ taskId: task.id, room: room.room_number, platform }, 'live stream asked');
    await this.tasks.tell(task);
    this.scheduler.after(this.config.RECORDING_START_TIMEOUT_SECONDS * 1000, () => this.#startTimeout(task.id));
    return { taskId: task.id };
  }

  /** No recorder took it in time: it fails with 'timeout'. A recorder holding it is given its lease to go live or let go. */
  async #startTimeout(taskId: string): Promise<void> {
    if ((await this.tasks.failUnclaimed(taskId)) === 'held') {
      this.scheduler.after(this.config.RECORDING_LEASE_SECONDS * 1000, () => this.#startTimeout(taskId));
    }
  }

  async endLive(viewer: Viewer, roomNumber: string): Promise<LiveApiAnswers['endLive']> {
    const room = await this.#creatorRoom(viewer, roomNumber);
    const task = await this.tasks.repo.activeOfRoom(room.id);
    if (!task || !(await this.tasks.end(task.id))) throw new DomainError('38004');
    this.logger.info({ taskId: task.id, room: room.room_number }, 'live stream ended by the teacher');
    return {};
  }

  async getLiveState(viewer: Viewer, roomNumber: string): Promise<LiveApiAnswers['getLiveState']> {
    const { room } = await this.#room(viewer, roomNumber);
    await this.#catchUp(room.id);
    return liveStatus(await this.tasks.repo.activeOfRoom(room.id));
  }

  async getLivePlatforms(viewer: Viewer, roomNumber: string): Promise<LiveApiAnswers['getLivePlatforms']> {
    await this.#creatorRoom(viewer, roomNumber);
    return { platforms: this.config.LIVE_PLATFORMS.map((p) => p.name), custom: this.config.LIVE_CUSTOM_URL };
  }

  /** The creator left, or the class ended: the push ends. Never fails the caller (logged). */
  async stopRoom(roomId: string, why: 'creator left' | 'room closed'): Promise<void> {
    try {
      const task = await this.tasks.repo.activeOfRoom(roomId);
      if (!task) return;
      if (await this.tasks.end(task.id)) this.logger.info({ taskId: task.id, why }, 'live stream ended with the room');
    } catch (err) {
      this.logger.error({ err, roomId, why }, 'ending the room live stream failed');
    }
  }
}
