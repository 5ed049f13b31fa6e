import { data, redirect } from 'react-router';
import type { Route } from './+types/room.ts';
import { routeGuard } from '#app/lib/guard.server.ts';
import { isRouteRoomId } from '#app/lib/names.ts';

/**
 * `/room/{id}?userType=&role=` (docs/product/01-account-and-lobby.md §2, ADR 094): the classroom
 * reached from outside the lobby. The guard does the work: the browser rule, then the query rule
 * (only `userType`, `role` and the observer link's token; any other key opens the refusal page
 * 'no-permission'), then it opens the classroom `/{id}` keeping `userType` (and the token). `role`
 * must be 1, 2 or 3 and is then dropped: the room decides who teaches (its creator), never the address.
 */
export const middleware: Route.MiddlewareFunction[] = [routeGuard];

export function loader({ params }: Route.LoaderArgs) {
  // The guard always redirects first; this keeps a stray call honest.
  if (!isRouteRoomId(params.id)) throw data(null, { status: 404 });
  throw redirect(`/${params.id}`);
}
