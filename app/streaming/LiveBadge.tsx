import { useLiveText } from './useLiveText.ts';
import './live.css';

/** Shown to everyone but the creator (their button says it) while the class is streamed live. */
export function LiveBadge() {
  const t = useLiveText();
  return (
    <span className="live-badge" role="img" aria-label={t('badgeLabel')} title={t('badgeLabel')} data-testid="live-badge">
      <span className="live-badge__light" aria-hidden="true" />
      {t('badge')}
    </span>
  );
}
