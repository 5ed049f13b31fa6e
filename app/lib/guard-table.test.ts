/**
 * The navigation guard as one table (ADR 094): every route x user agent x userType=3 x session ->
 * its destination. 'open' renders the route, 'not-found' is a 404, anything else is a redirect.
 */
import { describe, expect, it } from 'vitest';
import routes from '../routes.ts';
import { guard, routeOf, type Destination, type RouteKind } from './guard.ts';

/** The browsers of the table: one per column. */
const UA = {
  chrome: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
  phone:
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
  tablet: 'Mozilla/5.0 (Linux; Android 13; SM-X700) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
  oldChrome: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_12_6) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/64.0.3282.186 Safari/537.36',
  safari121: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_14_4) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/12.1 Safari/605.1.15',
  firefox: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:125.0) Gecko/20100101 Firefox/125.0',
  wechat:
    'Mozilla/5.0 (Linux; Android 12; M2102J2SC Build/SKQ1.211006.001; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/86.0.4240.99 XWEB/4317 MMWEBSDK/20220903 Mobile Safari/537.36 MMWEBID/6294 MicroMessenger/8.0.28.2240(0x28001C57) WeChat/arm64 Weixin NetType/WIFI Language/zh_CN ABI/arm64',
} as const;
type Browser = keyof typeof UA;
const BROWSERS = Object.keys(UA) as Browser[];

/** none: no session; teacher: signed in as user 'own' (a teacher); visitor: a named visitor 'vis'; all: the same for the three. */
type Session = 'none' | 'teacher' | 'visitor' | 'all';
const VIEWERS = {
  none: null,
  teacher: { userId: 'own', type: '1' as const },
  visitor: { userId: 'vis', type: '4' as const },
};

const O: Destination = 'open';
const NF: Destination = 'not-found';
const PC: Destination = '/download/pc';
/** Everyone in, except old Chrome and Firefox, which get the computer download page. */
const checked = (open: Destination): Row7 => [open, open, open, PC, open, PC, open];
/** The same destination in every browser. */
const any = (d: Destination): Row7 => [d, d, d, d, d, d, d];
type Row7 = [Destination, Destination, Destination, Destination, Destination, Destination, Destination];

