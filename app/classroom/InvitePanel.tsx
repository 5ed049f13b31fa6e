import { useEffect, useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from '#app/components/Button.tsx';
import { Dialog } from '#app/components/Dialog.tsx';
import { api, isOk } from '#app/lib/api.ts';
import { copyText } from '#app/lib/clipboard.ts';
import { toast } from '#app/lib/toast.ts';

/** Invite panel (docs/product/02-live-classroom.md §2): room number, a QR code of the link, the copyable link, the observer link. */
export function InvitePanel({ roomNumber, inviteUrl, onClose }: { roomNumber: string; inviteUrl: string; onClose: () => void }) {
  const { t } = useTranslation();
  const linkId = useId();
  const [qr, setQr] = useState<string | null>(null);
  const [observerBusy, setObserverBusy] = useState(false);

  useEffect(() => {
    let live = true;
    void import('qrcode')
      .then((QRCode) => QRCode.toDataURL(inviteUrl, { margin: 1, width: 176, errorCorrectionLevel: 'M' }))
      .then((url) => {
        if (live) setQr(url);
      })
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [inviteUrl]);

  const copy = async (text: string) => {
    if (await copyText(text)) toast.success(t('classroom.copySuccess'));
    else toast.error(t('classroom.copyError'));
  };

  const copyObserverLink = async () => {
    setObserverBusy(true);
    const envelope = await api('createObserverLink', { roomNumber }, { onRetry: () => void copyObserverLink() });
    setObserverBusy(false);
    if (isOk(envelope)) await copy(envelope.data.url);
    else if (envelope.msg) toast.error(envelope.msg);
  };

  return (
    <Dialog title={t('classroom.inviteTitle')} onClose={onClose} className="invite-panel">
      <div className="invite-panel__body">
        <p className="invite-panel__number">
          {t('classroom.roomNumber')} <strong data-testid="invite-room-number">{roomNumber}</strong>
        </p>
        <figure className="invite-panel__qr">
          {qr ? (
            <img src={qr} width={176} height={176} alt={t('classroom.inviteQrAlt')} data-testid="invite-qr" />
          ) : (
            <span className="spinner" aria-hidden="true" />
          )}
          <figcaption className="muted">{t('classroom.inviteQr')}</figcaption>
        </figure>
        <div className="invite">
          <label htmlFor={linkId}>{t('classroom.invite')}</label>
          <div className="field__row">
            <input id={linkId} readOnly value={inviteUrl} onFocus={(e) => e.currentTarget.select()} data-testid="invite-link" />
            <Button variant="secondary" onClick={() => void copy(inviteUrl)}>
              {t('classroom.copyInvite')}
            </Button>
          </div>
        </div>
        <div className="invite-panel__observer">
          <Button variant="ghost" loading={observerBusy} onClick={() => void copyObserverLink()} data-testid="copy-observer-link">
            {t('classroom.observerLink')}
          </Button>
          <p className="hint">{t('classroom.observerHint')}</p>
        </div>
      </div>
    </Dialog>
  );
}
