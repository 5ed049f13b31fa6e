import { LANG_COOKIE } from '#core/contracts/api.ts';
import type { Lang } from '#core/platform/errors.ts';

const ONE_YEAR_S = 365 * 24 * 60 * 60;

let active: Lang | null = null;

/** The page's language, set by the LangProvider (it may come from Accept-Language, not only the cookie). */
export function setActiveLang(lang: Lang): void {
  active = lang;
}

/** The language the page shows: the provider's, else the `lang` cookie, else zh. */
export function currentLang(): Lang {
  if (active) return active;
  if (typeof document === 'undefined') return 'zh';
  const match = document.cookie.match(new RegExp(`(?:^|;\\s*)${LANG_COOKIE}=(zh|en)(?:;|$)`));
  return match?.[1] === 'en' ? 'en' : 'zh';
}

export function writeLangCookie(lang: Lang): void {
  document.cookie = `${LANG_COOKIE}=${lang}; path=/; max-age=${ONE_YEAR_S}; samesite=lax`;
}
