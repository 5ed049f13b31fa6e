import { useEffect, useEffectEvent, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useRevalidator, useSearchParams } from 'react-router';
import { ChevronLeft, ChevronRight, Copy, LogIn, Plus, Power, Presentation, Trash2 } from 'lucide-react';
import type { Route } from './+types/profile.room.ts';
import { invitePath, type RoomListItem, type RoomType } from '#core/contracts/api.ts';
import { appContext } from '#app/context.ts';
import { LocalTime } from '#app/components/LocalTime.tsx';
import { useConfirm } from '#app/components/Dialog.tsx';
import { useLang } from '#app/components/lang.tsx';
import { api } from '#app/lib/api.ts';
import { copyText } from '#app/lib/clipboard.ts';
import { codeMessage } from '#app/lib/messages.ts';
import { toast } from '#app/lib/toast.ts';
import '#app/site/my-rooms.css';

const PAGE_SIZE = 12;
const TYPES: RoomType[] = [1, 2, 3, 4];

/** `?type=` and `?page=` of the address: the server pages and filters (ADR 087). */
function listQuery(url: URL): { page: number; roomType: RoomType | undefined } {
  const page = Number(url.searchParams.get('page') ?? '1');
  const type = Number(url.searchParams.get('type') ?? '');
  return {
    page: Number.isInteger(page) && page >= 1 && page <= 10_000 ? page : 1,
    roomType: TYPES.includes(type as RoomType) ? (type as RoomType) : undefined,
  };
}

export async function loader({ context, request }: Route.LoaderArgs) {
  const { viewer, services } = context.get(appContext);
  if (!viewer) throw new Response('Unauthorized', { status: 401 }); // the parent's middleware redirects first
  const { page, roomType } = listQuery(new URL(request.url));
  const list = await services.rooms.listMyRooms(viewer, { page, pageSize: PAGE_SIZE, roomType });
  return { ...list, roomList: await services.live.markLive(list.roomList), roomType: roomType ?? null, pageSize: PAGE_SIZE };
}

export function meta() {
  return [{ title: '板书 · 我的教室 / My classrooms' }];
}

/** The address of a page of the list with the type filter kept. */
function listHref(page: number, roomType: number | null): string {
  const q = new URLSearchParams();
  if (roomType) q.set('type', String(roomType));
  if (page > 1) q.set('page', String(page));
  const s = q.toString();
  return s ? `/profile/room?${s}` : '/profile/room';
}

/** The page numbers to show: the first, the last, and two either side of the current one. */
function pageNumbers(current: number, last: number): Array<number | 'gap'> {
  const out: Array<number | 'gap'> = [];
  for (let n = 1; n <= last; n++) {
    if (n === 1 || n === last || Math.abs(n - current) <= 1) out.push(n);
    else if (out[out.length - 1] !== 'gap') out.push('gap');
  }
  return out;
}

