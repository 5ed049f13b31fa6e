import { useTranslation } from 'react-i18next';

/** Covers the page while a blocking request runs; announced to screen readers. */
export function LoadingOverlay({ label }: { label?: string }) {
  const { t } = useTranslation();
  return (
    <div className="overlay" role="alert" aria-busy="true" aria-live="assertive">
      <div className="overlay__box">
        <span className="spinner spinner--large" aria-hidden="true" />
        <span>{label ?? t('common.loading')}</span>
      </div>
    </div>
  );
}
