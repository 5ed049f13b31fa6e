import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';

export function Brand({ to = '/' }: { to?: string }) {
  const { t } = useTranslation();
  return (
    <Link to={to} className="brand">
      <span className="brand__mark" aria-hidden="true">
        板
      </span>
      <span className="brand__name">{t('app.name')}</span>
    </Link>
  );
}
