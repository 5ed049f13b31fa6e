import { data } from 'react-router';
import type { Route } from './+types/wb-user.ts';
import { appContext } from '#app/context.ts';
import { AppBanner } from '#app/classroom/AppBanner.tsx';
import { Classroom as ClassroomScreen } from '#app/classroom/Classroom.tsx';
import { routeGuard } from '#app/lib/guard.server.ts';
import { isRouteRoomId } from '#app/lib/names.ts';
import { isMobileDevice, parseUa } from '#app/lib/ua.ts';
import { PhoneUploadEntry } from '#app/userboard/PhoneUploadEntry.tsx';
import { ReadOnlyBoard } from '#app/userboard/ReadOnlyBoard.tsx';
import { loader as classroomLoader } from './classroom.tsx';
import '#app/userboard/userboard.css';

/**
 * `/wb/{id}/{uid}` and `/imwb/{id}/{uid}` (docs/product/01-account-and-lobby.md §2, ADR 094): the
 * board room of a named user. When `uid` is the signed-in user's own id it is the board classroom
 * of `/wb/{id}` (a full join; the creator teaches and draws). Anyone else gets a read-only view of
 * the room's board without a seat, whose board token the server refuses every write. `/imwb` adds a
 * visible entry to send a picture from the phone (the phone upload page), for whoever may draw.
 */
export const middleware: Route.MiddlewareFunction[] = [routeGuard];

export async function loader(args: Route.LoaderArgs) {
  const { params, context, url } = args;
  if (!isRouteRoomId(params.id)) throw data(null, { status: 404 });
  const { viewer } = context.get(appContext);
  const imwb = url.pathname.startsWith('/imwb/');
  if (viewer && viewer.userId === params.uid) {
    // The classroom's own loader, asked as /wb/{id}: the same checks, refusals and room address.
    const asBoard = new URL(`/wb/${params.id}${url.search}`, url);
    const room = await classroomLoader({ ...args, url: asBoard, params: { id: params.id } });
    return { mode: 'own' as const, imwb, userId: viewer.userId, room };
  }
  const phone = isMobileDevice(parseUa(args.request.headers.get('user-agent') ?? ''));
  return { mode: 'view' as const, imwb, roomNumber: params.id, uid: params.uid, phone };
}

export function meta({ loaderData }: Route.MetaArgs) {
  const n = loaderData?.mode === 'own' ? loaderData.room.roomNumber : (loaderData?.roomNumber ?? '');
  return [{ title: `板书 · ${n}` }];
}

export default function WbUser({ loaderData }: Route.ComponentProps) {
  if (loaderData.mode === 'view') {
    const { roomNumber, uid, imwb, phone } = loaderData;
    return <ReadOnlyBoard roomNumber={roomNumber} uid={uid} imwb={imwb} phone={phone} />;
  }
  const { appLink, ...room } = loaderData.room;
  return (
    <div className={loaderData.imwb ? 'userboard userboard--entry' : 'userboard'}>
      <AppBanner href={appLink} />
      {loaderData.imwb ? <PhoneUploadEntry userId={loaderData.userId} roomNumber={room.roomNumber} /> : null}
      <ClassroomScreen key={room.roomNumber} {...room} />
    </div>
  );
}
