import { LANG_COOKIE } from '#core/contracts/api.ts';
import type { Lang } from '#core/platform/errors.ts';

const ONE_YEAR_S = 365 * 24 * 60 * 60;

/** The language the browser last chose (the `lang` cookie), zh when unset. Browser only. */
export function currentLang(): Lang {
  if (typeof document === 'undefined') return 'zh';
  const match = document.cookie.match(new RegExp(`(?:^|;\\s*)${LANG_COOKIE}=(zh|en)(?:;|$)`));
  return match?.[1] === 'en' ? 'en' : 'zh';
}

export function writeLangCookie(lang: Lang): void {
  document.cookie = `${LANG_COOKIE}=${lang}; path=/; max-age=${ONE_YEAR_S}; samesite=lax`;
}