/** "My classrooms" (docs/product/01-account-and-lobby.md, ADR 087): status, end, delete, type filter, pages. */
export default function ProfileRooms({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation();
  const { lang } = useLang();
  const navigate = useNavigate();
  const confirm = useConfirm();
  const revalidator = useRevalidator();
  const [params, setParams] = useSearchParams();
  const [busy, setBusy] = useState<string | null>(null);
  const { roomList: rooms, total, page, roomType } = loaderData;
  const lastPage = Math.max(1, Math.ceil(total / loaderData.pageSize));

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

  // A page emptied by a delete: go back one.
  useEffect(() => {
    if (rooms.length === 0 && page > 1) void navigate(listHref(Math.min(page - 1, lastPage), roomType), { replace: true });
  }, [rooms.length, page, lastPage, roomType, navigate]);

  const copy = async (room: RoomListItem) => {
    const ok = await copyText(room.inviteUrl);
    if (ok) toast.success(t('common.copied'));
    else toast.error(t('common.copyFailed'));
  };

  const end = async (room: RoomListItem) => {
    const ok = await confirm({
      title: t('myRooms.endTitle', { n: room.roomNumber }),
      message: t('myRooms.endText'),
      confirmText: t('myRooms.endConfirm'),
      tone: 'danger',
    });
    if (ok) await endNow(room);
  };
  // RETRY of the 'network exception' message ends the room without asking again (ADR 102).
  const endNow = async (room: RoomListItem): Promise<void> => {
    setBusy(room.roomId);
    const answer = await api('endMyRoom', { roomNumber: room.roomNumber }, { onRetry: () => void endNow(room) });
    setBusy(null);
    if (answer.code !== '0') {
      toast.error(answer.msg || t('common.refresh'));
      return;
    }
    toast.success(t('myRooms.ended'));
    await revalidator.revalidate();
  };

  const remove = async (room: RoomListItem) => {
    const ok = await confirm({
      title: t('myRooms.delTitle', { n: room.roomNumber }),
      message: t('myRooms.delText'),
      confirmText: t('myRooms.delConfirm'),
      tone: 'danger',
    });
    if (ok) await removeNow(room);
  };
  const removeNow = async (room: RoomListItem): Promise<void> => {
    setBusy(room.roomId);
    const answer = await api('delMyRoom', { roomId: room.roomId }, { onRetry: () => void removeNow(room) });
    setBusy(null);
    if (answer.code !== '0') {
      toast.error(answer.msg || t('common.refresh'));
      return;
    }
    toast.success(t('myRooms.deleted'));
    await revalidator.revalidate();
  };

  // The newest room of a number links its past board (/wbreview reads the latest room of a number).
  const firstOfNumber = new Set<string>();
  const reviewable = new Set<string>();
  for (const r of rooms) {
    if (firstOfNumber.has(r.roomNumber)) continue;
    firstOfNumber.add(r.roomNumber);
    if (r.state === 'closed') reviewable.add(r.roomId);
  }

  return (
    <section aria-labelledby="rooms-title" className="stack my-rooms">
      <div className="my-rooms__head">
        <h1 id="rooms-title">{t('rooms.title')}</h1>
        <Link className="btn btn--primary btn--small" to="/" data-testid="rooms-create">
          <Plus size={18} aria-hidden="true" />
          {t('rooms.createOne')}
        </Link>
      </div>
      <nav className="my-rooms__filter" aria-label={t('myRooms.filter')} data-testid="rooms-filter">
        <Link
          to={listHref(1, null)}
          className={`chip${roomType === null ? ' chip--on' : ''}`}
          aria-current={roomType === null ? 'page' : undefined}
          preventScrollReset
        >
          {t('myRooms.all')}
        </Link>
        {TYPES.map((type) => (
          <Link
            key={type}
            to={listHref(1, type)}
            className={`chip${roomType === type ? ' chip--on' : ''}`}
            aria-current={roomType === type ? 'page' : undefined}
            data-testid={`rooms-filter-${String(type)}`}
            preventScrollReset
          >
            {t(`roomType.t${String(type) as '1'}`)}
          </Link>
        ))}
        {total > 0 ? (
          <span className="my-rooms__count muted" data-testid="rooms-total">
            {t('myRooms.count', { n: total })}
          </span>
        ) : null}
      </nav>
      {rooms.length === 0 ? (
        <div className="card my-rooms__empty" data-testid="rooms-empty">
          <Presentation size={40} aria-hidden="true" className="my-rooms__empty-icon" />
          {roomType !== null ? (
            <>
              <p>{t('myRooms.emptyType')}</p>
              <Link className="btn btn--secondary" to={listHref(1, null)}>
                {t('myRooms.showAll')}
              </Link>
            </>
          ) : (
            <>
              <h2>{t('myRooms.emptyTitle')}</h2>
              <p className="muted">{t('myRooms.emptyText')}</p>
              <Link className="btn btn--primary" to="/">
                <Plus size={18} aria-hidden="true" />
                {t('rooms.createOne')}
              </Link>
            </>
          )}
        </div>
      ) : (
        <ul className="my-rooms__list" data-testid="room-list">
          {rooms.map((room) => (
            <li key={room.roomId} className="card my-room" data-testid={`room-${room.roomNumber}`} data-state={room.state}>
              <div className="my-room__top">
                <span className="my-room__type">{t(`roomType.t${String(room.roomType) as '1'}`)}</span>
                <span className={`my-room__status my-room__status--${room.live ? 'live' : room.state}`} data-testid="room-status">
                  {room.live ? t('myRooms.live') : room.state === 'open' ? t('rooms.open') : t('rooms.closed')}
                </span>
              </div>
              <div className="my-room__number">
                <span className="visually-hidden">{t('rooms.number')} </span>
                {room.roomNumber}
              </div>
              <div className="my-room__meta">
                {t('rooms.created')}: <LocalTime at={room.createTime} />
              </div>
              <div className="my-room__actions">
                {room.state === 'open' ? (
                  <>
                    <button
                      type="button"
                      className="btn btn--primary btn--small"
                      onClick={() => void navigate(invitePath(room.roomType, room.roomNumber))}
                    >
                      <LogIn size={16} aria-hidden="true" />
                      {t('myRooms.enter')}
                    </button>
                    <button type="button" className="btn btn--ghost btn--small" onClick={() => void copy(room)}>
                      <Copy size={16} aria-hidden="true" />
                      {t('rooms.copyLink')}
                    </button>
                    <button
                      type="button"
                      className="btn btn--ghost btn--small my-room__end"
                      onClick={() => void end(room)}
                      disabled={busy === room.roomId}
                      data-testid="room-end"
                    >
                      <Power size={16} aria-hidden="true" />
                      {t('myRooms.end')}
                    </button>
                  </>
                ) : (
                  <>
                    {reviewable.has(room.roomId) ? (
                      <Link
                        className="btn btn--ghost btn--small"
                        to={`/wbreview/${room.roomNumber}`}
                        data-testid={`review-${room.roomNumber}`}
                      >
                        {t('board.review.link')}
                      </Link>
                    ) : null}
                    <button
                      type="button"
                      className="btn btn--ghost btn--small my-room__delete"
                      onClick={() => void remove(room)}
                      disabled={busy === room.roomId}
                      aria-label={t('myRooms.delName', { n: room.roomNumber })}
                      data-testid="room-delete"
                    >
                      <Trash2 size={16} aria-hidden="true" />
                      {t('myRooms.del')}
                    </button>
                  </>
                )}
              </div>
            </li>
          ))}
        </ul>
      )}
      {lastPage > 1 ? (
        <nav className="my-rooms__pages" aria-label={t('myRooms.pages')} data-testid="rooms-pages">
          {page > 1 ? (
            <Link className="pager__step" to={listHref(page - 1, roomType)} aria-label={t('myRooms.prev')} data-testid="rooms-prev">
              <ChevronLeft size={18} aria-hidden="true" />
            </Link>
          ) : (
            <span className="pager__step pager__step--off" aria-hidden="true">
              <ChevronLeft size={18} />
            </span>
          )}
          <ol className="pager__list">
            {pageNumbers(page, lastPage).map((n, i) =>
              n === 'gap' ? (
                <li key={`gap-${String(i)}`} className="pager__gap" aria-hidden="true">
                  …
                </li>
              ) : (
                <li key={n}>
                  <Link
                    className={`pager__num${n === page ? ' pager__num--on' : ''}`}
                    to={listHref(n, roomType)}
                    aria-current={n === page ? 'page' : undefined}
                    aria-label={t('myRooms.page', { n })}
                  >
                    {n}
                  </Link>
                </li>
              ),
            )}
          </ol>
          {page < lastPage ? (
            <Link className="pager__step" to={listHref(page + 1, roomType)} aria-label={t('myRooms.next')} data-testid="rooms-next">
              <ChevronRight size={18} aria-hidden="true" />
            </Link>
          ) : (
            <span className="pager__step pager__step--off" aria-hidden="true">
              <ChevronRight size={18} />
            </span>
          )}
          <span className="visually-hidden" role="status">
            {t('myRooms.pageOf', { n: page, total: lastPage })}
          </span>
        </nav>
      ) : null}
    </section>
  );
}
