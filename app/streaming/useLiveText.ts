import { useCallback } from 'react';
import { useTranslation } from 'react-i18next';
import type { LiveText } from './live-text.ts';

/** `t` for the live strings (the `live` part of the app's resources) in the page's language. */
export function useLiveText(): LiveText {
  const { t } = useTranslation();
  return useCallback<LiveText>((key, vars) => t(`live.${key}` as 'live.badge', vars ?? {}), [t]);
}
