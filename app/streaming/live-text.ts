/**
 * The live-streaming strings (app/i18n/live.zh.ts, live.en.ts: the `live` part of the app's
 * resources) by language, outside React (tests, formatting helpers). Components use
 * `useLiveText`, which reads the same strings through i18next.
 */
import type { Lang } from '#core/platform/errors.ts';
import { liveEn } from '#app/i18n/live.en.ts';
import { liveZh, type LiveMessages } from '#app/i18n/live.zh.ts';

type Paths<T> = { [K in keyof T & string]: T[K] extends string ? K : `${K}.${Paths<T[K]>}` }[keyof T & string];

/** A live string's key, e.g. 'key.title' or 'failure.refused'. */
export type LiveKey = Paths<LiveMessages>;
export type LiveText = (key: LiveKey, vars?: Record<string, string | number>) => string;

const RESOURCES: Record<Lang, LiveMessages> = { zh: liveZh, en: liveEn };

/** The string of `key` in `lang` with its {{placeholders}} filled (the Chinese one when a language lacks it). */
export function liveText(lang: Lang, key: LiveKey, vars: Record<string, string | number> = {}): string {
  const find = (messages: LiveMessages): string | undefined => {
    let node: unknown = messages;
    for (const part of key.split('.'))
      node = typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[part] : undefined;
    return typeof node === 'string' ? node : undefined;
  };
  const template = find(RESOURCES[lang]) ?? find(liveZh) ?? key;
  return template.replace(/\{\{\s*(\w+)\s*\}\}/g, (whole, name: string) => (name in vars ? String(vars[name]) : whole));
}
