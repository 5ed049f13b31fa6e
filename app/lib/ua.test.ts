import { describe, expect, it } from 'vitest';
import { guard } from './guard.ts';
import { refusalKind, refusalPath } from './refusal.ts';
import { downloadType, isMobileDevice, isSupportedBrowser, parseUa } from './ua.ts';

const UA = {
  chromeWin: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
  chromeMacOld: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_12_6) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/64.0.3282.186 Safari/537.36',
  headlessLinux: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.6778.85 Safari/537.36',
  edge: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36 Edg/120.0.2210.91',
  legacyEdge:
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/70.0.3538.102 Safari/537.36 Edge/18.19041',
  firefoxWin: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:125.0) Gecko/20100101 Firefox/125.0',
  safariMac: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15',
  safariMac12: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_14_3) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/12.0.3 Safari/605.1.15',
  safariMac121: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_14_4) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/12.1 Safari/605.1.15',
  iphoneSafari:
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
  iphoneChrome:
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/118.0.5993.69 Mobile/15E148 Safari/604.1',
  ipad: 'Mozilla/5.0 (iPad; CPU OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.6 Mobile/15E148 Safari/604.1',
  androidPhone: 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.6367.82 Mobile Safari/537.36',
  androidTablet: 'Mozilla/5.0 (Linux; Android 13; SM-X700) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
  wechatAndroid:
    'Mozilla/5.0 (Linux; Android 12; M2102J2SC Build/SKQ1.211006.001; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/86.0.4240.99 XWEB/4317 MMWEBSDK/20220903 Mobile Safari/537.36 MMWEBID/6294 MicroMessenger/8.0.28.2240(0x28001C57) WeChat/arm64 Weixin NetType/WIFI Language/zh_CN ABI/arm64',
  wechatWin:
    'Mozilla/5.0 (Windows NT 10.0; WOW64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/81.0.4044.138 Safari/537.36 NetType/WIFI MicroMessenger/7.0.20.1781(0x6700143B) WindowsWechat(0x6307001e)',
  iphoneChromeOld:
    'Mozilla/5.0 (iPhone; CPU iPhone OS 14_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/87.0.4280.77 Mobile/15E148 Safari/604.1',
  iphoneSafariOld:
    'Mozilla/5.0 (iPhone; CPU iPhone OS 12_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/12.0 Mobile/15E148 Safari/604.1',
  wechatIphone:
    'Mozilla/5.0 (iPhone; CPU iPhone OS 16_3 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 MicroMessenger/8.0.33(0x18002129) NetType/WIFI Language/zh_CN',
  firefoxAndroid: 'Mozilla/5.0 (Android 14; Mobile; rv:125.0) Gecko/125.0 Firefox/125.0',
  ie11: 'Mozilla/5.0 (Windows NT 10.0; WOW64; Trident/7.0; rv:11.0) like Gecko',
  unknownOs: 'Mozilla/5.0 (PlayStation 4 5.55) AppleWebKit/601.2 (KHTML, like Gecko)',
};

describe('parseUa', () => {
  it.each([
    ['chromeWin', { device: 'pc', os: 'windows', browser: 'chrome', version: [124, 0], iosVersion: [0, 0] }],
    ['chromeMacOld', { device: 'pc', os: 'mac', browser: 'chrome', version: [64, 0], iosVersion: [0, 0] }],
    ['headlessLinux', { device: 'pc', os: 'linux', browser: 'chrome', version: [131, 0], iosVersion: [0, 0] }],
    ['safariMac121', { device: 'pc', os: 'mac', browser: 'safari', version: [12, 1], iosVersion: [0, 0] }],
    ['iphoneSafari', { device: 'phone', os: 'ios', browser: 'safari', version: [17, 4], iosVersion: [17, 4] }],
    ['iphoneChrome', { device: 'phone', os: 'ios', browser: 'chrome', version: [118, 0], iosVersion: [17, 0] }],
    ['ipad', { device: 'tablet', os: 'ios', browser: 'safari', version: [16, 6], iosVersion: [16, 6] }],
    ['androidPhone', { device: 'phone', os: 'android', browser: 'chrome', version: [124, 0], iosVersion: [0, 0] }],
    ['androidTablet', { device: 'tablet', os: 'android', browser: 'chrome', version: [124, 0], iosVersion: [0, 0] }],
    ['wechatAndroid', { device: 'phone', os: 'android', browser: 'wechat', version: [8, 0], iosVersion: [0, 0] }],
    ['firefoxWin', { device: 'pc', os: 'windows', browser: 'firefox', version: [125, 0], iosVersion: [0, 0] }],
    ['ie11', { device: 'pc', os: 'windows', browser: 'other', version: [0, 0], iosVersion: [0, 0] }],
  ] as const)('%s', (name, expected) => {
    expect(parseUa(UA[name])).toEqual(expected);
  });
});

describe('isSupportedBrowser', () => {
  it.each([
    ['chromeWin', true],
    ['headlessLinux', true],
    ['edge', true],
    ['wechatWin', true],
    ['safariMac', true],
    ['safariMac121', true],
    ['chromeMacOld', false],
    ['legacyEdge', false],
    ['firefoxWin', false],
    ['safariMac12', false],
    ['ie11', false],
    ['unknownOs', false],
  ] as const)('%s -> %s', (name, supported) => {
    expect(isSupportedBrowser(parseUa(UA[name]))).toBe(supported);
  });

  it('judges phones and tablets by the same rule, with every iOS 14.3+ browser in (ADR 091)', () => {
    const table = [
      ['iphoneSafari', true],
      ['iphoneChrome', true],
      ['ipad', true],
      ['androidPhone', true],
      ['androidTablet', true],
      ['wechatAndroid', true],
      ['wechatIphone', true],
      ['iphoneChromeOld', false],
      ['iphoneSafariOld', false],
      ['firefoxAndroid', false],
    ] as const;
    for (const [name, supported] of table) expect(isSupportedBrowser(parseUa(UA[name])), name).toBe(supported);
  });

  it('names the download page by system', () => {
    expect(downloadType(parseUa(UA.firefoxWin))).toBe('pc');
    expect(downloadType(parseUa(UA.iphoneChrome))).toBe('ios');
    expect(downloadType(parseUa(UA.androidPhone))).toBe('android');
    expect(isMobileDevice(parseUa(UA.safariMac))).toBe(false);
  });
});

