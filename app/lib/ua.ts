/**
 * User-Agent reading for the navigation guard (docs/product/01-account-and-lobby.md §2). Pure functions: the server runs them
 * in route middleware with the request's header, the tests feed them real UA strings.
 */
export type DeviceKind = 'pc' | 'phone' | 'tablet';
export type OsKind = 'windows' | 'mac' | 'linux' | 'android' | 'ios' | 'other';
export type BrowserKind = 'chrome' | 'safari' | 'wechat' | 'firefox' | 'other';
export type DownloadType = 'pc' | 'ios' | 'android';

export interface UaInfo {
  device: DeviceKind;
  os: OsKind;
  browser: BrowserKind;
  /** Major and minor version of the browser, [0, 0] when unknown. */
  version: [number, number];
  /** Major and minor version of iOS / iPadOS on an iPhone, iPad or iPod, [0, 0] elsewhere. */
  iosVersion: [number, number];
}

function versionOf(match: RegExpMatchArray | null): [number, number] {
  if (!match) return [0, 0];
  return [Number(match[1] ?? 0) || 0, Number(match[2] ?? 0) || 0];
}

export function parseUa(ua: string): UaInfo {
  const s = ua || '';
  const ios = /\b(iPhone|iPad|iPod)\b/.test(s);
  const android = /\bAndroid\b/.test(s);
  let os: OsKind = 'other';
  if (ios) os = 'ios';
  else if (android) os = 'android';
  else if (/Windows NT|Windows/.test(s)) os = 'windows';
  else if (/Macintosh|Mac OS X/.test(s)) os = 'mac';
  else if (/Linux|X11|CrOS/.test(s)) os = 'linux';

  let device: DeviceKind = 'pc';
  if (/\biPad\b/.test(s) || (android && !/Mobile/.test(s)) || /Tablet|PlayBook|Silk\//.test(s)) device = 'tablet';
  else if (/\b(iPhone|iPod)\b/.test(s) || (android && /Mobile/.test(s)) || /Windows Phone|IEMobile|Mobile Safari/.test(s)) device = 'phone';

  let browser: BrowserKind = 'other';
  let version: [number, number] = [0, 0];
  const wechat = s.match(/MicroMessenger\/(\d+)(?:\.(\d+))?/);
  const legacyEdge = /\bEdge\/\d+/.test(s);
  const chrome = s.match(/(?:HeadlessChrome|Chrome|CriOS)\/(\d+)(?:\.(\d+))?/);
  const firefox = s.match(/(?:Firefox|FxiOS)\/(\d+)(?:\.(\d+))?/);
  const safari = s.match(/Version\/(\d+)(?:\.(\d+))?.*Safari\//);
  if (wechat) {
    browser = 'wechat';
    version = versionOf(wechat);
  } else if (chrome && !legacyEdge) {
    // Chromium-based browsers (Edge, Opera, Brave...) carry the Chrome token and engine version.
    browser = 'chrome';
    version = versionOf(chrome);
  } else if (firefox) {
    browser = 'firefox';
    version = versionOf(firefox);
  } else if (safari && (os === 'mac' || os === 'ios')) {
    browser = 'safari';
    version = versionOf(safari);
  }
  const iosVersion = ios ? versionOf(s.match(/\bOS (\d+)(?:_(\d+))?/)) : ([0, 0] as [number, number]);
  return { device, os, browser, version, iosVersion };
}

function atLeast(v: [number, number], major: number, minor = 0): boolean {
  return v[0] > major || (v[0] === major && v[1] >= minor);
}

/**
 * Chrome 65+ outside iOS, the WeChat in-app browser, or Safari 12.1+, on a known system
 * (docs/product/01-account-and-lobby.md §2 rule 4). Phones and tablets are judged by the same rule,
 * plus one addition of ADR 091: on iOS 14.3+ every browser is WebKit with camera access, so Chrome
 * and Firefox for iOS join there too.
 */
export function isSupportedBrowser(info: UaInfo): boolean {
  if (info.os === 'other') return false;
  if (info.os === 'ios' && (info.browser === 'chrome' || info.browser === 'firefox')) return atLeast(info.iosVersion, 14, 3);
  switch (info.browser) {
    case 'wechat':
      return true;
    case 'chrome':
      return atLeast(info.version, 65);
    case 'safari':
      return atLeast(info.version, 12, 1);
    case 'firefox':
    case 'other':
      return false;
  }
}

export function downloadType(info: UaInfo): DownloadType {
  if (info.os === 'ios') return 'ios';
  if (info.os === 'android') return 'android';
  return 'pc';
}

/** Phones and tablets: they join in the browser with the phone layout (ADR 091). */
export function isMobileDevice(info: UaInfo): boolean {
  return info.device !== 'pc';
}
