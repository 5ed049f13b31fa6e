import { useLayoutEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from '#app/components/Button.tsx';
import { LoadingOverlay } from '#app/components/LoadingOverlay.tsx';
import { muteToasts } from '#app/lib/toast.ts';
import { LiveRoom } from './LiveRoom.tsx';
import { useRoomJoin } from './useRoomJoin.ts';

export interface ClassroomProps {
  roomNumber: string;
  /** The signed-in viewer's type, null for an observer link opened without a session. */
  viewerType: '1' | '4' | null;
  /** The observer link's token (userType=3), else null. */
  observerToken: string | null;
  /** Absolute invite address of this room. */
  inviteUrl: string;
}

/** Joins the room over /api (or takes the lobby's fresh answer), then opens the live room. */
export function Classroom({ roomNumber, viewerType, observerToken, inviteUrl }: ClassroomProps) {
  const { t } = useTranslation();
  const { state, retry } = useRoomJoin(roomNumber, viewerType, observerToken);
  const observer = observerToken !== null;
  useLayoutEffect(() => {
    // Observers see no toasts (docs/product/02-live-classroom.md §5), from the first moment to the last.
    if (!observer) return;
    muteToasts(true);
    return () => muteToasts(false);
  }, [observer]);

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
