/**
 * The classroom's view of the room, kept from the channel's events. A pure reducer so the rules
 * (what a patch changes, how chat is capped, what a stage event means) are tested without a socket.
 */
import type { RoomInfo } from '#core/contracts/api.ts';
import type { RecordState } from '#core/contracts/recording.ts';
import type { LiveFailure, LiveState, LiveStatus } from '#core/contracts/streaming.ts';
import { CHAT_HISTORY, type ChatMessage, type Member, type RoomSnapshot } from '#core/contracts/room-events.ts';
import type { StageState } from '#core/contracts/stage.ts';

/** The snapshot as kept by the client: live counts, and the clock skew instead of the server time. */
export interface RoomState extends Omit<RoomSnapshot, 'serverTime'> {
  participants: number;
  /** serverTime - Date.now() at the last snapshot: deadlines are in server time. */
  clockSkew: number;
  /** The cloud recording beside roomInfo.recordState: its task and when it began recording. */
  record: RecordInfo;
  /** The live push beside roomInfo.liveState (issue 14): platform, since, bitrate, reconnecting, last failure. */
  live: LiveInfo;
}

export interface RecordInfo {
  /** The running task ('' until the start answer, the roomRecord event or the state call names it). */
  taskId: string;
  /** Local ms epoch when recordState became '1' (the button's elapsed time); null unless recording. */
  since: number | null;
}

export const NO_RECORD: RecordInfo = { taskId: '', since: null };

export interface LiveInfo {
  /** The push's task ('' until the start answer, a roomLive event or the state call names it). */
  taskId: string;
  /** The platform's name ('custom' for a full address); kept after the end (the restart offers it again). */
  platform: string;
  /** Local ms epoch when liveState became '1' (the elapsed time); null unless live. */
  since: number | null;
  /** The push's bitrate lately, 0 when unknown. */
  kbps: number;
  /** The platform was lost and the recorder is trying again. */
  reconnecting: boolean;
  /** How the last push ended on its own (set with liveState '0'); null otherwise. */
  failure: LiveFailure | null;
}

export const NO_LIVE: LiveInfo = { taskId: '', platform: '', since: null, kbps: 0, reconnecting: false, failure: null };

export type RoomAction =
  | { type: 'snapshot'; snapshot: RoomSnapshot; receivedAt: number }
  | { type: 'patch'; patch: Partial<RoomInfo>; at?: number }
  /** A recording event or answer: the state, its task and (when known) when it began, in local time. */
  | { type: 'record'; recordState: RecordState; taskId?: string; startedAt?: number; at: number }
  /**
   * A live status (the roomLive event, the getLiveState answer, the startLive answer): startedAt is
   * in server time and is made local with the state's clock skew.
   */
  | { type: 'live'; status: LiveStatus; at: number }
  | { type: 'members'; members: Member[]; teacherOnline: boolean; participants: number }
  | { type: 'message'; message: ChatMessage }
  /** The stage as the server says it now (ADR 112): the whole state, never a diff. */
  | { type: 'stage'; stage: StageState };

export const EMPTY_STAGE: StageState = { seats: 0, onStage: [], invited: [], hands: [], carousel: { seconds: 0, nextAt: 0 } };

/** Only the fields RoomInfo has; `by` and anything unknown are dropped. */
function cleanPatch(patch: Partial<RoomInfo> & { by?: string }): Partial<RoomInfo> {
  const { by: _by, ...rest } = patch;
  void _by;
  return rest;
}

/**
 * The recording after recordState becomes `next` at `at`: recording keeps the time it began (or
 * takes `startedAt`, else now); any other state has no start time. The task id stays until a new one
 * replaces it (stop needs it after '1', and a failure names it).
 */
export function nextRecord(prev: RecordInfo, next: RecordState, at: number, taskId?: string, startedAt?: number): RecordInfo {
  const task = taskId ?? prev.taskId;
  if (next !== '1') return { taskId: task, since: null };
  const sameTask = taskId === undefined || taskId === prev.taskId;
  return { taskId: task, since: startedAt ?? (sameTask ? prev.since : null) ?? at };
}

/**
 * The live push after `status` arrives at local time `at` (skew: server minus local). Live keeps
 * the time it went live (or takes the server's startedAt, else now); any other state has none. A
 * late status of an older task never undoes the one running now, and a running push never steps
 * back to '2'.
 */
export function nextLive(prev: LiveInfo, prevState: LiveState, status: LiveStatus, at: number, skew: number): LiveInfo | null {
  const otherTask = prev.taskId !== '' && status.taskId !== '' && status.taskId !== prev.taskId;
  if (otherTask && prevState !== '0' && status.liveState === '0') return null;
  if (!otherTask && prevState === '1' && status.liveState === '2') return null;
  const base = { taskId: status.taskId || prev.taskId, platform: status.platform || prev.platform };
  if (status.liveState === '0') return { ...NO_LIVE, ...base, failure: status.failure ?? null };
  const serverStart = status.startedAt !== null && status.startedAt > 0 ? status.startedAt - skew : null;
  const since = status.liveState === '1' ? (serverStart ?? (otherTask ? null : prev.since) ?? at) : null;
  return {
    ...base,
    since,
    kbps: Math.max(0, status.kbps || 0),
    reconnecting: status.liveState === '1' && status.reconnecting,
    failure: null,
  };
}

