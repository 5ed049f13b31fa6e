/**
 * The live room: what happens on the room channel. Every request names its actor (from the signed
 * room token); the rule is checked here, the change saved, then broadcast through the event bus.
 * Presence (who is connected now) and timers come through ports, so the same rules serve one
 * process or many. The stage and the raised hands are room-stage.ts.
 */
import type { Clock } from '../platform/clock.ts';
import type { Config } from '../platform/config.ts';
import { DomainError, notAllowed, removedFromRoom, roomNotFound } from '../platform/errors.ts';
import { roomMessage, seatMessage, type EventBus } from '../platform/events.ts';
import { TokenBuckets } from '../platform/memory-rate-limit.ts';
import type { RoomInfo, RoomType } from '../contracts/api.ts';
import type { RoomCourseware } from '../contracts/courseware.ts';
import type { classToolsSnapshotFields } from '../contracts/class-tools.ts';
import type { groupsSnapshotFields } from '../contracts/groups.ts';
import type { StageState } from '../contracts/stage.ts';
import type { RoomEndings } from './room-endings.ts';
import {
  CHAT_HISTORY,
  VIEWS,
  type ChatMessage,
  type Member,
  type Role,
  type RoomPatch,
  type RoomSnapshot,
  type ServerToClient,
} from '../contracts/room-events.ts';
import type { AccountRepository } from '../account/account.repository.ts';
import { toViewer } from '../account/account.service.ts';
import type { LiveRepository, LiveRoomRow } from './live.repository.ts';
import type { RoomStatePatch } from './room-state.repository.ts';
import type { RoomService } from './room.service.ts';
import { ROOM_NUMBER_RULE } from './room.schema.ts';
import { RoomCache, type RoomState } from './room-state.ts';
import { demoEnded, demoOver } from './demo-rules.ts';
import { can, type ClassMode } from './capabilities.ts';
import { RoomStage } from './room-stage.ts';
import type { StageRepository } from './stage.repository.ts';

export interface Actor {
  room: string;
  uid: string;
  role: Role;
}

/** Who is connected to a room right now (across every web node). */
export interface Presence {
  online(roomNumber: string): Promise<Array<{ userId: string; networkQuality: number }>>;
}

/** The breakout groups as the live room leans on them (core/groups, ADR 116). */
export interface LiveGroupsPort {
  /** Where this person's chat line goes: their group's seats and the teacher, or null for the main room. */
  chatRoute(roomNumber: string, uid: string): Promise<{ group: number; round: number; seats: string[] } | null>;
  /** The group lines this person's join snapshot holds besides the main room's. */
  chatSeen(roomNumber: string, uid: string): Promise<{ round: number; groups: number[] }>;
  /** A kicked student leaves their group. */
  release(roomNumber: string, uid: string): Promise<void>;
}

export interface Scheduler {
  after(ms: number, task: () => Promise<void>): void;
}

type LiveConfig = Pick<
  Config,
  | 'MIC_TIMEOUT_SECONDS'
  | 'CHAT_MESSAGES_PER_10S'
  | 'ROOM_IDLE_HOURS'
  | 'TRIAL_MINUTES'
  | 'STAGE_SEATS_LARGE_CLASS'
  | 'STAGE_SEATS_OTHER'
  | 'HANDS_PER_MINUTE'
>;

export { VIEWS };
const CREATOR_FIELDS = ['showState', 'pptId', 'pptCurrentPage', 'wbPower', 'roomExtend'] as const;

/** How long a room row read on a hot path (chat, patches) is reused; any change of the room drops it (RoomState). */
const ROOM_ROW_TTL_MS = 1000;
/** Activity is recorded at most this often per room (it only feeds idle-room housekeeping). */
const TOUCH_EVERY_MS = 60_000;

/**
 * The server's word on the trial for this room and role (capabilities.ts `can('trial')`, the rule
 * the More menu offers it by): 'ok', 'not-offered' (not a free type 1 or 4 room's creator) or 'used'.
 */
