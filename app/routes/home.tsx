import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { data, Form, Link, useNavigation } from 'react-router';
import { ArrowRight, Check, Download, Mail, MessageCircle, Monitor, Phone, Smartphone } from 'lucide-react';
import type { Route } from './+types/home.ts';
import type { GoodsInfo } from '#core/contracts/api.ts';
import { appContext } from '#app/context.ts';
import { Brand } from '#app/components/Brand.tsx';
import { Button } from '#app/components/Button.tsx';
import { LanguageSwitch, useLang } from '#app/components/lang.tsx';
import { domainCode } from '#app/lib/domain-error.ts';
import { formatMoney } from '#app/lib/money.ts';
import { useScrollToHash } from '#app/lib/download-anchor.ts';
import { JoinByNumber } from '#app/lobby/JoinByNumber.tsx';
import { trialInput } from '#core/messaging/messaging.schema.ts';
import '#app/site/home.css';

export function loader({ context }: Route.LoaderArgs) {
  const { services, lang } = context.get(appContext);
  // The packages and prices of the billing page, from the same goods list (ADR 087).
  const goods = services.orders.getGoodsList({ pageSize: 50 }, lang).goodsList;
  return { contact: services.site.publicSite().contact, goods };
}

export async function action({ context, request }: Route.ActionArgs) {
  const { services, ip } = context.get(appContext);
  const form = await request.formData();
  const field = (name: string) => {
    const v = form.get(name);
    return typeof v === 'string' ? v : undefined;
  };
  const input = trialInput.safeParse({
    name: field('name'),
    mobile: field('mobile'),
    organisation: field('organisation'),
    message: field('message'),
  });
  if (!input.success) return data({ ok: false as const, code: '5', at: Date.now() }, { status: 400 });
  try {
    await services.site.applyTrial({ ...input.data, ip });
    return { ok: true as const, at: Date.now() };
  } catch (error) {
    const code = domainCode(error);
    if (code === '5' || code === '36001') return data({ ok: false as const, code, at: Date.now() }, { status: 400 });
    throw error;
  }
}

export function meta() {
  return [
    { title: '板书 · 在线互动课堂 / Banshu' },
    { name: 'description', content: '板书：视频、白板、课件和录课在同一个浏览器页面里的在线互动课堂。' },
  ];
}

/** The features, each with its screenshot from `npm run screenshots` (public/landing/{lang}-{name}.jpg; the hero is a student's view). */
const FEATURES = ['video', 'board', 'courseware', 'recordings', 'studio'] as const;

function shot(lang: string, name: string): string {
  return `/landing/${lang === 'en' ? 'en' : 'zh'}-${name}.jpg`;
}

function GoodsGroup({ title, items }: { title: string; items: GoodsInfo[] }) {
  const { t } = useTranslation();
  if (items.length === 0) return null;
  return (
    <li className="site-price card">
      <h3>{title}</h3>
      <ul className="site-price__list">
        {items.map((g) => (
          <li key={g.goodsId} className="site-price__item" data-testid={`price-${g.goodsId}`}>
            <div>
              <div className="site-price__name">{g.goodsName}</div>
              <div className="site-price__desc">{g.goodsDesc}</div>
            </div>
            <div className="site-price__amount">{formatMoney(g.goodsPrice)}</div>
          </li>
        ))}
      </ul>
      <Link className="btn btn--secondary btn--block" to="/login?redirect=%2Fprofile%2Fpayment">
        {t('home.buy')}
      </Link>
    </li>
  );
}

/**
 * The landing page (docs/product/01-account-and-lobby.md §2, ADR 087): the product in real
 * screenshots, the packages and prices of the goods list, downloads (#download), contact details
 * from the settings (hidden when none is set) and the trial form.
 */
