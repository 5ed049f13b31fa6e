import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

/** An app-store button from the settings; without a configured address it says 'not available yet'. */
export function StoreLink({ href, className, id, children }: { href: string | null; className: string; id?: string; children: ReactNode }) {
  const { t } = useTranslation();
  if (!href) {
    return (
      <span id={id} className={`${className} btn--unavailable`} aria-disabled="true" data-testid={id ? `store-${id}` : undefined}>
        {children}
        {t('mobile.notYet')}
      </span>
    );
  }
  return (
    <a id={id} className={className} href={href} rel="noopener noreferrer" data-testid={id ? `store-${id}` : undefined}>
      {children}
    </a>
  );
}