export function trialDecision(
  room: { room_type: number; is_vip: '0' | '1'; trial_started_at: Date | null },
  role: Actor['role'],
): 'ok' | 'not-offered' | 'used' {
  const rule = { roomType: room.room_type as RoomType, role, isVip: room.is_vip === '1' };
  if (!can('trial', rule)) return 'not-offered';
  return can('trial', { ...rule, trialUsed: room.trial_started_at !== null }) ? 'ok' : 'used';
}

export class RoomLiveService {
  /** The courseware a joining member sees in the snapshot. */
  private readonly courseware: { roomCourseware(roomNumber: string): Promise<RoomCourseware> } | null;
  /** Told when the creator leaves or the class ends: cloud recording and live streaming stop with it. */
  private readonly endings: RoomEndings;
  readonly #rowCache: RoomCache<LiveRoomRow>;
  readonly #touchedAt = new Map<string, number>();
  /** The room's stage and raised hands (room-stage.ts, ADR 112). */
  readonly stage: RoomStage;
  /**
   * Chat lines per person (ADR 058): in this process by default; with REDIS_URL the composition
   * puts buckets shared by every web node here (ADR 096).
   */
  chatBuckets: { take(key: string): boolean | Promise<boolean> };
  /** The breakout groups (ADR 116): chat by place, a kicked student out of their group; set by the composition. */
  groups: LiveGroupsPort | null = null;
  private readonly repo: LiveRepository;
  private readonly state: RoomState;
  private readonly accounts: AccountRepository;
  private readonly rooms: RoomService;
  private readonly bus: EventBus;
  private readonly presence: Presence;
  private readonly scheduler: Scheduler;
  private readonly clock: Clock;
  private readonly config: LiveConfig;
  constructor(
    repo: LiveRepository,
    state: RoomState,
    accounts: AccountRepository,
    rooms: RoomService,
    bus: EventBus,
    presence: Presence,
    scheduler: Scheduler,
    clock: Clock,
    config: LiveConfig,
    more: {
      endings: RoomEndings;
      stage: StageRepository;
      courseware?: { roomCourseware(roomNumber: string): Promise<RoomCourseware> } | null;
    },
  ) {
    this.endings = more.endings;
    this.courseware = more.courseware ?? null;
    this.repo = repo;
    this.state = state;
    this.accounts = accounts;
    this.rooms = rooms;
    this.bus = bus;
    this.presence = presence;
    this.scheduler = scheduler;
    this.clock = clock;
    this.config = config;
    // CHAT_MESSAGES_PER_10S at once, then one line per 10 s / CHAT_MESSAGES_PER_10S (ADR 058).
    this.chatBuckets = new TokenBuckets(clock, config.CHAT_MESSAGES_PER_10S, config.CHAT_MESSAGES_PER_10S / 10_000);
    this.#rowCache = new RoomCache(state, ROOM_ROW_TTL_MS, 10_000, () => clock.now().getTime());
    this.stage = new RoomStage({ repo: more.stage, live: repo, bus, presence, scheduler, clock, config });
  }

  close(): void {
    this.#rowCache.close();
  }

