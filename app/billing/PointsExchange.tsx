/**
 * Promo points exchanged for a package (ADR 057): the packages on the shelf with what each costs in
 * points, the ones within reach enabled, a confirm, then the server takes the points and grants
 * the package in one go. The server decides; this only spares a refused click.
 */
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { GoodsInfo } from '#core/contracts/api.ts';
import { Button } from '#app/components/Button.tsx';
import { Dialog, useConfirm } from '#app/components/Dialog.tsx';
import { api, NETWORK_ERROR } from '#app/lib/api.ts';
import { codeMessage } from '#app/lib/messages.ts';
import { currentLang } from '#app/lib/lang.ts';
import { toast } from '#app/lib/toast.ts';

export function PointsExchange({
  points,
  goods,
  onClose,
  onDone,
}: {
  points: number;
  goods: GoodsInfo[];
  onClose: () => void;
  onDone: () => void;
}) {
  const { t } = useTranslation();
  const confirm = useConfirm();
  const [busy, setBusy] = useState<string | null>(null);
  const [left, setLeft] = useState(points);

  const exchange = async (g: GoodsInfo) => {
    const ok = await confirm({
      title: t('exchange.confirmTitle'),
      message: t('exchange.confirmText', { name: g.goodsName, points: g.goodsPoints }),
      confirmText: t('exchange.do'),
    });
    if (!ok) return;
    setBusy(g.goodsId);
    // One request id for the retries: a lost answer never takes the points twice.
    const envelope = await api('exchangePromoPoints', { goodsId: g.goodsId }, { retries: 1, quietNetworkError: true });
    setBusy(null);
    if (envelope.code === NETWORK_ERROR) return void toast.error(t('exchange.networkError'));
    if (envelope.code !== '0' || !envelope.data)
      return void toast.error(envelope.msg || codeMessage(envelope.code, currentLang()) || t('exchange.failed'));
    setLeft(envelope.data.promoPoints);
    toast.success(t('exchange.done', { name: g.goodsName }));
    onDone();
  };

  return (
    <Dialog
      title={t('exchange.title')}
      onClose={onClose}
      actions={
        <Button variant="ghost" onClick={onClose}>
          {t('common.close')}
        </Button>
      }
    >
      <p>
        {t('exchange.balance')} <strong data-testid="exchange-balance">{left}</strong>
      </p>
      <ul className="exchange-list" data-testid="exchange-list">
        {goods.map((g) => {
          const short = g.goodsPoints - left;
          return (
            <li key={g.goodsId} className="exchange-list__item" data-goods={g.goodsId}>
              <span className="exchange-list__name">
                <strong>{g.goodsName}</strong>
                <span className="muted">{g.goodsDesc}</span>
              </span>
              <span className="exchange-list__price">{t('exchange.price', { points: g.goodsPoints })}</span>
              <Button
                onClick={() => void exchange(g)}
                disabled={short > 0 || busy !== null}
                loading={busy === g.goodsId}
                data-testid="exchange-do"
              >
                {short > 0 ? t('exchange.short', { n: short }) : t('exchange.do')}
              </Button>
            </li>
          );
        })}
      </ul>
    </Dialog>
  );
}
