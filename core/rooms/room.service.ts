/**
 * Rooms: create with the caps and payment rules of docs/product/decisions.md, look up, join (members and
 * tourists) with the cap enforced under a row lock, and the creator's list.
 */
import { randomInt } from 'node:crypto';
import type { Clock } from '../platform/clock.ts';
import type { Config } from '../platform/config.ts';
import { DomainError, illegalParams, notAllowed, removedFromRoom, roomFull, roomNotFound } from '../platform/errors.ts';
import type { TokenSigner } from '../platform/secrets.ts';
import type { RateLimiter } from '../platform/rate-limit.ts';
import { RECORDER_USER_ID } from '../contracts/media-signaling.ts';
import { invitePath, OBSERVER_TOKEN_PARAM, type JoinAnswer, type RoomInfo, type RoomListItem, type RoomType } from '../contracts/api.ts';
import type { AccountService, Viewer } from '../account/account.service.ts';
import { toUserInfo, toViewer } from '../account/account.service.ts';
import { normaliseName } from '../account/account.schema.ts';
import type { BillingService } from '../billing/billing.service.ts';
import type { OpenRoomRow, RoomRepository, Trx } from './room.repository.ts';
import { ROOM_NUMBER_RULE } from './room.schema.ts';
import type { MediaService } from './media.service.ts';
import { RoomCache, type RoomState } from './room-state.ts';
import type { NewRoom } from './room-state.repository.ts';
import { demoEnded, demoOver } from './demo-rules.ts';

type RoomConfig = Pick<
  Config,
  | 'FREE_MINI_CAP'
  | 'PAID_MINI_CAP'
  | 'WHITEBOARD_CAP'
  | 'AUDIO_CAP'
  | 'AUDIO_SESSION_MINUTES'
  | 'LIVE_FREE_CAP'
  | 'TRIAL_MINUTES'
  | 'TOURIST_JOINS_PER_MINUTE'
  | 'ROOM_INFO_CACHE_MS'
  | 'OBSERVER_LINK_HOURS'
  | 'publicUrl'
  | 'OBSERVER_NAME'
>;

const INFO_CACHE_MAX = 10_000;

/** How long the room-channel and board tokens of a join answer live. */
export const ROOM_TOKEN_TTL_SECONDS = 12 * 3600;

export interface RoomTokenPayload extends Record<string, unknown> {
  scope: 'room' | 'board';
  room: string;
  uid: string;
  /** 'recorder': the cloud recorder's hidden seat (recorderTokens). */
  role: JoinAnswer['role'] | 'recorder';
  ut: JoinAnswer['userType'];
}

/** How long the recorder's room and board tokens live: it signs new ones for each connection (ADR 109). */
export const RECORDER_TOKEN_TTL_SECONDS = 300;

export class RoomService {
  readonly #infoCache: RoomCache<RoomInfo>;
  private readonly repo: RoomRepository;
  private readonly state: RoomState;
  private readonly account: AccountService;
  private readonly billing: BillingService;
  private readonly signer: TokenSigner;
  private readonly limiter: RateLimiter;
  private readonly clock: Clock;
  private readonly config: RoomConfig;
  /** Media access for join answers (none without media nodes). */
  private readonly media: MediaService | null;
  constructor(
    repo: RoomRepository,
    state: RoomState,
    account: AccountService,
    billing: BillingService,
    signer: TokenSigner,
    limiter: RateLimiter,
    clock: Clock,
    config: RoomConfig,
    media: MediaService | null,
  ) {
    this.media = media;
    this.repo = repo;
    this.state = state;
    this.account = account;
    this.billing = billing;
    this.signer = signer;
    this.limiter = limiter;
    this.clock = clock;
    this.config = config;
    this.#infoCache = new RoomCache(state, config.ROOM_INFO_CACHE_MS, INFO_CACHE_MAX, () => clock.now().getTime());
  }

  close(): void {
    this.#infoCache.close();
  }