// prettier-ignore
const TABLE: Array<[string, Session, Row7]> = [
  //  address                                session     chrome, phone, tablet, oldChrome, safari12.1, firefox, wechat
  // The lobby and the account area: a signed-in teacher, else sign-in remembering the address.
  // `/` without a teacher is the front door (ADR 098): join by number, or sign in from there.
  ['/',                                      'none',     any(O)],
  ['/',                                      'visitor',  any(O)],
  ['/',                                      'teacher',  any(O)],
  ['/?userType=3',                           'none',     any(O)],
  ['/create',                                'none',     any('/login?redirect=/create')],
  ['/create',                                'teacher',  any(O)],
  ['/create?userType=3',                     'visitor',  any('/login?redirect=/create%3FuserType%3D3')],
  ['/profile',                               'none',     any('/login?redirect=/profile')],
  ['/profile/room',                          'none',     any('/login?redirect=/profile/room')],
  ['/profile/room?type=2',                   'visitor',  any('/login?redirect=/profile/room%3Ftype%3D2')],
  ['/profile/room?userType=3',               'teacher',  any(O)],
  ['/admin',                                 'none',     any('/login?redirect=/admin')],
  ['/admin?userType=3',                      'teacher',  any(O)],
  ['/admin',                                 'visitor',  any('/login?redirect=/admin')],
  // Sign-in: a signed-in teacher goes to the remembered target, else the lobby; never back to /login.
  ['/login',                                 'none',     any(O)],
  ['/login',                                 'visitor',  any(O)],
  ['/login',                                 'teacher',  any('/')],
  ['/login?redirect=/live/123456',           'teacher',  any('/live/123456')],
  ['/login?redirect=/profile/room',          'teacher',  any('/profile/room')],
  ['/login?redirect=//evil.example',         'teacher',  any('/')],
  ['/login?redirect=/login',                 'teacher',  any('/')],
  ['/login?userType=3',                      'none',     any(O)],
  ['/login?userType=3',                      'visitor',  any(O)],
  ['/login?userType=3',                      'teacher',  any('/')],
  // Pages anyone opens, in any browser (rule 3 and the public site).
  ['/home',                                  'all',      any(O)],
  ['/home?userType=3',                       'all',      any(O)],
  ['/help/web',                              'all',      any(O)],
  ['/help/web?userType=3',                   'all',      any(O)],
  ['/download/pc',                           'all',      any(O)],
  ['/download/ios?userType=3',               'all',      any(O)],
  ['/h5down',                                'all',      any(O)],
  ['/h5down?userType=3',                     'all',      any(O)],
  ['/phonedown',                             'all',      any(O)],
  ['/phonedown?userType=3',                  'all',      any(O)],
  ['/refused/full?room=123456',              'all',      any(O)],
  ['/refused/no-permission?userType=3',      'all',      any(O)],
  // After leaving a class (ADR 098): anyone, with or without an account; a bad number is not found.
  ['/left/123456',                           'all',      any(O)],
  ['/left/123456?userType=3',                'all',      any(O)],
  ['/left/12ab',                             'all',      any(NF)],
  ['/watch/abc123',                          'all',      any(O)],
  ['/watch/abc123?userType=3',               'all',      any(O)],
  ['/dev/outbox',                            'all',      any(O)],
  ['/dev/outbox?userType=3',                 'all',      any(O)],
  ['/userName/123456',                       'all',      any(O)],
  ['/userName/123456?userType=3',            'all',      any(O)],
  ['/userName/abc',                          'all',      any(NF)],
  // The phone upload page: its board token is the permission.
  ['/upload/own/123456?t=tok&p=0',           'all',      any(O)],
  ['/upload/own/123456?userType=3',          'all',      any(O)],
  ['/upload/own/12x',                        'all',      any(NF)],
  // Classroom routes: browser rule, then the query rule, then a session or the name step.
  ['/123456',                                'none',     checked('/userName/123456')],
  ['/123456',                                'visitor',  checked(O)],
  ['/123456',                                'teacher',  checked(O)],
  ['/123456?userType=1',                     'teacher',  checked(O)],
  ['/123456?foo=1',                          'all',      checked('/refused/no-permission?room=123456')],
  ['/123456?role=1',                         'teacher',  checked('/refused/no-permission?room=123456')],
  ['/123456?userType=3',                     'none',     any('/userName/123456')],
  ['/123456?userType=3',                     'teacher',  any(O)],
  ['/123456?userType=3&ot=t.k',              'all',      any(O)],
  ['/123456?userType=1&ot=t.k',              'all',      checked('/refused/no-permission?room=123456')],
  ['/12345678901',                           'all',      any(NF)],
  ['/record/123456',                         'none',     checked('/userName/123456')],
  ['/record/123456',                         'visitor',  checked(O)],
  ['/record/123456',                         'teacher',  checked(O)],
  ['/record/123456?userType=3&ot=t.k',       'all',      any(O)],
  ['/live/123456',                           'none',     checked('/userName/123456')],
  ['/live/123456',                           'visitor',  checked(O)],
  ['/live/123456',                           'teacher',  checked(O)],
  ['/live/123456?userType=3',                'visitor',  any(O)],
  ['/live/123456?x=1&userType=3',            'all',      any('/refused/no-permission?room=123456')],
  // Board routes skip the browser rule (rule 3) but keep the query and session rules.
  ['/bb/123456',                             'none',     any('/userName/123456')],
  ['/bb/123456',                             'visitor',  any(O)],
  ['/bb/123456',                             'teacher',  any(O)],
  ['/bb/123456?userType=3&ot=t.k',           'none',     any(O)],
  ['/bb/123456?foo=1',                       'teacher',  any('/refused/no-permission?room=123456')],
  ['/wb/123456',                             'none',     any('/userName/123456')],
  ['/wb/123456',                             'visitor',  any(O)],
  ['/wb/123456',                             'teacher',  any(O)],
  ['/wb/123456?userType=3',                  'none',     any('/userName/123456')],
  // The board of a named user: its own user draws, anyone else signed in watches; the page decides
  // which. Without a session the address is remembered for sign-in.
  ['/wb/123456/own',                         'teacher',  any(O)],
  ['/wb/123456/other',                       'teacher',  any(O)],
  ['/wb/123456/other',                       'visitor',  any(O)],
  ['/wb/123456/own',                         'none',     any('/login?redirect=/wb/123456/own')],
  ['/wb/123456/own?userType=3',              'none',     any('/login?redirect=/wb/123456/own%3FuserType%3D3')],
  ['/wb/123456/own?userType=3&ot=t.k',       'none',     any('/wb/123456?userType=3&ot=t.k')],
  ['/wb/123456/other?userType=3&ot=t.k',     'visitor',  any('/wb/123456?userType=3&ot=t.k')],
  ['/wb/123456/own?userType=3&ot=t.k',       'teacher',  any(O)],
  ['/wb/123456/own?foo=1',                   'all',      any('/refused/no-permission?room=123456')],
  ['/wb/abc/own',                            'all',      any(NF)],
  ['/imwb/123456/own',                       'teacher',  any(O)],
  ['/imwb/123456/other',                     'visitor',  any(O)],
  ['/imwb/123456/own',                       'none',     any('/login?redirect=/imwb/123456/own')],
  ['/imwb/123456/own?userType=3&ot=t.k',     'none',     any('/wb/123456?userType=3&ot=t.k')],
  ['/imwb/123456/own?p=1',                   'teacher',  any('/refused/no-permission?room=123456')],
  ['/imwb/123456',                           'all',      any(O)], // no such route: the not-found page
  // /room/{id}: the classroom from outside the lobby, userType kept, role checked then dropped.
  ['/room/123456',                           'all',      checked('/123456')],
  ['/room/123456?userType=1',                'all',      checked('/123456?userType=1')],
  ['/room/123456?userType=1&role=2',         'all',      checked('/123456?userType=1')],
  ['/room/123456?role=9',                    'all',      checked('/refused/no-permission?room=123456')],
  ['/room/123456?foo=1',                     'all',      checked('/refused/no-permission?room=123456')],
  ['/room/123456?userType=3',                'all',      any('/123456?userType=3')],
  ['/room/123456?userType=3&ot=t.k&role=3',  'all',      any('/123456?userType=3&ot=t.k')],
  ['/room/12a',                              'all',      any(NF)],
  // The recording studio: a teacher's page; browser rule first.
  ['/rec/12345678',                          'none',     checked('/login?redirect=/rec/12345678')],
  ['/rec/12345678',                          'visitor',  checked('/login?redirect=/rec/12345678')],
  ['/rec/12345678',                          'teacher',  checked(O)],
  ['/rec/12345678?foo=1',                    'teacher',  checked('/refused/no-permission?room=12345678')],
  ['/rec/12345678?userType=3',               'none',     any('/login?redirect=/rec/12345678%3FuserType%3D3')],
  // The slide view (H2): a session or a visitor identity; no browser rule (rule 3).
  ['/ppt/123456',                            'none',     any('/login?redirect=/ppt/123456')],
  ['/ppt/123456',                            'visitor',  any(O)],
  ['/ppt/123456/own',                        'teacher',  any(O)],
  ['/ppt/123456/other?userType=3',           'none',     any('/login?redirect=/ppt/123456/other%3FuserType%3D3')],
  ['/ppt/123456/other?userType=3',           'teacher',  any(O)],
  // The demo room (H1): no account; phones join in the browser; old browsers get the download page.
  ['/createDemo',                            'all',      checked(O)],
  ['/createDemo?userType=3',                 'all',      any(O)],
  ['/demo/123456',                           'all',      checked(O)],
  ['/demo/123456?userType=3',                'all',      any(O)],
  ['/demo/x',                                'all',      any(NF)],
  // The board review: the creator's page, sign-in remembered; the loader checks the creator.
  ['/wbreview/123456',                       'none',     any('/login?redirect=/wbreview/123456')],
  ['/wbreview/123456',                       'visitor',  any(O)],
  ['/wbreview/123456?userType=3',            'teacher',  any(O)],
];

