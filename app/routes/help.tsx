import { useTranslation } from 'react-i18next';
import { data, NavLink } from 'react-router';
import type { Route } from './+types/help.ts';
import { PageFrame } from '#app/components/PageFrame.tsx';
import { HELP_TOPICS, isHelpTopic } from '#app/lib/help.ts';

export function loader({ params }: Route.LoaderArgs) {
  if (!isHelpTopic(params.topic)) throw data(null, { status: 404 });
  return { topic: params.topic };
}

export function meta() {
  return [{ title: '板书 · 使用帮助 / Help' }];
}

/** Our own help pages, in both languages, where the old product linked help PDFs (docs/product/01-account-and-lobby.md §2). */
export default function Help({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation();
  const { topic } = loaderData;
  return (
    <PageFrame className="frame--wide">
      <div className="help landing">
        <nav aria-label={t('help.topics')}>
          <h2>{t('help.title')}</h2>
          <ul>
            {HELP_TOPICS.map((k) => (
              <li key={k}>
                <NavLink to={`/help/${k}`}>{t(`help.${k}.title`)}</NavLink>
              </li>
            ))}
          </ul>
        </nav>
        <article className="card stack">
          <h1>{t(`help.${topic}.title`)}</h1>
          <p className="message__content">{t(`help.${topic}.body`)}</p>
        </article>
      </div>
    </PageFrame>
  );
}
