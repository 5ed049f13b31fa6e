/**
 * The room's one microphone slot (docs/product/02-live-classroom.md): the teacher invites a
 * student, the student agrees or refuses within MIC_TIMEOUT_SECONDS, either side stops it, and a
 * kick or a leave frees it. Each move is one conditional write of the room's mic columns through
 * RoomState, then the 'mic' event to the room. Split out of the live service (issue 29, ADR 111),
 * which checks who asks and hands over the open room.
 */
import type { Clock } from '../platform/clock.ts';
import type { Config } from '../platform/config.ts';
import { DomainError, illegalParams, notAllowed } from '../platform/errors.ts';
import { roomMessage, type EventBus } from '../platform/events.ts';
import type { MicState } from '../contracts/room-events.ts';
import type { AccountRepository } from '../account/account.repository.ts';
import type { LiveRepository, LiveRoomRow } from './live.repository.ts';
import type { RoomState } from './room-state.ts';

export const idleMic: MicState = { phase: 'idle', userId: '', name: '', since: 0, deadline: 0 };

/** Who is connected now (the live service's presence port). */
interface Online {
  online(roomNumber: string): Promise<Array<{ userId: string }>>;
}

interface After {
  after(ms: number, task: () => Promise<void>): void;
}

export class RoomMic {
  readonly #repo: LiveRepository;
  readonly #state: RoomState;
  readonly #accounts: AccountRepository;
  readonly #bus: EventBus;
  readonly #presence: Online;
  readonly #scheduler: After;
  readonly #clock: Clock;
  readonly #config: Pick<Config, 'MIC_TIMEOUT_SECONDS'>;

  constructor(d: {
    repo: LiveRepository;
    state: RoomState;
    accounts: AccountRepository;
    bus: EventBus;
    presence: Online;
    scheduler: After;
    clock: Clock;
    config: Pick<Config, 'MIC_TIMEOUT_SECONDS'>;
  }) {
    this.#repo = d.repo;
    this.#state = d.state;
    this.#accounts = d.accounts;
    this.#bus = d.bus;
    this.#presence = d.presence;
    this.#scheduler = d.scheduler;
    this.#clock = d.clock;
    this.#config = d.config;
  }