function decide(address: string, session: Exclude<Session, 'all'>, browser: Browser): Destination {
  const url = new URL(address, 'http://same.site');
  return guard({ pathname: url.pathname, search: url.searchParams, userAgent: UA[browser], viewer: VIEWERS[session] });
}

const rows = TABLE.flatMap(([address, session, expected]) =>
  (session === 'all' ? (['none', 'teacher', 'visitor'] as const) : [session]).flatMap((s) =>
    BROWSERS.map((browser, i) => [address, s, browser, expected[i]!] as const),
  ),
);

describe('the navigation guard table', () => {
  it.each(rows)('%s (%s, %s) -> %s', (address, session, browser, expected) => {
    expect(decide(address, session, browser)).toBe(expected);
  });

  it('has a row for every route kind, with and without userType=3, for each session', () => {
    const kinds: RouteKind[] = [
      'lobby',
      'login',
      'create',
      'profile',
      'admin',
      'home',
      'help',
      'download',
      'h5down',
      'phonedown',
      'refused',
      'left',
      'watch',
      'devOutbox',
      'userName',
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
      'createDemo',
      'upload',
      'wbreview',
    ];
    const seen = new Map<RouteKind, Set<string>>();
    for (const [address, session] of TABLE) {
      const url = new URL(address, 'http://same.site');
      const kind = routeOf(url.pathname)?.kind;
      if (!kind) continue;
      const marks = seen.get(kind) ?? new Set<string>();
      marks.add(url.searchParams.get('userType') === '3' ? 'ut3' : 'plain');
      for (const s of session === 'all' ? ['none', 'teacher', 'visitor'] : [session]) marks.add(s);
      seen.set(kind, marks);
    }
    const missing = kinds.flatMap((kind) =>
      ['none', 'plain', 'teacher', 'ut3', 'visitor'].filter((m) => !seen.get(kind)?.has(m)).map((m) => `${kind}:${m}`),
    );
    expect(missing).toEqual([]);
  });

  it('never sends anyone to /h5down, and phones and tablets never to a download page from a room', () => {
    for (const [address, , expected] of TABLE) {
      expect(expected, address).not.toContain('/h5down');
      expect(expected[1], address).not.toMatch(/^\/download\//);
      expect(expected[2], address).not.toMatch(/^\/download\//);
    }
  });

  it('sends old browsers to the download page of their own system', () => {
    const oldIphone =
      'Mozilla/5.0 (iPhone; CPU iPhone OS 12_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/12.0 Mobile/15E148 Safari/604.1';
    const firefoxAndroid = 'Mozilla/5.0 (Android 14; Mobile; rv:125.0) Gecko/125.0 Firefox/125.0';
    const at = (userAgent: string) => guard({ pathname: '/123456', search: new URLSearchParams(), userAgent, viewer: null });
    expect(at(oldIphone)).toBe('/download/ios');
    expect(at(firefoxAndroid)).toBe('/download/android');
  });
});

describe('routeOf mirrors app/routes.ts', () => {
  type Entry = { path?: string; file: string; children?: Entry[] };
  const flatten = (entries: Entry[], prefix = ''): Array<{ path: string; file: string }> =>
    entries.flatMap((e) => {
      const path = [prefix, e.path ?? ''].filter(Boolean).join('/');
      return [{ path, file: e.file }, ...flatten(e.children ?? [], path)];
    });
  /** The route kinds each module answers for. */
  const KINDS_BY_FILE: Record<string, RouteKind[]> = {
    'routes/lobby.tsx': ['lobby'],
    'routes/login.tsx': ['login'],
    'routes/create.tsx': ['create'],
    'routes/user-name.tsx': ['userName'],
    'routes/profile.tsx': ['profile'],
    'routes/home.tsx': ['home'],
    'routes/help.tsx': ['help'],
    'routes/admin.tsx': ['admin'],
    'routes/download.tsx': ['download'],
    'routes/mobile-download.tsx': ['h5down', 'phonedown'],
    'routes/dev-outbox.tsx': ['devOutbox'],
    'routes/refused.tsx': ['refused'],
    'routes/left.tsx': ['left'],
    'routes/classroom.tsx': ['classroom', 'record', 'live', 'bb', 'wb'],
    'routes/wb-user.tsx': ['wbUser', 'imwb'],
    'routes/room.tsx': ['room'],
    'routes/studio.tsx': ['rec'],
    'routes/board-upload.tsx': ['upload'],
    'routes/wbreview.tsx': ['wbreview'],
    'routes/watch.tsx': ['watch'],
    'routes/ppt.tsx': ['ppt'],
    'routes/demo.tsx': ['demo'],
    'routes/create-demo.tsx': ['createDemo'],
  };
  const SAMPLE: Record<string, string> = { id: '123456', uid: 'u1', userId: 'u1', type: 'pc', topic: 'web', kind: 'full', token: 'tok' };

  it.each(flatten(routes as Entry[]).filter((r) => r.path !== '*'))('/$path', ({ path, file }) => {
    const sample = '/' + path.replace(/:(\w+)\??/g, (_, name: string) => SAMPLE[name] ?? 'x');
    const kind = routeOf(sample)?.kind;
    if (file.startsWith('routes/profile.')) expect(kind).toBe('profile');
    else expect(KINDS_BY_FILE[file], `${file} answers ${sample} as ${kind}`).toContain(kind);
  });
});
