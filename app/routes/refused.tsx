import { useTranslation } from 'react-i18next';
import { data, Link } from 'react-router';
import { CircleAlert, DoorClosed, Hourglass, LockKeyhole, SearchX, TimerOff, UserX, Users, type LucideIcon } from 'lucide-react';
import type { Route } from './+types/refused.ts';
import { appContext } from '#app/context.ts';
import { PageFrame } from '#app/components/PageFrame.tsx';
import { isRefusalKind, type RefusalKind } from '#app/lib/refusal.ts';
import { isRouteRoomId, loginPath } from '#app/lib/names.ts';
import { JoinByNumber } from '#app/lobby/JoinByNumber.tsx';
import '#app/refusal/refusal.css';

/** /refused/{kind}?room={number}: one page for every way out of a classroom (ADR 091); no account needed. */
export function loader({ params, url, context }: Route.LoaderArgs) {
  if (!isRefusalKind(params.kind)) throw data(null, { status: 404 });
  const room = url.searchParams.get('room') ?? '';
  // A site that takes no payments has nothing to upgrade to: a full room says so without it (ADR 103).
  const upgrade = context.get(appContext).services.orders.takesPayments;
  return { kind: params.kind, room: isRouteRoomId(room) ? room : null, upgrade };
}

export function meta() {
  return [{ title: '板书 · 无法进入教室 / Cannot enter the classroom' }, { name: 'robots', content: 'noindex' }];
}

const ICONS: Record<RefusalKind, LucideIcon> = {
  removed: UserX,
  full: Users,
  closed: DoorClosed,
  'time-up': TimerOff,
  'not-found': SearchX,
  'no-permission': LockKeyhole,
  'too-many': Hourglass,
  unavailable: CircleAlert,
};

/** Kinds where entering the same room again may work later. */
const RETRY: ReadonlySet<RefusalKind> = new Set(['full', 'too-many', 'unavailable']);

export default function Refused({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation();
  const { kind, room, upgrade } = loaderData;
  const Icon = ICONS[kind];
  return (
    <PageFrame className="refusal-frame">
      <section className="card card--narrow stack refusal" data-testid="refusal" data-kind={kind} aria-labelledby="refusal-title">
        <div
          className={`refusal__icon refusal__icon--${kind === 'removed' || kind === 'no-permission' ? 'stop' : 'info'}`}
          aria-hidden="true"
        >
          <Icon size={32} strokeWidth={2} />
        </div>
        {room ? <p className="refusal__room">{t('refusal.roomLabel', { room })}</p> : null}
        <h1 id="refusal-title">{t(`refusal.${kind}.title`)}</h1>
        <p>{t(`refusal.${kind}.text`)}</p>
        <p className="refusal__next">{kind === 'full' && !upgrade ? t('refusal.full.nextNoUpgrade') : t(`refusal.${kind}.next`)}</p>
        <div className="refusal__actions">
          {RETRY.has(kind) && room ? (
            <a className="btn btn--primary" href={`/${room}`} data-testid="refusal-retry">
              {t('refusal.tryAgain')}
            </a>
          ) : null}
          {kind === 'no-permission' ? (
            <Link className="btn btn--secondary" to={loginPath(room ? `/${room}` : '/')} data-testid="refusal-sign-in">
              {t('refusal.signIn')}
            </Link>
          ) : null}
          <Link className="btn btn--ghost" to="/home">
            {t('refusal.home')}
          </Link>
        </div>
        {kind === 'too-many' ? null : <JoinOther />}
      </section>
    </PageFrame>
  );
}

/** 'Join another classroom': the one number box of every page without an account (ADR 098). */
function JoinOther() {
  const { t } = useTranslation();
  return (
    <section className="refusal__join" aria-labelledby="refusal-join-title">
      <h2 id="refusal-join-title">{t('refusal.joinOther')}</h2>
      <JoinByNumber name="refusal" />
    </section>
  );
}
