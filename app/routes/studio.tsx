import { useTranslation } from 'react-i18next';
import { data, useNavigate } from 'react-router';
import type { Route } from './+types/studio.ts';
import { Brand } from '#app/components/Brand.tsx';
import { Button } from '#app/components/Button.tsx';
import { LanguageSwitch } from '#app/components/lang.tsx';
import { classroomMiddleware, requireTeacher } from '#app/lib/guard.server.ts';

// The studio is a teacher's own tool: no session means signing in, not naming a visitor.
export const middleware: Route.MiddlewareFunction[] = [classroomMiddleware({ noSessionTarget: 'login' }), requireTeacher];

export function loader({ params }: Route.LoaderArgs) {
  if (!/^\d{8}$/.test(params.id)) throw data(null, { status: 404 });
  return { roomNumber: params.id };
}

/** The recording studio shell (room type 5, computer only); recording arrives with its issue. */
export default function Studio({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  return (
    <div className="classroom">
      <header className="classroom__bar">
        <Brand />
        <span className="classroom__title">
          {t('studio.title')} {loaderData.roomNumber}
        </span>
        <div className="classroom__bar-end">
          <LanguageSwitch />
          <Button variant="ghost" onClick={() => void navigate('/')}>
            {t('classroom.leave')}
          </Button>
        </div>
      </header>
      <main id="main" className="classroom__main">
        <section className="card classroom__info">
          <h1>{t('studio.title')}</h1>
          <dl className="facts facts--inline">
            <div className="facts__row">
              <dt>{t('classroom.roomNumber')}</dt>
              <dd data-testid="room-number">{loaderData.roomNumber}</dd>
            </div>
          </dl>
          <p>
            <span className="badge">{t('studio.computerOnly')}</span>
          </p>
          <p className="muted">{t('studio.text')}</p>
        </section>
        <section className="classroom__stage card">
          <p className="muted">{t('classroom.stage')}</p>
        </section>
      </main>
    </div>
  );
}
