import { useTranslation } from 'react-i18next';
import { LogOut, Power } from 'lucide-react';
import { Dialog } from '#app/components/Dialog.tsx';

/**
 * The teacher's Leave (ADR 090): leave on their own (the class carries on, as the old exit did),
 * or end the class for everyone (the More menu's end class, without a second confirm: this
 * dialog is it), or cancel. The first choice has the focus, so Enter never ends the class.
 */
export function LeaveDialog({ onLeave, onEndForAll, onClose }: { onLeave: () => void; onEndForAll: () => void; onClose: () => void }) {
  const { t } = useTranslation();
  return (
    <Dialog
      title={t('chrome.leave.title')}
      onClose={onClose}
      className="leave-dialog"
      testId="leave-dialog"
      actions={
        <button type="button" className="btn btn--ghost" onClick={onClose} data-testid="leave-cancel">
          {t('common.cancel')}
        </button>
      }
    >
      <p>{t('chrome.leave.creatorText')}</p>
      <div className="leave-dialog__choices">
        <button type="button" className="leave-choice" onClick={onLeave} data-autofocus data-testid="leave-only">
          <LogOut size={22} aria-hidden="true" />
          <span className="leave-choice__text">
            <span className="leave-choice__title">{t('chrome.leave.leaveOnly')}</span>
            <span className="leave-choice__hint">{t('chrome.leave.leaveOnlyHint')}</span>
          </span>
        </button>
        <button type="button" className="leave-choice leave-choice--danger" onClick={onEndForAll} data-testid="leave-end-all">
          <Power size={22} aria-hidden="true" />
          <span className="leave-choice__text">
            <span className="leave-choice__title">{t('chrome.leave.endForAll')}</span>
            <span className="leave-choice__hint">{t('chrome.leave.endForAllHint')}</span>
          </span>
        </button>
      </div>
    </Dialog>
  );
}
