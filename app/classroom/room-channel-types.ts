/**
 * What the room channel's client (room-channel-client.ts) shows the rest of the page: its status
 * and reconnect state, the snapshot the hook reads, the requests as actions, and the courseware
 * events on the same socket.
 */
import type { Socket } from 'socket.io-client';
import type { ChannelProblem } from '#core/channel/open.ts';
import type { JoinAnswer } from '#core/contracts/api.ts';
import type { ClassModeValue, RoomPatch } from '#core/contracts/room-events.ts';
import type { api } from '#app/lib/api.ts';
import type { CoursewareRoomEvents, CoursewareRoomRequests } from '#core/contracts/courseware.ts';
import type { LiveApiAnswers } from '#core/contracts/streaming.ts';
import type { RoomState } from './roomState.ts';

export type ChannelStatus = 'connecting' | 'live' | 'offline' | 'closed' | 'gone';

export interface ReconnectState {
  /** Seconds until the next attempt. */
  countdown: number;
  /** Failed attempts since the connection dropped. */
  attempts: number;
  /** An attempt is running. */
  reconnecting: boolean;
}

/** The messages this class shows (react-i18next's `t` fits). */
export type RoomText = (
  key:
    | 'classroom.roomClosed'
    | 'modes.clock.ended'
    | 'classroom.kicked'
    | 'hands.failed'
    | 'hands.rejected'
    | 'hands.broughtUp'
    | 'common.refresh'
    | 'record.button.failed'
    | 'record.button.stopped',
) => string;

export interface RoomActions {
  setView: (showState: string) => Promise<boolean>;
  /** Trims and checks the text first; true when the server took it. */
  sendChat: (text: string) => Promise<boolean>;
  /** Stage and hands (ADR 112): each true once the server took it (the room hears the stage event). */
  raiseHand: () => Promise<boolean>;
  /** One's own hand, or (teacher) anyone's. */
  lowerHand: (userId?: string) => Promise<boolean>;
  inviteStage: (userId: string) => Promise<boolean>;
  answerStage: (agree: boolean) => Promise<boolean>;
  /** The teacher takes `userId` down (or withdraws the invitation); a student steps down with their own id. */
  stageDown: (userId: string) => Promise<boolean>;
  stageAllDown: () => Promise<boolean>;
  /** The carousel's period in seconds, 0 off (teacher). */
  setCarousel: (seconds: number) => Promise<boolean>;
  kick: (userId: string) => Promise<boolean>;
  endRoom: () => Promise<boolean>;
  startTrial: () => Promise<number | null>;
  /** The class mode (creator, ADR 099); true once the server took it (the room hears it as a patch). */
  setMode: (mode: ClassModeValue) => Promise<boolean>;
  /** Tells the server we leave (the teacher's leaving resets the view), then closes the socket. */
  leave: () => Promise<void>;
  /** This person's network as the SFU grades it (1-6, 0 unknown); reported to the room for everyone's members list. */
  reportNetwork: (quality: number) => void;
  /** 'try now' on the reconnect overlay. */
  reconnectNow: () => void;
  /** A room patch (the board's wbPower and roomExtend), applied here once the server took it. */
  patch: (patch: RoomPatch) => Promise<boolean>;
  /** Cloud recording (creator): startTask; '2' until the recorder reports (roomRecord) or gives up (roomRecordFailed). */
  startRecord: () => Promise<boolean>;
  /** stopTask for the running task (asked of the server first when this page does not know it). */
  stopRecord: () => Promise<boolean>;
  /**
   * Live streaming (creator, issue 14): startLive with the platform and the key (or the full
   * address for 'custom'); liveState '2' until roomLive says live or failed. The key is sent and
   * forgotten: it is never kept here. A refusal is answered, not toasted (the dialog shows it).
   */
  startLive: (platform: string, pushStreamUrl: string) => Promise<LiveCallAnswer>;
  /** endLive: liveState '0' once the server took it (a refusal is toasted). */
  endLive: () => Promise<boolean>;
  /** The platforms the key dialog offers (a refusal is answered, not toasted). */
  livePlatforms: () => Promise<LivePlatformsAnswer>;
}

/** startLive's outcome for the dialogs: ok, or the server's code and message (a network failure's code is NETWORK_ERROR). */
export type LiveCallAnswer = { ok: true } | { ok: false; code: string; msg: string };
export type LivePlatformsAnswer = ({ ok: true } & LiveApiAnswers['getLivePlatforms']) | { ok: false; code: string; msg: string };

export interface CoursewareChannel {
  on: <E extends keyof CoursewareRoomEvents>(event: E, handler: CoursewareRoomEvents[E]) => () => void;
  request: <E extends keyof CoursewareRoomRequests>(
    event: E,
    payload: Parameters<CoursewareRoomRequests[E]>[0],
    options?: { quiet?: boolean },
  ) => Promise<{ code: string; msg: string }>;
}

/** What the hook reads; a new object on every change (useSyncExternalStore compares identity). */
export interface RoomChannelSnapshot {
  status: ChannelStatus;
  state: RoomState | null;
  reconnect: ReconnectState;
}

/** The socket the class drives (its requests and events go through openChannel, core/channel/open.ts). */
export type RoomSocket = Socket;

export interface RoomChannelOptions {
  answer: JoinAnswer;
  roomNumber: string;
  /** Leaves the classroom (replacing the history entry); the hook sets it with setHelpers(). */
  navigate?: (to: string) => void;
  /** The translation of a message key (the toasts); the hook sets it with setHelpers(). */
  t?: RoomText;
  /** For tests: make the socket. */
  socket?: (token: string) => RoomSocket;
  /** For tests: the /api client. */
  api?: typeof api;
  /** For tests: no window listeners ('online', 'offline'); the default is to listen when there is a window. */
  listenToWindow?: boolean;
  /** Where a server message that broke its schema is told (default: the client log, ADR 108). */
  log?: (problem: ChannelProblem) => void;
}
