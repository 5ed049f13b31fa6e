import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useConfirm } from '#app/components/Dialog.tsx';
import { recordButtonView } from './format.ts';
import type { RecordState } from '#core/contracts/recording.ts';
import { useNow } from '#app/lib/use-now.ts';
import './record-button.css';

/**
 * The creator's cloud-recording button (docs/product/02-live-classroom.md §3): start, 'starting…'
 * while no recorder has reported, stop (after a confirm) with the elapsed time.
 */
export function RecordButton({
  state,
  since,
  offline,
  onStart,
  onStop,
}: {
  state: RecordState;
  since: number | null;
  offline: boolean;
  onStart: () => Promise<boolean>;
  onStop: () => Promise<boolean>;
}) {
  const { t } = useTranslation();
  const confirm = useConfirm();
  const [busy, setBusy] = useState(false);
  const now = useNow(state === '1');
  const view = recordButtonView(state, since, now, busy, offline);

  const run = async (action: () => Promise<boolean>) => {
    setBusy(true);
    try {
      await action();
    } finally {
      setBusy(false);
    }
  };
  const click = async () => {
    if (view.kind === 'start') return run(onStart);
    if (view.kind !== 'stop') return;
    const ok = await confirm({
      title: t('record.button.stopTitle'),
      message: t('record.button.stopText'),
      confirmText: t('record.button.stopConfirm'),
    });
    if (ok) await run(onStop);
  };

  // Short words on the button (the creator's bar is full at 1280 px), the whole phrase as its name.
  const name =
    view.kind === 'start'
      ? t('record.button.start')
      : view.kind === 'starting'
        ? t('record.button.starting')
        : `${t('record.button.stop')} · ${t('record.button.elapsed', { time: view.elapsed })}`;
  return (
    <button
      type="button"
      className={`btn btn--${view.kind === 'stop' ? 'danger' : 'secondary'} rec-btn rec-btn--${view.kind}`}
      disabled={view.disabled}
      aria-busy={view.kind === 'starting' || busy || undefined}
      title={name}
      onClick={() => void click()}
      data-testid="record-button"
      data-record-state={state}
    >
      {view.kind === 'starting' || busy ? (
        <span className="spinner" aria-hidden="true" />
      ) : (
        <span className="rec-btn__dot" aria-hidden="true" />
      )}
      {/* Recording: a red stop button with the time (its name says 'stop recording'). */}
      {view.kind === 'stop' ? null : (
        <span aria-hidden="true">{view.kind === 'start' ? t('record.button.startShort') : t('record.button.startingShort')}</span>
      )}
      {view.kind === 'stop' ? (
        <time className="rec-btn__time" aria-hidden="true" data-testid="record-elapsed">
          {view.elapsed}
        </time>
      ) : null}
      {/* Its name is these hidden words (no aria-label), so what it shows never contradicts it (WCAG 2.5.3). */}
      <span className="visually-hidden">{name}</span>
    </button>
  );
}

/** Shown to everyone in the room while the class is recorded. */
export function RecDot() {
  const { t } = useTranslation();
  return (
    <span className="on-air" role="img" aria-label={t('record.button.recLabel')} title={t('record.button.recLabel')} data-testid="rec-dot">
      <span className="on-air__light" aria-hidden="true" />
      {t('record.button.rec')}
    </span>
  );
}
