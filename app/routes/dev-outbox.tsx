import { useTranslation } from 'react-i18next';
import { data } from 'react-router';
import type { Route } from './+types/dev-outbox.ts';
import { appContext } from '#app/context.ts';
import { LocalTime } from '#app/components/LocalTime.tsx';
import { PageFrame } from '#app/components/PageFrame.tsx';

export function loader({ context }: Route.LoaderArgs) {
  const { site, services } = context.get(appContext);
  if (!site.devOutbox) throw data(null, { status: 404 });
  const messages = [...(services.devOutbox?.list() ?? [])].sort((a, b) => b.at - a.at);
  return { messages };
}

export function meta() {
  return [{ title: '板书 · Dev outbox' }];
}

/** Development only: the SMS codes the console sender kept, newest first. */
export default function DevOutbox({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation();
  return (
    <PageFrame>
      <section className="card stack" aria-labelledby="outbox-title">
        <h1 id="outbox-title">{t('outbox.title')}</h1>
        <p className="muted">{t('outbox.text')}</p>
        {loaderData.messages.length === 0 ? (
          <p>{t('outbox.empty')}</p>
        ) : (
          <div className="table-wrap">
            <table className="table">
              <thead>
                <tr>
                  <th scope="col">{t('outbox.mobile')}</th>
                  <th scope="col">{t('outbox.code')}</th>
                  <th scope="col">{t('outbox.purpose')}</th>
                  <th scope="col">{t('outbox.time')}</th>
                </tr>
              </thead>
              <tbody>
                {loaderData.messages.map((m) => (
                  <tr key={`${m.mobile}-${m.at}-${m.code}`}>
                    <td>{m.mobile}</td>
                    <td className="mono" data-testid="outbox-code">
                      {m.code}
                    </td>
                    <td>{m.purpose}</td>
                    <td>
                      <LocalTime at={m.at} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </PageFrame>
  );
}
