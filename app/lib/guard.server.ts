/**
 * Route middleware for the navigation guard. Runs on the server for documents and on data
 * requests for client navigations, so the same rule covers both.
 */
import { redirect, type MiddlewareFunction } from 'react-router';
import { appContext, type Viewer } from '#app/context.ts';
import { classroomGuard } from './guard.ts';
import { isRouteRoomId, loginPath } from './names.ts';

export function isTeacher(viewer: Viewer | null): viewer is Viewer {
  return viewer?.type === '1';
}

/** Pages of the account area: a signed-in teacher, else /login remembering where they were. */
export const requireTeacher: MiddlewareFunction<Response> = ({ url, context }) => {
  const { viewer } = context.get(appContext);
  if (!isTeacher(viewer)) {
    throw redirect(loginPath(url.pathname + url.search));
  }
};

/** A signed-in teacher opening /login goes to the lobby. */
export const redirectTeacherHome: MiddlewareFunction<Response> = ({ context }) => {
  if (isTeacher(context.get(appContext).viewer)) throw redirect('/');
};

/** Board addresses pass the device and browser checks (docs/product/01-account-and-lobby.md §2 rule 3). */
const BOARD_PATH = /^\/(bb|wb)\//;

export function classroomMiddleware(options: { noSessionTarget: 'userName' | 'login' }): MiddlewareFunction<Response> {
  return ({ request, url, context, params }) => {
    const roomId = params['id'];
    if (!isRouteRoomId(roomId)) throw new Response('Not Found', { status: 404 });
    const { viewer } = context.get(appContext);
    const target = classroomGuard({
      userAgent: request.headers.get('user-agent') ?? '',
      search: url.searchParams,
      roomId,
      hasSession: viewer !== null,
      passesBrowserChecks: BOARD_PATH.test(url.pathname),
      noSessionTarget: options.noSessionTarget,
      pathname: url.pathname,
    });
    if (target) throw redirect(target);
  };
}
