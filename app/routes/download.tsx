import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { data, redirect } from 'react-router';
import { ArrowUpRight, Monitor, Smartphone } from 'lucide-react';
import type { Route } from './+types/download.ts';
import { Brand } from '#app/components/Brand.tsx';
import { LanguageSwitch } from '#app/components/lang.tsx';
import { StoreList } from '#app/components/StoreLink.tsx';
import { CHROME_DOWNLOAD } from '#app/lib/links.ts';
import { appContext } from '#app/context.ts';
import { downloadType, isSupportedBrowser, parseUa, type DownloadType } from '#app/lib/ua.ts';
import { storeChoices } from '#app/site/stores.server.ts';
import '#app/site/download.css';

const TYPES = new Set<string>(['pc', 'ios', 'android'] satisfies DownloadType[]);

/** A header that restyles once the page is scrolled this far (docs/product/01 §9). */
const HEADER_SCROLL_PX = 20;

export async function loader({ params, request, context, url }: Route.LoaderArgs) {
  const userAgent = request.headers.get('user-agent') ?? '';
  const ua = parseUa(userAgent);
  // `/download` (the classroom's and older links) is the download page of this device's system.
  if (params.type === undefined) throw redirect(`/download/${downloadType(ua)}${url.search}`);
  if (!TYPES.has(params.type)) throw data(null, { status: 404 });
  const { stores } = context.get(appContext).services.site.publicSite();
  return {
    type: params.type as DownloadType,
    wechat: ua.browser === 'wechat',
    supported: isSupportedBrowser(ua),
    choices: await storeChoices(userAgent, stores),
  };
}

export function meta() {
  return [{ title: '板书 · 下载 / Download' }];
}

/** The unsupported-browser and download page (docs/product/01-account-and-lobby.md §2, ADR 103); its header changes after 20 px of scroll. */
export default function Download({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation();
  const [scrolled, setScrolled] = useState(false);
  useEffect(() => {
    const onScroll = () => setScrolled(window.scrollY > HEADER_SCROLL_PX);
    onScroll();
    window.addEventListener('scroll', onScroll, { passive: true });
    return () => window.removeEventListener('scroll', onScroll);
  }, []);
  const { type, wechat, supported, choices } = loaderData;
  const computer = (
    <section className="card download__section" data-testid="download-computer" key="computer">
      <h2 className="download__h2">
        <Monitor size={20} aria-hidden="true" />
        {t('pages.download.computerTitle')}
      </h2>
      <p>{t('pages.download.computerText')}</p>
      <div className="download__buttons">
        <a className="btn btn--primary" href={CHROME_DOWNLOAD} rel="noopener noreferrer" target="_blank" data-testid="chrome-windows">
          {t('pages.download.chromeWin')}
        </a>
        <a className="btn btn--secondary" href={CHROME_DOWNLOAD} rel="noopener noreferrer" target="_blank" data-testid="chrome-mac">
          {t('pages.download.chromeMac')}
        </a>
      </div>
    </section>
  );
  const phone = (
    <section className="card download__section" data-testid="download-phone" key="phone">
      <h2 className="download__h2">
        <Smartphone size={20} aria-hidden="true" />
        {t('pages.download.phoneTitle')}
      </h2>
      <p data-testid="download-phone-browser">{t('pages.download.phoneBrowser')}</p>
      <StoreList choices={choices} requirements />
    </section>
  );
  return (
    <div className="download">
      <header className={`download__header${scrolled ? ' download__header--scrolled' : ''}`} data-scrolled={scrolled}>
        <Brand />
        <LanguageSwitch />
      </header>
      <main id="main" className="download__main">
        {wechat ? <WechatGuide /> : null}
        <section className="download__hero">
          <h1>{supported ? t('pages.download.titleSupported') : t('pages.download.titleUnsupported')}</h1>
          <p>{supported ? t('pages.download.textSupported') : t('pages.download.textUnsupported')}</p>
        </section>
        {/* The sections of the system the page is for come first. */}
        {type === 'pc' ? [computer, phone] : [phone, computer]}
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

/**
 * Inside WeChat's own browser app stores do not open: a picture of its ··· menu with 'Open in
 * browser' marked, the two steps in words, and an arrow towards the real menu in the top-right corner.
 */
function WechatGuide() {
  const { t } = useTranslation();
  return (
    <section className="wechat-guide" data-testid="wechat-guide" aria-labelledby="wechat-guide-title">
      <ArrowUpRight className="wechat-guide__arrow" size={44} aria-hidden="true" />
      <h2 id="wechat-guide-title">{t('pages.download.wechatTitle')}</h2>
      <svg className="wechat-guide__picture" viewBox="0 0 280 150" role="img" aria-label={t('pages.download.wechatImageAlt')}>
        <rect x="1" y="1" width="278" height="148" rx="14" fill="#ffffff" stroke="#c9d3cd" strokeWidth="2" />
        <rect x="1" y="1" width="278" height="34" rx="14" fill="#ededed" />
        <rect x="1" y="20" width="278" height="15" fill="#ededed" />
        <text x="20" y="24" fontSize="13" fill="#5b6660">
          ✕
        </text>
        <rect x="222" y="8" width="44" height="20" rx="10" fill="#1f6f5c" />
        <text x="244" y="23" fontSize="16" fontWeight="700" fill="#ffffff" textAnchor="middle">
          ···
        </text>
        <rect x="120" y="46" width="150" height="92" rx="8" fill="#ffffff" stroke="#c9d3cd" />
        <rect x="134" y="56" width="122" height="14" rx="4" fill="#e6ebe8" />
        <rect x="126" y="80" width="138" height="26" rx="6" fill="#e3f1ec" stroke="#1f6f5c" strokeWidth="2" />
        <text x="195" y="98" fontSize="13" fontWeight="700" fill="#17594a" textAnchor="middle">
          {t('pages.download.wechatMenu')}
        </text>
        <rect x="134" y="116" width="122" height="14" rx="4" fill="#e6ebe8" />
        <path d="M244 30 C 250 50, 250 64, 232 78" fill="none" stroke="#1f6f5c" strokeWidth="2.5" strokeLinecap="round" />
        <path d="M232 78 l 3 -9 m -3 9 l 9 -2" fill="none" stroke="#1f6f5c" strokeWidth="2.5" strokeLinecap="round" />
      </svg>
      <ol className="wechat-guide__steps">
        <li>{t('pages.download.wechatStep1')}</li>
        <li>{t('pages.download.wechatStep2')}</li>
      </ol>
      <p className="muted">{t('pages.download.wechatText')}</p>
    </section>
  );
}
