import { Check } from 'lucide-react';
import type { Bar } from './tally.ts';

/** Result bars: a label, a bar of its share, the count and percent; correct options marked with a tick. */
export function Bars({ bars, label, testId }: { bars: Bar[]; label: string; testId: string }) {
  return (
    <ul className="bars" aria-label={label} data-testid={testId}>
      {bars.map((b) => (
        <li key={b.label} className={`bars__row${b.correct ? ' bars__row--correct' : ''}`} data-label={b.label} data-count={b.count}>
          <span className="bars__label">
            {b.correct ? <Check size={14} aria-hidden="true" className="bars__tick" /> : null}
            {b.label}
          </span>
          <span className="bars__track" aria-hidden="true">
            <span className="bars__fill" style={{ width: `${String(b.share)}%` }} />
          </span>
          <span className="bars__num">
            {b.count} · {b.share}%
          </span>
        </li>
      ))}
    </ul>
  );
}
