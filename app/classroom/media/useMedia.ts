/**
 * `useMedia()`: the classroom's audio and video for React. The session, the local tracks and the
 * reconnect rules live in MediaClient (media-client.ts); this hook makes one per room, passes it
 * the room's inputs (seated, on the microphone, the view) and reads its snapshot with
 * useSyncExternalStore.
 */
import { useEffect, useMemo, useSyncExternalStore } from 'react';
import { useTranslation } from 'react-i18next';
import type { JoinAnswer } from '#core/contracts/api.ts';
import { joinDevices } from './devices.ts';
import { MediaClient, type MediaActions, type MediaSnapshot } from './media-client.ts';

export { canShareScreen, SCREEN_BUTTON_BLOCK_MS, type MediaActions, type MediaPerson, type MediaStatus } from './media-client.ts';

export interface MediaState extends MediaSnapshot {
  actions: MediaActions;
}

export interface UseMediaOptions {
  answer: JoinAnswer;
  roomNumber: string;
  /** The room channel is live (we are seated). */
  active: boolean;
  /** This person holds the microphone of a large class now. */
  onMic: boolean;
  showState: string;
  onView: (showState: string) => void;
}

export function useMedia(o: UseMediaOptions): MediaState {
  const { t } = useTranslation();
  const { roomNumber, active, onMic, showState, onView } = o;
  const { mediaUrl, mediaToken } = o.answer;
  // A large class's audience has no devices until invited; everyone else starts as the pre-join chose.
  const audience = o.answer.roomInfo.roomType === 4 && o.answer.role !== 'creator';
  const client = useMemo(() => new MediaClient({ roomNumber, initial: joinDevices(roomNumber, audience) }), [roomNumber, audience]);
  useEffect(() => client.setHelpers({ t, onView }), [client, t, onView]);
  useEffect(() => client.attach(), [client]);
  // Connect once seated; the client comes back after drops by itself.
  useEffect(() => {
    if (!active || !mediaUrl || !mediaToken) return;
    client.start(mediaUrl, mediaToken);
    return () => client.stop();
  }, [client, active, mediaUrl, mediaToken]);
  useEffect(() => client.setOnMic(onMic), [client, onMic]);
  useEffect(() => client.setShowState(showState), [client, showState]);
  const snapshot = useSyncExternalStore(client.subscribe, client.getSnapshot, client.getSnapshot);
  return useMemo(() => ({ ...snapshot, actions: client.actions }), [snapshot, client]);
}
