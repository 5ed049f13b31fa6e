import { data, redirect } from 'react-router';
import type { Route } from './+types/classroom.ts';
import { invitePath, OBSERVER_TOKEN_PARAM } from '#core/contracts/api.ts';
import { appContext } from '#app/context.ts';
import { domainCode } from '#app/lib/domain-error.ts';
import { Classroom as ClassroomScreen } from '#app/classroom/Classroom.tsx';
import { classroomMiddleware } from '#app/lib/guard.server.ts';
import { isRouteRoomId } from '#app/lib/names.ts';

export const middleware: Route.MiddlewareFunction[] = [classroomMiddleware({ noSessionTarget: 'userName' })];

export async function loader({ params, context, url }: Route.LoaderArgs) {
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
    if (domainCode(error) === '31002') throw redirect('/profile?joinRoomError=31002');
    if (domainCode(error) === '31006') throw data(null, { status: 429 });
    throw error;
  }
  const path = invitePath(room.roomType, room.roomNumber);
  // One room, one address: /123456 for a large class becomes /live/123456 (the board also answers at /wb).
  const boardAlias = room.roomType === 2 && url.pathname.startsWith('/wb/');
  if (url.pathname !== path && !boardAlias) throw redirect(path + url.search);
  return {
    roomNumber: room.roomNumber,
    viewerType: viewer?.type ?? null,
    observerToken,
    inviteUrl: new URL(path, site.publicUrl).toString(),
  };
}

export function meta({ loaderData }: Route.MetaArgs) {
  return [{ title: `板书 · ${loaderData?.roomNumber ?? ''}` }];
}

export default function Classroom({ loaderData }: Route.ComponentProps) {
  return <ClassroomScreen key={loaderData.roomNumber} {...loaderData} />;
}
