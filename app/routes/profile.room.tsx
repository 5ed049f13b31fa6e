import { useEffect, useEffectEvent, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useSearchParams } from 'react-router';
import type { Route } from './+types/profile.room.ts';
import { invitePath, type RoomListItem } from '#core/contracts/api.ts';
import { appContext } from '#app/context.ts';
import { Button } from '#app/components/Button.tsx';
import { LocalTime } from '#app/components/LocalTime.tsx';
import { useLang } from '#app/components/lang.tsx';
import { api, isOk } from '#app/lib/api.ts';
import { copyText } from '#app/lib/clipboard.ts';
import { codeMessage } from '#app/lib/messages.ts';
import { toast } from '#app/lib/toast.ts';

const PAGE_SIZE = 10;

export async function loader({ context }: Route.LoaderArgs) {
  const { viewer, services } = context.get(appContext);
  if (!viewer) throw new Response('Unauthorized', { status: 401 }); // the parent's middleware redirects first
  return services.rooms.listMyRooms(viewer, { pageSize: PAGE_SIZE });
}

export function meta() {
  return [{ title: '板书 · 我的教室 / My classrooms' }];
}

export default function ProfileRooms({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation();
  const { lang } = useLang();
  const navigate = useNavigate();
  const [params, setParams] = useSearchParams();
  const [rooms, setRooms] = useState<RoomListItem[]>(loaderData.roomList);
  const [more, setMore] = useState({ hasMore: loaderData.hasMore, nextPageTime: loaderData.nextPageTime });
  const [loadingMore, setLoadingMore] = useState(false);

  // A new load (revalidation) replaces the list, while rendering rather than in an effect after it.
  const [shownData, setShownData] = useState(loaderData);
  if (shownData !== loaderData) {
    setShownData(loaderData);
    setRooms(loaderData.roomList);
    setMore({ hasMore: loaderData.hasMore, nextPageTime: loaderData.nextPageTime });
  }

  // Errors from a classroom that sent the user here (docs/product/01-account-and-lobby.md §8: joinRoomError).
  const joinError = params.get('joinRoomError');
  const showJoinError = useEffectEvent((code: string) => {
    toast.error(code === 'kickout' ? t('profile.kickedOut') : (codeMessage(code, lang) ?? t('common.refresh')));
    setParams(
      (prev) => {
        prev.delete('joinRoomError');
        return prev;
      },
      { replace: true, preventScrollReset: true },
    );
  });
  useEffect(() => {
    if (joinError) showJoinError(joinError);
  }, [joinError]); // only on arrival: a language switch must not repeat the toast

  const loadMore = async () => {
    setLoadingMore(true);
    const envelope = await api('getMyRoomList', { pageTime: more.nextPageTime, pageSize: PAGE_SIZE });
    setLoadingMore(false);
    if (!isOk(envelope)) return;
    setRooms((prev) => [
      ...prev,
      ...envelope.data.roomList.filter((r) => !prev.some((p) => p.roomNumber === r.roomNumber && p.createTime === r.createTime)),
    ]);
    setMore({ hasMore: envelope.data.hasMore, nextPageTime: envelope.data.nextPageTime });
  };

  const copy = async (room: RoomListItem) => {
    const ok = await copyText(room.inviteUrl);
    if (ok) toast.success(t('common.copied'));
    else toast.error(t('common.copyFailed'));
  };

  return (
    <section aria-labelledby="rooms-title" className="stack">
      <h1 id="rooms-title">{t('rooms.title')}</h1>
      {rooms.length === 0 ? (
        <div className="card empty">
          <p>{t('rooms.empty')}</p>
          <Link className="btn btn--primary" to="/">
            {t('rooms.createOne')}
          </Link>
        </div>
      ) : (
        <ul className="room-list">
          {rooms.map((room, index) => (
            <li key={`${room.roomNumber}-${room.createTime}`} className="room-item card">
              <div className="room-item__main">
                <span className="room-item__type">{t(`roomType.t${room.roomType}`)}</span>
                <span className="room-item__number">
                  <span className="visually-hidden">{t('rooms.number')} </span>
                  {room.roomNumber}
                </span>
                <span className={`status status--${room.state}`}>{room.state === 'open' ? t('rooms.open') : t('rooms.closed')}</span>
              </div>
              <div className="room-item__meta muted">
                {t('rooms.created')}: <LocalTime at={room.createTime} />
              </div>
              <div className="room-item__actions">
                <Button variant="secondary" onClick={() => void navigate(invitePath(room.roomType, room.roomNumber))}>
                  {t('rooms.reopen')}
                </Button>
                <Button variant="ghost" onClick={() => void copy(room)}>
                  {t('rooms.copyLink')}
                </Button>
                {/* A past class's board; /wbreview reads the latest room of a number, so only its row links. */}
                {room.state === 'closed' && rooms.findIndex((r) => r.roomNumber === room.roomNumber) === index ? (
                  <Link className="btn btn--ghost" to={`/wbreview/${room.roomNumber}`} data-testid={`review-${room.roomNumber}`}>
                    {t('board.review.link')}
                  </Link>
                ) : null}
              </div>
            </li>
          ))}
        </ul>
      )}
      {more.hasMore ? (
        <div className="center">
          <Button variant="secondary" loading={loadingMore} onClick={() => void loadMore()}>
            {t('rooms.loadMore')}
          </Button>
        </div>
      ) : null}
    </section>
  );
}
