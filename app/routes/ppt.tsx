import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { data, Link, redirect, useNavigate } from 'react-router';
import type { Route } from './+types/ppt.ts';
import { appContext } from '#app/context.ts';
import { Brand } from '#app/components/Brand.tsx';
import { LanguageSwitch } from '#app/components/lang.tsx';
import { domainCode } from '#app/lib/domain-error.ts';
import { routeGuard } from '#app/lib/guard.server.ts';
import { isRouteRoomId } from '#app/lib/names.ts';
import { isRoomRefusal, refusalPath } from '#app/lib/refusal.ts';
import { isMobileDevice, parseUa } from '#app/lib/ua.ts';
import { usePhoneLayout } from '#app/lib/use-phone-layout.ts';
import { SlideView } from '#app/room-view/SlideView.tsx';
import { useRoomView } from '#app/room-view/useRoomView.ts';
import { isDomainError } from '#core/platform/errors.ts';
import '#app/room-view/slide-view.css';

/**
 * `/ppt/{id}` and `/ppt/{id}/{uid}` (ADR 093): the slide view of a room — its current courseware
 * page with its board layer, following the room live, without a seat. Read-only except for the
 * creator on their own view; works on a phone. The guard sends someone without a session to the
 * visitor's name step first.
 */
export const middleware: Route.MiddlewareFunction[] = [routeGuard];

export async function loader({ params, context, request }: Route.LoaderArgs) {
  if (!isRouteRoomId(params.id)) throw data(null, { status: 404 });
  if (params.uid !== undefined && !/^\d{1,19}$/.test(params.uid)) throw data(null, { status: 404 });
  const { services, viewer, ip } = context.get(appContext);
  if (!viewer) throw redirect(`/userName/${params.id}`); // the guard already did; keeps types honest
  try {
    // Refusals (unknown, closed, removed) open the refusal page before anything is drawn.
    await services.roomView.view(viewer, { roomNumber: params.id, uid: params.uid }, ip);
  } catch (error) {
    const code = domainCode(error);
    if (code && isRoomRefusal(code)) throw redirect(refusalPath(code, params.id, isDomainError(error) ? error.reason : undefined));
    throw error;
  }
  return {
    roomNumber: params.id,
    uid: params.uid ?? null,
    phone: isMobileDevice(parseUa(request.headers.get('user-agent') ?? '')),
  };
}

export function meta({ loaderData }: Route.MetaArgs) {
  return [{ title: `板书 · 课件 ${loaderData?.roomNumber ?? ''}` }];
}

export default function Ppt({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { roomNumber, uid } = loaderData;
  const phone = usePhoneLayout(loaderData.phone);
  const state = useRoomView(roomNumber, { uid: uid ?? undefined });
  const { phase, refusal, view } = state;

  // Refused after the page opened (removed meanwhile, the room gone): the refusal page.
  useEffect(() => {
    if (phase === 'refused' && refusal && isRoomRefusal(refusal.code))
      void navigate(refusalPath(refusal.code, roomNumber, refusal.reason), { replace: true });
  }, [phase, refusal, roomNumber, navigate]);

  const title = view?.createUserName ? t('slideView.title', { name: view.createUserName }) : t('slideView.titleNoName', { n: roomNumber });
  return (
    <div className={`slide-page${phone ? ' slide-page--phone' : ''}`} data-testid="slide-page-root" data-phase={phase}>
      <header className="slide-page__bar">
        <Brand />
        <h1 className="slide-page__title">
          {title}
          {view?.createUserName ? <span className="muted slide-page__number"> {roomNumber}</span> : null}
        </h1>
        <span className="slide-page__spacer" />
        <LanguageSwitch compact={phone} />
      </header>
      <main id="main" className="slide-page__main">
        {phase === 'loading' ? (
          <p className="slide-page__msg" role="status">
            <span className="spinner" aria-hidden="true" /> {t('slideView.loading')}
          </p>
        ) : phase === 'closed' ? (
          <div className="slide-page__msg" role="status" data-testid="slide-closed">
            <p>{t('slideView.closed')}</p>
            <Link className="btn btn--ghost" to="/home">
              {t('common.back')}
            </Link>
          </div>
        ) : phase === 'refused' ? (
          <div className="slide-page__msg" role="alert">
            <p>{t('slideView.failed')}</p>
            <button type="button" className="btn btn--primary" onClick={() => state.refresh()}>
              {t('slideView.retry')}
            </button>
          </div>
        ) : (
          <SlideView state={state} phone={phone} />
        )}
      </main>
    </div>
  );
}
