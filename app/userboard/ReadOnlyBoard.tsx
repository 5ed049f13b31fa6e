import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { RotateCw } from 'lucide-react';
import { Brand } from '#app/components/Brand.tsx';
import { LanguageSwitch } from '#app/components/lang.tsx';
import { loginPath } from '#app/lib/names.ts';
import { isRoomRefusal, refusalPath } from '#app/lib/refusal.ts';
import { usePhoneLayout } from '#app/lib/use-phone-layout.ts';
import { SlideView } from '#app/room-view/SlideView.tsx';
import { useRoomView } from '#app/room-view/useRoomView.ts';
import '#app/room-view/slide-view.css';

/**
 * The read-only board of `/wb/{id}/{uid}` and `/imwb/{id}/{uid}` for anyone but `uid` (ADR 094):
 * the room view of ADR 093 (`useRoomView` + `SlideView`), following what the room shows: its
 * whiteboard page, or the open document's slide with its ink while the teacher shows it. No seat
 * and no tools; the view's board token is a read token, whose every write the server refuses.
 */
export function ReadOnlyBoard(props: { roomNumber: string; uid: string; imwb: boolean; phone: boolean }) {
  const { roomNumber, uid, imwb } = props;
  const { t } = useTranslation();
  const navigate = useNavigate();
  const phone = usePhoneLayout(props.phone);
  const state = useRoomView(roomNumber, { uid, show: 'follow' });

  // A refused view: the refusal page for room refusals, sign-in when the session ended.
  const { refusal } = state;
  useEffect(() => {
    if (!refusal) return;
    if (refusal.code === '6' || refusal.code === '7' || refusal.code === '21001')
      void navigate(loginPath(window.location.pathname), { replace: true });
    else if (isRoomRefusal(refusal.code)) void navigate(refusalPath(refusal.code, roomNumber, refusal.reason), { replace: true });
  }, [refusal, navigate, roomNumber]);

  const { view, phase } = state;
  return (
    <div className={`userview${phone ? ' userview--phone' : ''}`} data-testid="room-view" data-phase={phase}>
      <header className="userview__bar">
        <Brand />
        <h1 className="userview__title">{t('userBoard.view.title', { n: roomNumber })}</h1>
        {view ? (
          <span className="userview__owner muted" data-testid="read-only-owner">
            {view.createUserName ? t('userBoard.view.readOnly', { name: view.createUserName }) : t('userBoard.view.readOnlyAnon')}
          </span>
        ) : null}
        <span className="userview__end">
          <LanguageSwitch />
        </span>
      </header>
      {imwb ? (
        <p className="phone-entry" data-testid="phone-entry-read-only">
          {t('userBoard.phone.onlyDrawer')}
        </p>
      ) : null}
      <main id="main" className="userview__main">
        {phase === 'ready' ? (
          <SlideView state={state} phone={phone} boardNote={false} />
        ) : (
          <div className="userview__state" role="status">
            {phase === 'closed' ? (
              <p>{t('userBoard.view.closed')}</p>
            ) : phase === 'refused' ? (
              <>
                <p>{t('userBoard.view.failed')}</p>
                <button type="button" className="btn btn--secondary" onClick={state.refresh}>
                  <RotateCw size={18} aria-hidden="true" /> {t('userBoard.view.retry')}
                </button>
              </>
            ) : (
              <p>
                <span className="spinner" aria-hidden="true" /> {t('userBoard.view.loading')}
              </p>
            )}
          </div>
        )}
      </main>
    </div>
  );
}
