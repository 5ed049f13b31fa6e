import { useLayoutEffect, useState, useSyncExternalStore } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from '#app/components/Button.tsx';
import { LoadingOverlay } from '#app/components/LoadingOverlay.tsx';
import { safeGet, updateKey } from '#app/lib/storage.ts';
import { muteToasts } from '#app/lib/toast.ts';
import { LiveRoom } from './LiveRoom.tsx';
import { PreJoin, usesCamera } from './PreJoin.tsx';
import { useRoomJoin } from './useRoomJoin.ts';

export interface ClassroomProps {
  roomNumber: string;
  /** The signed-in viewer's type, null for an observer link opened without a session. */
  viewerType: '1' | '4' | null;
  /** The observer link's token (userType=3), else null. */
  observerToken: string | null;
  /** Absolute invite address of this room. */
  inviteUrl: string;
  /** A large class's audience: the pre-join opens no device (ADR 089). */
  audience?: boolean;
  roomType?: number;
}

const noChanges = () => () => undefined;
const inBrowser = () => true;
const onServer = () => false;

/**
 * The pre-join (ADR 089), then the join over /api (or the visitor name step's fresh answer), then
 * the live room. Observers and the recorder skip the pre-join.
 */
export function Classroom({ roomNumber, viewerType, observerToken, inviteUrl, audience = false, roomType = 1 }: ClassroomProps) {
  const { t } = useTranslation();
  // Decided in the browser (the history state and storage are there): the server renders the loading screen.
  const browser = useSyncExternalStore(noChanges, inBrowser, onServer);
  const observer = observerToken !== null;
  // A visitor without a name for this room is on the way to the name step (useRoomJoin).
  const naming = browser && !observer && viewerType === '4' && safeGet('local', updateKey(roomNumber)) !== 'true';
  const [joinPressed, setJoinPressed] = useState(false);
  const { state, retry, skipPreJoin } = useRoomJoin(roomNumber, viewerType, observerToken, browser && !naming && joinPressed);
  useLayoutEffect(() => {
    // Observers see no toasts (docs/product/02-live-classroom.md §5), from the first moment to the last.
    if (!observer) return;
    muteToasts(true);
    return () => muteToasts(false);
  }, [observer]);

  if (browser && !naming && !joinPressed && !skipPreJoin) {
    return (
      <PreJoin
        roomNumber={roomNumber}
        audience={audience}
        camera={usesCamera(roomType)}
        needName={false}
        backTo={viewerType === '4' ? '/home' : '/'}
        onJoin={() => setJoinPressed(true)}
      />
    );
  }
  if (state.status === 'joined') return <LiveRoom answer={state.answer} roomNumber={roomNumber} inviteUrl={inviteUrl} />;
  return (
    <div className="room room--joining">
      {state.status === 'failed' ? (
        <main id="main" className="room__failed">
          <section className="card card--narrow stack center">
            <p>{t('common.networkError')}</p>
            <Button onClick={retry}>{t('common.refresh')}</Button>
          </section>
        </main>
      ) : (
        <LoadingOverlay label={t('classroom.joining')} />
      )}
    </div>
  );
}