  #emit<E extends keyof ServerToClient>(room: string, event: E, payload: Parameters<ServerToClient[E]>[0]): void {
    this.bus.publish(roomMessage(room, event, payload));
  }

  async #openRoom(roomNumber: string): Promise<LiveRoomRow> {
    if (!ROOM_NUMBER_RULE.test(roomNumber)) throw roomNotFound();
    const room = await this.repo.room(roomNumber);
    if (!room) throw roomNotFound();
    if (room.state !== 'open') throw new DomainError('31009');
    if (demoOver(room, this.clock.now())) throw demoEnded();
    return room;
  }

  /** The open room for hot paths that only need its id and creator: shared for a second. */
  async #openRoomShared(roomNumber: string): Promise<Pick<LiveRoomRow, 'id' | 'room_number' | 'create_user'>> {
    return this.#rowCache.get(roomNumber, () => this.#openRoom(roomNumber));
  }

  async #touch(roomId: string): Promise<void> {
    const now = this.clock.now();
    const last = this.#touchedAt.get(roomId) ?? 0;
    if (now.getTime() - last < TOUCH_EVERY_MS) return;
    this.#touchedAt.set(roomId, now.getTime());
    if (this.#touchedAt.size > 10_000) this.#touchedAt.delete(this.#touchedAt.keys().next().value!);
    await this.state.touch(roomId, now);
  }

  #requireCreator(actor: Actor, room: Pick<LiveRoomRow, 'create_user'>): void {
    if (actor.role !== 'creator' || room.create_user !== actor.uid) throw notAllowed('creator only');
  }

  /** The actor of an /api call: the user's role in that room, from the room and the membership. */
  async actorFor(viewer: { userId: string }, roomNumber: string): Promise<Actor> {
    const room = await this.#openRoom(roomNumber);
    if (room.create_user === viewer.userId) return { room: roomNumber, uid: viewer.userId, role: 'creator' };
    const m = await this.repo.membership(room.id, viewer.userId);
    if (m?.kicked_at) throw removedFromRoom();
    if (!m) throw notAllowed('not a member');
    return { room: roomNumber, uid: viewer.userId, role: m.role };
  }

  /** May this token connect at all? Closed rooms and kicked people are refused. */
  async admit(actor: Actor): Promise<void> {
    const room = await this.#openRoom(actor.room);
    if (actor.role === 'recorder') return;
    const m = await this.repo.membership(room.id, actor.uid);
    if (!m) throw notAllowed('not a member');
    if (m.kicked_at) throw removedFromRoom();
  }

  /** The channel's join: take (or keep) a seat under the cap; the channel then sends the snapshot. */
  async seat(actor: Actor): Promise<void> {
    await this.admit(actor);
    if (actor.role !== 'observer' && actor.role !== 'recorder') {
      const user = await this.accounts.findUserById(actor.uid);
      if (!user) throw notAllowed('unknown user');
      await this.rooms.join(toViewer(user), { roomNumber: actor.room });
    }
  }

  /** The room's own part of the join snapshot; the channel adds the class tools' (core/tools, ADR 113). */
  async snapshot(actor: Actor): Promise<Omit<RoomSnapshot, keyof typeof classToolsSnapshotFields | keyof typeof groupsSnapshotFields>> {
    const room = await this.#openRoom(actor.room);
    const [roomInfo, { members, teacherOnline }, messages, stage, courseware] = await Promise.all([
      this.#freshInfo(actor.room),
      this.#members(room),
      this.#history(room, actor.uid),
      this.stage.current(room),
      this.courseware?.roomCourseware(actor.room),
    ]);
    // The recorder (ADR 109) has no account: its id is not a user's.
    const me = actor.role === 'recorder' ? null : await this.accounts.findUserById(actor.uid);
    return {
      roomInfo,
      you: { userId: actor.uid, name: me?.name ?? '', role: actor.role },
      members,
      messages,
      stage,
      teacherOnline,
      serverTime: this.clock.now().getTime(),
      ...(courseware ? { courseware } : {}),
    };
  }

  async #freshInfo(roomNumber: string): Promise<RoomInfo> {
    return this.rooms.roomInfoNow(roomNumber);
  }

  async #members(room: LiveRoomRow): Promise<{ members: Member[]; teacherOnline: boolean }> {
    const [seated, online] = await Promise.all([this.repo.seated(room.id), this.presence.online(room.room_number)]);
    const quality = new Map(online.map((o) => [o.userId, o.networkQuality]));
    const members: Member[] = seated
      .filter((s) => quality.has(s.user_id))
      .map((s) => ({
        userId: s.user_id,
        name: s.name,
        role: s.role,
        networkQuality: quality.get(s.user_id) ?? 0,
        online: true,
      }));
    return { members, teacherOnline: quality.has(room.create_user) };
  }

  /** Tells everyone who is here now; the channel calls it after each connect and disconnect. */
  async publishMembers(roomNumber: string): Promise<void> {
    if (!ROOM_NUMBER_RULE.test(roomNumber)) return;
    const room = await this.repo.room(roomNumber);
    if (!room || room.state !== 'open') return;
    const { members, teacherOnline } = await this.#members(room);
    this.#emit(roomNumber, 'members', { members, teacherOnline, participants: members.length });
  }

  /** The main room's last lines, with the lines of this person's group of the running round (the teacher: every group's; ADR 116). */
  async #history(room: LiveRoomRow, uid: string): Promise<ChatMessage[]> {
    const seen = this.groups ? await this.groups.chatSeen(room.room_number, uid) : { round: 0, groups: [] };
    const rows = await this.repo.lastChats(room.id, CHAT_HISTORY, seen);
    return rows.map((r) => ({
      id: r.id,
      uid: r.user_id,
      name: r.name,
      text: r.text,
      at: r.created_at.getTime(),
      ...(r.group_no !== null ? { group: r.group_no } : {}),
    }));
  }

  /**
   * A room patch (parsed by roomPatchSchema), field by field against the sender's role; saved, then
   * broadcast. A reported networkQuality is kept with the connection by the channel once this
   * answers (presence), not in the room row.
   */
  async patch(actor: Actor, raw: RoomPatch): Promise<Partial<RoomInfo>> {
    const room = await this.#openRoomShared(actor.room);
    const wantsCreatorField = CREATOR_FIELDS.some((f) => f in raw);
    if (wantsCreatorField) this.#requireCreator(actor, room);

    const applied: Partial<RoomInfo> = {};
    const db: RoomStatePatch = {};
    if (raw.showState !== undefined) db.show_state = applied.showState = raw.showState;
    if (raw.pptId !== undefined) db.ppt_id = applied.pptId = raw.pptId;
    if (raw.pptCurrentPage !== undefined) db.ppt_current_page = applied.pptCurrentPage = raw.pptCurrentPage;
    if (raw.wbPower !== undefined) db.wb_power = applied.wbPower = raw.wbPower;
    if (raw.roomExtend !== undefined) db.room_extend = applied.roomExtend = raw.roomExtend;
    if (Object.keys(db).length) {
      await this.state.patchRoom(room.id, db, this.clock.now());
      this.#emit(actor.room, 'customRoomEvent', { ...applied, by: actor.uid });
    }
    return applied;
  }

  /**
   * The class mode (ADR 099), the creator's alone: lecture closes the students' microphones (the
   * media node holds them, unless the student holds the microphone by invitation); discuss opens
   * them again within the room type's rights. Saved, then told to the room as a room-info patch.
   */
  async setMode(actor: Actor, mode: ClassMode): Promise<{ mode: ClassMode }> {
    const room = await this.#openRoom(actor.room);
    this.#requireCreator(actor, room);
    if (await this.state.setMode(room.id, mode)) this.#emit(actor.room, 'customRoomEvent', { mode, by: actor.uid });
    return { mode };
  }

  /**
   * A chat line, as chatTextSchema leaves it (NFC, trimmed, 1..CHAT_MAX_CHARS). From the room channel the author is the socket's joined member (`author`, taken
   * at join; a kick-out disconnects it), so a line costs one insert; without it the membership is
   * read.
   */
  async chat(actor: Actor, text: string, author?: { name: string }): Promise<ChatMessage> {
    if (actor.role === 'observer' || actor.role === 'recorder') throw notAllowed('observers do not chat');
    const room = await this.#openRoomShared(actor.room);
    let name = author?.name;
    if (name === undefined) {
      const m = await this.repo.membership(room.id, actor.uid);
      if (!m || m.kicked_at) throw notAllowed('not a member');
      name = m.name;
    }
    if (!(await this.chatBuckets.take(`${room.id}:${actor.uid}`))) throw new DomainError('31008');
    // While breakout groups run a line goes to the sender's place (ADR 116): a group's line only to its members and the teacher.
    const route = this.groups ? await this.groups.chatRoute(actor.room, actor.uid) : null;
    const row = await this.repo.insertChat({
      room_id: room.id,
      user_id: actor.uid,
      name,
      text,
      created_at: this.clock.now(),
      group_no: route?.group ?? null,
      group_round: route?.round ?? null,
    });
    await this.#touch(room.id);
    const message: ChatMessage = {
      id: row.id,
      uid: actor.uid,
      name,
      text,
      at: row.created_at.getTime(),
      ...(route ? { group: route.group } : {}),
    };
    if (route) for (const seat of route.seats) this.bus.publish(seatMessage(actor.room, seat, 'messageevent', message));
    else this.#emit(actor.room, 'messageevent', message);
    return message;
  }

  /** A student raises their hand (ADR 112); the teacher and observers have none. */
  async raiseHand(actor: Actor): Promise<StageState> {
    const room = await this.#openRoom(actor.room);
    if ((actor.role !== 'member' && actor.role !== 'tourist') || room.create_user === actor.uid) throw notAllowed('students raise hands');
    return this.stage.raise(room, actor.uid);
  }

  /** A student lowers their own hand; the teacher anyone's. */
  async lowerHand(actor: Actor, target?: string): Promise<StageState> {
    const room = await this.#openRoom(actor.room);
    const whose = target ?? actor.uid;
    if (whose !== actor.uid) this.#requireCreator(actor, room);
    return this.stage.lower(room, whose);
  }

  /** The teacher brings a student up: an invitation through the same flow as the old microphone's. */
  async inviteStage(actor: Actor, targetId: string): Promise<StageState> {
    const room = await this.#openRoom(actor.room);
    this.#requireCreator(actor, room);
    return this.stage.invite(room, targetId);
  }

  /** The invited student answers; nobody answers for another (the invitation is looked up by the asker). */
  async answerStage(actor: Actor, agree: boolean): Promise<StageState> {
    return this.stage.answer(await this.#openRoom(actor.room), actor.uid, agree);
  }

  /** The teacher takes anyone down (or withdraws an invitation); a student only steps down themself. */
  async stageDown(actor: Actor, targetId: string): Promise<StageState> {
    const room = await this.#openRoom(actor.room);
    if (targetId !== actor.uid) this.#requireCreator(actor, room);
    return this.stage.down(room, [targetId]);
  }

  /** The teacher takes everyone down. */
  async stageAllDown(actor: Actor): Promise<StageState> {
    const room = await this.#openRoom(actor.room);
    this.#requireCreator(actor, room);
    return this.stage.down(room);
  }

  /** The teacher's carousel (0: off). */
  async setCarousel(actor: Actor, seconds: number): Promise<StageState> {
    const room = await this.#openRoom(actor.room);
    this.#requireCreator(actor, room);
    return this.stage.setCarousel(room, seconds);
  }

  /** Kick-out: the seat is gone and stays gone for this class; the channel disconnects them. */
  async kick(actor: Actor, targetId: string): Promise<void> {
    const room = await this.#openRoom(actor.room);
    this.#requireCreator(actor, room);
    if (targetId === room.create_user) throw new DomainError('31005', 'the teacher cannot be kicked');
    const member = await this.repo.membership(room.id, targetId);
    if (!member || member.kicked_at) throw new DomainError('31005', 'not a member');
    const now = this.clock.now();
    if (!(await this.repo.kick(room.id, targetId, now))) throw new DomainError('31005');
    await this.stage.release(room, targetId);
    await this.groups?.release(actor.room, targetId);
    this.state.seatsChanged(actor.room);
    this.#emit(actor.room, 'kickout', { userId: targetId });
  }

  /** Leaving frees the seat; the teacher leaving also takes the shared view back to the videos. */
  async leave(actor: Actor): Promise<void> {
    if (!ROOM_NUMBER_RULE.test(actor.room)) return;
    const room = await this.repo.room(actor.room);
    if (!room) return;
    const now = this.clock.now();
    await this.repo.leave(room.id, actor.uid, now);
    this.state.seatsChanged(actor.room);
    if (room.state === 'open' && actor.role === 'creator' && room.create_user === actor.uid) {
      await this.state.patchRoom(room.id, { show_state: '' }, now);
      this.#emit(actor.room, 'customRoomEvent', { showState: '', by: actor.uid });
      await this.endings.ended(room.id, 'creator left');
    }
    if (room.state === 'open') await this.stage.release(room, actor.uid);
  }

  /** The last connection of a person dropped: their seat is free until they come back. */
  async disconnected(actor: Actor): Promise<void> {
    const room = await this.repo.room(actor.room);
    if (!room || actor.role === 'creator' || actor.role === 'observer' || actor.role === 'recorder') return;
    await this.repo.leave(room.id, actor.uid, this.clock.now());
    this.state.seatsChanged(actor.room);
  }

  async end(actor: Actor): Promise<void> {
    const room = await this.#openRoom(actor.room);
    this.#requireCreator(actor, room);
    await this.#close(room.id, room.room_number, 'ended');
  }

  /** "My classrooms": the creator ends an open class from the list, as the classroom's end does (31004 for others). */
  async endFromList(viewer: { userId: string }, roomNumber: string): Promise<null> {
    const room = await this.#openRoom(roomNumber);
    this.#requireCreator({ room: roomNumber, uid: viewer.userId, role: room.create_user === viewer.userId ? 'creator' : 'member' }, room);
    await this.#close(room.id, room.room_number, 'ended');
    return null;
  }

  /** Marks the open rooms of a list where someone is connected now. */
  async markLive<T extends { roomNumber: string; state: 'open' | 'closed'; live: boolean }>(list: T[]): Promise<T[]> {
    return Promise.all(
      list.map(async (r) => (r.state === 'open' ? { ...r, live: (await this.presence.online(r.roomNumber)).length > 0 } : r)),
    );
  }

  async #close(roomId: string, roomNumber: string, reason: 'ended' | 'expired' | 'idle'): Promise<void> {
    if (await this.state.close(roomId, this.clock.now())) {
      this.#emit(roomNumber, 'roomClosed', { reason });
      await this.endings.ended(roomId, 'room closed');
    }
  }

  /**
   * The one-time 10-minute trial of the paid cap (docs/product/decisions.md): the creator of a
   * free type 1 or 4 room, once; the rule is capabilities.ts `can('trial')`, as for the button.
   */
  async startTrial(actor: Actor): Promise<{ trialEndsAt: number }> {
    const room = await this.#openRoom(actor.room);
    this.#requireCreator(actor, room);
    const decision = trialDecision(room, actor.role);
    if (decision === 'not-offered') throw notAllowed('the trial is for free mini and large classes');
    if (decision === 'used') throw notAllowed('the trial was used');
    const now = this.clock.now();
    if (!(await this.state.startTrial(room.id, now))) throw notAllowed('the trial was used');
    const info = await this.#freshInfo(actor.room);
    const trialEndsAt = now.getTime() + this.config.TRIAL_MINUTES * 60_000;
    this.#emit(actor.room, 'customRoomEvent', { maxMember: info.maxMember, maxOrdinary: info.maxOrdinary, by: actor.uid });
    this.scheduler.after(this.config.TRIAL_MINUTES * 60_000, async () => {
      const after = await this.#freshInfo(actor.room).catch(() => null);
      if (after) this.#emit(actor.room, 'customRoomEvent', { maxMember: after.maxMember, maxOrdinary: after.maxOrdinary, by: '' });
    });
    return { trialEndsAt };
  }

  /** Housekeeping: audio classes past their hour and rooms idle for ROOM_IDLE_HOURS close. */
  async closeExpired(): Promise<number> {
    const now = this.clock.now();
    const rows = await this.repo.expiredRooms(now, new Date(now.getTime() - this.config.ROOM_IDLE_HOURS * 3600_000));
    for (const r of rows) await this.#close(r.id, r.room_number, r.timed_out ? 'expired' : 'idle');
    return rows.length;
  }
}
