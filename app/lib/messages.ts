import { errorCatalogue, type ErrorCode, type Lang } from '#core/platform/errors.ts';
import { en } from '#app/i18n/en.ts';
import { zh } from '#app/i18n/zh.ts';

export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(errorCatalogue, code);
}

/** The catalogue's message for a code in the given language, or undefined for unknown codes. */
export function codeMessage(code: string, lang: Lang): string | undefined {
  return isErrorCode(code) ? errorCatalogue[code][lang] : undefined;
}

/** Outside React (the API client) there is no t(); read the resources directly. */
export function networkMessage(lang: Lang): string {
  return (lang === 'en' ? en : zh).common.networkError;
}
