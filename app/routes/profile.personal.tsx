import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useRevalidator } from 'react-router';
import type { Route } from './+types/profile.personal.ts';
import type { VipUserInfo } from '#core/contracts/api.ts';
import { appContext } from '#app/context.ts';
import { domainCode } from '#app/lib/domain-error.ts';
import { Button } from '#app/components/Button.tsx';
import { Dialog } from '#app/components/Dialog.tsx';
import { LocalTime } from '#app/components/LocalTime.tsx';
import { VipUntil } from '#app/billing/VipStatus.tsx';
import { PointsExchange } from '#app/billing/PointsExchange.tsx';
import { api, NETWORK_ERROR } from '#app/lib/api.ts';
import { checkName, NAME_MAX } from '#app/lib/names.ts';
import { toast } from '#app/lib/toast.ts';
import { copyText } from '#app/lib/clipboard.ts';
import { Link } from 'react-router';

export async function loader({ context }: Route.LoaderArgs) {
  const { viewer, services, lang } = context.get(appContext);
  if (!viewer) throw new Response('Unauthorized', { status: 401 }); // the parent's middleware redirects first
  const user = await services.account.getUserInfo(viewer, viewer.userId);
  let vip: VipUserInfo | null = null;
  try {
    vip = await services.billing.getVipInfo(viewer);
  } catch (error) {
    // 21006: no membership information applies; the page shows 'not a member'.
    if (domainCode(error) !== '21006') throw error;
  }
  return {
    mobile: user.mobile,
    name: user.name,
    promoCode: user.promoCode,
    promoPoints: user.promoPoints,
    pointsPerOrder: services.orders.promoPointsPerOrder,
    // Teachers exchange points for packages (ADR 057).
    goods: viewer.type === '1' ? services.orders.getGoodsList({}, lang).goodsList : [],
    vip,
    now: Date.now(),
  };
}

export function meta() {
  return [{ title: '板书 · 个人信息 / Personal info' }];
}

function NameEditor({ current, onClose }: { current: string; onClose: () => void }) {
  const { t } = useTranslation();
  const revalidator = useRevalidator();
  const [name, setName] = useState(current);
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const save = async (event: FormEvent) => {
    event.preventDefault();
    const check = checkName(name);
    if (!check.ok) {
      // An empty name does nothing but ask for one (docs/product/01-account-and-lobby.md §4).
      setError(check.reason === 'empty' ? t('userName.empty') : t('personal.invalidName'));
      return;
    }
    setSaving(true);
    const envelope = await api('updateUserName', { userName: check.name }, { quietNetworkError: true });
    setSaving(false);
    if (envelope.code === NETWORK_ERROR) return void toast.error(t('personal.updateError'));
    if (envelope.code !== '0') return void toast.error(t('personal.updateFailed'));
    toast.success(t('personal.updateSuccess'));
    onClose();
    await revalidator.revalidate();
  };

  return (
    <Dialog title={t('personal.editName')} onClose={onClose}>
      <form className="stack" onSubmit={(e) => void save(e)} noValidate>
        <div className="field">
          <label htmlFor="edit-name">{t('personal.name')}</label>
          <input
            id="edit-name"
            value={name}
            maxLength={NAME_MAX + 2}
            onChange={(e) => {
              setName(e.target.value);
              setError(null);
            }}
            aria-invalid={error ? true : undefined}
            aria-describedby={error ? 'edit-name-error' : undefined}
            autoFocus
          />
          {error ? (
            <p id="edit-name-error" className="field__error" role="alert">
              {error}
            </p>
          ) : null}
        </div>
        <div className="dialog__actions">
          <Button variant="ghost" onClick={onClose}>
            {t('common.cancel')}
          </Button>
          <Button type="submit" loading={saving}>
            {t('personal.save')}
          </Button>
        </div>
      </form>
    </Dialog>
  );
}

export default function Personal({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation();
  const [editing, setEditing] = useState(false);
  const [explaining, setExplaining] = useState(false);
  const [exchanging, setExchanging] = useState(false);
  const revalidator = useRevalidator();
  const { mobile, name, vip, now, promoCode, promoPoints, pointsPerOrder, goods } = loaderData;
  const bigClass = vip !== null && vip.vipBigRoomTime > now && vip.vipBigRoomPeopleNumber > 0;
  const copy = async () => {
    if (await copyText(promoCode)) toast.success(t('common.copied'));
    else toast.error(t('common.copyFailed'));
  };
  return (
    <section aria-labelledby="personal-title" className="stack">
      <h1 id="personal-title">{t('personal.title')}</h1>
      <dl className="card facts">
        <div className="facts__row">
          <dt>{t('personal.phone')}</dt>
          <dd>{mobile}</dd>
        </div>
        <div className="facts__row">
          <dt>{t('personal.name')}</dt>
          <dd className="facts__with-action">
            <span data-testid="personal-name">{name || t('personal.noName')}</span>
            <Button variant="ghost" onClick={() => setEditing(true)}>
              {t('personal.edit')}
            </Button>
          </dd>
        </div>
        <div className="facts__row">
          <dt>{t('personal.promoCode')}</dt>
          <dd className="promo">
            <span className="mono" data-testid="promo-code">
              {promoCode}
            </span>
            <Button variant="ghost" onClick={() => void copy()} disabled={!promoCode}>
              {t('personal.copy')}
            </Button>
            <button type="button" className="link-button" onClick={() => setExplaining(true)}>
              {t('personal.whatIsPromo')}
            </button>
          </dd>
        </div>
        <div className="facts__row">
          <dt>{t('personal.promoPoints')}</dt>
          <dd className="facts__with-action">
            <span data-testid="promo-points">{promoPoints}</span>
            {goods.length > 0 ? (
              <Button variant="ghost" onClick={() => setExchanging(true)} data-testid="exchange-open">
                {t('exchange.open')}
              </Button>
            ) : null}
          </dd>
        </div>
        <div className="facts__row">
          <dt>{t('personal.membership')}</dt>
          <dd className="stack stack--tight">
            <span>
              <VipUntil vip={vip} now={now} />
            </span>
            <span data-testid="personal-credits">{t('personal.credits', { n: vip?.vipRoomRemainingNumber ?? 0 })}</span>
            <span>
              {bigClass && vip ? (
                <>
                  {t('personal.bigClass', { n: vip.vipBigRoomPeopleNumber, date: '' })}
                  <LocalTime at={vip.vipBigRoomTime} dateOnly />
                </>
              ) : (
                t('personal.noBigClass')
              )}
            </span>
            <Link to="/profile/payment">{t('personal.buy')}</Link>
            {vip && vip.creditWindowUntil > now ? (
              <span className="muted">
                {t('personal.creditWindow', { date: '' })}
                <LocalTime at={vip.creditWindowUntil} />
              </span>
            ) : null}
          </dd>
        </div>
      </dl>
      {editing ? <NameEditor current={name} onClose={() => setEditing(false)} /> : null}
      {exchanging ? (
        <PointsExchange
          points={promoPoints}
          goods={goods}
          onClose={() => setExchanging(false)}
          onDone={() => void revalidator.revalidate()}
        />
      ) : null}
      {explaining ? (
        <Dialog
          title={t('personal.promoTitle')}
          onClose={() => setExplaining(false)}
          actions={<Button onClick={() => setExplaining(false)}>{t('common.confirm')}</Button>}
        >
          <p>{t('personal.promoText', { n: pointsPerOrder })}</p>
          <p className="muted">{t('personal.promoUse')}</p>
        </Dialog>
      ) : null}
    </section>
  );
}
