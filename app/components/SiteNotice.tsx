import { useState, useSyncExternalStore } from 'react';
import { useTranslation } from 'react-i18next';
import { useLang } from './lang.tsx';
import { X } from 'lucide-react';

const DISMISS_KEY = 'siteNoticeDismissed';
const noChanges = () => () => undefined;
const readDismissed = () => localStorage.getItem(DISMISS_KEY);

/**
 * The operator's dated site notice (docs/product/decisions.md: the old shutdown notice became a setting, off by
 * default). Dismissing hides this notice, in this browser, until its text or date changes.
 */
export function SiteNotice({ notice }: { notice: { zh: string; en: string; date: string } }) {
  const { t } = useTranslation();
  const { lang } = useLang();
  const id = `${notice.date}|${notice.zh}|${notice.en}`;
  // The stored dismissal is read in the browser only (the server renders the notice).
  const dismissed = useSyncExternalStore(noChanges, readDismissed, () => null);
  const [hiddenNow, setHiddenNow] = useState<string | null>(null);
  if (dismissed === id || hiddenNow === id) return null;
  return (
    <aside className="site-notice" aria-label={t('notice.label')} data-testid="site-notice">
      <span>{lang === 'en' ? notice.en : notice.zh}</span>
      {notice.date ? <time dateTime={notice.date}>{t('notice.dated', { date: notice.date })}</time> : null}
      <button
        type="button"
        aria-label={t('notice.dismiss')}
        onClick={() => {
          localStorage.setItem(DISMISS_KEY, id);
          setHiddenNow(id);
        }}
        title={t('notice.dismiss')}
      >
        <X size={16} aria-hidden="true" />
      </button>
    </aside>
  );
}
