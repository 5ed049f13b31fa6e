import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { data } from 'react-router';
import type { Route } from './+types/download.ts';
import { Brand } from '#app/components/Brand.tsx';
import { LanguageSwitch } from '#app/components/lang.tsx';
import { CHROME_DOWNLOAD } from '#app/lib/links.ts';
import { appContext } from '#app/context.ts';
import { StoreLink } from '#app/components/StoreLink.tsx';
import { parseUa } from '#app/lib/ua.ts';

const TYPES = new Set(['pc', 'ios', 'android']);

export function loader({ params, request, context }: Route.LoaderArgs) {
  if (!TYPES.has(params.type)) throw data(null, { status: 404 });
  const ua = parseUa(request.headers.get('user-agent') ?? '');
  const { stores } = context.get(appContext).services.site.publicSite();
  return { type: params.type as 'pc' | 'ios' | 'android', wechat: ua.browser === 'wechat', stores };
}

export function meta() {
  return [{ title: '板书 · 下载 / Download' }];
}

/** The unsupported-browser and download page (docs/product/01-account-and-lobby.md §2); its header changes after 20 px of scroll. */
export default function Download({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation();
  const [scrolled, setScrolled] = useState(false);
  useEffect(() => {
    const onScroll = () => setScrolled(window.scrollY > 20);
    onScroll();
    window.addEventListener('scroll', onScroll, { passive: true });
    return () => window.removeEventListener('scroll', onScroll);
  }, []);
  const { type, wechat, stores } = loaderData;
  return (
    <div className="download">
      <header className={`download__header${scrolled ? ' download__header--scrolled' : ''}`} data-scrolled={scrolled}>
        <Brand />
        <LanguageSwitch />
      </header>
      <main id="main" className="download__main">
        <section className="download__hero">
          <h1>{t('download.title')}</h1>
          <p>{t('download.text')}</p>
          {wechat ? <p className="hint">{t('download.wechat')}</p> : null}
          {type === 'pc' ? null : (
            <p className="hint" data-testid="download-phone-browser">
              {t(`refusal.phoneBrowser.${type}`)}
            </p>
          )}
          <div className="download__buttons">
            {type === 'pc' ? (
              <>
                <a className="btn btn--primary" href={CHROME_DOWNLOAD} rel="noopener noreferrer" target="_blank">
                  {t('download.chromeWin')}
                </a>
                <a className="btn btn--secondary" href={CHROME_DOWNLOAD} rel="noopener noreferrer" target="_blank">
                  {t('download.chromeMac')}
                </a>
              </>
            ) : null}
            {type === 'ios' ? (
              <StoreLink href={stores.iphone} className="btn btn--primary">
                {t('download.iosApp')}
              </StoreLink>
            ) : null}
            {type === 'android' ? (
              <StoreLink href={stores.android} className="btn btn--primary">
                {t('download.androidApp')}
              </StoreLink>
            ) : null}
          </div>
        </section>
        <section id="help" className="card download__section">
          <h2>{t('download.helpTitle')}</h2>
          <p>{t('download.helpText')}</p>
        </section>
        <section id="terms" className="card download__section">
          <h2>{t('download.termsTitle')}</h2>
          <p>{t('download.termsText')}</p>
        </section>
      </main>
    </div>
  );
}
