import { useEffect, useEffectEvent, useState, type FormEvent } from 'react';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import { useRevalidator } from 'react-router';
import type { Route } from './+types/profile.payment.ts';
import type { GoodsInfo, OrderInfo, VipUserInfo } from '#core/contracts/api.ts';
import { PROMO_CODE_MAX } from '#core/billing/order.schema.ts';
import { ORDER_PAGE_SIZE } from '#core/billing/order.service.ts';
import { appContext } from '#app/context.ts';
import { useUserEvents } from '#app/billing/useUserEvents.ts';
import { Button } from '#app/components/Button.tsx';
import { LocalTime } from '#app/components/LocalTime.tsx';
import { VipUntil } from '#app/billing/VipStatus.tsx';
import { useLang } from '#app/components/lang.tsx';
import { domainCode } from '#app/lib/domain-error.ts';
import { api, isOk, NETWORK_ERROR } from '#app/lib/api.ts';
import { useRequestLock } from '#app/lib/lock.ts';
import { codeMessage } from '#app/lib/messages.ts';
import { formatMoney } from '#app/lib/money.ts';
import { toast } from '#app/lib/toast.ts';

export async function loader({ context }: Route.LoaderArgs) {
  const { viewer, services, lang } = context.get(appContext);
  if (!viewer) throw new Response('Unauthorized', { status: 401 }); // the parent's middleware redirects first
  let vip: VipUserInfo | null = null;
  try {
    vip = await services.billing.getVipInfo(viewer);
  } catch (error) {
    if (domainCode(error) !== '21006') throw error;
  }
  return { goods: services.orders.getGoodsList({}, lang).goodsList, vip, now: Date.now() };
}

export function meta() {
  return [{ title: '板书 · 付费升级 / Upgrade' }];
}

/** docs/product/03-board-courseware-billing.md §2.6: 1 goods, 2 orders, 3 order number used, 4 success, 5 failure, 6 QR code, 7 confirm, 8 error. */
type View =
  | { n: 1 }
  | { n: 2 }
  | { n: 3 }
  | { n: 4; order: OrderInfo }
  | { n: 5 }
  | { n: 6; order: OrderInfo; tn: string }
  | { n: 7; order: OrderInfo }
  | { n: 8; message: string };

const COUNTDOWN_SECONDS = 5;
/** Codes that end the purchase with a message (view 8); the promo codes ask for a new entry (toast). */
const TOAST_CODES = new Set(['25011', '25012']);

function QrCode({ text }: { text: string }) {
  const { t } = useTranslation();
  const [src, setSrc] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    void import('qrcode')
      .then((QR) => QR.toDataURL(text, { margin: 1, width: 220, errorCorrectionLevel: 'M' }))
      .then((url) => live && setSrc(url));
    return () => {
      live = false;
    };
  }, [text]);
  return src ? (
    <img className="pay__qr" src={src} width={220} height={220} alt={t('payment.qrAlt')} data-testid="pay-qr" data-tn={text} />
  ) : (
    <span className="pay__qr pay__qr--loading spinner" aria-label={t('common.loading')} />
  );
}

function Countdown({ onDone }: { onDone: () => void }) {
  const { t } = useTranslation();
  const [n, setN] = useState(COUNTDOWN_SECONDS);
  const done = useEffectEvent(() => onDone());
  useEffect(() => {
    if (n <= 0) {
      done();
      return;
    }
    const timer = setTimeout(() => setN(n - 1), 1000);
    return () => clearTimeout(timer);
  }, [n]);
  return (
    <p className="muted" role="timer" data-testid="pay-countdown">
      {t('payment.countdown', { n })}
    </p>
  );
}

