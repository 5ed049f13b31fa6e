import { useTranslation } from 'react-i18next';
import { data, Link } from 'react-router';
import { DoorOpen } from 'lucide-react';
import type { Route } from './+types/left.ts';
import { appContext } from '#app/context.ts';
import { PageFrame } from '#app/components/PageFrame.tsx';
import { isTeacher, routeGuard } from '#app/lib/guard.server.ts';
import { isRouteRoomId } from '#app/lib/names.ts';
import '#app/refusal/refusal.css';

export const middleware: Route.MiddlewareFunction[] = [routeGuard];

/**
 * /left/{id}: where a member or a visitor lands after pressing Leave (ADR 098); the creator goes to
 * My classrooms instead. No account needed and no look-up made: the room's own address decides,
 * on rejoin, whether the class is still on.
 */
export function loader({ params, context }: Route.LoaderArgs) {
  if (!isRouteRoomId(params.id)) throw data(null, { status: 404 });
  const { viewer } = context.get(appContext);
  // Home is the teacher's lobby for a teacher who sat in as a student, the landing page for anyone else.
  return { room: params.id, home: isTeacher(viewer) ? '/' : '/home' };
}

export function meta() {
  return [{ title: '板书 · 已离开课堂 / You left the class' }, { name: 'robots', content: 'noindex' }];
}

export default function Left({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation();
  const { room, home } = loaderData;
  return (
    <PageFrame className="refusal-frame">
      <section className="card card--narrow stack refusal" data-testid="left-page" aria-labelledby="left-title">
        <div className="refusal__icon refusal__icon--info" aria-hidden="true">
          <DoorOpen size={32} strokeWidth={2} />
        </div>
        <p className="refusal__room">{t('journeys.left.room', { room })}</p>
        <h1 id="left-title">{t('journeys.left.title')}</h1>
        <p>{t('journeys.left.text')}</p>
        <div className="refusal__actions">
          {/* The room's address: its guard and pre-join run again; a visitor keeps the name given for this room. */}
          <a className="btn btn--primary" href={`/${room}`} data-testid="left-rejoin">
            {t('journeys.left.rejoin')}
          </a>
          <Link className="btn btn--ghost" to={home} data-testid="left-home">
            {t('journeys.left.home')}
          </Link>
        </div>
      </section>
    </PageFrame>
  );
}
