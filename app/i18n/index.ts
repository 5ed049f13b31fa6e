import i18next, { type i18n as I18n } from 'i18next';
import type { Lang } from '#core/platform/errors.ts';
import { en } from './en.ts';
import { zh, type Messages } from './zh.ts';

declare module 'i18next' {
  interface CustomTypeOptions {
    defaultNS: 'translation';
    resources: { translation: Messages };
  }
}

export const LANGS: readonly Lang[] = ['zh', 'en'];
export const DEFAULT_LANG: Lang = 'zh';

export function isLang(value: unknown): value is Lang {
  return value === 'zh' || value === 'en';
}

/**
 * A fresh i18next instance, initialised synchronously so the server renders the first paint
 * in the right language and the client hydrates with the same text. One instance per request
 * on the server (languages differ between concurrent requests), one per page on the client.
 */
export function createI18n(lang: Lang): I18n {
  const instance = i18next.createInstance();
  void instance.init({
    lng: lang,
    fallbackLng: DEFAULT_LANG,
    supportedLngs: [...LANGS],
    resources: { zh: { translation: zh }, en: { translation: en } },
    initAsync: false,
    interpolation: { escapeValue: false }, // React escapes
    returnNull: false,
  });
  return instance;
}
