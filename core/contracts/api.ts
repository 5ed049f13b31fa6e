/**
 * The /api/* wire contract, shared by the server and the browser. Every call is a POST with a
 * JSON or form-encoded body; every answer is an envelope with HTTP 200 for business errors.
 * Ids and flags travel as strings, as the spec's clients expect.
 */
export interface Envelope<T> {
  code: string; // '0' success, else a code of core/platform/errors.ts
  msg: string; // localised by the request language (header `lang`/`language`, cookie `lang`, Accept-Language)
  data: T | null;
}

export type RoomType = 1 | 2 | 3 | 4;

export interface UserInfo {
  userId: string;
  name: string;
  mobile: string; // '' for tourists
  type: '1' | '4'; // 1 teacher (signed in by phone), 4 tourist
  userToken: string; // only in answers that create a session (loginUser, touristJoinRoom); '' elsewhere
  promoCode: string;
  promoPoints: number;
}

export interface VipUserInfo {
  vipRoomTime: number; // ms epoch of membership expiry, 0 = never
  vipRoomRemainingNumber: number; // per-session credits left
  vipBigRoomPeopleNumber: number; // 0, 10, 20 or 30
  vipBigRoomTime: number; // ms epoch
  recordRoomTime: number; // ms epoch
  creditWindowUntil: number; // ms epoch until which paid mini classes are created without spending
}

export interface RoomInfo {
  roomNumber: string;
  roomType: RoomType;
  createUser: string; // creator user id
  createUserIdNumber: string;
  createUserName: string;
  maxMember: number; // cap including the teacher, as in force now
  maxOrdinary: string; // maxMember - 1 as a string
  isVIP: '0' | '1';
  consumption: 'on' | 'off';
  showState: string;
  wbPower: '0' | '1';
  roomExtend: string; // JSON text
  pptId: string;
  pptCurrentPage: number;
  participants: number;
  state: 'open' | 'closed';
  createTime: number; // ms epoch
  endsAt: number; // ms epoch when a timed session ends (audio class), 0 otherwise
  isRecordStatus: '0' | '1';
  recordState: '0' | '1' | '2';
  liveState: '0' | '1' | '2';
}

export interface JoinAnswer {
  userIdForNumber: string;
  roomInfo: RoomInfo;
  role: 'creator' | 'member' | 'tourist' | 'observer';
  userType: '1' | '2' | '3';
  imToken: string; // signed token for the room channel
  wbtoken: string; // signed token for the board (same signer, board scope)
  isRecordStatus: '0' | '1';
  userRecordInfo: { taskId: string; recordState: '0' | '1' | '2' };
  userInfo?: UserInfo; // tourist joins: the tourist identity with its userToken
  mediaToken?: string; // short-lived signed media token (core/contracts/media-signaling.ts)
  mediaUrl?: string; // the media node serving the room; its socket is `${mediaUrl}/media`
}

export interface RoomListItem {
  roomNumber: string;
  roomType: RoomType;
  isVIP: '0' | '1';
  state: 'open' | 'closed';
  createTime: number;
  inviteUrl: string; // absolute, in the form DECISIONS.md gives per room type
}

/** name -> [request body, answer data] */
export interface ApiCalls {
  sendPhoneCode: [{ mobile: string; area?: string; purpose?: 'login' }, { resendAfter: number }];
  loginUser: [{ mobile: string; code: string; userType?: '1' }, { userInfo: UserInfo }];
  logout: [Record<string, never>, null];
  queryUserInfoByToken: [{ token?: string }, { userInfo: UserInfo }];
  getUserInfoById: [{ id: string }, { userInfo: { userId: string; name: string } }];
  getUserInfo: [{ userId?: string }, { userInfo: UserInfo | { userId: string; name: string } }];
  updateUserName: [{ userName: string }, { userInfo: UserInfo }];
  createAgoraRoom: [{ roomType?: 1 | '1'; consumption?: 'on' | 'off' }, { roomInfo: RoomInfo }];
  createRoom: [{ roomType: 2 | 3 | 4 | '2' | '3' | '4'; consumption?: 'on' | 'off' }, { roomInfo: RoomInfo }];
  getRoomInfoByRoomNumber: [{ roomNumber: string }, { roomInfo: RoomInfo }];
  /** userType '3' (observer) needs `ot`, the token of the creator's observer link. */
  userJoinAgoraRoom: [{ roomNumber: string; userType?: '1' | '2' | '3'; ot?: string }, JoinAnswer];
  touristJoinRoom: [{ roomNumber: string; userName: string }, JoinAnswer];
  getConsumptionStatus: [Record<string, never>, { status: 0 | 1; number: number }];
  getUserVipInfo: [Record<string, never>, { vipUserInfo: VipUserInfo }];
  updateRoomInfoByRoomNumber: [
    { roomNumber: string; showState?: string; pptId?: string; pptCurrentPage?: number | string; wbPower?: '0' | '1'; roomExtend?: string },
    { roomInfo: RoomInfo },
  ];
  /** The creator's observer link: `${publicUrl}${invitePath}?userType=3&ot=<signed token>`. */
  createObserverLink: [{ roomNumber: string }, { url: string; expiresAt: number }];
  /** A fresh media token for someone in the room (after a microphone invitation, on reconnect); userType '2' for the creator's screen share. */
  createAgoraToken: [{ roomNumber: string; userType?: '1' | '2' }, { mediaToken: string; mediaUrl: string }];
  getMyRoomList: [{ pageTime?: number; pageSize?: number }, { roomList: RoomListItem[]; hasMore: boolean; nextPageTime: number }];
}

export type ApiName = keyof ApiCalls;
export type ApiRequest<N extends ApiName> = ApiCalls[N][0];
export type ApiData<N extends ApiName> = ApiCalls[N][1];

/** Header carrying the user token; pages use the httpOnly cookie below instead. */
export const TOKEN_HEADER = 'token';
export const SESSION_COOKIE = 'banshu_session';
export const LANG_COOKIE = 'lang';
/** Create and join are idempotent per client request: the query parameter `requestId` (spec §7). */
export const REQUEST_ID_PARAM = 'requestId';
/** Query key of the observer token on classroom routes (with userType=3). */
export const OBSERVER_TOKEN_PARAM = 'ot';

/** Invite paths per room type (DECISIONS.md). */
export function invitePath(roomType: RoomType | 5, roomNumber: string): string {
  switch (roomType) {
    case 1:
      return `/${roomNumber}`;
    case 2:
      return `/bb/${roomNumber}`;
    case 3:
      return `/record/${roomNumber}`;
    case 4:
      return `/live/${roomNumber}`;
    case 5:
      return `/rec/${roomNumber}`;
  }
}
