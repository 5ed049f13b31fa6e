/**
 * Who may change the board (pure; the server enforces it, the browser mirrors it for the mask).
 * The creator always; members and tourists only while `wbPower` is '1' and the room is not a large
 * class (type 4); observers and the recorder never. Following the presenter's viewport
 * (`move_by_presenter`) is the creator's alone.
 */
import type { OpType } from '../contracts/board.ts';
import type { Role } from '../contracts/room-events.ts';

export interface BoardRoomFacts {
  roomType: number;
  createUser: string;
  wbPower: '0' | '1';
}

export function isBoardCreator(who: { uid: string; role: Role }, room: BoardRoomFacts): boolean {
  return who.role === 'creator' && who.uid === room.createUser;
}

export function mayDraw(who: { uid: string; role: Role }, room: BoardRoomFacts): boolean {
  if (isBoardCreator(who, room)) return true;
  if (who.role !== 'member' && who.role !== 'tourist') return false;
  return room.wbPower === '1' && room.roomType !== 4;
}

export function mayOperate(who: { uid: string; role: Role }, room: BoardRoomFacts, type: OpType): boolean {
  if (type === 'move_by_presenter') return isBoardCreator(who, room);
  return mayDraw(who, room);
}
