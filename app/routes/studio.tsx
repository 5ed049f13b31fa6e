import { useSyncExternalStore } from 'react';
import { useTranslation } from 'react-i18next';
import { data } from 'react-router';
import type { Route } from './+types/studio.ts';
import { LoadingOverlay } from '#app/components/LoadingOverlay.tsx';
import { routeGuard } from '#app/lib/guard.server.ts';
import { Studio } from '#app/studio/Studio.tsx';

// The studio is a teacher's own tool: no session means signing in, not naming a visitor.
export const middleware: Route.MiddlewareFunction[] = [routeGuard];

export function loader({ params }: Route.LoaderArgs) {
  if (!/^\d{8}$/.test(params.id)) throw data(null, { status: 404 });
  return { roomNumber: params.id };
}

export function meta({ loaderData }: Route.MetaArgs) {
  return [{ title: `板书 · 录课室 ${loaderData?.roomNumber ?? ''}` }];
}

const noChanges = () => () => undefined;
const inBrowser = () => true;
const onServer = () => false;

/**
 * The recording studio (room type 5, computer only; issue 15). Everything in it is the browser's
 * (camera, screen, canvas, MediaRecorder, the origin-private file system, pdf.js): the server
 * renders a loading screen and the studio starts once the page is the browser's.
 */
export default function StudioRoute({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation();
  // false on the server and while hydrating, true once the browser renders on its own.
  const inPage = useSyncExternalStore(noChanges, inBrowser, onServer);
  if (!inPage) return <LoadingOverlay label={t('studio.opening')} />;
  return <Studio key={loaderData.roomNumber} roomNumber={loaderData.roomNumber} />;
}
