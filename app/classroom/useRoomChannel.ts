/**
 * `useRoomChannel()`: the room channel for React. The socket, the room state and the reconnect
 * rules live in RoomChannelClient (room-channel-client.ts); this hook makes one per join answer,
 * starts it while mounted and reads its snapshot with useSyncExternalStore.
 */
import { useEffect, useMemo, useSyncExternalStore } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import type { JoinAnswer } from '#core/contracts/api.ts';
import { RoomChannelClient } from './room-channel-client.ts';
import type { ChannelStatus, CoursewareChannel, ReconnectState, RoomActions } from './room-channel-types.ts';
import type { RoomState } from './roomState.ts';
import type { ToolsStore } from './tools/tools-store.ts';
import type { GroupsStore } from './groups/groups-store.ts';

export { chatText, POLL_MS, RECONNECT_ATTEMPTS, RECONNECT_WAIT_S } from './room-channel-client.ts';
export type {
  ChannelStatus,
  CoursewareChannel,
  LiveCallAnswer,
  LivePlatformsAnswer,
  ReconnectState,
  RoomActions,
} from './room-channel-types.ts';

export interface RoomChannel {
  status: ChannelStatus;
  state: RoomState | null;
  reconnect: ReconnectState;
  actions: RoomActions;
  /** The courseware events and requests on this socket (core/contracts/courseware.ts). */
  courseware: CoursewareChannel;
  /** The class tools (ADR 114). */
  tools: ToolsStore;
  /** The breakout groups (ADR 118). */
  groups: GroupsStore;
}

export interface UseRoomChannelOptions {
  answer: JoinAnswer;
  roomNumber: string;
}

export function useRoomChannel({ answer, roomNumber }: UseRoomChannelOptions): RoomChannel {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const client = useMemo(() => new RoomChannelClient({ answer, roomNumber }), [answer, roomNumber]);
  // Before start() below (effects run in order), and again when the language or router changes.
  useEffect(() => client.setHelpers({ t, navigate: (to) => void navigate(to, { replace: true }) }), [client, t, navigate]);
  useEffect(() => {
    client.start();
    return () => client.stop();
  }, [client]);
  const { status, state, reconnect } = useSyncExternalStore(client.subscribe, client.getSnapshot, client.getSnapshot);
  return { status, state, reconnect, actions: client.actions, courseware: client.courseware, tools: client.tools, groups: client.groups };
}
