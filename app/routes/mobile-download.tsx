import { useTranslation } from 'react-i18next';
import { PageFrame } from '#app/components/PageFrame.tsx';
import type { Route } from './+types/mobile-download.ts';
import { appContext } from '#app/context.ts';
import { StoreLink } from '#app/components/StoreLink.tsx';

export function loader({ context }: Route.LoaderArgs) {
  return { stores: context.get(appContext).services.site.publicSite().stores };
}

export function meta() {
  return [{ title: '板书 · 手机版 / Mobile' }];
}

/** /h5down and /phonedown: the mobile download page (Android 6.0+, iOS 10.10+). */
export default function MobileDownload({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation();
  const { stores } = loaderData;
  return (
    <PageFrame>
      <section className="card card--narrow stack center">
        <h1>{t('mobile.title')}</h1>
        <p className="muted">{t('mobile.text')}</p>
        <div className="stack">
          <StoreLink id="android" className="btn btn--primary btn--block" href={stores.android}>
            {t('mobile.android')}
          </StoreLink>
          <small className="muted">{t('mobile.androidReq')}</small>
          <StoreLink id="ios" className="btn btn--secondary btn--block" href={stores.iphone}>
            {t('mobile.iphone')}
          </StoreLink>
          <StoreLink id="ipad" className="btn btn--secondary btn--block" href={stores.ipad}>
            {t('mobile.ipad')}
          </StoreLink>
          <small className="muted">{t('mobile.iosReq')}</small>
        </div>
      </section>
    </PageFrame>
  );
}
