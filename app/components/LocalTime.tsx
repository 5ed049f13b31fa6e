import { useSyncExternalStore } from 'react';
import { useLang } from './lang.tsx';

/**
 * A timestamp in the reader's time zone. The server cannot know that zone, so the first render
 * (server and hydration) uses UTC and the browser re-renders in its own zone after mounting.
 */
const noChanges = () => () => undefined;
const inBrowser = () => true;
const onServer = () => false;

export function LocalTime({ at, dateOnly = false }: { at: number; dateOnly?: boolean }) {
  const { lang } = useLang();
  // false on the server and while hydrating, true once the browser renders on its own.
  const local = useSyncExternalStore(noChanges, inBrowser, onServer);
  const format = new Intl.DateTimeFormat(lang === 'zh' ? 'zh-CN' : 'en-GB', {
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    ...(dateOnly ? {} : { hour: '2-digit', minute: '2-digit' }),
    ...(local ? {} : { timeZone: 'UTC' }),
  });
  return <time dateTime={new Date(at).toISOString()}>{format.format(at)}</time>;
}
