import './lib/zod-browser.ts';
import { useEffect, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { isRouteErrorResponse, Links, Meta, Outlet, Scripts, ScrollRestoration, useNavigate, useRouteLoaderData } from 'react-router';
import type { Route } from './+types/root.ts';
import { appContext } from './context.ts';
import { ConfirmProvider } from './components/Dialog.tsx';
import { SiteNotice } from './components/SiteNotice.tsx';
import { LangProvider } from './components/lang.tsx';
import { PageFrame } from './components/PageFrame.tsx';
import { Toaster } from './components/Toaster.tsx';
import { NetworkAlert } from './components/NetworkAlert.tsx';
import { api, configureApi, NETWORK_ERROR, onSessionEnded } from './lib/api.ts';
import { codeMessage } from './lib/messages.ts';
import { toast } from './lib/toast.ts';
import { currentLang } from './lib/lang.ts';
import { USER_INFO_KEY } from './lib/storage.ts';
import { useNonce } from './lib/nonce.ts';
import './styles/app.css';
import './styles/billing.css';

export function loader({ context }: Route.LoaderArgs) {
  const { lang, viewer, site, services } = context.get(appContext);
  return {
    notice: services.site.publicSite().notice,
    lang,
    viewer: viewer ? { userId: viewer.userId, name: viewer.name, mobile: viewer.mobile, type: viewer.type } : null,
    devOutbox: site.devOutbox,
    apiTimeoutMs: services.site.clientSettings().apiTimeoutMs,
  };
}

export type RootData = Awaited<ReturnType<typeof loader>>;

export function useRootData(): RootData | undefined {
  return useRouteLoaderData<typeof loader>('root');
}

export function meta() {
  return [{ title: '板书 Banshu' }];
}

const FAVICON =
  "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 32 32'%3E%3Crect width='32' height='32' rx='8' fill='%231f6f5c'/%3E%3Cpath d='M9 10h14M9 16h10M9 22h14' stroke='white' stroke-width='3' stroke-linecap='round'/%3E%3C/svg%3E";

export function links() {
  return [{ rel: 'icon', href: FAVICON, type: 'image/svg+xml' }];
}

export function Layout({ children }: { children: ReactNode }) {
  const data = useRootData();
  const nonce = useNonce();
  const lang = data?.lang ?? 'zh';
  if (data) configureApi({ timeoutMs: data.apiTimeoutMs }); // before any page's first call (ADR 102)
  return (
    <html lang={lang === 'zh' ? 'zh-CN' : 'en'}>
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="theme-color" content="#1f6f5c" />
        <Meta />
        <Links />
      </head>
      <body>
        <LangProvider initial={lang}>
          <ConfirmProvider>
            {data?.notice ? <SiteNotice notice={data.notice} /> : null}
            {children}
            <Toaster />
            <NetworkAlert />
          </ConfirmProvider>
        </LangProvider>
        <ScrollRestoration nonce={nonce} />
        <Scripts nonce={nonce} />
      </body>
    </html>
  );
}

/** Start-up checks of docs/product/01-account-and-lobby.md §2 (guard rule 9) and the session-ended handling of §8. */
function useSessionChecks(): void {
  const navigate = useNavigate();
  useEffect(() => {
    const endSession = (code: string) => {
      localStorage.clear();
      const text = codeMessage(code, currentLang());
      if (text) toast.error(text);
      void navigate('/login');
    };
    const off = onSessionEnded(endSession);
    if (localStorage.getItem(USER_INFO_KEY)) {
      void api('queryUserInfoByToken', {}, { quietNetworkError: true }).then((envelope) => {
        if (envelope.code !== '0' && envelope.code !== NETWORK_ERROR && envelope.code !== '6' && envelope.code !== '21001') {
          localStorage.clear();
          void navigate('/login');
        }
      });
    }
    return off;
  }, [navigate]);
}

export default function App() {
  useSessionChecks();
  useEffect(() => {
    // Marks the page interactive (tests and scripts wait for it before clicking).
    document.documentElement.dataset['hydrated'] = 'true';
  }, []);
  return <Outlet />;
}

export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  const { t } = useTranslation();
  const notFound = isRouteErrorResponse(error) && error.status === 404;
  return (
    <PageFrame>
      <section className="card card--narrow stack">
        <h1>{notFound ? t('common.notFoundTitle') : t('common.errorTitle')}</h1>
        <p>{notFound ? t('common.notFoundText') : t('common.refresh')}</p>
        <p>
          <a className="btn btn--primary" href="/">
            {t('common.goHome')}
          </a>
        </p>
      </section>
    </PageFrame>
  );
}

/** The viewer changes outside actions (sign-in and logout go through /api), so always reload it. */
export function shouldRevalidate() {
  return true;
}
