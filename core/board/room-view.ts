/**
 * `/api/getRoomView` (ADR 093): a room's shown courseware page and board for someone who takes no
 * seat (`/ppt/{id}`, `/ppt/{id}/{uid}`). Anyone with a session who was not removed from the open
 * room gets one; only the creator asking for their own view may draw (the board token decides).
 * Someone outside the room (not its creator, not a member) is counted like a look-up by number and
 * is not told who created it (ADR 066): createUser and createUserName are '' for them.
 */
import type { Viewer } from '../account/account.service.ts';
import type { RoomInfo, RoomView } from '../contracts/api.ts';
import type { RoomCourseware } from '../contracts/courseware.ts';
import type { BoardService } from './board.service.ts';

export interface RoomViewPorts {
  board: Pick<BoardService, 'viewToken'>;
  /** Look-ups by number (ADR 066): counted for someone outside the room, who is not told who created it. */
  lookups: { roomInfo(viewer: Viewer, ip: string, roomNumber: string): Promise<RoomInfo> };
  courseware: { roomCourseware(roomNumber: string): Promise<RoomCourseware> };
}

export class RoomViewService {
  private readonly ports: RoomViewPorts;
  constructor(ports: RoomViewPorts) {
    this.ports = ports;
  }

  async view(viewer: Viewer, input: { roomNumber: string; uid?: string | undefined }, ip: string): Promise<RoomView> {
    // The look-up first: someone outside the room is counted even for a number that does not exist.
    const info = await this.ports.lookups.roomInfo(viewer, ip, input.roomNumber);
    // Then the token: it refuses a closed room and a removed viewer before the courseware is signed.
    const { token, canDraw } = await this.ports.board.viewToken(viewer, input.roomNumber, input.uid);
    const courseware = await this.ports.courseware.roomCourseware(input.roomNumber);
    return {
      roomNumber: info.roomNumber,
      roomType: info.roomType,
      createUser: info.createUser,
      createUserName: info.createUserName,
      state: info.state,
      showState: info.showState,
      roomExtend: info.roomExtend,
      wbPower: info.wbPower,
      courseware,
      viewerId: viewer.userId,
      wbtoken: token,
      canDraw,
    };
  }
}
