/**
 * The name a new teacher gets on the server is '老师' + the last four digits of their mobile
 * (core/account/account.service.ts). The stored name stays the server's (ADR 090); while a name
 * is still exactly that default, the client shows it in the page's language ('Teacher 8987').
 */
const DEFAULT_NAME = /^老师(\d{4})$/;

/** The digits of a generated default name, or null for a name the person chose. */
export function defaultNameDigits(name: string): string | null {
  return DEFAULT_NAME.exec(name)?.[1] ?? null;
}

/** `name` as shown: the generated default in the page's language, any other name as it is. */
export function shownName(name: string, t: (key: 'chrome.defaultName', options: { digits: string }) => string): string {
  const digits = defaultNameDigits(name);
  return digits === null ? name : t('chrome.defaultName', { digits });
}
