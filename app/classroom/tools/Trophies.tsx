import { useTranslation } from 'react-i18next';
import { Trophy } from 'lucide-react';

/** A member's trophies in this class (ADR 114): shown from the first one. */
export function TrophyCount({ n }: { n: number }) {
  const { t } = useTranslation();
  if (n <= 0) return null;
  return (
    <span
      className="trophy-count"
      title={t('tools.trophies', { n })}
      aria-label={t('tools.trophies', { n })}
      data-testid="member-trophies"
      data-n={n}
    >
      <Trophy size={14} aria-hidden="true" />
      {n}
    </span>
  );
}

/** The teacher's trophy button on a member's row: opens the reward dialog with them chosen. */
export function RewardButton({ name, onClick }: { name: string; onClick: () => void }) {
  const { t } = useTranslation();
  return (
    <button
      type="button"
      className="btn btn--small btn--ghost member__reward"
      aria-label={t('tools.rewardOne', { name })}
      title={t('tools.rewardOne', { name })}
      data-testid="member-reward"
      onClick={onClick}
    >
      <Trophy size={16} aria-hidden="true" />
    </button>
  );
}
