import { createContext, useCallback, useContext, useMemo, useState, type ReactNode } from 'react';
import { I18nextProvider, useTranslation } from 'react-i18next';
import { Languages } from 'lucide-react';
import { useRevalidator } from 'react-router';
import type { Lang } from '#core/platform/errors.ts';
import { createI18n } from '#app/i18n/index.ts';
import { setActiveLang, writeLangCookie } from '#app/lib/lang.ts';

interface LangState {
  lang: Lang;
  setLang: (lang: Lang) => void;
}

const LangContext = createContext<LangState>({ lang: 'zh', setLang: () => undefined });

export function useLang(): LangState {
  return useContext(LangContext);
}

/**
 * Holds the page's language. Starts from the server's choice (the `lang` cookie read into the
 * request context) so the first paint and hydration agree; switching writes the cookie, re-renders
 * in place and revalidates loaders so server-made text follows.
 */
export function LangProvider({ initial, children }: { initial: Lang; children: ReactNode }) {
  const [i18n] = useState(() => {
    if (typeof window !== 'undefined') setActiveLang(initial);
    return createI18n(initial);
  });
  const [lang, setLangState] = useState<Lang>(initial);
  const revalidator = useRevalidator();
  const setLang = useCallback(
    (next: Lang) => {
      writeLangCookie(next);
      setActiveLang(next);
      void i18n.changeLanguage(next);
      document.documentElement.lang = next === 'zh' ? 'zh-CN' : 'en';
      setLangState(next);
      void revalidator.revalidate();
    },
    [i18n, revalidator],
  );
  const value = useMemo(() => ({ lang, setLang }), [lang, setLang]);
  return (
    <I18nextProvider i18n={i18n}>
      <LangContext.Provider value={value}>{children}</LangContext.Provider>
    </I18nextProvider>
  );
}

/**
 * Switches between Chinese and English. `compact` (the classroom's bars): the icon and a short
 * code ('EN' / '中'), the full name as its accessible name and tooltip.
 */
export function LanguageSwitch({ className, compact = false }: { className?: string; compact?: boolean }) {
  const { t } = useTranslation();
  const { lang, setLang } = useLang();
  const other: Lang = lang === 'zh' ? 'en' : 'zh';
  return (
    <button
      type="button"
      className={`lang-switch${compact ? ' lang-switch--compact' : ''} ${className ?? ''}`}
      onClick={() => setLang(other)}
      title={t('lang.switchToLabel')}
      lang={other === 'zh' ? 'zh-CN' : 'en'}
      data-testid="lang-switch"
    >
      <Languages className="lang-switch__icon" size={16} aria-hidden="true" />
      {/* Named by its hidden words, not an aria-label, so the name holds what it shows (WCAG 2.5.3). */}
      <span aria-hidden="true">{compact ? (other === 'zh' ? '中' : 'EN') : t('lang.switchTo')}</span>
      <span className="visually-hidden">{t('lang.switchToLabel')}</span>
    </button>
  );
}
