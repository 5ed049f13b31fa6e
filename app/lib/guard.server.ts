/**
 * Route middleware for the navigation guard (app/lib/guard.ts, ADR 094). Runs on the server for
 * documents and on data requests for client navigations, so the same rule covers both. Every route
 * module exports `middleware = [routeGuard]`; the route is read from the address, so one function
 * serves them all.
 */
import { redirect, type MiddlewareFunction } from 'react-router';
import { appContext, type Viewer } from '#app/context.ts';
import { guard } from './guard.ts';

export function isTeacher(viewer: Viewer | null): viewer is Viewer {
  return viewer?.type === '1';
}

/** The guard for the route at this address: a redirect, a 404, or nothing (the route opens). */
export const routeGuard: MiddlewareFunction<Response> = ({ request, url, context }) => {
  const { viewer } = context.get(appContext);
  const target = guard({
    pathname: url.pathname,
    search: url.searchParams,
    userAgent: request.headers.get('user-agent') ?? '',
    viewer,
  });
  if (target === 'not-found') throw new Response('Not Found', { status: 404 });
  if (target !== 'open') throw redirect(target);
};
