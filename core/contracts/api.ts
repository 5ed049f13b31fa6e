/**
 * The /api/* wire contract, shared by the server and the browser. Every call is a POST with a
 * JSON or form-encoded body; every answer is an envelope with HTTP 200 for business errors.
 * Ids and flags travel as strings, as the spec's clients expect.
 */
import type { z } from 'zod';
import type { apiInputs } from './api-inputs.ts';
import type { LayerState } from './board.ts';
import type { CoursewareApiAnswers, RoomCourseware } from './courseware.ts';
import type { RecordingApiAnswers } from './recording.ts';
import type { LiveApiAnswers } from './streaming.ts';
import type { StudioApiAnswers } from './studio.ts';

export interface Envelope<T> {
  code: string; // '0' success, else a code of core/platform/errors.ts
  msg: string; // localised by the request language (header `lang`/`language`, cookie `lang`, Accept-Language)
  data: T | null;
  /** On some refusals only: which case of the code it is ('removed': the teacher removed this person; ADR 091). */
  reason?: 'removed';
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
  /** The class mode (ADR 099): 'lecture' closes the students' microphones unless invited. */
  mode: 'discuss' | 'lecture';
  /** When the room's one trial ends or ended (ms epoch); 0 when it was never taken. */
  trialEndsAt: number;
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
  courseware?: RoomCourseware; // the courseware the room shows now (core/contracts/courseware.ts)
}

export interface RoomListItem {
  roomNumber: string;
  roomType: RoomType;
  isVIP: '0' | '1';
  state: 'open' | 'closed';
  createTime: number;
  inviteUrl: string; // absolute, in the form docs/product/decisions.md gives per room type
  roomId: string; // the row (room numbers come back once a room closed): what delMyRoom names
  live: boolean; // open and someone is connected right now
}

export interface GoodsInfo {
  goodsId: string;
  goodsType: 1 | 2 | 3; // 1 monthly membership (vip), 2 use pack, 3 big-class package
  goodsName: string;
  goodsDesc: string;
  goodsPrice: number; // cents
  goodsDuration: number; // days; 0 for use packs
  goodsQuantity: number; // credits of a use pack, people of a big-class package
  goodsPoints: number; // promo points it costs in an exchange (ADR 057)
}

export interface OrderInfo {
  orderId: string;
  userPhone: string;
  goodsId: string;
  goodsName: string;
  goodsDuration: number;
  orderTotalMoney: number; // cents
  orderState: '0' | '1'; // 0 awaiting payment, 1 paid
  createTime: number; // ms epoch
  payTime: number; // ms epoch, 0 while unpaid
  expireTime: number; // ms epoch after which an unpaid order can no longer be paid
  orderDetail: string;
  promoCode: string;
  pointsSpent: number; // promo points paid instead of money (ADR 057; orderTotalMoney then is the package's price); 0 for an order paid in money
}

export interface Announcement {
  id: string;
  title: string;
  content: string;
  createTime: number; // ms epoch
}

/**
 * name -> answer data of each /api call. The request of each call is its zod input schema (the one
 * source of truth, core/contracts/api-inputs.ts); see ApiRequest and ApiInput below.
 */