/** roomInfo.liveState changed by a patch or a snapshot (no details): the push keeps what it knew. */
function liveFromState(prev: LiveInfo, next: LiveState, at: number): LiveInfo {
  if (next === '0') return { ...prev, since: null, kbps: 0, reconnecting: false };
  if (next === '2') return { ...prev, since: null, failure: null };
  return { ...prev, since: prev.since ?? at, failure: null };
}

export function fromSnapshot(snapshot: RoomSnapshot, receivedAt: number, prev?: RoomState | null): RoomState {
  // A reconnect's snapshot keeps the running recording's task and start time.
  const record = nextRecord(prev?.record ?? NO_RECORD, snapshot.roomInfo.recordState, receivedAt);
  // And the live push's (the failure a reconnect missed is not shown late).
  const live = liveFromState({ ...(prev?.live ?? NO_LIVE), failure: null }, snapshot.roomInfo.liveState ?? '0', receivedAt);
  return {
    roomInfo: snapshot.roomInfo,
    you: snapshot.you,
    members: snapshot.members,
    messages: snapshot.messages.slice(-CHAT_HISTORY),
    stage: snapshot.stage ?? EMPTY_STAGE,
    teacherOnline: snapshot.teacherOnline,
    participants: snapshot.members.length,
    clockSkew: snapshot.serverTime ? snapshot.serverTime - receivedAt : 0,
    record,
    live,
    tools: snapshot.tools,
    toolsPrivate: snapshot.toolsPrivate,
    pollPrivate: snapshot.pollPrivate,
    myAnswers: snapshot.myAnswers,
    groups: snapshot.groups,
  };
}

export function roomReducer(state: RoomState | null, action: RoomAction): RoomState | null {
  if (action.type === 'snapshot') return fromSnapshot(action.snapshot, action.receivedAt, state);
  if (!state) return state; // events before the first snapshot are covered by the snapshot
  switch (action.type) {
    case 'patch': {
      const roomInfo = { ...state.roomInfo, ...cleanPatch(action.patch) };
      const record =
        action.patch.recordState === undefined ? state.record : nextRecord(state.record, action.patch.recordState, action.at ?? Date.now());
      const liveState = action.patch.liveState;
      const live =
        liveState === undefined || liveState === state.roomInfo.liveState
          ? state.live
          : liveFromState(state.live, liveState, action.at ?? Date.now());
      return { ...state, roomInfo, record, live };
    }
    case 'record':
      return {
        ...state,
        roomInfo: { ...state.roomInfo, recordState: action.recordState },
        record: nextRecord(state.record, action.recordState, action.at, action.taskId, action.startedAt),
      };
    case 'live': {
      const live = nextLive(state.live, state.roomInfo.liveState ?? '0', action.status, action.at, state.clockSkew);
      if (!live) return state;
      return { ...state, roomInfo: { ...state.roomInfo, liveState: action.status.liveState }, live };
    }
    case 'members':
      return { ...state, members: action.members, teacherOnline: action.teacherOnline, participants: action.participants };
    case 'message':
      if (state.messages.some((m) => m.id === action.message.id)) return state; // our own ack and the broadcast
      return { ...state, messages: [...state.messages, action.message].slice(-CHAT_HISTORY) };
    case 'stage': {
      const { seats, onStage, invited, hands, carousel } = action.stage;
      return { ...state, stage: { seats, onStage, invited, hands, carousel } };
    }
  }
}

/** Layout class by the number of other people (docs/product/02-live-classroom.md §2): 1 two-person, 2 three-person, 3 four-person. */
export function layoutClass(others: number): string {
  if (others === 1) return 'layout-two';
  if (others === 2) return 'layout-three';
  if (others === 3) return 'layout-four';
  return '';
}

/** docs/product/decisions.md network bands: 0 unknown, 1-2 strong, 3-4 moderate, 5-6 weak. */
export function networkBand(quality: number): 'unknown' | 'strong' | 'moderate' | 'weak' {
  if (!quality) return 'unknown';
  if (quality <= 2) return 'strong';
  if (quality <= 4) return 'moderate';
  return 'weak';
}

/**
 * A person's network as tiles and the members list show it: the SFU's 1-6 figure from RTCP (the
 * media note `quality`), or the figure they reported from it, 0 while unknown. The browser's own
 * estimate is never mixed in, so both places always agree.
 */
export function sfuNetworkQuality(sfu: Record<string, number>, member: { userId: string; networkQuality?: number }): number {
  return sfu[member.userId] ?? member.networkQuality ?? 0;
}

const EFFECTIVE_TYPE_QUALITY: Record<string, number> = { '4g': 1, '3g': 3, '2g': 5, 'slow-2g': 6 };

/** The browser's own guess at its network, as a quality number (0 when it cannot tell). */
export function localNetworkQuality(nav: { onLine?: boolean; connection?: { effectiveType?: string } } | undefined): number {
  if (!nav) return 0;
  if (nav.onLine === false) return 6;
  return EFFECTIVE_TYPE_QUALITY[nav.connection?.effectiveType ?? ''] ?? 0;
}
