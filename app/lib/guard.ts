/**
 * The navigation guard of docs/product/01-account-and-lobby.md §2, as docs/product/decisions.md
 * (Access) and ADRs 091 and 094 amend it: one pure decision over every route of app/routes.ts, so
 * the whole rule is one table in guard-table.test.ts. Route middleware (guard.server.ts) feeds it
 * the request and throws the redirect it returns.
 *
 * Rules, in order:
 * 1. A room route with an invalid number (not 1 to 10 digits) is not found.
 * 2. Browser check (rule 4; rule 1 and 2 are gone, ADR 091): an unsupported browser or system goes to
 *    `/download/{type}`. Phones and tablets are judged like computers. Skipped with `userType=3`
 *    and on board and slide routes (rule 3: bb, wb, wb/{uid}, imwb, ppt); pages that are not a room
 *    (account, landing, download, upload, refusal, recordings) never check.
 * 3. Query rule (rule 8): on a classroom route a key other than `userType` (the observer link's `ot`
 *    with `userType=3`; `role` on `/room`) opens the refusal page 'no-permission' (31004).
 * 4. Session (rule 5): a classroom without a session goes to the name step `/userName/{id}`, unless
 *    it is an observer link (`userType=3` with its token); the studio, the board of a named user,
 *    the board review and the account pages go to `/login` remembering the address. `/` opens for
 *    everyone: the lobby for a teacher, the front door (join by number, sign in) for anyone else,
 *    and `/left/{id}` (after leaving a class) needs no account (ADR 098).
 * 5. A signed-in teacher opening `/login` goes to the remembered target, else the lobby (rule 6).
 * 6. `/room/{id}` then opens the classroom `/{id}` with the query it may keep (ADR 094).
 */
import { OBSERVER_TOKEN_PARAM } from '#core/contracts/api.ts';
import { isRouteRoomId, loginPath, safeRedirect } from './names.ts';
import { refusalPath } from './refusal.ts';
import { downloadType, isSupportedBrowser, parseUa } from './ua.ts';

export type RouteKind =
  | 'lobby'
  | 'login'
  | 'create'
  | 'profile'
  | 'admin'
  | 'home'
  | 'help'
  | 'download'
  | 'h5down'
  | 'phonedown'
  | 'refused'
  | 'left'
  | 'watch'
  | 'devOutbox'
  | 'userName'
  | 'classroom'
  | 'record'
  | 'live'
  | 'bb'
  | 'wb'
  | 'wbUser'
  | 'imwb'
  | 'room'
  | 'rec'
  | 'ppt'
  | 'demo'
  | 'createDemo'
  | 'upload'
  | 'wbreview';

export interface RouteMatch {
  kind: RouteKind;
  /** The room number of a room route, as written in the address (checked by the guard). */
  id?: string;
  /** The user id of `/wb/{id}/{uid}`, `/imwb/{id}/{uid}` and `/ppt/{id}/{uid}`. */
  uid?: string;
}

const FIXED: Record<string, RouteKind> = {
  '/': 'lobby',
  '/login': 'login',
  '/create': 'create',
  '/profile': 'profile',
  '/admin': 'admin',
  '/home': 'home',
  '/download': 'download',
  '/h5down': 'h5down',
  '/phonedown': 'phonedown',
  '/createDemo': 'createDemo',
  '/dev/outbox': 'devOutbox',
};

/** Room routes by their first path segment, with how many segments follow (id, then an optional uid). */
const ROOM_PREFIX: Record<string, { kind: RouteKind; withUid?: RouteKind; uidOnly?: boolean }> = {
  record: { kind: 'record' },
  live: { kind: 'live' },
  bb: { kind: 'bb' },
  wb: { kind: 'wb', withUid: 'wbUser' },
  imwb: { kind: 'imwb', withUid: 'imwb', uidOnly: true },
  room: { kind: 'room' },
  rec: { kind: 'rec' },
  ppt: { kind: 'ppt', withUid: 'ppt' },
  demo: { kind: 'demo' },
  userName: { kind: 'userName' },
  wbreview: { kind: 'wbreview' },
  left: { kind: 'left' },
};

/** Which route of app/routes.ts answers a path, or null for the not-found page. Mirrors app/routes.ts. */
export function routeOf(pathname: string): RouteMatch | null {
  const path = pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname;
  const fixed = FIXED[path];
  if (fixed) return { kind: fixed };
  const parts = path.split('/').slice(1).map(decodePart);
  if (parts.some((p) => p === null || p === '')) return null;
  const seg = parts as string[];
  const [first, second, third] = seg;
  if (first === undefined) return null;
  if (first === 'profile') return seg.length === 2 ? { kind: 'profile' } : null;
  if (first === 'help') return seg.length === 2 ? { kind: 'help' } : null;
  if (first === 'download') return seg.length === 2 ? { kind: 'download' } : null;
  if (first === 'refused') return seg.length === 2 ? { kind: 'refused' } : null;
  if (first === 'watch') return seg.length === 2 ? { kind: 'watch' } : null;
  if (first === 'upload') return seg.length === 3 ? { kind: 'upload', id: third!, uid: second! } : null;
  if (seg.length === 1) return { kind: 'classroom', id: first };
  const room = ROOM_PREFIX[first];
  if (!room || second === undefined) return null;
  if (seg.length === 2) return room.uidOnly ? null : { kind: room.kind, id: second };
  if (seg.length === 3 && room.withUid) return { kind: room.withUid, id: second, uid: third! };
  return null;
}

