import { useTranslation } from 'react-i18next';
import { Button } from '#app/components/Button.tsx';
import type { ReconnectState } from './useRoomChannel.ts';

/** docs/product/02-live-classroom.md §2/§4: 'network problem, will reconnect within N seconds' with 'try now', then 'reconnecting'. */
export function ReconnectOverlay({ reconnect, onTryNow }: { reconnect: ReconnectState; onTryNow: () => void }) {
  const { t } = useTranslation();
  return (
    <div className="overlay" role="alertdialog" aria-modal="true" aria-labelledby="reconnect-title" data-testid="reconnect-overlay">
      <div className="overlay__box reconnect">
        <h2 id="reconnect-title">{t('classroom.reconnect.title')}</h2>
        {reconnect.reconnecting ? (
          <p aria-live="polite">
            <span className="spinner" aria-hidden="true" /> {t('classroom.reconnect.reconnecting')}
          </p>
        ) : (
          <p aria-live="polite">{t('classroom.reconnect.text', { n: reconnect.countdown })}</p>
        )}
        {reconnect.attempts > 0 ? <p className="muted">{t('classroom.reconnect.attempts', { n: reconnect.attempts })}</p> : null}
        <Button onClick={onTryNow} disabled={reconnect.reconnecting} autoFocus>
          {t('classroom.reconnect.now')}
        </Button>
      </div>
    </div>
  );
}
