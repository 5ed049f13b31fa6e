/**
 * A take that was not saved (the tab closed or crashed mid-take, or the save screen was left
 * unanswered): offered when the studio opens, the newest first. Keep opens the save screen for it;
 * discard removes it, after a confirmation.
 */
import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from '#app/components/Button.tsx';
import { Dialog, useConfirm } from '#app/components/Dialog.tsx';
import { LocalTime } from '#app/components/LocalTime.tsx';
import { formatClock, formatRecordSize } from '#app/recordings/format.ts';
import type { TakeMeta } from './engine/types.ts';

export interface RecoverDialogProps {
  meta: TakeMeta;
  onKeep: () => void;
  onDiscard: () => void;
  /** Closed without an answer: asked again next time. */
  onLater: () => void;
}

export function RecoverDialog({ meta, onKeep, onDiscard, onLater }: RecoverDialogProps) {
  const { t } = useTranslation();
  const confirm = useConfirm();
  const keepRef = useRef<HTMLButtonElement>(null);
  // Keep (nothing lost) has the focus once the dialog opened (the dialog first focuses its first button).
  useEffect(() => {
    const timer = setTimeout(() => keepRef.current?.focus(), 0);
    return () => clearTimeout(timer);
  }, []);
  return (
    <Dialog
      title={t('studio.recover.title')}
      onClose={onLater}
      className="studio-recover"
      actions={
        <>
          <Button
            variant="ghost"
            data-testid="studio-recover-discard"
            onClick={() =>
              void confirm({ message: t('studio.recover.discardConfirm'), confirmText: t('studio.recover.discard') }).then((ok) => {
                if (ok) onDiscard();
              })
            }
          >
            {t('studio.recover.discard')}
          </Button>
          <button ref={keepRef} type="button" className="btn btn--primary" data-testid="studio-recover-keep" onClick={onKeep}>
            {t('studio.recover.keep')}
          </button>
        </>
      }
    >
      <p>{t('studio.recover.text')}</p>
      <dl className="facts studio-recover__facts" data-testid="studio-recover-facts">
        <div className="facts__row">
          <dt>{t('studio.recover.date')}</dt>
          <dd>
            <LocalTime at={meta.createdAt} />
          </dd>
        </div>
        <div className="facts__row">
          <dt>{t('studio.recover.duration')}</dt>
          <dd>{formatClock(meta.durationMs)}</dd>
        </div>
        <div className="facts__row">
          <dt>{t('studio.recover.size')}</dt>
          <dd>{formatRecordSize(String(meta.bytes)) ?? '—'}</dd>
        </div>
      </dl>
    </Dialog>
  );
}