interface ClassroomGuardInput {
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

/**
 * The classroom part of the guard (app/lib/guard.ts) with its inputs spelled out, as the tests of
 * ADR 091 below were written. Returns the path to redirect to, or null when the route may open.
 */
function classroomGuard(input: ClassroomGuardInput): string | null {
  const pathname =
    input.noSessionTarget === 'login' ? input.pathname : input.passesBrowserChecks ? `/bb/${input.roomId}` : `/${input.roomId}`;
  const target = guard({
    pathname,
    search: input.search,
    userAgent: input.userAgent,
    // A session here is any session: the studio's teacher check is the studio's own middleware.
    viewer: input.hasSession ? { userId: 'u', type: '1' } : null,
  });
  return target === 'open' ? null : target;
}

describe('classroomGuard', () => {
  const base = {
    userAgent: UA.chromeWin,
    search: new URLSearchParams(),
    roomId: '123456',
    hasSession: true,
    passesBrowserChecks: false,
    noSessionTarget: 'userName' as const,
    pathname: '/live/123456',
  };

  it('lets a supported desktop browser with a session in', () => {
    expect(classroomGuard(base)).toBeNull();
  });
  // The guard over a table of user agents: phones and tablets open the classroom (no /h5down), old
  // or unsupported browsers get their system's download page, observers skip the checks.
  it.each([
    ['iphoneSafari', null],
    ['androidPhone', null],
    ['ipad', null],
    ['androidTablet', null],
    ['wechatAndroid', null],
    ['wechatIphone', null],
    ['wechatWin', null],
    ['safariMac121', null],
    ['chromeMacOld', '/download/pc'],
    ['safariMac12', '/download/pc'],
    ['firefoxWin', '/download/pc'],
    ['ie11', '/download/pc'],
    ['iphoneChromeOld', '/download/ios'],
    ['firefoxAndroid', '/download/android'],
  ] as const)('%s -> %s', (name, target) => {
    expect(classroomGuard({ ...base, userAgent: UA[name] })).toBe(target);
    // userType=3 (observers) skip the browser checks whatever the browser.
    expect(classroomGuard({ ...base, userAgent: UA[name], search: new URLSearchParams('userType=3') })).toBeNull();
  });
  it('never sends anyone to /h5down', () => {
    for (const ua of Object.values(UA)) expect(classroomGuard({ ...base, userAgent: ua })).not.toBe('/h5down');
  });
  it('lets board routes and userType=3 skip the browser checks', () => {
    expect(classroomGuard({ ...base, userAgent: UA.androidPhone, passesBrowserChecks: true })).toBeNull();
    expect(classroomGuard({ ...base, userAgent: UA.ie11, search: new URLSearchParams('userType=3') })).toBeNull();
  });
  it('refuses unknown query keys with 31004 on the refusal page, which needs no account', () => {
    const refused = '/refused/no-permission?room=123456';
    expect(classroomGuard({ ...base, search: new URLSearchParams('foo=1') })).toBe(refused);
    expect(classroomGuard({ ...base, search: new URLSearchParams('userType=1') })).toBeNull();
    expect(classroomGuard({ ...base, search: new URLSearchParams('ot=abc') })).toBe(refused);
    expect(classroomGuard({ ...base, search: new URLSearchParams('userType=1&ot=abc') })).toBe(refused);
    expect(classroomGuard({ ...base, hasSession: false, search: new URLSearchParams('foo=1') })).toBe(refused);
  });
  it('opens an observer link (userType=3 with ot) without a session', () => {
    expect(classroomGuard({ ...base, hasSession: false, search: new URLSearchParams('userType=3&ot=abc.def') })).toBeNull();
    expect(classroomGuard({ ...base, hasSession: false, search: new URLSearchParams('userType=3') })).toBe('/userName/123456');
  });
  it('sends a visitor without a session to the name screen, a studio visitor to login', () => {
    expect(classroomGuard({ ...base, hasSession: false })).toBe('/userName/123456');
    expect(classroomGuard({ ...base, hasSession: false, noSessionTarget: 'login', pathname: '/rec/12345678' })).toBe(
      '/login?redirect=/rec/12345678',
    );
  });
});

describe('refusal page addresses', () => {
  it.each([
    ['31002', undefined, 'not-found'],
    ['31003', undefined, 'full'],
    ['31004', undefined, 'no-permission'],
    ['31004', 'removed', 'removed'],
    ['kickout', undefined, 'removed'],
    ['31006', undefined, 'too-many'],
    ['31009', undefined, 'closed'],
    ['9', undefined, 'unavailable'],
  ] as const)('%s (%s) -> %s', (code, reason, kind) => {
    expect(refusalKind(code, reason)).toBe(kind);
  });
  it('carries a valid room number only', () => {
    expect(refusalPath('31003', '123456')).toBe('/refused/full?room=123456');
    expect(refusalPath('31003', 'abc')).toBe('/refused/full');
    expect(refusalPath('31004', '42', 'removed')).toBe('/refused/removed?room=42');
  });
});
