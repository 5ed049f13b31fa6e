/**
 * Who may change the board (pure; the server enforces it, the browser mirrors it for the mask).
 * The creator always; members and tourists only while `wbPower` is '1' and the room is not a large
 * class (type 4); observers and the recorder never. Following the presenter's viewport
 * (`move_by_presenter`) is the creator's alone.
 *
 * While breakout groups run (ADR 116) a student in a group draws on their group's page only,
 * whatever `wbPower` and the room type say, and clears it only as its leader; nobody outside a
 * group (but the creator) writes on a group's page.
 */
import type { OpType } from '../contracts/board.ts';
import type { Role } from '../contracts/room-events.ts';

export interface BoardRoomFacts {
  roomType: number;
  createUser: string;
  wbPower: '0' | '1';
}

/** The running groups as the board sees them, for one person (null: no groups run). */
export interface BoardGroupFacts {
  /** The whiteboard page of the person's group; null in the main room. */
  page: number | null;
  /** The person leads that group. */
  leader: boolean;
  /** Every group's page (closed to those outside the group). */
  groupPages: readonly number[];
}

export function isBoardCreator(who: { uid: string; role: Role }, room: BoardRoomFacts): boolean {
  return who.role === 'creator' && who.uid === room.createUser;
}

export function mayDraw(who: { uid: string; role: Role }, room: BoardRoomFacts, group: BoardGroupFacts | null = null): boolean {
  if (isBoardCreator(who, room)) return true;
  if (who.role !== 'member' && who.role !== 'tourist') return false;
  if (group && group.page !== null) return true;
  return room.wbPower === '1' && room.roomType !== 4;
}

/** May `who` apply an operation of `type` to layer `page` (`wb:{n}` or a slide's)? */
export function mayOperate(
  who: { uid: string; role: Role },
  room: BoardRoomFacts,
  type: OpType,
  page?: string,
  group: BoardGroupFacts | null = null,
): boolean {
  if (type === 'move_by_presenter') return isBoardCreator(who, room);
  if (isBoardCreator(who, room)) return true;
  if (who.role !== 'member' && who.role !== 'tourist') return false;
  if (group && page !== undefined) {
    if (group.page !== null) {
      if (page !== `wb:${group.page}`) return false;
      return type !== 'clear' || group.leader;
    }
    if (group.groupPages.some((p) => page === `wb:${p}`)) return false;
  }
  return mayDraw(who, room, group);
}
