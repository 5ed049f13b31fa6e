import { createContext, useCallback, useContext, useEffect, useId, useLayoutEffect, useRef, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

interface DialogProps {
  title: string;
  onClose: () => void;
  children: ReactNode;
  /** Buttons row. */
  actions?: ReactNode;
  className?: string;
}

/**
 * A modal on the native <dialog>: the browser traps focus, Escape closes (the `cancel` event),
 * and focus returns to the opener when it closes.
 */
export function Dialog({ title, onClose, children, actions, className }: DialogProps) {
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
    const onCancel = (event: Event) => {
      event.preventDefault();
      onCloseRef.current();
    };
    dialog.addEventListener('cancel', onCancel);
    return () => {
      dialog.removeEventListener('cancel', onCancel);
      if (dialog.open) dialog.close();
      opener?.focus?.();
    };
  }, []);
  return (
    <dialog
      ref={ref}
      className={`dialog ${className ?? ''}`}
      aria-labelledby={titleId}
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
      </div>
    </dialog>
  );
}

interface ConfirmOptions {
  title?: string;
  message?: string;
  confirmText?: string;
  cancelText?: string;
}

type ConfirmFn = (options?: ConfirmOptions) => Promise<boolean>;
const ConfirmContext = createContext<ConfirmFn>(() => Promise.resolve(false));

export function useConfirm(): ConfirmFn {
  return useContext(ConfirmContext);
}

/** The generic confirm dialog (docs/product/01-account-and-lobby.md §2): default title 'Confirm operation?', cancel and confirm. */
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
  return (
    <ConfirmContext.Provider value={confirm}>
      {children}
      {pending ? (
        <Dialog
          title={pending.options.title ?? t('common.confirmTitle')}
          onClose={() => settle(false)}
          actions={
            <>
              <button type="button" className="btn btn--ghost" onClick={() => settle(false)}>
                {pending.options.cancelText ?? t('common.cancel')}
              </button>
              <button type="button" className="btn btn--primary" onClick={() => settle(true)} autoFocus>
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
