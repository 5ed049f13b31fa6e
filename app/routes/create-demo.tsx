import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router';
import { CircleAlert, Presentation } from 'lucide-react';
import type { Route } from './+types/create-demo.ts';
import { demoPath } from '#core/contracts/api.ts';
import { appContext } from '#app/context.ts';
import { Button } from '#app/components/Button.tsx';
import { PageFrame } from '#app/components/PageFrame.tsx';
import { useLang } from '#app/components/lang.tsx';
import { routeGuard } from '#app/lib/guard.server.ts';
import { api, isOk, NETWORK_ERROR } from '#app/lib/api.ts';
import { useRequestLock } from '#app/lib/lock.ts';
import { codeMessage } from '#app/lib/messages.ts';
import { loginPath } from '#app/lib/names.ts';
import { safeSet, TOURIST_NAME_KEY, updateKey } from '#app/lib/storage.ts';
import { toast } from '#app/lib/toast.ts';
import '#app/demo/demo.css';

export const middleware: Route.MiddlewareFunction[] = [routeGuard];

export function loader({ context }: Route.LoaderArgs) {
  const { services } = context.get(appContext);
  return { hours: services.demo.hours };
}

export function meta() {
  return [{ title: '板书 · 体验演示教室 / Try a demo' }];
}

/**
 * `/createDemo` (ADR 092): what a demo room is, and its one button. The server makes the room
 * (and, without an account, the demo identity and its session); the host then lands in
 * `/demo/{id}` through the classroom's pre-join with their own camera preview.
 */
export default function CreateDemo({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation();
  const { lang } = useLang();
  const navigate = useNavigate();
  const { busy, run } = useRequestLock();
  const [error, setError] = useState<string | null>(null);
  const points = [t('demo.create.point1'), t('demo.create.point2'), t('demo.create.point3', { hours: loaderData.hours })];

  const start = () => {
    setError(null);
    void run(async (requestId) => {
      const envelope = await api('createDemo', {}, { requestId });
      if (!isOk(envelope)) {
        const text = envelope.code === NETWORK_ERROR ? t('demo.create.failed') : (codeMessage(envelope.code, lang) ?? envelope.msg);
        setError(text);
        toast.error(text);
        return;
      }
      const { roomInfo, userInfo } = envelope.data;
      // The host named by the server: the classroom's name step is done for this room.
      safeSet('local', updateKey(roomInfo.roomNumber), 'true');
      if (userInfo) safeSet('session', TOURIST_NAME_KEY, userInfo.name);
      await navigate(demoPath(roomInfo.roomNumber));
    });
  };

  return (
    <PageFrame>
      <section className="card card--narrow stack demo-create" aria-labelledby="demo-title">
        <Presentation size={40} aria-hidden="true" className="demo-create__icon" />
        <h1 id="demo-title">{t('demo.create.title')}</h1>
        <p className="muted">{t('demo.create.lead')}</p>
        <ul className="demo-create__points">
          {points.map((p) => (
            <li key={p}>{p}</li>
          ))}
        </ul>
        <Button block loading={busy} onClick={start} data-testid="demo-start">
          {t('demo.create.start')}
        </Button>
        <p className="demo-create__status" role="status" aria-live="polite">
          {busy ? t('demo.create.starting') : ''}
        </p>
        {error ? (
          <p className="demo-create__error" role="alert" data-testid="demo-error">
            <CircleAlert size={18} aria-hidden="true" /> {error}
          </p>
        ) : null}
        <p className="center">
          <Link to={loginPath('/')}>{t('demo.create.signIn')}</Link>
        </p>
      </section>
    </PageFrame>
  );
}
