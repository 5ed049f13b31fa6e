import { useEffect, useState, type ReactNode } from 'react';
import type { ClassMode } from '#core/rooms/capabilities.ts';
import { useTranslation } from 'react-i18next';
import { Brand } from '#app/components/Brand.tsx';
import { RecDot } from '#app/recordings/RecordButton.tsx';
import { LiveBadge } from '#app/streaming/LiveBadge.tsx';
import { ClassModeBadge } from './ClassModeBadge.tsx';
import { NetworkIcon } from './NetworkIcon.tsx';
import { localNetworkQuality } from './roomState.ts';

const two = (n: number) => String(n).padStart(2, '0');
export const clockText = (d: Date) => `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;

/** Observers (docs/product/02-live-classroom.md §2): a clock hh:mm:ss refreshed every second and a network signal; REC and LIVE signs; no top bar. */
export function ObserverHeader({
  roomNumber,
  recording = false,
  live = false,
  mode,
  timeLeft = null,
}: {
  roomNumber: string;
  recording?: boolean;
  live?: boolean;
  /** The class mode (ADR 099), shown to observers too (no toast). */
  mode?: ClassMode;
  /** An audio class's time left (ADR 099). */
  timeLeft?: ReactNode;
}) {
  const { t } = useTranslation();
  const [now, setNow] = useState<Date | null>(null);
  const [quality, setQuality] = useState(0);
  useEffect(() => {
    const tick = () => setNow(new Date());
    const net = () => setQuality(localNetworkQuality(navigator));
    tick();
    net();
    const timer = setInterval(tick, 1000);
    window.addEventListener('online', net);
    window.addEventListener('offline', net);
    return () => {
      clearInterval(timer);
      window.removeEventListener('online', net);
      window.removeEventListener('offline', net);
    };
  }, []);
  return (
    <header className="observer-bar" data-testid="observer-header">
      <Brand />
      <span className="observer-bar__title">{t('classroom.observer.title', { n: roomNumber })}</span>
      <span className="observer-bar__end">
        {recording ? <RecDot /> : null}
        {live ? <LiveBadge /> : null}
        {mode ? <ClassModeBadge mode={mode} announce={false} /> : null}
        {timeLeft}
        <time className="observer-bar__clock mono" aria-label={t('classroom.observer.clock')} data-testid="observer-clock">
          {now ? clockText(now) : '--:--:--'}
        </time>
        <NetworkIcon quality={quality} />
      </span>
    </header>
  );
}
