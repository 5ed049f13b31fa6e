import { useTranslation } from 'react-i18next';
import { Dialog } from '#app/components/Dialog.tsx';

/** The invited student's question (docs/product/02-live-classroom.md §4); Escape declines. */
export function MicInvitation({ onAnswer }: { onAnswer: (agree: boolean) => void }) {
  const { t } = useTranslation();
  return (
    <Dialog
      title={t('classroom.mic.title')}
      onClose={() => onAnswer(false)}
      actions={
        <>
          <button type="button" className="btn btn--ghost" onClick={() => onAnswer(false)}>
            {t('classroom.mic.disagree')}
          </button>
          <button type="button" className="btn btn--primary" onClick={() => onAnswer(true)} autoFocus>
            {t('classroom.mic.agree')}
          </button>
        </>
      }
    >
      <p>{t('classroom.mic.question')}</p>
    </Dialog>
  );
}

/** Shown to the student while connected, with their own way to hang up. */
export function OnMicBanner({ onHangUp }: { onHangUp: () => void }) {
  const { t } = useTranslation();
  return (
    <div className="on-mic" role="status" data-testid="on-mic">
      <span>{t('classroom.mic.onMic')}</span>
      <button type="button" className="btn btn--small btn--secondary" onClick={onHangUp}>
        {t('classroom.mic.hangUp')}
      </button>
    </div>
  );
}
