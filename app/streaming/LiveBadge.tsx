import { useLiveText } from './useLiveText.ts';
import '#app/recordings/record-button.css';

/** Shown to everyone but the creator (their button says it) while the class is streamed live. */
export function LiveBadge() {
  const t = useLiveText();
  return (
    <span className="on-air" role="img" aria-label={t('badgeLabel')} title={t('badgeLabel')} data-testid="live-badge">
      <span className="on-air__light" aria-hidden="true" />
      {t('badge')}
    </span>
  );
}
