import { redirect } from 'react-router';
import type { Route } from './+types/create.ts';
import { routeGuard } from '#app/lib/guard.server.ts';

export const middleware: Route.MiddlewareFunction[] = [routeGuard];

/** /create opens My classrooms, as `/profile` does (docs/product/01-account-and-lobby.md §2 route map; ADR 098). */
export function loader() {
  return redirect('/profile/room');
}
