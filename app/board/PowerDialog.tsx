/** The creator's choice whether members may draw on the board (wbPower). */
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Dialog } from '#app/components/Dialog.tsx';

export function PowerDialog({
  current,
  onClose,
  onSave,
}: {
  current: '0' | '1';
  onClose: () => void;
  onSave: (value: '0' | '1') => Promise<void>;
}) {
  const { t } = useTranslation();
  const [value, setValue] = useState<'0' | '1'>(current);
  const [busy, setBusy] = useState(false);
  return (
    <Dialog
      title={t('board.power.title')}
      onClose={onClose}
      actions={
        <>
          <button type="button" className="btn btn--ghost" onClick={onClose}>
            {t('board.power.cancel')}
          </button>
          <button
            type="button"
            className="btn btn--primary"
            disabled={busy}
            data-testid="power-ok"
            onClick={() => {
              setBusy(true);
              void onSave(value).finally(() => setBusy(false));
            }}
          >
            {t('board.power.ok')}
          </button>
        </>
      }
    >
      <fieldset className="stack">
        <legend className="visually-hidden">{t('board.power.title')}</legend>
        <label>
          <input type="radio" name="wbPower" checked={value === '1'} onChange={() => setValue('1')} data-testid="power-allow" />{' '}
          {t('board.power.allow')}
        </label>
        <label>
          <input type="radio" name="wbPower" checked={value === '0'} onChange={() => setValue('0')} data-testid="power-forbid" />{' '}
          {t('board.power.forbid')}
        </label>
      </fieldset>
    </Dialog>
  );
}
