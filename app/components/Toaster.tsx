import { useEffect, useRef, useSyncExternalStore } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation } from 'react-router';
import { CircleAlert, CircleCheck, Info, X } from 'lucide-react';
import { dismissStaleToasts, dismissToast, getServerToasts, getToasts, subscribeToasts } from '#app/lib/toast.ts';

const ICONS = { info: Info, success: CircleCheck, error: CircleAlert } as const;

/**
 * Toasts below the page's top bar, centred (ADR 090): never over the bar's menus. Errors are
 * alerts, the rest polite statuses; each has a close button; a route change dismisses the toasts
 * of the page left behind.
 */
export function Toaster() {
  const { t } = useTranslation();
  const toasts = useSyncExternalStore(subscribeToasts, getToasts, getServerToasts);
  const { pathname } = useLocation();
  const last = useRef(pathname);
  useEffect(() => {
    if (last.current === pathname) return;
    last.current = pathname;
    dismissStaleToasts();
  }, [pathname]);
  return (
    <div className="toaster" data-testid="toaster">
      {toasts.map((item) => {
        const Icon = ICONS[item.kind];
        return (
          <div
            key={item.id}
            className={`toast toast--${item.kind}`}
            role={item.kind === 'error' ? 'alert' : 'status'}
            aria-live={item.kind === 'error' ? 'assertive' : 'polite'}
            data-testid="toast"
          >
            <Icon className="toast__icon" size={18} aria-hidden="true" />
            <span className="toast__text">{item.text}</span>
            <button
              type="button"
              className="toast__close"
              onClick={() => dismissToast(item.id)}
              aria-label={t('common.close')}
              title={t('common.close')}
            >
              <X size={16} aria-hidden="true" />
            </button>
          </div>
        );
      })}
    </div>
  );
}
