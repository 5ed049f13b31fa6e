/**
 * The room's stage and raised hands (docs/product/02-live-classroom.md, ADR 112), the
 * generalisation of the old single microphone slot. Seats on stage per room type (a setting);
 * students raise and lower a hand; the teacher invites one up (they agree or refuse within
 * MIC_TIMEOUT_SECONDS, or the invitation fails), takes one or everyone down; a student steps down;
 * a leave or a kick frees the seat; an optional carousel lets the next students up every N seconds.
 *
 * Everything lives in the database (stage.repository.ts). A change is one locked transaction that
 * first settles what is due by the stored times (an invitation past its deadline fails, a carousel
 * turn past `carousel_next_at` happens), then applies the request, then reads the state; only after
 * the commit is the `stage` event told to the room. Timers are only a nudge: any later read settles
 * the same way, whichever web node makes it. The live service checks who asks before calling here.
 */
import type { Clock } from '../platform/clock.ts';
import type { Config } from '../platform/config.ts';
import { DomainError, illegalParams, notAllowed } from '../platform/errors.ts';
import { roomMessage, type EventBus } from '../platform/events.ts';
import { TokenBuckets } from '../platform/memory-rate-limit.ts';
import type { StageEvent, StageOutcome, StageState } from '../contracts/stage.ts';
import type { LiveRepository, LiveRoomRow } from './live.repository.ts';
import type { StageRepository, StageTx } from './stage.repository.ts';

type StageRoom = Pick<LiveRoomRow, 'id' | 'room_number' | 'room_type' | 'create_user'>;

interface Online {
  online(roomNumber: string): Promise<Array<{ userId: string }>>;
}

interface After {
  after(ms: number, task: () => Promise<void>): void;
}

type StageConfig = Pick<Config, 'MIC_TIMEOUT_SECONDS' | 'STAGE_SEATS_LARGE_CLASS' | 'STAGE_SEATS_OTHER' | 'HANDS_PER_MINUTE'>;

/** What one step changed: told as a `stage` event after the commit. */
interface Change {
  outcome: StageOutcome;
  userIds: string[];
  off: string[];
}

/** Seats on stage besides the teacher, by room type (4: large class). */
export function stageSeats(roomType: number, config: Pick<Config, 'STAGE_SEATS_LARGE_CLASS' | 'STAGE_SEATS_OTHER'>): number {
  return roomType === 4 ? config.STAGE_SEATS_LARGE_CLASS : config.STAGE_SEATS_OTHER;
}

export class RoomStage {
  readonly #repo: StageRepository;
  readonly #live: LiveRepository;
  readonly #bus: EventBus;
  readonly #presence: Online;
  readonly #scheduler: After;
  readonly #clock: Clock;
  readonly #config: StageConfig;
  /** Hands per person: in this process by default; with REDIS_URL the composition puts buckets shared by every web node here. */
  handBuckets: { take(key: string): boolean | Promise<boolean> };

  constructor(d: {
    repo: StageRepository;
    live: LiveRepository;
    bus: EventBus;
    presence: Online;
    scheduler: After;
    clock: Clock;
    config: StageConfig;
  }) {
    this.#repo = d.repo;
    this.#live = d.live;
    this.#bus = d.bus;
    this.#presence = d.presence;
    this.#scheduler = d.scheduler;
    this.#clock = d.clock;
    this.#config = d.config;
    this.handBuckets = new TokenBuckets(d.clock, d.config.HANDS_PER_MINUTE, d.config.HANDS_PER_MINUTE / 60_000);
  }

  /** The students present now, by user id: the carousel's pool (read before the lock: one connection on PGlite). */
  async #pool(room: StageRoom): Promise<string[] | null> {
    const c = await this.#repo.unlocked(room.id).carousel();
    if (c.carousel_seconds <= 0 || !c.carousel_next_at || c.carousel_next_at.getTime() > this.#clock.now().getTime()) return null;
    const [seated, online] = await Promise.all([this.#live.seated(room.id), this.#presence.online(room.room_number)]);
    const here = new Set(online.map((o) => o.userId));
    return seated
      .filter((s) => here.has(s.user_id) && s.user_id !== room.create_user && (s.role === 'member' || s.role === 'tourist'))
      .map((s) => s.user_id)
      .sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : BigInt(a) > BigInt(b) ? 1 : 0));
  }

