import { data, redirect } from 'react-router';
import type { Route } from './+types/classroom.ts';
import { invitePath, OBSERVER_TOKEN_PARAM } from '#core/contracts/api.ts';
import { appContext } from '#app/context.ts';
import { domainCode } from '#app/lib/domain-error.ts';
import { AppBanner } from '#app/classroom/AppBanner.tsx';
import { Classroom as ClassroomScreen } from '#app/classroom/Classroom.tsx';
import { ClassroomLinksContext } from '#app/classroom/classroom-links.ts';
import { isMobileDevice, parseUa } from '#app/lib/ua.ts';
import { routeGuard } from '#app/lib/guard.server.ts';
import { isRouteRoomId } from '#app/lib/names.ts';
import { refusalPath } from '#app/lib/refusal.ts';
import { isDomainError } from '#core/platform/errors.ts';
import type { RoomLiveService } from '#core/rooms/live.service.ts';

export const middleware: Route.MiddlewareFunction[] = [routeGuard];

export async function loader({ params, context, url, request }: Route.LoaderArgs) {
  if (!isRouteRoomId(params.id)) throw data(null, { status: 404 });
  const { services, viewer, site, ip } = context.get(appContext);
  // The observer link (userType=3 with its signed token) opens without a session; the join decides.
  const observerToken = url.searchParams.get('userType') === '3' ? (url.searchParams.get(OBSERVER_TOKEN_PARAM) ?? '') : null;
  if (!viewer && !observerToken) throw redirect(`/userName/${params.id}`); // the middleware already did; keeps types honest
  let room;
  try {
    // Counted unless the viewer is in the room: a session must not make pages a free walk (ADR 066).
    room = await services.roomLookups.roomInfo(viewer, ip, params.id);
  } catch (error) {
    // Refusals open the refusal page, which needs no account (ADR 091).
    if (domainCode(error) === '31002') throw redirect(refusalPath('31002', params.id));
    if (domainCode(error) === '31006') throw redirect(refusalPath('31006', params.id));
    throw error;
  }
  // A person the teacher removed sees the removal page on every reopen, before any pre-join (ADR 091).
  if (viewer && (await isRemoved(services.live, viewer, room.roomNumber))) throw redirect(refusalPath('kickout', room.roomNumber));
  const path = invitePath(room.roomType, room.roomNumber);
  // One room, one address: /123456 for a large class becomes /live/123456 (the board also answers at /wb).
  const boardAlias = room.roomType === 2 && url.pathname.startsWith('/wb/');
  if (url.pathname !== path && !boardAlias) throw redirect(path + url.search);
  // The pre-join (ADR 089): a large class's audience joins without devices; only whether this viewer
  // created the room is told, never who did.
  const audience = room.roomType === 4 && (!viewer || (await services.rooms.getRoomInfo(room.roomNumber)).createUser !== viewer.userId);
  return {
    appLink: appLinkFor(request.headers.get('user-agent') ?? '', services.site.publicSite().stores),
    roomNumber: room.roomNumber,
    roomType: room.roomType,
    audience,
    viewerType: viewer?.type ?? null,
    observerToken,
    inviteUrl: new URL(path, site.publicUrl).toString(),
    // The upgrade and online-service links (ADR 103): only what the settings make real.
    links: { serviceUrl: services.site.publicSite().serviceUrl, upgrade: services.orders.takesPayments },
  };
}

/** The store link for this phone or tablet, when the operator configured one (ADR 091: the app banner). */
function appLinkFor(userAgent: string, stores: { android: string | null; iphone: string | null; ipad: string | null }): string | null {
  const ua = parseUa(userAgent);
  if (!isMobileDevice(ua)) return null;
  if (ua.os === 'android') return stores.android;
  if (ua.os === 'ios') return ua.device === 'tablet' ? (stores.ipad ?? stores.iphone) : stores.iphone;
  return null;
}

/** The server remembers kicks (room_members.kicked_at): its refusal carries the reason 'removed'. */
async function isRemoved(live: Pick<RoomLiveService, 'actorFor'>, viewer: { userId: string }, roomNumber: string): Promise<boolean> {
  try {
    await live.actorFor(viewer, roomNumber);
    return false;
  } catch (error) {
    if (isDomainError(error) && error.reason === 'removed') return true;
    if (isDomainError(error)) return false; // not a member yet: the join decides
    throw error;
  }
}

export function meta({ loaderData }: Route.MetaArgs) {
  return [{ title: `板书 · ${loaderData?.roomNumber ?? ''}` }];
}

export default function Classroom({ loaderData }: Route.ComponentProps) {
  const { appLink, links, ...room } = loaderData;
  return (
    <ClassroomLinksContext value={links}>
      <AppBanner href={appLink} />
      <ClassroomScreen key={room.roomNumber} {...room} />
    </ClassroomLinksContext>
  );
}
