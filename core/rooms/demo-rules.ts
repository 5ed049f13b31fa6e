/**
 * The one rule of a demo room's end (ADR 092), shared by the join (RoomService) and the room
 * channel (RoomLiveService): past `ends_at` a demo refuses everything with 31011, even in the
 * minute before housekeeping closes it.
 */
import { DomainError } from '../platform/errors.ts';

export function demoOver(room: { is_demo: boolean; ends_at: Date | null }, now: Date): boolean {
  return room.is_demo && room.ends_at !== null && room.ends_at.getTime() <= now.getTime();
}

export const demoEnded = () => new DomainError('31011');
