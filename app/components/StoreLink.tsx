import { useTranslation } from 'react-i18next';
import { Smartphone, Tablet } from 'lucide-react';
import type { StoreChoice, StoreChoices } from '#app/site/stores.ts';

/**
 * The app stores the operator configured (ADR 103): on a computer a QR code per store to scan with
 * the phone, on a phone or tablet a direct link per store. A store without an address is not shown;
 * with none at all this renders nothing, and the page's line about the phone's browser is the way on.
 */
export function StoreList({ choices, requirements = false }: { choices: StoreChoices; requirements?: boolean }) {
  const { t } = useTranslation();
  if (choices.stores.length === 0) return null;
  if (choices.device === 'computer') {
    return (
      <div className="stores" data-testid="store-list" data-device="computer">
        <p>{t('pages.download.appsScan')}</p>
        <ul className="stores__qrs">
          {choices.stores.map((s) => (
            <li key={s.key} className="stores__qr" data-testid={`store-${s.key}`}>
              <img
                src={s.qr ?? ''}
                width={160}
                height={160}
                alt={t('pages.download.qrAlt', { store: t(`pages.download.store.${s.key}`) })}
                data-testid={`store-qr-${s.key}`}
              />
              <a href={s.url} rel="noopener noreferrer" target="_blank" className="stores__name" data-testid={`store-link-${s.key}`}>
                {t(`pages.download.store.${s.key}`)}
              </a>
              {requirements ? <small className="muted">{t(`pages.download.needs.${s.key}`)}</small> : null}
            </li>
          ))}
        </ul>
      </div>
    );
  }
  return (
    <div className="stores" data-testid="store-list" data-device="phone">
      <p>{t('pages.download.appsTap')}</p>
      <ul className="stores__links">
        {choices.stores.map((s, i) => (
          <li key={s.key} className="stores__link" data-testid={`store-${s.key}`}>
            <StoreButton store={s} primary={i === 0} />
            {requirements ? <small className="muted">{t(`pages.download.needs.${s.key}`)}</small> : null}
          </li>
        ))}
      </ul>
    </div>
  );
}

function StoreButton({ store, primary }: { store: StoreChoice; primary: boolean }) {
  const { t } = useTranslation();
  const Icon = store.key === 'ipad' ? Tablet : Smartphone;
  return (
    <a
      className={`btn btn--block ${primary ? 'btn--primary' : 'btn--secondary'}`}
      href={store.url}
      rel="noopener noreferrer"
      data-testid={`store-link-${store.key}`}
    >
      <Icon size={18} aria-hidden="true" />
      {t(`pages.download.get.${store.key}`)}
    </a>
  );
}