export interface ApiAnswers extends CoursewareApiAnswers, RecordingApiAnswers, LiveApiAnswers, StudioApiAnswers {
  sendPhoneCode: { resendAfter: number };
  loginUser: { userInfo: UserInfo };
  logout: null;
  queryUserInfoByToken: { userInfo: UserInfo };
  getUserInfoById: { userInfo: { userId: string; name: string } };
  getUserInfo: { userInfo: UserInfo | { userId: string; name: string } };
  updateUserName: { userInfo: UserInfo };
  createAgoraRoom: { roomInfo: RoomInfo };
  createRoom: { roomInfo: RoomInfo };
  getRoomInfoByRoomNumber: { roomInfo: RoomInfo };
  /** userType '3' (observer) needs `ot`, the token of the creator's observer link. */
  userJoinAgoraRoom: JoinAnswer;
  /** The older name of userJoinAgoraRoom (docs/product/01 §7), the same call (ADR 098). */
  joinRoom: JoinAnswer;
  touristJoinRoom: JoinAnswer;
  /**
   * A demo room anyone may try without an account (ADR 092), shown at `/demo/{roomNumber}` until
   * `endsAt`. Without a teacher's session a demo identity is made: `userInfo` with its userToken
   * (the session cookie is set too); a signed-in teacher hosts it as themself (`userInfo` null).
   */
  createDemo: { roomInfo: RoomInfo; endsAt: number; userInfo: UserInfo | null };
  getConsumptionStatus: { status: 0 | 1; number: number };
  getUserVipInfo: { vipUserInfo: VipUserInfo };
  updateRoomInfoByRoomNumber: { roomInfo: RoomInfo };
  /** The creator's observer link: `${publicUrl}${invitePath}?userType=3&ot=<signed token>`. */
  createObserverLink: { url: string; expiresAt: number };
  /** A fresh media token for someone in the room (after a microphone invitation, on reconnect); userType '2' for the creator's screen share. */
  createAgoraToken: { mediaToken: string; mediaUrl: string };
  /** `total` counts the creator's listed rooms of the filter; `page` is the 1-based page answered (with `page`). */
  getMyRoomList: { roomList: RoomListItem[]; hasMore: boolean; nextPageTime: number; total: number; page: number };
  endMyRoom: null;
  delMyRoom: null;
  /** pageTime: the number of goods already shown (0 first). */
  getGoodsList: { goodsList: GoodsInfo[]; hasMore: boolean; nextPageTime: number };
  /** pageTime: createTime of the last order shown (0 first); newest first. */
  getOrderList: { orderList: OrderInfo[]; hasMore: boolean; nextPageTime: number };
  createOrder: { orderInfo: OrderInfo };
  getOrderInfo: { orderInfo: OrderInfo };
  /** tn: what the payment QR code encodes (the gateway's pay page). */
  paymentOrder: { tn: string; orderInfo: OrderInfo };
  /** Takes a package for promo points (ADR 057): paid at once, granted in the same transaction. */
  exchangePromoPoints: { orderInfo: OrderInfo; promoPoints: number };
  /** pageTime: createTime of the last announcement shown (0 first); newest first. */
  getAdminMessageList: { messageList: Announcement[]; messageTotal: number; hasMore: boolean; nextPageTime: number };
  /** Submits feedback with the captcha drawn by GET /feedback/captcha. */
  createFeedbackCaptcha: null;
  /** One event or a batch (ADR 102): how many were stored, and how many dropped past the per-address or per-person rate. */
  addLog: { stored: number; dropped: number };
  /** A short-lived board token for the `/board` channel; `channelId` is the room number, `bucketId` the board's id. */
  createWbToken: { token: string; bucketId: string };
  /** The creator's read-only review of a room's board, open or closed: one page, and the pages that hold something. */
  getWbReview: { pages: string[]; state: LayerState; images: Record<string, string> };
  /** The QR code's address for sending a photo from a phone to the caller's board (`/upload/{userId}/{roomNumber}?t=...`). */
  createPhoneUploadLink: { url: string; expiresAt: number };
  /** JSON text of `TeachingPicture[]`. */
  getTeachingPictureList: { teachingPictureList: string };
  /** A room's shown page and board without a seat (`/ppt/{id}`, ADR 093): read-only unless the viewer is the creator. */
  getRoomView: RoomView;
}

/**
 * `/api/getRoomView` (ADR 093): what a page needs to show a room's courseware page and board
 * without taking a seat. `wbtoken` is a board token that follows the room (`roomView` events);
 * unless `canDraw`, the server refuses every write made with it.
 */
export interface RoomView {
  roomNumber: string;
  roomType: RoomType;
  createUser: string; // the creator's user id; '' for someone outside the room (ADR 066)
  createUserName: string; // rooms have no name of their own: pages call it "{creator}'s classroom"; '' outside
  state: 'open' | 'closed';
  showState: string;
  roomExtend: string; // JSON text: whiteboard pageIndex, background colour
  wbPower: '0' | '1';
  courseware: RoomCourseware;
  /** The viewer's own user id (the board token's uid). */
  viewerId: string;
  wbtoken: string;
  /** True only for the room's creator, and then only when `uid` was absent or their own id. */
  canDraw: boolean;
}

/** A stencil of the shape panel (docs/product/03-board-courseware-billing.md §3): subjectId 2 math, 3 physics, 4 chemistry. */
export interface TeachingPicture {
  id: string;
  subjectId: 2 | 3 | 4;
  stname: string;
  name: string;
  nameEn: string;
  imageUrl: string;
}

export type ApiName = keyof ApiAnswers;
/** The zod schema the server parses call N's body with. */
export type ApiSchema<N extends ApiName> = (typeof apiInputs)[N];
/** What a client sends (form fields may still be strings where the schema turns them into numbers). */
export type ApiRequest<N extends ApiName> = z.input<ApiSchema<N>>;
/** What the server's handler receives, after the schema parsed (and transformed) the body. */
export type ApiInput<N extends ApiName> = z.output<ApiSchema<N>>;
/** What call N answers in the envelope's `data`. */
export type ApiData<N extends ApiName> = ApiAnswers[N];
/** name -> [request body, answer data], for readers who want both sides in one place. */
export type ApiCalls = { [N in ApiName]: [ApiRequest<N>, ApiData<N>] };

/** Header carrying the user token; pages use the httpOnly cookie below instead. */
export const TOKEN_HEADER = 'token';
export const SESSION_COOKIE = 'banshu_session';
export const LANG_COOKIE = 'lang';
/** Create and join are idempotent per client request: the query parameter `requestId` (docs/product/01-account-and-lobby.md §7). */
export const REQUEST_ID_PARAM = 'requestId';
/** Query key of the observer token on classroom routes (with userType=3). */
export const OBSERVER_TOKEN_PARAM = 'ot';

/** The feedback captcha image (GET, the signed-in user's; `t` only defeats caches). */
export const FEEDBACK_CAPTCHA_PATH = '/feedback/captcha';

/** Invite paths per room type (docs/product/decisions.md). */
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

/** The address of a demo room (ADR 092). */
export const demoPath = (roomNumber: string): string => `/demo/${roomNumber}`;