  /** What the stored times say is due: failed invitations, a carousel turn. */
  async #settle(room: StageRoom, tx: StageTx, now: Date, pool: string[] | null): Promise<Change[]> {
    const changes: Change[] = [];
    const seats = await tx.seats();
    const expired = seats
      .filter((s) => s.phase === 'inviting' && s.deadline && s.deadline.getTime() <= now.getTime())
      .map((s) => s.user_id);
    if (expired.length) {
      await tx.dropSeats(expired);
      changes.push({ outcome: 'failed', userIds: expired, off: [] });
    }
    const c = await tx.carousel();
    if (pool && c.carousel_seconds > 0 && c.carousel_next_at && c.carousel_next_at.getTime() <= now.getTime()) {
      const invited = seats.filter((s) => s.phase === 'inviting' && !expired.includes(s.user_id)).length;
      const was = seats.filter((s) => s.phase === 'on').map((s) => s.user_id);
      const free = Math.max(0, stageSeats(room.room_type, this.#config) - invited);
      // The next students after the cursor, round the pool; the invited keep their seats.
      const candidates = pool.filter((u) => !seats.some((s) => s.user_id === u && s.phase === 'inviting'));
      const start = c.carousel_cursor ? candidates.findIndex((u) => BigInt(u) > BigInt(c.carousel_cursor!)) : 0;
      const up: string[] = [];
      for (let i = 0; i < Math.min(free, candidates.length); i++) up.push(candidates[((start < 0 ? 0 : start) + i) % candidates.length]!);
      await tx.dropSeats(was.filter((u) => !up.includes(u)));
      for (const u of up) if (!was.includes(u)) await tx.putSeat(u, 'on', now, null);
      await tx.lower(up);
      await tx.setCarousel({
        carousel_seconds: c.carousel_seconds,
        carousel_next_at: new Date(now.getTime() + c.carousel_seconds * 1000),
        carousel_cursor: up.at(-1) ?? c.carousel_cursor,
      });
      changes.push({ outcome: 'carousel', userIds: up, off: was.filter((u) => !up.includes(u)) });
      this.#nudge(room, c.carousel_seconds * 1000);
    }
    return changes;
  }

  async #state(room: StageRoom, tx: StageTx): Promise<StageState> {
    const [seats, hands, c] = await Promise.all([tx.seats(), tx.hands(), tx.carousel()]);
    return {
      seats: stageSeats(room.room_type, this.#config),
      onStage: seats.filter((s) => s.phase === 'on').map((s) => ({ userId: s.user_id, name: s.name, since: s.since.getTime() })),
      invited: seats
        .filter((s) => s.phase === 'inviting')
        .map((s) => ({ userId: s.user_id, name: s.name, since: s.since.getTime(), deadline: s.deadline?.getTime() ?? 0 })),
      hands: hands.map((h) => ({ userId: h.user_id, name: h.name, raisedAt: h.raised_at.getTime() })),
      carousel: { seconds: c.carousel_seconds, nextAt: c.carousel_seconds > 0 ? (c.carousel_next_at?.getTime() ?? 0) : 0 },
    };
  }

  /**
   * One locked step: settle what is due, run `step` (it throws to refuse: nothing written), read
   * the state; after the commit tell each change with the state as it now is.
   */
  async #change(room: StageRoom, step: (tx: StageTx, now: Date) => Promise<Change | null>): Promise<StageState> {
    const pool = await this.#pool(room);
    const { state, changes } = await this.#repo.locked(room.id, async (tx) => {
      const now = this.#clock.now();
      const changes = await this.#settle(room, tx, now, pool);
      const made = await step(tx, now);
      if (made) changes.push(made);
      return { state: await this.#state(room, tx), changes };
    });
    for (const c of changes) {
      const event: StageEvent = { ...state, ...c };
      this.#bus.publish(roomMessage(room.room_number, 'stage', event));
    }
    return state;
  }

  #nudge(room: StageRoom, ms: number): void {
    this.#scheduler.after(ms, async () => {
      await this.current(room);
    });
  }

  /**
   * The stage now. Read without the lock (every join asks) unless something is due by the stored
   * times, which is then settled in a locked change.
   */
  async current(room: StageRoom): Promise<StageState> {
    const now = this.#clock.now().getTime();
    const plain = this.#repo.unlocked(room.id);
    const [seats, c] = await Promise.all([plain.seats(), plain.carousel()]);
    const due =
      seats.some((s) => s.phase === 'inviting' && !!s.deadline && s.deadline.getTime() <= now) ||
      (c.carousel_seconds > 0 && !!c.carousel_next_at && c.carousel_next_at.getTime() <= now);
    if (!due) return this.#state(room, plain);
    return this.#change(room, () => Promise.resolve(null));
  }

  /** A student raises their hand (creator and observers have none); rate limited per person. */
  async raise(room: StageRoom, uid: string): Promise<StageState> {
    if (!(await this.handBuckets.take(`${room.id}:${uid}`))) throw new DomainError('31031');
    return this.#change(room, async (tx, now) => {
      if ((await tx.seats()).some((s) => s.user_id === uid && s.phase === 'on')) throw illegalParams('on stage already');
      return (await tx.raise(uid, now)) ? { outcome: 'hand', userIds: [uid], off: [] } : null;
    });
  }

  /** Lowers `target`'s hand (the caller checked that it is their own or that they are the teacher). */
  lower(room: StageRoom, target: string): Promise<StageState> {
    return this.#change(room, async (tx) => ((await tx.lower([target])).length ? { outcome: 'hand', userIds: [target], off: [] } : null));
  }

  /** The teacher invites a member who is here; a full stage is 31030; the invitation fails after MIC_TIMEOUT_SECONDS. */
  async invite(room: StageRoom, targetId: string): Promise<StageState> {
    if (targetId === room.create_user) throw illegalParams('the teacher is on stage already');
    const target = await this.#live.membership(room.id, targetId);
    const online = (await this.#presence.online(room.room_number)).some((o) => o.userId === targetId);
    if (!target || target.kicked_at || target.left_at || target.role === 'observer' || !online) throw illegalParams('not in the room');
    const timeoutMs = this.#config.MIC_TIMEOUT_SECONDS * 1000;
    const state = await this.#change(room, async (tx, now) => {
      const seats = await tx.seats();
      if (seats.some((s) => s.user_id === targetId)) throw illegalParams('on stage or invited already');
      if (seats.length >= stageSeats(room.room_type, this.#config)) throw new DomainError('31030');
      await tx.putSeat(targetId, 'inviting', now, new Date(now.getTime() + timeoutMs));
      return { outcome: 'invited', userIds: [targetId], off: [] };
    });
    this.#nudge(room, timeoutMs);
    return state;
  }

  /** The invited student agrees (on stage; the hand goes down) or refuses. */
  answer(room: StageRoom, uid: string, agree: boolean): Promise<StageState> {
    return this.#change(room, async (tx, now) => {
      const mine = (await tx.seats()).find((s) => s.user_id === uid && s.phase === 'inviting');
      if (!mine) throw notAllowed('no invitation for you');
      if (!agree) {
        await tx.dropSeats([uid]);
        return { outcome: 'rejected', userIds: [uid], off: [] };
      }
      await tx.putSeat(uid, 'on', now, null);
      await tx.lower([uid]);
      return { outcome: 'agreed', userIds: [uid], off: [] };
    });
  }

  /** Takes these people off the stage (their invitations too); everyone when `targets` is absent. */
  down(room: StageRoom, targets?: readonly string[]): Promise<StageState> {
    return this.#change(room, async (tx) => {
      const gone = await tx.dropSeats(targets);
      if (!gone.length) return null;
      return { outcome: 'down', userIds: gone.map((g) => g.user_id), off: gone.filter((g) => g.phase === 'on').map((g) => g.user_id) };
    });
  }

  /** The carousel: every `seconds` (0: off); the first turn comes `seconds` from now. */
  async setCarousel(room: StageRoom, seconds: number): Promise<StageState> {
    const state = await this.#change(room, async (tx, now) => {
      const c = await tx.carousel();
      if (c.carousel_seconds === seconds) return null;
      await tx.setCarousel({
        carousel_seconds: seconds,
        carousel_next_at: seconds > 0 ? new Date(now.getTime() + seconds * 1000) : null,
        carousel_cursor: c.carousel_cursor,
      });
      return { outcome: 'settings', userIds: [], off: [] };
    });
    if (seconds > 0) this.#nudge(room, seconds * 1000);
    return state;
  }

  /** `userId` left or was kicked: their seat, invitation and hand go. */
  release(room: StageRoom, userId: string): Promise<StageState> {
    return this.#change(room, async (tx) => {
      const gone = await tx.dropSeats([userId]);
      const lowered = await tx.lower([userId]);
      if (!gone.length && !lowered.length) return null;
      return { outcome: 'down', userIds: [userId], off: gone.filter((g) => g.phase === 'on').map((g) => g.user_id) };
    });
  }
}
