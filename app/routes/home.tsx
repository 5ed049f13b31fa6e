import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { data, Form, Link, useNavigation } from 'react-router';
import type { Route } from './+types/home.ts';
import { appContext } from '#app/context.ts';
import { PageFrame } from '#app/components/PageFrame.tsx';
import { Button } from '#app/components/Button.tsx';
import { domainCode } from '#app/lib/domain-error.ts';
import { trialInput } from '#core/messaging/messaging.schema.ts';

export function loader({ context }: Route.LoaderArgs) {
  const { services } = context.get(appContext);
  return { contact: services.site.publicSite().contact };
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
  return [{ title: '板书 · 在线互动课堂 / Banshu' }, { name: 'description', content: '板书：老师开课、学生加入的在线互动课堂。' }];
}

const FEATURES = ['f1', 'f2', 'f3', 'f4'] as const;

/** The marketing landing page (docs/product/01-account-and-lobby.md §2): features, the trial-application form, contact footer. */
export default function Home({ loaderData, actionData }: Route.ComponentProps) {
  const { t } = useTranslation();
  const navigation = useNavigation();
  const formRef = useRef<HTMLFormElement>(null);
  useEffect(() => {
    if (actionData?.ok) formRef.current?.reset();
  }, [actionData]);
  const { contact } = loaderData;
  return (
    <PageFrame className="frame--wide">
      <div className="landing">
        <section className="landing__hero stack">
          <h1>{t('landing.title')}</h1>
          <p className="muted">{t('landing.lead')}</p>
          <div className="landing__cta">
            <Link className="btn btn--primary" to="/login">
              {t('landing.start')}
            </Link>
            <a className="btn btn--secondary" href="#trial">
              {t('landing.apply')}
            </a>
          </div>
        </section>
        <section aria-labelledby="features-title" className="stack">
          <h2 id="features-title">{t('landing.features')}</h2>
          <ul className="landing__features">
            {FEATURES.map((f) => (
              <li key={f} className="card stack">
                <h3>{t(`landing.${f}.title`)}</h3>
                <p className="muted">{t(`landing.${f}.text`)}</p>
              </li>
            ))}
          </ul>
        </section>
        <section id="trial" aria-labelledby="trial-title" className="card stack card--narrow">
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
        <footer className="landing__footer" aria-labelledby="contact-title">
          <div className="stack stack--tight">
            <h2 id="contact-title">{t('landing.contact')}</h2>
            {contact.email ? <a href={`mailto:${contact.email}`}>{t('landing.email', { v: contact.email })}</a> : null}
            {contact.phone ? <span>{t('landing.phone', { v: contact.phone })}</span> : null}
          </div>
          <nav className="stack stack--tight" aria-label={t('landing.help')}>
            <Link to="/help/web">{t('landing.help')}</Link>
            <Link to="/h5down">{t('landing.download')}</Link>
          </nav>
        </footer>
      </div>
    </PageFrame>
  );
}
