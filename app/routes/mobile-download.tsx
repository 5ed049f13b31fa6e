import { useTranslation } from 'react-i18next';
import { PageFrame } from '#app/components/PageFrame.tsx';
import type { Route } from './+types/mobile-download.ts';
import { appContext } from '#app/context.ts';
import { StoreList } from '#app/components/StoreLink.tsx';
import { storeChoices } from '#app/site/stores.server.ts';
import '#app/site/download.css';

export async function loader({ context, request }: Route.LoaderArgs) {
  const { stores } = context.get(appContext).services.site.publicSite();
  return { choices: await storeChoices(request.headers.get('user-agent') ?? '', stores) };
}

export function meta() {
  return [{ title: '板书 · 手机版 / Mobile' }];
}

/**
 * /h5down and /phonedown: the mobile download page (Android 6.0+, iOS 10.10+; ADR 103). Phones join
 * in the browser (ADR 091), so the page says that first; the configured stores follow, as links on
 * a phone and QR codes on a computer. No store configured, no buttons: nothing here looks broken.
 */
export default function MobileDownload({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation();
  return (
    <PageFrame>
      <section className="card card--narrow stack center mobile-download">
        <h1>{t('mobile.title')}</h1>
        <p className="muted" data-testid="download-phone-browser">
          {t('pages.download.phoneBrowser')}
        </p>
        <StoreList choices={loaderData.choices} requirements />
      </section>
    </PageFrame>
  );
}
