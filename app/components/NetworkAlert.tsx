import { useEffect, useRef, useSyncExternalStore } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation } from 'react-router';
import { RefreshCw, WifiOff, X } from 'lucide-react';
import {
  dismissNetworkAlert,
  getNetworkAlert,
  getServerNetworkAlert,
  retryNetworkAlert,
  subscribeNetworkAlert,
} from '#app/lib/network-alert.ts';
import '#app/styles/netlog.css';

/**
 * The 'network exception' message (网络异常, docs/product/01-account-and-lobby.md §8; ADR 102):
 * what failed, RETRY and close. It stays until acted on (a toast would vanish before a slow
 * network came back); a route change closes it, since its retry belongs to the page left.
 */
export function NetworkAlert() {
  const { t } = useTranslation();
  const alert = useSyncExternalStore(subscribeNetworkAlert, getNetworkAlert, getServerNetworkAlert);
  const { pathname } = useLocation();
  const last = useRef(pathname);
  useEffect(() => {
    if (last.current === pathname) return;
    last.current = pathname;
    dismissNetworkAlert();
  }, [pathname]);
  if (!alert) return null;
  return (
    <div className="netalert" role="alert" aria-live="assertive" data-testid="network-alert" key={alert.id}>
      <WifiOff className="netalert__icon" size={20} aria-hidden="true" />
      <div className="netalert__body">
        <strong className="netalert__title">{t('netlog.network.title')}</strong>
        <span className="netalert__text">{t(alert.text ?? 'netlog.network.text')}</span>
      </div>
      <button type="button" className="btn btn--primary netalert__retry" onClick={retryNetworkAlert} data-testid="network-retry">
        <RefreshCw size={16} aria-hidden="true" />
        {t('netlog.network.retry')}
      </button>
      <button
        type="button"
        className="netalert__close"
        onClick={dismissNetworkAlert}
        aria-label={t('netlog.network.close')}
        title={t('netlog.network.close')}
      >
        <X size={16} aria-hidden="true" />
      </button>
    </div>
  );
}
