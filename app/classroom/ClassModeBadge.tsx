import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { MessagesSquare, Presentation, Timer } from 'lucide-react';
import type { ClassMode } from '#core/rooms/capabilities.ts';
import { toast } from '#app/lib/toast.ts';
import './modes.css';

/**
 * The class mode as everyone sees it (ADR 099): a badge in the bar, its meaning as the tooltip and
 * for screen readers. A student hears a change once, as a toast (the microphone button says the rest).
 */
export function ClassModeBadge({ mode, announce }: { mode: ClassMode; announce: boolean }) {
  const { t } = useTranslation();
  const Icon = mode === 'lecture' ? Presentation : MessagesSquare;
  const seen = useRef(mode);
  useEffect(() => {
    if (seen.current === mode) return;
    seen.current = mode;
    if (announce) toast.info(t(mode === 'lecture' ? 'modes.nowLecture' : 'modes.nowDiscuss'));
  }, [mode, announce, t]);
  const hint = t(mode === 'lecture' ? 'modes.lectureHint' : 'modes.discussHint');
  return (
    <span
      className={`badge mode-badge mode-badge--${mode}`}
      title={hint}
      aria-label={`${t('modes.badgeLabel', { mode: t(`modes.${mode}`) })}. ${hint}`}
      role="status"
      data-testid="mode-badge"
      data-mode={mode}
    >
      <Icon size={14} aria-hidden="true" />
      <span className="mode-badge__text">{t(`modes.${mode}`)}</span>
    </span>
  );
}

/** Warnings before an audio class's end (docs/product/02-live-classroom.md §4): 5 and 1 minutes. */
export const CLOCK_WARNINGS_MS = [5 * 60_000, 60_000] as const;

/** Minutes and seconds of what is left (a session is at most an hour or so: '60:00'), never below zero. */
export function formatLeft(ms: number): string {
  const s = Math.max(0, Math.ceil(ms / 1000));
  return `${String(Math.floor(s / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`;
}

/**
 * The audio class's clock (ADR 099): the time left until `endsAt` (server time; `skew` is server
 * minus local), refreshed every second; a toast when 5 and 1 minutes are left (only those crossed
 * while watching, so a reload at 3 minutes does not say '5 minutes'). Observers get no toasts.
 */
export function ClassClock({ endsAt, skew, warn }: { endsAt: number; skew: number; warn: boolean }) {
  const { t } = useTranslation();
  const [tick, setTick] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setTick(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  const left = endsAt - (tick + skew);
  const lastLeft = useRef<number | null>(null);
  useEffect(() => {
    const before = lastLeft.current;
    lastLeft.current = left;
    if (!warn || before === null) return;
    for (const at of CLOCK_WARNINGS_MS) {
      if (before > at && left <= at && left > 0) toast.info(t(at === 60_000 ? 'modes.clock.warn1' : 'modes.clock.warn5'));
    }
  }, [left, warn, t]);
  const urgent = left <= CLOCK_WARNINGS_MS[0];
  return (
    <span
      className={`badge class-clock${urgent ? ' class-clock--urgent' : ''}`}
      title={t('modes.clock.label')}
      data-testid="class-clock"
      data-left-ms={Math.max(0, left)}
    >
      <Timer size={14} aria-hidden="true" />
      <span className="visually-hidden">{t('modes.clock.label')}</span>
      <time>{formatLeft(left)}</time>
    </span>
  );
}
