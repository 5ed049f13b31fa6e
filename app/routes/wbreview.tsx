import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { data, Link, redirect } from 'react-router';
import type { Route } from './+types/wbreview.ts';
import { appContext } from '#app/context.ts';
import { Brand } from '#app/components/Brand.tsx';
import { LanguageSwitch } from '#app/components/lang.tsx';
import { LoadingOverlay } from '#app/components/LoadingOverlay.tsx';
import { BoardView } from '#app/board/BoardView.tsx';
import { createWbToken } from '#app/board/net.ts';
import { domainCode } from '#app/lib/domain-error.ts';
import { isRouteRoomId, loginPath } from '#app/lib/names.ts';

/**
 * Read-only review of a class's whiteboard (`/wbreview/{roomNumber}`): the creator pages through
 * the board; no tools, nothing saved. Only the room's creator may open it.
 */
export async function loader({ params, context, url }: Route.LoaderArgs) {
  if (!isRouteRoomId(params.id)) throw data(null, { status: 404 });
  const { services, viewer } = context.get(appContext);
  if (!viewer) throw redirect(loginPath(url.pathname));
  let room;
  try {
    room = await services.rooms.getRoomInfo(params.id);
  } catch (error) {
    if (domainCode(error) === '31002') throw data(null, { status: 404 });
    throw error;
  }
  return { roomNumber: room.roomNumber, userId: viewer.userId, allowed: room.createUser === viewer.userId, roomType: room.roomType };
}

export function meta({ loaderData }: Route.MetaArgs) {
  return [{ title: `板书 · 白板回看 ${loaderData?.roomNumber ?? ''}` }];
}

export default function WbReview({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation();
  const [token, setToken] = useState<string | null | undefined>(undefined);
  useEffect(() => {
    if (!loaderData.allowed) return;
    let live = true;
    void createWbToken(loaderData.userId, loaderData.roomNumber).then((answer) => {
      if (live) setToken(answer?.token ?? null);
    });
    return () => {
      live = false;
    };
  }, [loaderData.allowed, loaderData.userId, loaderData.roomNumber]);

  return (
    <div className="review">
      <header className="review__bar">
        <Brand />
        <h1 className="review__title">
          {t('board.review.title')} · {loaderData.roomNumber} <span className="muted">({t('board.review.readOnly')})</span>
        </h1>
        <span style={{ flex: 1 }} />
        <LanguageSwitch />
        <Link className="btn btn--ghost" to="/profile/room">
          {t('common.back')}
        </Link>
      </header>
      <main id="main" className="review__main" data-testid="wbreview">
        {!loaderData.allowed ? (
          <p role="alert">{t('board.review.notAllowed')}</p>
        ) : token === undefined ? (
          <LoadingOverlay label={t('board.loading')} />
        ) : token === null ? (
          <p role="alert">{t('board.loadFailed')}</p>
        ) : (
          <div className="view view--board">
            <BoardView
              roomNumber={loaderData.roomNumber}
              myId={loaderData.userId}
              role="creator"
              room={{ roomType: loaderData.roomType, wbPower: '0', roomExtend: '{}', createUser: loaderData.userId }}
              wbtoken={token}
              phone={false}
              readOnly
            />
          </div>
        )}
      </main>
    </div>
  );
}
