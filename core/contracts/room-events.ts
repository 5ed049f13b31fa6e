/**
 * The room channel (socket.io namespace `/room`), shared by the server and the browser.
 * A connection proves who it is with the join answer's `imToken` (handshake `auth.token`).
 * Every client request is acknowledged with `{code, msg, data?}`: code '0' or a code of
 * core/platform/errors.ts. The server checks, persists, then broadcasts; nothing a client says is
 * rebroadcast unchecked.
 */
import type { RoomInfo } from './api.ts';
import type { CoursewareRoomEvents, CoursewareRoomRequests, RoomCourseware } from './courseware.ts';

export const ROOM_NAMESPACE = '/room';
export const ROOM_PROTOCOL_VERSION = 1;

export type Role = 'creator' | 'member' | 'tourist' | 'observer' | 'recorder';

export interface Ack<T = null> {
  code: string;
  msg: string;
  data?: T;
}

export interface Member {
  userId: string;
  name: string;
  role: Role;
  /** 0 unknown, 1-6 (DECISIONS.md bands: 1-2 strong, 3-4 moderate, 5-6 weak). */
  networkQuality: number;
  online: boolean;
}

export interface ChatMessage {
  id: string;
  uid: string;
  name: string;
  text: string;
  at: number;
}

export type MicPhase = 'idle' | 'inviting' | 'connected';

export interface MicState {
  phase: MicPhase;
  userId: string; // '' when idle
  name: string;
  since: number; // ms epoch of the last change
  /** When an unanswered invitation fails ('mic failed'), ms epoch; 0 otherwise. */
  deadline: number;
}

/** Fields of the room a patch may carry; who may change which is decided on the server. */
export interface RoomPatch {
  showState?: string;
  pptId?: string;
  pptCurrentPage?: number;
  wbPower?: '0' | '1';
  roomExtend?: string;
  networkQuality?: number;
}

export interface RoomSnapshot {
  roomInfo: RoomInfo;
  you: { userId: string; name: string; role: Role };
  members: Member[];
  messages: ChatMessage[];
  mic: MicState;
  teacherOnline: boolean;
  serverTime: number;
  /** The courseware the room shows now, freshly signed (core/contracts/courseware.ts). */
  courseware?: RoomCourseware;
}

type Req<P, R = null> = (payload: P, ack: (answer: Ack<R>) => void) => void;

/** Browser -> server. */
export interface ClientToServer extends CoursewareRoomRequests {
  joinRoom: Req<{ version?: number }, RoomSnapshot>;
  leaveRoom: Req<Record<string, never>>;
  customRoomEvent: Req<RoomPatch>;
  chat: Req<{ text: string }, ChatMessage>;
  inviteMic: Req<{ userId: string }>;
  answerMic: Req<{ agree: boolean }>;
  stopMic: Req<Record<string, never>>;
  kickout: Req<{ userId: string }>;
  endRoom: Req<Record<string, never>>;
  startTrial: Req<Record<string, never>, { trialEndsAt: number }>;
}

/** Server -> browser. */
export interface ServerToClient extends CoursewareRoomEvents {
  /** A patch of the room info, after the server applied it; `by` is who changed it. */
  customRoomEvent: (patch: Partial<RoomInfo> & { by: string }) => void;
  members: (payload: { members: Member[]; teacherOnline: boolean; participants: number }) => void;
  messageevent: (message: ChatMessage) => void;
  mic: (state: MicState & { outcome?: 'agreed' | 'rejected' | 'stopped' | 'failed' }) => void;
  kickout: (payload: { userId: string }) => void;
  roomClosed: (payload: { reason: 'ended' | 'expired' | 'idle' }) => void;
}

export const CHAT_MAX_CHARS = 30;
export const CHAT_HISTORY = 100;
export const MIC_TIMEOUT_MS = 40_000;