  #tell(roomNumber: string, state: MicState & { outcome?: 'agreed' | 'rejected' | 'stopped' | 'failed' }): void {
    this.#bus.publish(roomMessage(roomNumber, 'mic', state));
  }

  /** The room's microphone now; an invitation past its deadline has failed, even if the timer that should say so was lost. */
  async current(room: LiveRoomRow): Promise<MicState> {
    if (room.mic_phase === 'idle' || !room.mic_user_id) return idleMic;
    if (room.mic_phase === 'inviting' && room.mic_deadline && room.mic_deadline.getTime() <= this.#clock.now().getTime()) {
      await this.#expireInvitation(room.room_number, room.mic_user_id, room.mic_since);
      return idleMic;
    }
    const user = await this.#accounts.findUserById(room.mic_user_id);
    return {
      phase: room.mic_phase,
      userId: room.mic_user_id,
      name: user?.name ?? '',
      since: room.mic_since?.getTime() ?? 0,
      deadline: room.mic_deadline?.getTime() ?? 0,
    };
  }

  /** The creator invites a member who is here; the invitation fails after MIC_TIMEOUT_SECONDS. */
  async invite(room: LiveRoomRow, targetId: string): Promise<MicState> {
    if (targetId === room.create_user) throw illegalParams('the teacher is on the microphone already');
    const current = await this.current(room);
    if (current.phase !== 'idle') throw new DomainError('31007');
    const target = await this.#repo.membership(room.id, targetId);
    const online = (await this.#presence.online(room.room_number)).some((o) => o.userId === targetId);
    if (!target || target.kicked_at || target.left_at || target.role === 'observer' || !online) throw illegalParams('not in the room');
    const now = this.#clock.now();
    const deadline = new Date(now.getTime() + this.#config.MIC_TIMEOUT_SECONDS * 1000);
    const moved = await this.#state.moveMic(
      room.id,
      { phase: 'idle', userId: null },
      { phase: 'inviting', userId: targetId, since: now, deadline },
    );
    if (!moved) {
      // Idle with a stale user id, or someone else got there first.
      const fresh = await this.#repo.room(room.room_number);
      if (fresh?.mic_phase !== 'idle') throw new DomainError('31007');
      const retried = await this.#state.moveMic(
        room.id,
        { phase: 'idle', userId: fresh.mic_user_id },
        { phase: 'inviting', userId: targetId, since: now, deadline },
      );
      if (!retried) throw new DomainError('31007');
    }
    const state: MicState = { phase: 'inviting', userId: targetId, name: target.name, since: now.getTime(), deadline: deadline.getTime() };
    this.#tell(room.room_number, state);
    this.#scheduler.after(this.#config.MIC_TIMEOUT_SECONDS * 1000, () => this.#expireInvitation(room.room_number, targetId, now));
    return state;
  }

  async #expireInvitation(roomNumber: string, userId: string, since: Date | null): Promise<void> {
    const room = await this.#repo.room(roomNumber);
    if (!room || room.mic_phase !== 'inviting' || room.mic_user_id !== userId) return;
    if (since && room.mic_since && room.mic_since.getTime() !== since.getTime()) return;
    const now = this.#clock.now();
    if (await this.#state.moveMic(room.id, { phase: 'inviting', userId }, { phase: 'idle', userId: null, since: now, deadline: null })) {
      this.#tell(roomNumber, { ...idleMic, since: now.getTime(), userId, outcome: 'failed' });
    }
  }

  /** The invited member agrees (connected) or refuses (idle). */
  async answer(room: LiveRoomRow, uid: string, agree: boolean): Promise<MicState> {
    const current = await this.current(room);
    if (current.phase !== 'inviting' || current.userId !== uid) throw notAllowed('no invitation for you');
    const now = this.#clock.now();
    const to = agree
      ? { phase: 'connected' as const, userId: uid, since: now, deadline: null }
      : { phase: 'idle' as const, userId: null, since: now, deadline: null };
    if (!(await this.#state.moveMic(room.id, { phase: 'inviting', userId: uid }, to))) throw notAllowed('the invitation ended');
    const state: MicState = agree
      ? { phase: 'connected', userId: uid, name: current.name, since: now.getTime(), deadline: 0 }
      : { ...idleMic, since: now.getTime() };
    this.#tell(room.room_number, {
      ...state,
      ...(agree ? { outcome: 'agreed' as const } : { userId: uid, outcome: 'rejected' as const }),
    });
    return state;
  }

  /** The teacher ends the connection (or withdraws the invitation); the student may hang up. */
  async stop(room: LiveRoomRow, uid: string, isCreator: boolean): Promise<MicState> {
    const current = await this.current(room);
    if (current.phase === 'idle') return idleMic;
    if (!isCreator && current.userId !== uid) throw notAllowed('not your microphone');
    const now = this.#clock.now();
    if (
      await this.#state.moveMic(
        room.id,
        { phase: current.phase, userId: current.userId },
        { phase: 'idle', userId: null, since: now, deadline: null },
      )
    ) {
      this.#tell(room.room_number, { ...idleMic, since: now.getTime(), userId: current.userId, outcome: 'stopped' });
    }
    return idleMic;
  }

  /** `userId` left or was kicked: the microphone they held or were invited to is free again. */
  async release(room: Pick<LiveRoomRow, 'id' | 'room_number' | 'mic_phase' | 'mic_user_id'>, userId: string, now: Date): Promise<void> {
    if (room.mic_user_id !== userId || room.mic_phase === 'idle') return;
    await this.#state.moveMic(room.id, { phase: room.mic_phase, userId }, { phase: 'idle', userId: null, since: now, deadline: null });
    this.#tell(room.room_number, { ...idleMic, since: now.getTime(), userId, outcome: 'stopped' });
  }
}
