/**
 * Demo rooms (issue 17, ADR 092): a real room anyone may open without an account to try the
 * product. Its own number, a mini class with board power for everyone and the sample deck shown,
 * ending DEMO_ROOM_HOURS after it was made (then every join, board and chat call is refused with
 * 31011 and housekeeping closes it). Made at most DEMO_CREATES_PER_HOUR times per address. The
 * host is a demo identity (a visitor: no phone, no credits, no bills, no trial counters), or a
 * signed-in teacher as themself; nothing of billing is ever called here.
 */
import { randomInt } from 'node:crypto';
import type { Clock } from '../platform/clock.ts';
import type { Config } from '../platform/config.ts';
import { DomainError, illegalParams, type Lang } from '../platform/errors.ts';
import type { RateLimiter } from '../platform/rate-limit.ts';
import type { RoomInfo, UserInfo } from '../contracts/api.ts';
import type { AccountService, Viewer } from '../account/account.service.ts';
import { toUserInfo } from '../account/account.service.ts';
import { normaliseName } from '../account/account.schema.ts';
import type { SampleDeck } from '../courseware/sample-deck.ts';
import type { LiveRepository } from './live.repository.ts';
import type { RoomService } from './room.service.ts';
import type { RoomState } from './room-state.ts';
import type { Scheduler } from './live.service.ts';
import { ROOM_NUMBER_RULE } from './room.schema.ts';
import { demoOver } from './demo-rules.ts';

type DemoConfig = Pick<Config, 'DEMO_ROOM_HOURS' | 'DEMO_CREATES_PER_HOUR' | 'PAID_MINI_CAP'>;

/** The host's name when none is given (names: 1-10 letters, digits, single spaces). */
export const DEMO_HOST_NAME: Record<Lang, string> = { zh: '演示老师', en: 'Demo host' };

/** What the demo page needs to know of a number: a demo open until `endsAt`, one that ended, or none. */
export type DemoStatus = { kind: 'open'; roomNumber: string; endsAt: number } | { kind: 'ended'; roomNumber: string } | { kind: 'none' };

export interface DemoDeps {
  rooms: RoomService;
  state: RoomState;
  live: LiveRepository;
  account: AccountService;
  deck: SampleDeck;
  limiter: RateLimiter;
  scheduler: Scheduler;
  /** Closes the rooms whose time is up (RoomLiveService.closeExpired): run at a demo's end. */
  closeExpired: () => Promise<unknown>;
  clock: Clock;
  config: DemoConfig;
}

export class DemoService {
  readonly #d: DemoDeps;
  constructor(deps: DemoDeps) {
    this.#d = deps;
  }

  /** How long a demo lasts (the page that makes one says so). */
  get hours(): number {
    return this.#d.config.DEMO_ROOM_HOURS;
  }

  async create(
    viewer: Viewer | null,
    input: { userName?: string | undefined; ip: string; lang: Lang },
  ): Promise<{ roomInfo: RoomInfo; endsAt: number; userInfo: UserInfo | null; token: string | null }> {
    const d = this.#d;
    const name = input.userName === undefined || input.userName.trim() === '' ? DEMO_HOST_NAME[input.lang] : normaliseName(input.userName);
    if (!name) throw illegalParams('name');
    if (!(await d.limiter.hit(`demo-create:${input.ip}`, d.config.DEMO_CREATES_PER_HOUR, 3_600_000))) throw new DomainError('31012');
    // The pages first: a store that cannot take them leaves no half-made room behind.
    await d.deck.ensureStored();
    const now = d.clock.now();
    const endsAt = new Date(now.getTime() + d.config.DEMO_ROOM_HOURS * 3_600_000);
    const teacher = viewer?.type === '1' ? viewer : null;
    const made = await d.state.transaction(async (trx) => {
      let hostId = teacher?.userId;
      let identity: Awaited<ReturnType<AccountService['createTourist']>> | null = null;
      if (!hostId) {
        identity = await d.account.createTourist(trx, name, input.ip);
        hostId = identity.user.id;
      }
      for (let attempt = 0; attempt < 30; attempt++) {
        const roomNumber = String(randomInt(100_000, 1_000_000));
        const row = await d.state.insertRoom(trx, {
          room_number: roomNumber,
          room_type: 1,
          create_user: hostId,
          consumption: 'off',
          is_vip: '0',
          max_member: d.config.PAID_MINI_CAP,
          created_at: now,
          is_demo: true,
          ends_at: endsAt,
          wb_power: '1',
        });
        if (row) return { roomId: row.id, roomNumber, hostId, identity };
      }
      throw new DomainError('31001', 'no free room number');
    });
    const doc = await d.deck.register(made.hostId);
    await d.state.setCourseware(made.roomId, { document_id: doc.id, ppt_current_page: 1, doc_scroll: 0, doc_video: '', show_state: 'ppt' });
    // On time on this node; the every-minute housekeeping closes it anyway (another node, a restart).
    d.scheduler.after(endsAt.getTime() - now.getTime(), async () => {
      await d.closeExpired();
    });
    return {
      roomInfo: await d.rooms.roomInfoNow(made.roomNumber),
      endsAt: endsAt.getTime(),
      userInfo: made.identity ? toUserInfo(made.identity.user, made.identity.token) : null,
      token: made.identity?.token ?? null,
    };
  }

  /** The newest room of this number, as the demo page tells it. */
  async status(roomNumber: string): Promise<DemoStatus> {
    if (!ROOM_NUMBER_RULE.test(roomNumber)) return { kind: 'none' };
    const room = await this.#d.live.room(roomNumber);
    if (!room?.is_demo) return { kind: 'none' };
    if (room.state !== 'open' || demoOver(room, this.#d.clock.now())) return { kind: 'ended', roomNumber };
    return { kind: 'open', roomNumber, endsAt: room.ends_at?.getTime() ?? 0 };
  }
}
