/**
 * The navigation guard of docs/product/01-account-and-lobby.md §2 as one pure decision, so it is tested without a server.
 * Route middleware (guard.server.ts) feeds it the request and throws the redirect it returns.
 */
import { OBSERVER_TOKEN_PARAM } from '#core/contracts/api.ts';
import { loginPath } from './names.ts';
import { refusalPath } from './refusal.ts';
import { downloadType, isSupportedBrowser, parseUa } from './ua.ts';

export interface ClassroomGuardInput {
  userAgent: string;
  search: URLSearchParams;
  roomId: string;
  hasSession: boolean;
  /** Board and slide routes (/bb, /wb) skip the device and browser checks (rule 3). */
  passesBrowserChecks: boolean;
  /** Where a visitor without a session goes; the studio wants a teacher (login), rooms a name. */
  noSessionTarget: 'userName' | 'login';
  /** The path being opened, remembered for the login target. */
  pathname: string;
}

/** Returns the path to redirect to, or null when the route may open. */
export function classroomGuard(input: ClassroomGuardInput): string | null {
  const observer = input.search.get('userType') === '3';
  if (!observer && !input.passesBrowserChecks) {
    // Phones and tablets join in the browser with the phone layout (ADR 091: no /h5down redirect);
    // only a browser that cannot run the class goes to the download page of its system.
    const ua = parseUa(input.userAgent);
    if (!isSupportedBrowser(ua)) return `/download/${downloadType(ua)}`;
  }
  for (const key of input.search.keys()) {
    // The observer link carries its signed token next to userType=3 (docs/product/decisions.md: Access).
    if (key === 'userType' || (key === OBSERVER_TOKEN_PARAM && observer)) continue;
    return refusalPath('31004', input.roomId);
  }
  // An observer link opens without a session: the join makes a quiet observer identity.
  const observerLink = observer && (input.search.get(OBSERVER_TOKEN_PARAM) ?? '') !== '';
  if (!input.hasSession && !observerLink) {
    return input.noSessionTarget === 'userName' ? `/userName/${input.roomId}` : loginPath(input.pathname);
  }
  return null;
}
