import { useSyncExternalStore } from 'react';
import { useTranslation } from 'react-i18next';
import { X } from 'lucide-react';
import { safeGet, safeSet } from '#app/lib/storage.ts';

const DISMISSED_KEY = 'app-banner-dismissed';

/**
 * The app download hint of ADR 091: phones join in the browser; when the operator configured a
 * store link for this device, a thin dismissible line above the classroom offers the app. Never
 * over the class (it sits in the flow above it), and gone for good once closed (remembered).
 */
const listeners = new Set<() => void>();
function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
const dismissedHere = () => safeGet('local', DISMISSED_KEY) === '1';
// The server does not know what this browser dismissed: it renders nothing, the browser decides.
const dismissedOnServer = () => true;

export function AppBanner({ href }: { href: string | null }) {
  const { t } = useTranslation();
  const dismissed = useSyncExternalStore(subscribe, dismissedHere, dismissedOnServer);
  if (dismissed || !href) return null;
  const dismiss = () => {
    safeSet('local', DISMISSED_KEY, '1');
    for (const l of listeners) l();
  };
  return (
    <aside className="app-banner" aria-label={t('refusal.banner.download')} data-testid="app-banner">
      <p className="app-banner__text">{t('refusal.banner.text')}</p>
      <a className="btn btn--small btn--secondary app-banner__link" href={href} rel="noopener noreferrer" data-testid="app-banner-link">
        {t('refusal.banner.download')}
      </a>
      <button
        type="button"
        className="icon-btn app-banner__close"
        onClick={dismiss}
        aria-label={t('refusal.banner.dismiss')}
        title={t('refusal.banner.dismiss')}
        data-testid="app-banner-close"
      >
        <X size={20} aria-hidden="true" />
      </button>
    </aside>
  );
}
