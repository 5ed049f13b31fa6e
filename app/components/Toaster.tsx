import { useSyncExternalStore } from 'react';
import { useTranslation } from 'react-i18next';
import { dismissToast, getServerToasts, getToasts, subscribeToasts } from '#app/lib/toast.ts';

/** Toasts at the top centre; a polite live region so screen readers announce them. */
export function Toaster() {
  const { t } = useTranslation();
  const toasts = useSyncExternalStore(subscribeToasts, getToasts, getServerToasts);
  return (
    <div className="toaster" role="status" aria-live="polite" aria-atomic="false">
      {toasts.map((item) => (
        <div key={item.id} className={`toast toast--${item.kind}`} data-testid="toast">
          <span className="toast__text">{item.text}</span>
          <button type="button" className="toast__close" onClick={() => dismissToast(item.id)} aria-label={t('common.close')}>
            ×
          </button>
        </div>
      ))}
    </div>
  );
}