function decodePart(part: string): string | null {
  try {
    return decodeURIComponent(part);
  } catch {
    return null;
  }
}

/** 'open' renders the route; 'not-found' answers 404; anything else is the path to redirect to. */
export type Destination = 'open' | 'not-found' | `/${string}`;

export interface GuardInput {
  pathname: string;
  search: URLSearchParams;
  userAgent: string;
  /** The signed-in user (type '1' a teacher, '4' a visitor who named themself), or null. */
  viewer: { userId: string; type: '1' | '4' } | null;
}

/** Routes that are a room: they carry a number and the browser and session rules apply. */
const ROOM_KINDS = new Set<RouteKind>([
  'classroom',
  'record',
  'live',
  'bb',
  'wb',
  'wbUser',
  'imwb',
  'room',
  'rec',
  'ppt',
  'demo',
  'userName',
  'wbreview',
  'upload',
  'left',
]);
/** Routes that check the browser first (rule 4); board and slide routes do not (rule 3). */
const BROWSER_CHECKED = new Set<RouteKind>(['classroom', 'record', 'live', 'room', 'rec', 'demo', 'createDemo']);
/** Classroom routes with the query rule (rule 8). */
const QUERY_CHECKED = new Set<RouteKind>(['classroom', 'record', 'live', 'bb', 'wb', 'wbUser', 'imwb', 'room', 'rec']);

export function guard(input: GuardInput): Destination {
  const match = routeOf(input.pathname);
  if (!match) return 'open'; // the not-found page
  const { kind } = match;
  const id = match.id ?? '';
  if (ROOM_KINDS.has(kind) && !isRouteRoomId(id)) return 'not-found';
  const observer = input.search.get('userType') === '3';
  const here = input.pathname + (input.search.size > 0 ? `?${input.search.toString()}` : '');

  if (!observer && BROWSER_CHECKED.has(kind)) {
    // Phones and tablets join in the browser (ADR 091); only a browser that cannot run the class
    // goes to the download page of its system.
    const ua = parseUa(input.userAgent);
    if (!isSupportedBrowser(ua)) return `/download/${downloadType(ua)}`;
  }

  if (QUERY_CHECKED.has(kind)) {
    for (const key of input.search.keys()) {
      // The observer link carries its signed token next to userType=3 (docs/product/decisions.md: Access).
      if (key === 'userType' || (key === OBSERVER_TOKEN_PARAM && observer) || (key === 'role' && kind === 'room')) continue;
      return refusalPath('31004', id) as Destination;
    }
    if (kind === 'room' && !isRole(input.search.get('role'))) return refusalPath('31004', id) as Destination;
  }

  const teacher = input.viewer?.type === '1';
  // An observer link opens without a session: the join makes a quiet observer identity.
  const observerLink = observer && (input.search.get(OBSERVER_TOKEN_PARAM) ?? '') !== '';
  switch (kind) {
    case 'login': {
      if (!teacher) return 'open';
      const target = safeRedirect(input.search.get('redirect'));
      // The remembered target, never /login again (that would loop).
      return (routeOf(new URL(target, 'http://same.site').pathname)?.kind === 'login' ? '/' : target) as Destination;
    }
    case 'classroom':
    case 'record':
    case 'live':
    case 'bb':
    case 'wb':
      if (!input.viewer && !observerLink) return `/userName/${id}`;
      return 'open';
    case 'room': {
      // /room/{id} is the classroom reached from outside the lobby: it opens /{id} with userType
      // (and the observer token); role is checked above and then left to the room (ADR 094).
      const keep = new URLSearchParams();
      for (const [key, value] of input.search) if (key !== 'role') keep.append(key, value);
      return `/${id}${keep.size > 0 ? `?${keep.toString()}` : ''}`;
    }
    case 'wbUser':
    case 'imwb':
      // The board of a named user: its own user draws, anyone else signed in watches (ADR 094).
      // Someone else with the creator's observer link joins the board class as an observer (type 3).
      if (observerLink && input.viewer?.userId !== match.uid) return `/wb/${id}?${input.search.toString()}`;
      // Without a session the address is remembered: the named user signs in and comes back.
      if (!input.viewer) return loginPath(here) as Destination;
      return 'open';
    case 'ppt':
      // The slide view needs a session: a visitor named in a class keeps theirs; anyone else signs
      // in and comes back here (the name step would seat them in the classroom instead).
      if (!input.viewer) return loginPath(here) as Destination;
      return 'open';
    case 'wbreview':
      if (!input.viewer) return loginPath(input.pathname) as Destination;
      return 'open';
    case 'lobby':
      // The teacher's lobby, or for anyone else the front door: join by number, sign in (ADR 098).
      return 'open';
    case 'create':
    case 'profile':
    case 'admin':
    case 'rec':
      // The account area and the studio: a signed-in teacher (a named visitor is not one).
      return teacher ? 'open' : (loginPath(here) as Destination);
    case 'home':
    case 'help':
    case 'download':
    case 'h5down':
    case 'phonedown':
    case 'refused':
    case 'left':
    case 'watch':
    case 'devOutbox':
    case 'userName':
    case 'upload':
    case 'demo':
    case 'createDemo':
      // Pages anyone opens; the upload page's board token is its permission, demos need no account.
      return 'open';
  }
}

/** `role` of `/room/{id}`: absent, or one of the room's roles by number (1 teacher, 2 member, 3 observer). */
function isRole(value: string | null): boolean {
  return value === null || value === '1' || value === '2' || value === '3';
}
