import { useTranslation } from 'react-i18next';
import { data, Link, redirect } from 'react-router';
import type { Route } from './+types/wbreview.ts';
import { appContext } from '#app/context.ts';
import { Brand } from '#app/components/Brand.tsx';
import { LanguageSwitch } from '#app/components/lang.tsx';
import { ReviewBoard } from '#app/board/ReviewBoard.tsx';
import { domainCode } from '#app/lib/domain-error.ts';
import { isRouteRoomId, loginPath } from '#app/lib/names.ts';

/**
 * Read-only review of a class's whiteboard (`/wbreview/{roomNumber}`), during or after the class:
 * the creator pages through the pages that hold something (`/api/getWbReview`); no socket, no
 * tools, nothing saved. Only the room's creator may open it; the room may be closed.
 */
export async function loader({ params, context, url }: Route.LoaderArgs) {
  if (!isRouteRoomId(params.id)) throw data(null, { status: 404 });
  const { services, viewer } = context.get(appContext);
  if (!viewer) throw redirect(loginPath(url.pathname));
  let room;
  try {
    // The board's own lookup: the latest room with this number, open or closed.
    room = await services.board.reviewRoom(viewer, params.id);
  } catch (error) {
    if (domainCode(error) === '31002') throw data(null, { status: 404 });
    throw error;
  }
  return {
    roomNumber: room.roomNumber,
    allowed: room.allowed,
    roomExtend: room.allowed ? room.roomExtend : '{}',
    closed: room.state === 'closed',
  };
}

export function meta({ loaderData }: Route.MetaArgs) {
  return [{ title: `板书 · 白板回看 ${loaderData?.roomNumber ?? ''}` }];
}

export default function WbReview({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation();
  return (
    <div className="review">
      <header className="review__bar">
        <Brand />
        <h1 className="review__title">
          {t('board.review.title')} · {loaderData.roomNumber} <span className="muted review__mode">({t('board.review.readOnly')})</span>
        </h1>
        <span className="review__spacer" />
        <LanguageSwitch />
        <Link className="btn btn--ghost" to="/profile/room">
          {t('common.back')}
        </Link>
      </header>
      <main id="main" className="review__main" data-testid="wbreview">
        {!loaderData.allowed ? (
          <p role="alert">{t('board.review.notAllowed')}</p>
        ) : (
          <div className="view view--board">
            <ReviewBoard roomNumber={loaderData.roomNumber} roomExtend={loaderData.roomExtend} />
          </div>
        )}
      </main>
    </div>
  );
}
