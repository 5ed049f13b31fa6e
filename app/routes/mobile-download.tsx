import { useTranslation } from 'react-i18next';
import { PageFrame } from '#app/components/PageFrame.tsx';
import { STORE_LINKS } from '#app/lib/links.ts';

export function meta() {
  return [{ title: '板书 · 手机版 / Mobile' }];
}

/** /h5down and /phonedown: the mobile download page (Android 6.0+, iOS 10.10+). */
export default function MobileDownload() {
  const { t } = useTranslation();
  return (
    <PageFrame>
      <section className="card card--narrow stack center">
        <h1>{t('mobile.title')}</h1>
        <p className="muted">{t('mobile.text')}</p>
        <div className="stack">
          <a id="android" className="btn btn--primary btn--block" href={STORE_LINKS.android}>
            {t('mobile.android')}
          </a>
          <small className="muted">{t('mobile.androidReq')}</small>
          <a id="ios" className="btn btn--secondary btn--block" href={STORE_LINKS.iphone}>
            {t('mobile.iphone')}
          </a>
          <a id="ipad" className="btn btn--secondary btn--block" href={STORE_LINKS.ipad}>
            {t('mobile.ipad')}
          </a>
          <small className="muted">{t('mobile.iosReq')}</small>
        </div>
      </section>
    </PageFrame>
  );
}
