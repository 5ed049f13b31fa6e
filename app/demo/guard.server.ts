/**
 * The demo pages' own middleware (ADR 092): the route rules of app/lib/guard.ts for `/createDemo`
 * and `/demo/{id}` (no account needed; a browser that cannot run the class goes to the download
 * page of its system; phones and tablets open the room with the phone layout, ADR 091).
 */
import { redirect, type MiddlewareFunction } from 'react-router';
import { appContext } from '#app/context.ts';
import { guard } from '#app/lib/guard.ts';

export const demoMiddleware: MiddlewareFunction<Response> = ({ request, url, context }) => {
  const { viewer } = context.get(appContext);
  const target = guard({ pathname: url.pathname, search: url.searchParams, userAgent: request.headers.get('user-agent') ?? '', viewer });
  if (target === 'not-found') throw new Response('Not Found', { status: 404 });
  if (target !== 'open') throw redirect(target);
};
