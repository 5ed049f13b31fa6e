import { redirect } from 'react-router';
import type { Route } from './+types/profile._index.ts';

/** /profile opens the room list, keeping the query (joinRoomError). */
export function loader({ url }: Route.LoaderArgs) {
  return redirect(`/profile/room${url.search}`);
}