  #requireTeacher(viewer: Viewer) {
    if (viewer.type !== '1') throw notAllowed('only signed-in teachers create rooms');
  }

  /** The cap in force now: the trial lifts a free room to the paid cap for its minutes. */
  #capNow(room: Pick<OpenRoomRow, 'room_type' | 'max_member' | 'trial_started_at'>): number {
    // The trial (docs/product/decisions.md): a type 1 or 4 room has the paid cap for its minutes.
    if (room.trial_started_at && (room.room_type === 1 || room.room_type === 4)) {
      const trialEnd = room.trial_started_at.getTime() + this.config.TRIAL_MINUTES * 60_000;
      if (this.clock.now().getTime() < trialEnd) return Math.max(room.max_member, this.config.PAID_MINI_CAP);
    }
    return room.max_member;
  }

  toRoomInfo(r: OpenRoomRow): RoomInfo {
    const cap = this.#capNow(r);
    return {
      roomNumber: r.room_number,
      roomType: r.room_type as RoomType,
      createUser: r.create_user,
      createUserIdNumber: r.create_user,
      createUserName: r.creator_name,
      maxMember: cap,
      maxOrdinary: String(cap - 1),
      isVIP: r.is_vip,
      consumption: r.consumption,
      showState: r.show_state,
      wbPower: r.wb_power,
      roomExtend: r.room_extend,
      pptId: r.ppt_id,
      pptCurrentPage: r.ppt_current_page,
      participants: Number(r.participants ?? 0),
      state: r.state,
      createTime: r.created_at.getTime(),
      endsAt: r.ends_at ? r.ends_at.getTime() : 0,
      isRecordStatus: r.is_record_status,
      recordState: r.record_state,
      liveState: r.live_state,
      mode: r.class_mode,
      trialEndsAt: r.trial_started_at ? r.trial_started_at.getTime() + this.config.TRIAL_MINUTES * 60_000 : 0,
    };
  }

  async createRoom(
    viewer: Viewer,
    input: { roomType: RoomType; consumption: 'on' | 'off'; requestId?: string | undefined },
  ): Promise<RoomInfo> {
    this.#requireTeacher(viewer);
    const { roomType } = input;
    const now = this.clock.now();
    const requestId = input.requestId && /^[A-Za-z0-9_-]{8,64}$/.test(input.requestId) ? input.requestId : undefined;
    const roomNumber = await this.state.transaction(async (trx) => {
      if (requestId) {
        const fresh = await this.repo.claimIdempotencyKey(trx, viewer.userId, 'createRoom', requestId, now);
        if (!fresh) {
          const prior = await this.repo.idempotentResponse(trx, viewer.userId, 'createRoom', requestId);
          const stored = prior?.response as { roomNumber?: string } | null | undefined;
          if (stored?.roomNumber) return stored.roomNumber;
          throw new DomainError('31001', 'duplicate request without an answer');
        }
      }
      const { cap, paid } = await this.#entitle(trx, viewer.userId, roomType, input.consumption);
      const number = await this.#insertWithFreshNumber(trx, {
        room_type: roomType,
        create_user: viewer.userId,
        consumption: input.consumption,
        is_vip: paid ? '1' : '0',
        max_member: cap,
        created_at: now,
      });
      if (requestId) await this.repo.storeIdempotentResponse(trx, viewer.userId, 'createRoom', requestId, { roomNumber: number });
      return number;
    });
    const room = await this.repo.findOpenRoom(roomNumber);
    if (!room) throw new DomainError('31001', 'room vanished after create');
    return this.toRoomInfo(room);
  }

  async #entitle(trx: Trx, userId: string, roomType: RoomType, consumption: 'on' | 'off'): Promise<{ cap: number; paid: boolean }> {
    const c = this.config;
    switch (roomType) {
      case 1:
        if (consumption === 'off') return { cap: c.FREE_MINI_CAP, paid: false };
        await this.billing.entitleMiniClass(trx, userId);
        return { cap: c.PAID_MINI_CAP, paid: true };
      case 2:
        return { cap: c.WHITEBOARD_CAP, paid: false };
      case 3:
        return { cap: c.AUDIO_CAP, paid: false };
      case 4: {
        const people = await this.billing.bigClassPeople(trx, userId);
        return people ? { cap: people, paid: true } : { cap: c.LIVE_FREE_CAP, paid: false };
      }
    }
  }

  async #insertWithFreshNumber(trx: Trx, values: Omit<NewRoom, 'room_number'>): Promise<string> {
    for (let attempt = 0; attempt < 30; attempt++) {
      const number = String(randomInt(100_000, 1_000_000));
      const row = await this.state.insertRoom(trx, { ...values, room_number: number });
      if (row) return number;
    }
    throw new DomainError('31001', 'no free room number');
  }

  /**
   * Room info for look-ups (the join box, polling while a socket is down). Many people ask for
   * the same room at once, so answers are shared for ROOM_INFO_CACHE_MS; any change of the room,
   * on this node or another, drops the entry at once (RoomState, ADR 062).
   */
  getRoomInfo(roomNumber: string): Promise<RoomInfo> {
    if (!ROOM_NUMBER_RULE.test(roomNumber)) return Promise.reject(roomNotFound());
    return this.#infoCache.get(roomNumber, () => this.roomInfoNow(roomNumber));
  }

  /** Room info read now, past the cache (a cap that a trial's end changed without a write). */
  async roomInfoNow(roomNumber: string): Promise<RoomInfo> {
    return this.toRoomInfo(await this.#openRoom(roomNumber));
  }

  async #openRoom(roomNumber: string, trx?: Trx, lock = false): Promise<OpenRoomRow> {
    if (!ROOM_NUMBER_RULE.test(roomNumber)) throw roomNotFound();
    const room = await this.repo.findOpenRoom(roomNumber, trx, lock);
    if (!room) throw roomNotFound();
    if (demoOver(room, this.clock.now())) throw demoEnded();
    return room;
  }

  /** Seats the user; `room` was read with its row locked. The cap, kicks and roles are checked here. */
  async #seat(trx: Trx, room: OpenRoomRow, viewer: Viewer, userType: '1' | '2'): Promise<JoinAnswer['role']> {
    const isCreator = room.create_user === viewer.userId;
    const role: JoinAnswer['role'] = isCreator ? 'creator' : viewer.type === '4' ? 'tourist' : 'member';
    if (userType === '2' && !isCreator) throw notAllowed('only the creator shares a screen');
    const existing = await this.repo.member(trx, room.id, viewer.userId);
    if (existing?.kicked_at) throw removedFromRoom();
    const alreadySeated = existing && existing.left_at === null;
    if (!isCreator && !alreadySeated) {
      // The cap counts the teacher, whose seat is kept for them even before they arrive.
      const ordinary = await this.repo.countSeatedOrdinary(trx, room.id, viewer.userId);
      if (ordinary >= this.#capNow(room) - 1) throw roomFull();
    }
    const now = this.clock.now();
    await this.repo.upsertMember(trx, { room_id: room.id, user_id: viewer.userId, role, user_type: isCreator ? '1' : '2', joined_at: now });
    this.state.seatsChanged(room.room_number, trx);
    if (isCreator && room.room_type === 3) {
      await this.state.setEndsAt(trx, room.id, new Date(now.getTime() + this.config.AUDIO_SESSION_MINUTES * 60_000));
    }
    return role;
  }

  #answer(room: OpenRoomRow, viewer: Viewer, role: JoinAnswer['role'], userType: JoinAnswer['userType']): JoinAnswer {
    const base = { room: room.room_number, uid: viewer.userId, role, ut: userType };
    const roomInfo = this.toRoomInfo(room);
    return {
      userIdForNumber: viewer.userId,
      roomInfo,
      role,
      userType,
      imToken: this.signer.sign({ ...base, scope: 'room' } satisfies RoomTokenPayload, ROOM_TOKEN_TTL_SECONDS),
      wbtoken: this.signer.sign({ ...base, scope: 'board' } satisfies RoomTokenPayload, ROOM_TOKEN_TTL_SECONDS),
      isRecordStatus: roomInfo.isRecordStatus,
      userRecordInfo: { taskId: '', recordState: roomInfo.recordState },
    };
  }

  /** Adds the media token and the media node's address (docs/product/decisions.md: mediaToken, mediaUrl). */
  async #withMedia(answer: JoinAnswer): Promise<JoinAnswer> {
    if (!this.media) return answer;
    return { ...answer, ...(await this.media.forJoin(answer)) };
  }

  /** The creator's observer link: a signed token naming the room; observers take no seat. */
  async createObserverLink(viewer: Viewer, roomNumber: string): Promise<{ url: string; expiresAt: number }> {
    const room = await this.#openRoom(roomNumber);
    if (room.create_user !== viewer.userId) throw notAllowed('only the creator makes observer links');
    const ttl = this.config.OBSERVER_LINK_HOURS * 3600;
    const now = this.clock.now().getTime();
    const token = this.signer.sign({ scope: 'observer', room: room.room_number }, ttl, now);
    const path = invitePath(room.room_type as RoomType, room.room_number);
    return { url: `${this.config.publicUrl}${path}?userType=3&${OBSERVER_TOKEN_PARAM}=${token}`, expiresAt: now + ttl * 1000 };
  }

  /** Joins an observer by the creator's link; without a session a quiet observer identity is made. */
  async observerJoin(
    viewer: Viewer | null,
    input: { roomNumber: string; ot: string; ip: string },
  ): Promise<{ answer: JoinAnswer; newToken: string | null }> {
    const claim = this.signer.verify<{ scope: string; room: string }>(input.ot, this.clock.now().getTime());
    if (!claim || claim.scope !== 'observer' || claim.room !== input.roomNumber) throw notAllowed('observer link invalid or expired');
    const result = await this.repo.transaction(async (trx) => {
      const room = await this.#openRoom(input.roomNumber, trx);
      let who = viewer;
      let token: string | null = null;
      let user = null;
      if (!who) {
        const created = await this.account.createTourist(trx, this.config.OBSERVER_NAME, input.ip);
        who = toViewer(created.user);
        token = created.token;
        user = created.user;
      }
      const existing = await this.repo.member(trx, room.id, who.userId);
      if (existing?.kicked_at) throw removedFromRoom();
      if (!existing || existing.role === 'observer') {
        await this.repo.upsertMember(trx, {
          room_id: room.id,
          user_id: who.userId,
          role: 'observer',
          user_type: '3',
          joined_at: this.clock.now(),
        });
      }
      return { room, who, token, user };
    });
    const answer = await this.#withMedia(this.#answer(result.room, result.who, 'observer', '3'));
    return {
      answer: result.user && result.token ? { ...answer, userInfo: toUserInfo(result.user, result.token) } : answer,
      newToken: result.token,
    };
  }

  async join(viewer: Viewer, input: { roomNumber: string; userType?: '1' | '2' | undefined }): Promise<JoinAnswer> {
    const userType = input.userType ?? '1';
    const { room, role } = await this.state.transaction(async (trx) => {
      const found = await this.#openRoom(input.roomNumber, trx, true);
      const seatedRole = await this.#seat(trx, found, viewer, userType);
      return { room: found, role: seatedRole };
    });
    const fresh = (await this.repo.findOpenRoom(room.room_number)) ?? room;
    return this.#withMedia(this.#answer(fresh, viewer, role, userType));
  }

  /** A visitor without an account: name + room number. Rate limited per address; all or nothing. */
  async touristJoin(input: { roomNumber: string; userName: string; ip: string }): Promise<JoinAnswer> {
    const name = normaliseName(input.userName);
    if (!name) throw illegalParams('name');
    const allowed = await this.limiter.hit(`tourist-join:${input.ip}`, this.config.TOURIST_JOINS_PER_MINUTE, 60_000);
    if (!allowed) throw new DomainError('31006');
    const { room, viewer, token, user } = await this.state.transaction(async (trx) => {
      const found = await this.#openRoom(input.roomNumber, trx, true);
      const created = await this.account.createTourist(trx, name, input.ip);
      const v = toViewer(created.user);
      await this.#seat(trx, found, v, '1');
      return { room: found, viewer: v, token: created.token, user: created.user };
    });
    const fresh = (await this.repo.findOpenRoom(room.room_number)) ?? room;
    return { ...(await this.#withMedia(this.#answer(fresh, viewer, 'tourist', '1'))), userInfo: toUserInfo(user, token) };
  }

  /**
   * The cloud recorder's room-channel and board tokens (ADR 109): role 'recorder' and the user id
   * RECORDER_USER_ID, so it hears the room as a hidden participant: never listed among the members,
   * never seated, refused every write (chat, patches, the board), no media rights of its own.
   */
  recorderTokens(roomNumber: string): { room: string; board: string } {
    const base = { room: roomNumber, uid: RECORDER_USER_ID, role: 'recorder' as const, ut: '3' as const };
    const now = this.clock.now().getTime();
    return {
      room: this.signer.sign({ ...base, scope: 'room' } satisfies RoomTokenPayload, RECORDER_TOKEN_TTL_SECONDS, now),
      board: this.signer.sign({ ...base, scope: 'board' } satisfies RoomTokenPayload, RECORDER_TOKEN_TTL_SECONDS, now),
    };
  }

  /** Checks a room-channel or board token from a join answer. */
  verifyRoomToken(token: string, scope: RoomTokenPayload['scope']): RoomTokenPayload | null {
    const p = this.signer.verify<RoomTokenPayload>(token, this.clock.now().getTime());
    return p && p.scope === scope ? p : null;
  }

  /**
   * "My classrooms" (ADR 087): the creator's listed rooms, newest first; by `page` (1-based, offset,
   * with the total) or after `pageTime`; `roomType` filters on the server. `live` is filled in by
   * the live service (who is connected), false here.
   */
  async listMyRooms(
    viewer: Viewer,
    input: { pageTime?: number | undefined; pageSize?: number | undefined; page?: number | undefined; roomType?: number | undefined },
  ): Promise<{ roomList: RoomListItem[]; hasMore: boolean; nextPageTime: number; total: number; page: number }> {
    const size = Math.min(Math.max(input.pageSize ?? 10, 1), 50);
    const byPage = input.page !== undefined;
    const page = byPage ? Math.max(1, input.page ?? 1) : 1;
    const before = !byPage && input.pageTime && input.pageTime > 0 ? new Date(input.pageTime) : undefined;
    const [rows, total] = await Promise.all([
      this.repo.listedRooms(viewer.userId, { roomType: input.roomType, before, offset: (page - 1) * size, limit: size + 1 }),
      this.repo.countListedRooms(viewer.userId, input.roomType),
    ]);
    const shown = rows.slice(0, size);
    return {
      roomList: shown.map((r) => ({
        roomNumber: r.room_number,
        roomType: r.room_type as RoomType,
        isVIP: r.is_vip,
        state: r.state,
        createTime: r.created_at.getTime(),
        inviteUrl: `${this.config.publicUrl}${invitePath(r.room_type as RoomType, r.room_number)}`,
        roomId: String(r.id),
        live: false,
      })),
      hasMore: rows.length > size,
      nextPageTime: shown.length ? shown[shown.length - 1]!.created_at.getTime() : 0,
      total,
      page,
    };
  }

  /** The creator deletes a finished class from the list (31004 for anyone else, 31010 while it is open). */
  async deleteMyRoom(viewer: Viewer, roomId: string): Promise<null> {
    const room = await this.repo.listedRoom(roomId);
    if (!room || room.create_user !== viewer.userId) throw notAllowed('not the creator of this room');
    if (room.state === 'open') throw new DomainError('31010');
    if (!(await this.repo.hideRoom(roomId, viewer.userId, this.clock.now()))) throw notAllowed('the room changed');
    return null;
  }
}
