import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { Brand } from '#app/components/Brand.tsx';
import { Button } from '#app/components/Button.tsx';
import { LanguageSwitch } from '#app/components/lang.tsx';
import { LoadingOverlay } from '#app/components/LoadingOverlay.tsx';
import { InviteLink } from './InviteLink.tsx';
import { RoomSummary } from './RoomSummary.tsx';
import { useRoomJoin } from './useRoomJoin.ts';

export interface ClassroomProps {
  roomNumber: string;
  viewerType: '1' | '4';
  /** Absolute invite address of this room. */
  inviteUrl: string;
}

/**
 * The classroom frame: top bar, join state, and the stage. The room issue fills the stage
 * (media tiles, board, courseware) using the join answer this shell obtains.
 */
export function ClassroomShell({ roomNumber, viewerType, inviteUrl }: ClassroomProps) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { state, retry } = useRoomJoin(roomNumber, viewerType);

  return (
    <div className="classroom">
      <header className="classroom__bar">
        <Brand />
        <span className="classroom__title">
          {t('classroom.roomNumber')} {roomNumber}
        </span>
        <div className="classroom__bar-end">
          <LanguageSwitch />
          <Button variant="ghost" onClick={() => void navigate('/profile')}>
            {t('classroom.leave')}
          </Button>
        </div>
      </header>
      <main id="main" className="classroom__main">
        {state.status === 'joined' ? (
          <>
            <section className="card classroom__info" aria-label={t('classroom.roomNumber')}>
              <RoomSummary answer={state.answer} />
              {state.answer.roomInfo.state === 'closed' ? <p className="hint">{t('classroom.closed')}</p> : null}
              <InviteLink url={inviteUrl} />
            </section>
            <section className="classroom__stage card" aria-live="polite">
              <p className="muted">{t('classroom.stage')}</p>
            </section>
          </>
        ) : null}
        {state.status === 'failed' ? (
          <section className="card card--narrow stack center">
            <p>{t('common.networkError')}</p>
            <Button onClick={retry}>{t('common.refresh')}</Button>
          </section>
        ) : null}
      </main>
      {state.status === 'joining' ? <LoadingOverlay label={t('classroom.joining')} /> : null}
    </div>
  );
}
