import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Smartphone } from 'lucide-react';
import { Dialog } from '#app/components/Dialog.tsx';
import { createWbToken } from '#app/board/net.ts';

/**
 * The visible 'send a picture from your phone' entry of `/imwb/{id}/{uid}` (ADR 094): a thin line
 * above the room, in the page flow so it covers no control. It opens the same phone upload page
 * as the board toolbar's phone button (`/upload/{userId}/{room}?t=<board token>&p=0`, a QR code and
 * the link); the board token is made when asked, so it needs a seat that may draw.
 */
export function PhoneUploadEntry({ userId, roomNumber }: { userId: string; roomNumber: string }) {
  const { t } = useTranslation();
  const [shown, setShown] = useState<{ url: string; qr: string } | null>(null);
  const [failed, setFailed] = useState(false);
  const [busy, setBusy] = useState(false);

  const open = async () => {
    setBusy(true);
    setFailed(false);
    try {
      const fresh = await createWbToken(userId, roomNumber);
      if (!fresh) {
        setFailed(true);
        return;
      }
      const url = new URL(`/upload/${encodeURIComponent(userId)}/${encodeURIComponent(roomNumber)}`, window.location.origin);
      url.searchParams.set('t', fresh.token);
      url.searchParams.set('p', '0');
      const QRCode = await import('qrcode');
      setShown({ url: url.toString(), qr: await QRCode.toDataURL(url.toString(), { margin: 1, width: 200, errorCorrectionLevel: 'L' }) });
    } finally {
      setBusy(false);
    }
  };

  return (
    <aside className="phone-entry" aria-label={t('userBoard.phone.label')} data-testid="phone-entry">
      <Smartphone size={20} aria-hidden="true" className="phone-entry__icon" />
      <p className="phone-entry__text">
        <strong>{t('userBoard.phone.label')}</strong> <span className="phone-entry__hint">{t('userBoard.phone.text')}</span>
      </p>
      {failed ? (
        <p className="phone-entry__error" role="alert">
          {t('userBoard.phone.failed')}
        </p>
      ) : null}
      <button
        type="button"
        className="btn btn--small btn--secondary"
        onClick={() => void open()}
        disabled={busy}
        data-testid="phone-entry-show"
      >
        {t('userBoard.phone.show')}
      </button>
      {shown ? (
        <Dialog title={t('userBoard.phone.label')} onClose={() => setShown(null)} testId="phone-entry-dialog">
          <p>{t('userBoard.phone.text')}</p>
          <img src={shown.qr} alt={t('userBoard.phone.qrAlt')} width={200} height={200} data-testid="phone-entry-qr" />
          <p className="phone-entry__link">
            {t('userBoard.phone.link')}{' '}
            <a href={shown.url} target="_blank" rel="noreferrer" data-testid="phone-entry-link">
              {shown.url}
            </a>
          </p>
        </Dialog>
      ) : null}
    </aside>
  );
}
