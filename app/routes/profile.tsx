import { useTranslation } from 'react-i18next';
import { NavLink, Outlet } from 'react-router';
import type { Route } from './+types/profile.ts';
import { appContext } from '#app/context.ts';
import { AppHeader } from '#app/components/AppHeader.tsx';
import { routeGuard } from '#app/lib/guard.server.ts';

export const middleware: Route.MiddlewareFunction[] = [routeGuard];

export function loader({ context }: Route.LoaderArgs) {
  const { viewer } = context.get(appContext);
  return { user: viewer ? { mobile: viewer.mobile, name: viewer.name } : null };
}

/** Personal centre layout: side navigation (a tab strip on phones) and the child page. */
export default function Profile({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation();
  return (
    <div className="page">
      <AppHeader user={loaderData.user} />
      <div className="profile">
        <nav className="profile__nav" aria-label={t('profile.nav')}>
          <h2 className="profile__nav-title">{t('profile.title')}</h2>
          <ul>
            <li>
              <NavLink to="/profile/room">{t('profile.room')}</NavLink>
            </li>
            <li>
              <NavLink to="/profile/personal">{t('profile.personal')}</NavLink>
            </li>
            <li>
              <NavLink to="/profile/payment">{t('profile.payment')}</NavLink>
            </li>
            <li>
              <NavLink to="/profile/message">{t('profile.message')}</NavLink>
            </li>
            <li>
              <NavLink to="/profile/feedback">{t('profile.feedback')}</NavLink>
            </li>
            <li>
              <NavLink to="/profile/device">{t('device.title')}</NavLink>
            </li>
            <li>
              <NavLink to="/profile/book">{t('courseware.library.nav')}</NavLink>
            </li>
            <li>
              <NavLink to="/profile/record">{t('record.library.nav')}</NavLink>
            </li>
          </ul>
        </nav>
        <main id="main" className="profile__main">
          <Outlet />
        </main>
      </div>
    </div>
  );
}