function OrderList({ active }: { active: boolean }) {
  const { t } = useTranslation();
  const [orders, setOrders] = useState<OrderInfo[] | null>(null);
  const [more, setMore] = useState({ hasMore: false, next: 0 });
  const lock = useRequestLock();
  const load = (pageTime: number) =>
    lock.run(async () => {
      const envelope = await api('getOrderList', { pageTime, pageSize: ORDER_PAGE_SIZE }, { quietNetworkError: true });
      if (!isOk(envelope)) return void toast.error(t('payment.loadOrdersFailed'));
      setOrders((prev) => [...(pageTime && prev ? prev : []), ...envelope.data.orderList]);
      setMore({ hasMore: envelope.data.hasMore, next: envelope.data.nextPageTime });
    });
  const loadFirst = useEffectEvent(() => void load(0));
  useEffect(() => {
    if (active) loadFirst();
  }, [active]);
  if (orders === null) return <p className="muted">{t('common.loading')}</p>;
  if (orders.length === 0) return <p className="empty">{t('payment.noOrders')}</p>;
  return (
    <>
      <div className="table-wrap">
        <table className="table" data-testid="order-list">
          <caption className="visually-hidden">{t('payment.orderList')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('payment.orderId')}</th>
              <th scope="col">{t('payment.colGoods')}</th>
              <th scope="col">{t('payment.colAmount')}</th>
              <th scope="col">{t('payment.colTime')}</th>
              <th scope="col">{t('payment.colState')}</th>
            </tr>
          </thead>
          <tbody>
            {orders.map((o) => (
              <tr key={o.orderId} data-order={o.orderId}>
                <td className="mono">{o.orderId}</td>
                <td>{o.goodsName}</td>
                <td>{o.pointsSpent > 0 ? t('exchange.paidInPoints', { points: o.pointsSpent }) : formatMoney(o.orderTotalMoney)}</td>
                <td>
                  <LocalTime at={o.createTime} />
                </td>
                <td>
                  <span className={`badge${o.orderState === '1' ? ' badge--ok' : ''}`}>
                    {o.orderState === '1' ? t('payment.paid') : t('payment.unpaid')}
                  </span>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {more.hasMore ? (
        <Button variant="secondary" loading={lock.busy} onClick={() => void load(more.next)}>
          {t('payment.loadMore')}
        </Button>
      ) : null}
    </>
  );
}

function goodsSize(g: GoodsInfo, t: TFunction) {
  if (g.goodsType === 2) return t('payment.credits', { n: g.goodsQuantity });
  if (g.goodsType === 3) return `${t('payment.people', { n: g.goodsQuantity })} · ${t('payment.perDays', { n: g.goodsDuration })}`;
  return t('payment.perDays', { n: g.goodsDuration });
}

export default function Payment({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation();
  const { lang } = useLang();
  const revalidator = useRevalidator();
  const [view, setView] = useState<View>({ n: 1 });
  const [promo, setPromo] = useState('');
  const lock = useRequestLock();
  const { goods, vip, now } = loaderData;

  // A payment result for an order on the QR view: ours gives success (4), another one failure (5).
  useUserEvents({
    paymentSuccess: ({ orderId }) => {
      setView((v) => (v.n === 6 ? (v.order.orderId === orderId ? { n: 4, order: v.order } : { n: 5 }) : v));
    },
  });

  const fail = (code: string, msg: string) => {
    if (code === '25004') return setView({ n: 3 });
    if (TOAST_CODES.has(code)) return void toast.error(codeMessage(code, lang) ?? msg);
    setView({ n: 8, message: codeMessage(code, lang) ?? (msg || t('common.refresh')) });
  };

  const order = (g: GoodsInfo) =>
    lock.run(async (requestId) => {
      const envelope = await api('createOrder', { goodsId: g.goodsId }, { requestId, retries: 1, networkText: 'payment.createFailed' });
      if (isOk(envelope)) {
        setPromo('');
        return setView({ n: 7, order: envelope.data.orderInfo });
      }
      if (['25004', '25007', '25008', '25009', '25010'].includes(envelope.code)) return fail(envelope.code, envelope.msg);
      if (envelope.code !== NETWORK_ERROR) toast.error(t('payment.createFailed')); // else the 'network exception' message retries (ADR 102)
    });

  const pay = (event: FormEvent, o: OrderInfo) => {
    event.preventDefault();
    void lock.run(async (requestId) => {
      const code = promo.trim();
      const envelope = await api('paymentOrder', { orderId: o.orderId, ...(code ? { promoCode: code } : {}) }, { requestId });
      if (isOk(envelope)) return setView({ n: 6, order: envelope.data.orderInfo, tn: envelope.data.tn });
      if (envelope.code === NETWORK_ERROR) return; // the 'network exception' message re-runs this payment (ADR 102)
      fail(envelope.code, envelope.msg);
    });
  };

  const toOrders = () => {
    setView({ n: 2 });
    void revalidator.revalidate(); // membership lines reload after a purchase
  };

  const tabs = view.n === 1 || view.n === 2;

  return (
    <section aria-labelledby="payment-title" className="stack pay" data-view={view.n}>
      <h1 id="payment-title">{t('payment.title')}</h1>
      <p className="muted">{t('payment.onlyTeachers')}</p>
      <p className="pay__membership" data-testid="pay-membership">
        <VipUntil vip={vip} now={now} />
        {' · '}
        {t('personal.credits', { n: vip?.vipRoomRemainingNumber ?? 0 })}
      </p>
      {tabs ? (
        <div className="tabs" role="tablist" aria-label={t('payment.title')}>
          <button type="button" role="tab" aria-selected={view.n === 1} className="tabs__tab" onClick={() => setView({ n: 1 })}>
            {t('payment.tabGoods')}
          </button>
          <button type="button" role="tab" aria-selected={view.n === 2} className="tabs__tab" onClick={() => setView({ n: 2 })}>
            {t('payment.tabOrders')}
          </button>
        </div>
      ) : null}

      {view.n === 1 ? (
        goods.length === 0 ? (
          <p className="empty">{t('payment.loadGoodsFailed')}</p>
        ) : (
          <div role="tabpanel">
            <ul className="goods">
              {goods.map((g) => (
                <li key={g.goodsId} className={`goods__card${g.goodsType === 1 ? ' goods__card--vip' : ''}`} data-goods={g.goodsId}>
                  <h2 className="goods__name">{g.goodsName}</h2>
                  <p className="goods__price">{formatMoney(g.goodsPrice)}</p>
                  <p className="goods__size">{goodsSize(g, t)}</p>
                  <p className="muted goods__desc">{g.goodsDesc}</p>
                  <Button onClick={() => void order(g)} disabled={lock.busy} aria-label={`${t('payment.buy')} ${g.goodsName}`}>
                    {t('payment.buy')}
                  </Button>
                </li>
              ))}
            </ul>
          </div>
        )
      ) : null}

      {view.n === 2 ? (
        <div role="tabpanel" className="stack">
          <OrderList active />
        </div>
      ) : null}

      {view.n === 7 ? (
        <form className="card stack pay__confirm" onSubmit={(e) => pay(e, view.order)} aria-labelledby="confirm-title">
          <h2 id="confirm-title">{t('payment.confirmTitle')}</h2>
          <dl className="facts">
            <div className="facts__row">
              <dt>{t('payment.goods')}</dt>
              <dd>{view.order.goodsName}</dd>
            </div>
            <div className="facts__row">
              <dt>{t('payment.orderId')}</dt>
              <dd className="mono" data-testid="pay-order-id">
                {view.order.orderId}
              </dd>
            </div>
            <div className="facts__row">
              <dt>{t('payment.amount')}</dt>
              <dd className="pay__amount">{formatMoney(view.order.orderTotalMoney)}</dd>
            </div>
          </dl>
          <div className="field">
            <label htmlFor="promo-code">{t('payment.promoLabel')}</label>
            <input
              id="promo-code"
              value={promo}
              maxLength={PROMO_CODE_MAX}
              placeholder={t('payment.promoPlaceholder')}
              autoComplete="off"
              onChange={(e) => setPromo(e.target.value.replace(/[^A-Za-z0-9]/g, '').toUpperCase())}
            />
          </div>
          <div className="dialog__actions">
            <Button variant="ghost" onClick={() => setView({ n: 1 })} disabled={lock.busy}>
              {t('payment.cancel')}
            </Button>
            <Button type="submit" loading={lock.busy}>
              {t('payment.pay')}
            </Button>
          </div>
        </form>
      ) : null}

      {view.n === 6 ? (
        <div className="card stack center pay__qr-view" aria-live="polite">
          <h2>{t('payment.qrTitle')}</h2>
          <p className="pay__amount">{formatMoney(view.order.orderTotalMoney)}</p>
          <QrCode text={view.tn} />
          <p className="muted">{t('payment.qrHint')}</p>
          <a href={view.tn} target="_blank" rel="noopener noreferrer" data-testid="pay-link">
            {t('payment.openPayPage')}
          </a>
          <p className="muted">
            <span className="spinner" aria-hidden="true" /> {t('payment.waiting')}
          </p>
        </div>
      ) : null}

      {view.n === 4 ? (
        <div className="card stack center" role="status" data-testid="pay-success">
          <h2 className="ok">{t('payment.successTitle')}</h2>
          <p>
            {view.order.goodsName} · {formatMoney(view.order.orderTotalMoney)}
          </p>
          <p>{t('payment.successText')}</p>
          <Countdown onDone={toOrders} />
          <Button onClick={toOrders}>{t('payment.toOrders')}</Button>
        </div>
      ) : null}

      {view.n === 5 ? (
        <div className="card stack center" role="alert" data-testid="pay-failure">
          <h2 className="bad">{t('payment.failTitle')}</h2>
          <p>{t('payment.failText')}</p>
          <Countdown onDone={toOrders} />
          <Button onClick={toOrders}>{t('payment.toOrders')}</Button>
        </div>
      ) : null}

      {view.n === 3 ? (
        <div className="card stack center" role="alert">
          <h2>{t('payment.usedTitle')}</h2>
          <p>{codeMessage('25004', lang)}</p>
          <Button onClick={() => setView({ n: 1 })}>{t('payment.orderAgain')}</Button>
        </div>
      ) : null}

      {view.n === 8 ? (
        <div className="card stack center" role="alert" data-testid="pay-error">
          <h2>{t('payment.errorTitle')}</h2>
          <p>{view.message}</p>
          <Button onClick={() => setView({ n: 1 })}>{t('payment.backToGoods')}</Button>
        </div>
      ) : null}
    </section>
  );
}
