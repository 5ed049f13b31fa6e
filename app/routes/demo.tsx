import { useSyncExternalStore } from 'react';
import { useTranslation } from 'react-i18next';
import { data, Link, redirect } from 'react-router';
import { Clock } from 'lucide-react';
import type { Route } from './+types/demo.ts';
import { demoPath } from '#core/contracts/api.ts';
import { appContext } from '#app/context.ts';
import { Classroom as ClassroomScreen } from '#app/classroom/Classroom.tsx';
import { PreJoin } from '#app/classroom/PreJoin.tsx';
import { PageFrame } from '#app/components/PageFrame.tsx';
import { useLang } from '#app/components/lang.tsx';
import { routeGuard } from '#app/lib/guard.server.ts';
import { domainCode } from '#app/lib/domain-error.ts';
import { isRouteRoomId, loginPath } from '#app/lib/names.ts';
import { refusalPath } from '#app/lib/refusal.ts';
import { safeGet, updateKey } from '#app/lib/storage.ts';
import { useVisitorJoin } from '#app/lobby/useVisitorJoin.ts';
import '#app/demo/demo.css';

export const middleware: Route.MiddlewareFunction[] = [routeGuard];

export async function loader({ params, context }: Route.LoaderArgs) {
  if (!isRouteRoomId(params.id)) throw data(null, { status: 404 });
  const { services, viewer, site, ip } = context.get(appContext);
  try {
    // Counted like every look-up by number from outside a room (ADR 066): no free walk of numbers.
    await services.roomLookups.count(viewer, ip);
  } catch (error) {
    if (domainCode(error) === '31006') throw redirect(refusalPath('31006', params.id));
    throw error;
  }
  const status = await services.demo.status(params.id);
  if (status.kind === 'none') throw redirect(refusalPath('31002', params.id));
  if (status.kind === 'ended') return { kind: 'ended' as const, roomNumber: status.roomNumber };
  return {
    kind: 'open' as const,
    roomNumber: status.roomNumber,
    endsAt: status.endsAt,
    viewerType: viewer?.type ?? null,
    inviteUrl: new URL(demoPath(status.roomNumber), site.publicUrl).toString(),
  };
}

export function meta({ loaderData }: Route.MetaArgs) {
  return [{ title: `板书 · 演示 Demo · ${loaderData?.roomNumber ?? ''}` }];
}

const noChanges = () => () => undefined;
const inBrowser = () => true;
const onServer = () => false;

/**
 * `/demo/{id}` (ADR 092): the classroom of a demo room, with its end shown and a way to a real
 * classroom; a visitor without a name for it names themself here first; a demo past its end
 * says so, with a button to make a new one.
 */
export default function Demo({ loaderData }: Route.ComponentProps) {
  const browser = useSyncExternalStore(noChanges, inBrowser, onServer);
  if (loaderData.kind === 'ended') return <DemoEnded roomNumber={loaderData.roomNumber} />;
  const { roomNumber, viewerType, inviteUrl, endsAt } = loaderData;
  // A visitor (no session, or a visitor's session not yet named in this room) names themself first.
  const naming = browser && (viewerType === null || (viewerType === '4' && safeGet('local', updateKey(roomNumber)) !== 'true'));
  if (naming) return <DemoName roomNumber={roomNumber} />;
  return (
    <>
      <DemoBadge endsAt={endsAt} />
      <ClassroomScreen
        key={roomNumber}
        roomNumber={roomNumber}
        viewerType={viewerType}
        observerToken={null}
        inviteUrl={inviteUrl}
        roomType={1}
      />
    </>
  );
}

function DemoBadge({ endsAt }: { endsAt: number }) {
  const { t } = useTranslation();
  const { lang } = useLang();
  const local = useSyncExternalStore(noChanges, inBrowser, onServer);
  const time = new Intl.DateTimeFormat(lang === 'zh' ? 'zh-CN' : 'en-GB', {
    hour: '2-digit',
    minute: '2-digit',
    ...(local ? {} : { timeZone: 'UTC' }),
  }).format(endsAt);
  return (
    <aside className="demo-badge" aria-label={t('demo.room.badgeLabel', { time })} data-testid="demo-badge">
      <Clock size={14} aria-hidden="true" />
      <span>{t('demo.room.badge', { time })}</span>
      <Link to={loginPath('/')} className="demo-badge__link">
        {t('demo.room.makeYourOwn')}
      </Link>
    </aside>
  );
}

/** The visitor's pre-join for a demo: a name, the camera preview, then a tourist join (board power is everyone's). */
function DemoName({ roomNumber }: { roomNumber: string }) {
  const { t } = useTranslation();
  const { busy, error, clearError, join } = useVisitorJoin(roomNumber, () => demoPath(roomNumber));
  return (
    <PreJoin
      roomNumber={roomNumber}
      audience={false}
      camera
      needName
      nameError={error}
      onNameChange={clearError}
      busy={busy}
      backTo="/home"
      onJoin={({ name }) => join(name)}
      footer={
        <p className="center demo-name__lead" data-testid="demo-name">
          {t('demo.name.lead')}
        </p>
      }
    />
  );
}

function DemoEnded({ roomNumber }: { roomNumber: string }) {
  const { t } = useTranslation();
  return (
    <PageFrame>
      <section className="card card--narrow stack center demo-ended" aria-labelledby="demo-ended-title" data-testid="demo-ended">
        <Clock size={40} aria-hidden="true" className="demo-ended__icon" />
        <h1 id="demo-ended-title">{t('demo.ended.title')}</h1>
        <p className="muted">{t('demo.ended.text', { n: roomNumber })}</p>
        <Link to="/createDemo" className="btn btn--primary btn--block" data-testid="demo-again">
          {t('demo.ended.again')}
        </Link>
        <Link to={loginPath('/')}>{t('demo.ended.signIn')}</Link>
      </section>
    </PageFrame>
  );
}
