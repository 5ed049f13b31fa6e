/**
 * The classroom's two links out (docs/product/02-live-classroom.md §2, ADR 103): the upgrade page
 * and the operator's online service. The route's loader decides them from the settings and
 * provides them here, so the top bar's menu and the full-room call read them without threading
 * props through the room. The default offers neither: a link shows only when the server says so.
 */
import { createContext, useContext } from 'react';

export const UPGRADE_PATH = '/profile/payment';

export interface ClassroomLinks {
  /** The operator's online-service page (SERVICE_URL), or null: then no service link anywhere. */
  serviceUrl: string | null;
  /** This site takes payments (a payment gateway is on): the upgrade link and the full-room call show. */
  upgrade: boolean;
}

export const NO_LINKS: ClassroomLinks = { serviceUrl: null, upgrade: false };

export const ClassroomLinksContext = createContext<ClassroomLinks>(NO_LINKS);

export function useClassroomLinks(): ClassroomLinks {
  return useContext(ClassroomLinksContext);
}
