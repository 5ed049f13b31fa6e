/**
 * Look-ups by room number from outside a class (ADR 066): rate limited, and without the creator's
 * identity. A six-digit number is the only secret of a class; unlimited, anonymous look-ups let
 * anyone walk all 900,000 numbers in minutes and learn who teaches each class found. Visitors and
 * callers without a session count per address (a visitor session costs nothing, so it must not
 * reset the count); signed-in accounts count per person; the creator and the joined members of
 * the room (who poll it from the classroom) are not counted and see everything.
 */
import type { Viewer } from '../account/account.service.ts';
import type { RoomInfo } from '../contracts/api.ts';
import type { Config } from '../platform/config.ts';
import { DomainError } from '../platform/errors.ts';
import type { RateLimiter } from '../platform/rate-limit.ts';
import type { RoomLiveService } from './live.service.ts';
import type { RoomService } from './room.service.ts';

type LookupConfig = Pick<Config, 'ROOM_LOOKUPS_PER_MINUTE' | 'ROOM_LOOKUPS_PER_HOUR'>;

/** The room's answer for someone outside it: who created it is not theirs to know. */
export function withoutCreator(info: RoomInfo): RoomInfo {
  return { ...info, createUser: '', createUserIdNumber: '', createUserName: '' };
}

export class RoomLookups {
  readonly #limiter: RateLimiter;
  readonly #rooms: Pick<RoomService, 'getRoomInfo'>;
  readonly #live: Pick<RoomLiveService, 'actorFor'>;
  readonly #config: LookupConfig;

  constructor(
    limiter: RateLimiter,
    rooms: Pick<RoomService, 'getRoomInfo'>,
    live: Pick<RoomLiveService, 'actorFor'>,
    config: LookupConfig,
  ) {
    this.#limiter = limiter;
    this.#rooms = rooms;
    this.#live = live;
    this.#config = config;
  }

  /** Counts one look-up from outside a room; 31006 once the address (or account) is past its limit. */
  async count(viewer: Viewer | null, ip: string): Promise<void> {
    const key = viewer?.type === '1' ? `room-lookup:user:${viewer.userId}` : `room-lookup:ip:${ip}`;
    const ok =
      (await this.#limiter.hit(`${key}:m`, this.#config.ROOM_LOOKUPS_PER_MINUTE, 60_000)) &&
      (await this.#limiter.hit(`${key}:h`, this.#config.ROOM_LOOKUPS_PER_HOUR, 3_600_000));
    if (!ok) throw new DomainError('31006', 'too many room look-ups');
  }

  /** getRoomInfoByRoomNumber: everything for the creator and members; otherwise counted and without the creator. */
  async roomInfo(viewer: Viewer | null, ip: string, roomNumber: string): Promise<RoomInfo> {
    const inside = viewer
      ? await this.#live.actorFor(viewer, roomNumber).then(
          () => true,
          () => false,
        )
      : false;
    if (!inside) await this.count(viewer, ip);
    const info = await this.#rooms.getRoomInfo(roomNumber);
    return inside ? info : withoutCreator(info);
  }
}
