import { createContext, useCallback, useContext, useEffect, useId, useLayoutEffect, useRef, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { X } from 'lucide-react';
import './chrome.css';

interface DialogProps {
  title: string;
  onClose: () => void;
  children: ReactNode;
  /** Buttons row. */
  actions?: ReactNode;
  className?: string;
  /** The header's close (X) button; on unless a dialog must be answered (it still closes on Esc). */
  closable?: boolean;
  /** An id for the box, e.g. for tests. */
  testId?: string;
}

const FOCUSABLE =
  'a[href], button:not([disabled]), input:not([disabled]):not([type="hidden"]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

/** The visible, focusable elements inside a box, in tab order. */
function focusables(box: HTMLElement): HTMLElement[] {
  return [...box.querySelectorAll<HTMLElement>(FOCUSABLE)].filter((el) => el.getClientRects().length > 0);
}

/**
 * A modal on the native <dialog> (ADR 090): one title in a header with a close (X) button,
 * Escape closes (the `cancel` event), Tab and Shift+Tab cycle inside the dialog, and focus
 * returns to the opener when it closes.
 */
export function Dialog({ title, onClose, children, actions, className, closable = true, testId }: DialogProps) {
  const { t } = useTranslation();
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const onCloseRef = useRef(onClose);
  // The latest onClose for the listeners, without re-binding them.
  useLayoutEffect(() => {
    onCloseRef.current = onClose;
  });
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    const opener = document.activeElement as HTMLElement | null;
    if (!dialog.open) dialog.showModal();
    // showModal focuses the first control; a dialog may name another with data-autofocus.
    dialog.querySelector<HTMLElement>('[data-autofocus]')?.focus();
    const onCancel = (event: Event) => {
      event.preventDefault();
      onCloseRef.current();
    };
    // Focus stays inside: Tab from the last control goes to the first, Shift+Tab from the first to the last.
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== 'Tab') return;
      const items = focusables(dialog);
      if (items.length === 0) {
        event.preventDefault();
        return;
      }
      const first = items[0]!;
      const last = items[items.length - 1]!;
      const active = document.activeElement;
      const inside = active instanceof Node && dialog.contains(active);
      if (event.shiftKey && (active === first || !inside)) {
        event.preventDefault();
        last.focus();
      } else if (!event.shiftKey && (active === last || !inside)) {
        event.preventDefault();
        first.focus();
      }
    };
    dialog.addEventListener('cancel', onCancel);
    dialog.addEventListener('keydown', onKey);
    return () => {
      dialog.removeEventListener('cancel', onCancel);
      dialog.removeEventListener('keydown', onKey);
      if (dialog.open) dialog.close();
      if (opener?.isConnected) opener.focus();
    };
  }, []);
  return (
    <dialog
      ref={ref}
      className={`dialog ${className ?? ''}`}
      role="dialog"
      aria-modal="true"
      aria-labelledby={titleId}
      data-testid={testId}
      onClick={(event) => {
        // A click on the backdrop (the dialog element itself, outside its box) closes it.
        if (event.target === ref.current) onClose();
      }}
    >
      <div className="dialog__box">
        <h2 id={titleId} className="dialog__title">
          {title}
        </h2>
        <div className="dialog__body">{children}</div>
        {actions ? <div className="dialog__actions">{actions}</div> : null}
        {/* Last in the tab order (the first focus goes to the content), drawn at the top right. */}
        {closable ? (
          <button
            type="button"
            className="icon-btn dialog__close"
            onClick={onClose}
            aria-label={t('common.close')}
            title={t('common.close')}
            data-testid="dialog-close"
          >
            <X size={20} aria-hidden="true" />
          </button>
        ) : null}
      </div>
    </dialog>
  );
}

export interface ConfirmOptions {
  title?: string;
  message?: string;
  confirmText?: string;
  cancelText?: string;
  /** 'danger': the confirm button is red (remove, end, delete: what cannot be undone). */
  tone?: 'default' | 'danger';
}

type ConfirmFn = (options?: ConfirmOptions) => Promise<boolean>;
const ConfirmContext = createContext<ConfirmFn>(() => Promise.resolve(false));

export function useConfirm(): ConfirmFn {
  return useContext(ConfirmContext);
}

/**
 * The confirm dialog (docs/product/01-account-and-lobby.md §2): a title (default 'Confirm
 * operation?'; callers name the action), the message, cancel and confirm; `tone: 'danger'`
 * makes the confirm red. Cancel has the first focus on a danger confirm, so Enter never destroys; confirm on the others.
 */
export function ConfirmProvider({ children }: { children: ReactNode }) {
  const { t } = useTranslation();
  const [pending, setPending] = useState<{ options: ConfirmOptions; resolve: (ok: boolean) => void } | null>(null);
  const confirm = useCallback<ConfirmFn>(
    (options = {}) =>
      new Promise<boolean>((resolve) => {
        setPending({ options, resolve });
      }),
    [],
  );
  const settle = (ok: boolean) => {
    pending?.resolve(ok);
    setPending(null);
  };
  const danger = pending?.options.tone === 'danger';
  return (
    <ConfirmContext.Provider value={confirm}>
      {children}
      {pending ? (
        <Dialog
          title={pending.options.title ?? t('common.confirmTitle')}
          onClose={() => settle(false)}
          className={danger ? 'dialog--danger' : ''}
          testId="confirm-dialog"
          actions={
            <>
              <button
                type="button"
                className="btn btn--ghost"
                onClick={() => settle(false)}
                data-autofocus={danger || undefined}
                data-testid="confirm-cancel"
              >
                {pending.options.cancelText ?? t('common.cancel')}
              </button>
              <button
                type="button"
                className={`btn ${danger ? 'btn--danger' : 'btn--primary'}`}
                onClick={() => settle(true)}
                data-autofocus={!danger || undefined}
                data-testid="confirm-ok"
              >
                {pending.options.confirmText ?? t('common.confirm')}
              </button>
            </>
          }
        >
          {pending.options.message ? <p>{pending.options.message}</p> : null}
        </Dialog>
      ) : null}
    </ConfirmContext.Provider>
  );
}