export default function Home({ loaderData, actionData }: Route.ComponentProps) {
  const { t } = useTranslation();
  const { lang } = useLang();
  const navigation = useNavigation();
  const formRef = useRef<HTMLFormElement>(null);
  useScrollToHash(); // /home#download (and /#download, sent here) after hydration
  useEffect(() => {
    if (actionData?.ok) formRef.current?.reset();
  }, [actionData]);
  const { contact, goods } = loaderData;
  const hasContact = Boolean(contact.email ?? contact.phone ?? contact.wechat);
  const groups: Array<{ type: 1 | 2 | 3; title: string }> = [
    { type: 1, title: t('home.group1') },
    { type: 2, title: t('home.group2') },
    { type: 3, title: t('home.group3') },
  ];
  return (
    <div className="site">
      <header className="site__header">
        <Brand to="/home" />
        <nav className="site__nav" aria-label={t('home.nav')}>
          <a href="#features">{t('home.navFeatures')}</a>
          <a href="#pricing">{t('home.navPricing')}</a>
          <a href="#download">{t('home.navDownload')}</a>
          {hasContact ? <a href="#contact">{t('home.navContact')}</a> : null}
        </nav>
        <div className="site__header-end">
          <LanguageSwitch />
          <Link className="btn btn--primary btn--small" to="/login" data-testid="home-sign-in">
            {t('home.signIn')}
          </Link>
        </div>
      </header>
      <main id="main" className="site__main">
        <section className="site-hero" aria-labelledby="home-title">
          <div className="site-hero__text">
            <p className="site-hero__eyebrow">{t('home.eyebrow')}</p>
            <h1 id="home-title">{t('home.title')}</h1>
            <p className="site-hero__lead">{t('home.lead')}</p>
            {/* Students join here without an account (ADR 098); the box checks the number first. */}
            <section className="join-panel" id="join" aria-labelledby="home-join-title">
              <h2 id="home-join-title">{t('home.join')}</h2>
              <p className="muted">{t('journeys.join.text')}</p>
              <JoinByNumber name="home" />
            </section>
            <div className="site-hero__cta">
              <Link className="btn btn--primary" to="/login">
                {t('home.start')}
                <ArrowRight size={18} aria-hidden="true" />
              </Link>
              <Link className="btn btn--ghost" to="/createDemo" data-testid="home-try-demo">
                {t('demo.tryDemo')}
              </Link>
            </div>
            <ul className="site-hero__points">
              {(['point1', 'point2', 'point3'] as const)
                .map((k) => t(`home.${k}`))
                .map((p) => (
                  <li key={p}>
                    <Check size={18} aria-hidden="true" />
                    {p}
                  </li>
                ))}
            </ul>
          </div>
          <figure className="site-shot site-hero__shot">
            <img src={shot(lang, 'hero')} alt={t('home.heroAlt')} width={1280} height={720} fetchPriority="high" data-testid="hero-shot" />
          </figure>
        </section>

        <section id="features" className="site-section" aria-labelledby="features-title">
          <h2 id="features-title" className="site-section__title">
            {t('home.featuresTitle')}
          </h2>
          <ul className="site-features">
            {FEATURES.map((f) => (
              <li key={f} className="site-feature">
                <div className="site-feature__text">
                  <h3>{t(`home.features.${f}.title`)}</h3>
                  <p>{t(`home.features.${f}.text`)}</p>
                </div>
                <figure className="site-shot">
                  <img src={shot(lang, f)} alt={t(`home.features.${f}.alt`)} width={1280} height={720} loading="lazy" />
                </figure>
              </li>
            ))}
          </ul>
        </section>

        <section id="pricing" className="site-section" aria-labelledby="pricing-title">
          <h2 id="pricing-title" className="site-section__title">
            {t('home.pricingTitle')}
          </h2>
          <p className="site-section__lead">{t('home.pricingLead')}</p>
          {goods.length === 0 ? (
            <p className="muted">{t('home.pricingNone')}</p>
          ) : (
            <ul className="site-prices" data-testid="home-prices">
              {groups.map((g) => (
                <GoodsGroup key={g.type} title={g.title} items={goods.filter((x) => x.goodsType === g.type)} />
              ))}
            </ul>
          )}
        </section>

        <section id="download" className="site-section site-download" aria-labelledby="download-title">
          <div className="site-download__text">
            <h2 id="download-title">{t('home.downloadTitle')}</h2>
            <p>{t('home.downloadText')}</p>
            <div className="site-download__links">
              <Link className="btn btn--ghost" to="/download/pc">
                <Monitor size={18} aria-hidden="true" />
                {t('home.downloadPc')}
              </Link>
              <Link className="btn btn--ghost" to="/h5down">
                <Smartphone size={18} aria-hidden="true" />
                {t('home.downloadPhone')}
              </Link>
            </div>
          </div>
          <figure className="site-shot site-shot--phone">
            <img src={shot(lang, 'phone')} alt={t('home.features.video.alt')} width={390} height={844} loading="lazy" />
          </figure>
        </section>

        <div className={`site-section site-reach${hasContact ? '' : ' site-reach--single'}`}>
          {hasContact ? (
            <section id="contact" className="site-contact" aria-labelledby="contact-title" data-testid="home-contact">
              <h2 id="contact-title">{t('home.contactTitle')}</h2>
              <p>{t('home.contactLead')}</p>
              <ul className="site-contact__list">
                {contact.email ? (
                  <li>
                    <Mail size={20} aria-hidden="true" />
                    <span className="site-contact__label">{t('home.email')}</span>
                    <a href={`mailto:${contact.email}`}>{contact.email}</a>
                  </li>
                ) : null}
                {contact.phone ? (
                  <li>
                    <Phone size={20} aria-hidden="true" />
                    <span className="site-contact__label">{t('home.phone')}</span>
                    <a href={`tel:${contact.phone.replace(/[^\d+]/g, '')}`}>{contact.phone}</a>
                  </li>
                ) : null}
                {contact.wechat ? (
                  <li>
                    <MessageCircle size={20} aria-hidden="true" />
                    <span className="site-contact__label">{t('home.wechat')}</span>
                    <span>{contact.wechat}</span>
                  </li>
                ) : null}
              </ul>
            </section>
          ) : null}
          <section id="trial" aria-labelledby="trial-title" className="card site-trial">
            <h2 id="trial-title">{t('landing.trialTitle')}</h2>
            <p className="muted">{t('landing.trialText')}</p>
            <Form method="post" className="stack" ref={formRef}>
              <div className="field">
                <label htmlFor="trial-name">{t('landing.name')}</label>
                <input id="trial-name" name="name" required maxLength={40} autoComplete="name" />
              </div>
              <div className="field">
                <label htmlFor="trial-mobile">{t('landing.mobile')}</label>
                <input
                  id="trial-mobile"
                  name="mobile"
                  required
                  inputMode="numeric"
                  maxLength={11}
                  pattern="1[3-9][0-9]{9}"
                  autoComplete="tel"
                />
              </div>
              <div className="field">
                <label htmlFor="trial-org">{t('landing.organisation')}</label>
                <input id="trial-org" name="organisation" maxLength={80} />
              </div>
              <div className="field">
                <label htmlFor="trial-message">{t('landing.message')}</label>
                <textarea id="trial-message" name="message" maxLength={500} />
              </div>
              {actionData ? (
                <p role="status" className={actionData.ok ? 'ok' : 'bad'} data-testid="trial-result">
                  {actionData.ok ? t('landing.submitted') : actionData.code === '36001' ? t('landing.tooMany') : t('landing.invalid')}
                </p>
              ) : null}
              <div>
                <Button type="submit" loading={navigation.state === 'submitting'}>
                  {t('landing.submit')}
                </Button>
              </div>
            </Form>
          </section>
        </div>
      </main>
      <footer className="site__footer">
        <span>{t('home.rights')}</span>
        <nav aria-label={t('home.help')} className="site__footer-links">
          <Link to="/help/web">{t('home.help')}</Link>
          <Link to="/download/pc">
            <Download size={16} aria-hidden="true" />
            {t('home.navDownload')}
          </Link>
        </nav>
      </footer>
    </div>
  );
}
