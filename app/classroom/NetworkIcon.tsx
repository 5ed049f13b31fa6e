import { useTranslation } from 'react-i18next';
import { networkBand } from './roomState.ts';

/** Four bars, lit by the quality band (docs/product/decisions.md: 1-2 strong, 3-4 moderate, 5-6 weak, 0 unknown). */
export function NetworkIcon({ quality }: { quality: number }) {
  const { t } = useTranslation();
  const band = networkBand(quality);
  const lit = { unknown: 0, weak: 1, moderate: 2, strong: 4 }[band];
  const label = t(`classroom.network.${band}`);
  return (
    <span className={`net net--${band}`} role="img" aria-label={label} title={label} data-testid="network-icon" data-quality={quality}>
      <svg viewBox="0 0 16 16" width="16" height="16" aria-hidden="true">
        {[0, 1, 2, 3].map((i) => (
          <rect key={i} x={1 + i * 4} y={12 - i * 3} width="3" height={3 + i * 3} rx="0.5" className={i < lit ? 'net__on' : 'net__off'} />
        ))}
      </svg>
    </span>
  );
}
