import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Trophy } from 'lucide-react';
import { shownName } from '#app/lib/display-name.ts';
import type { ToolsStore } from './tools-store.ts';
import { useToolsView } from './useClassTools.ts';

/** How long the reward's animation shows (ms). */
export const REWARD_SHOW_MS = 3200;

/**
 * A reward's short animation for everyone (ADR 114): a trophy rising over the class with who got
 * it. It holds no control and lets every click through, so it never covers anything one could use;
 * it is also said to screen readers.
 */
export function RewardBurst({ store, myId }: { store: ToolsStore; myId: string }) {
  const { t } = useTranslation();
  const { rewarded } = useToolsView(store);
  const [shown, setShown] = useState<typeof rewarded>(null);
  const [seenAt, setSeenAt] = useState(0);
  if (rewarded && rewarded.at !== seenAt) {
    setSeenAt(rewarded.at);
    setShown(rewarded);
  }
  useEffect(() => {
    if (!shown) return;
    const timer = setTimeout(() => setShown(null), REWARD_SHOW_MS);
    return () => clearTimeout(timer);
  }, [shown]);
  if (!shown) return null;
  const names = shown.names.map((n) => shownName(n, t));
  const me = shown.userIds.includes(myId);
  const text = me
    ? t('tools.rewarded.you')
    : names.length === 1
      ? t('tools.rewarded.one', { name: names[0] })
      : names.length <= 3
        ? t('tools.rewarded.many', { names: names.join('、') })
        : t('tools.rewarded.manyMore', { names: names.slice(0, 3).join('、'), n: names.length - 3 });
  return (
    <div className="reward-burst" role="status" data-testid="reward-burst" data-users={shown.userIds.join(',')}>
      <div className="reward-burst__box">
        <Trophy size={56} aria-hidden="true" className="reward-burst__icon" />
        <p className="reward-burst__text">{text}</p>
      </div>
    </div>
  );
}
