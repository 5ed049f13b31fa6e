import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Brand } from './Brand.tsx';
import { LanguageSwitch } from './lang.tsx';

/** The frame of pages without the account header: brand, language switch, centred content. */
export function PageFrame({ children, className }: { children: ReactNode; className?: string }) {
  const { t } = useTranslation();
  return (
    <div className={`frame ${className ?? ''}`}>
      <header className="frame__header">
        <Brand />
        <LanguageSwitch />
      </header>
      <main id="main" className="frame__main">
        {children}
      </main>
      <footer className="frame__footer">{t('app.tagline')}</footer>
    </div>
  );
}
