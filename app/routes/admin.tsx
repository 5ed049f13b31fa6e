import { useEffect, useEffectEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { data, Form, useNavigation } from 'react-router';
import type { Route } from './+types/admin.ts';
import { CONTENT_MAX, TITLE_MAX } from '#core/messaging/messaging.service.ts';
import { appContext } from '#app/context.ts';
import { AppHeader } from '#app/components/AppHeader.tsx';
import { Button } from '#app/components/Button.tsx';
import { LocalTime } from '#app/components/LocalTime.tsx';
import { domainCode } from '#app/lib/domain-error.ts';
import { routeGuard } from '#app/lib/guard.server.ts';
import { toast } from '#app/lib/toast.ts';

export const middleware: Route.MiddlewareFunction[] = [routeGuard];

/** Only the mobile numbers in ADMIN_MOBILES; everyone else sees a page that does not exist. */
function requireAdmin(context: Route.LoaderArgs['context']) {
  const { viewer, services } = context.get(appContext);
  if (!services.site.isAdmin(viewer)) throw data(null, { status: 404 });
  return { viewer: viewer!, services };
}

export async function loader({ context }: Route.LoaderArgs) {
  const { viewer, services } = requireAdmin(context);
  const [messages, trials, feedback] = await Promise.all([
    services.messaging.list({ pageSize: 50 }),
    services.site.latestTrials(50),
    services.messaging.latestFeedback(50),
  ]);
  return {
    user: { mobile: viewer.mobile, name: viewer.name },
    messages: messages.messageList,
    trials: trials.map((r) => ({
      id: r.id,
      name: r.name,
      mobile: r.mobile,
      organisation: r.organisation,
      message: r.message,
      at: r.created_at.getTime(),
    })),
    feedback: feedback.map((f) => ({ id: f.id, content: f.content, mobile: f.mobile ?? '', at: f.created_at.getTime() })),
  };
}

export async function action({ context, request }: Route.ActionArgs) {
  const { viewer, services } = requireAdmin(context);
  const form = await request.formData();
  const field = (name: string) => {
    const v = form.get(name);
    return typeof v === 'string' ? v : '';
  };
  const intent = field('intent');
  try {
    if (intent === 'publish') {
      await services.messaging.publish({ title: field('title'), content: field('content'), author: viewer.mobile });
      return { ok: 'published' as const, at: Date.now() };
    }
    if (intent === 'remove') {
      await services.messaging.removeAnnouncement(field('id'));
      return { ok: 'removed' as const, at: Date.now() };
    }
  } catch (error) {
    const code = domainCode(error);
    if (code) return data({ error: code, at: Date.now() }, { status: 400 });
    throw error;
  }
  return data({ error: '5', at: Date.now() }, { status: 400 });
}

export function meta() {
  return [{ title: '板书 · 运营后台 / Operators' }];
}

export default function Admin({ loaderData, actionData }: Route.ComponentProps) {
  const { t } = useTranslation();
  const navigation = useNavigation();
  const busy = navigation.state !== 'idle';
  // Once per answer of an action (a language switch does not repeat it).
  const announce = useEffectEvent((data: NonNullable<typeof actionData>) => {
    if ('ok' in data) toast.success(data.ok === 'published' ? t('admin.published') : t('admin.removed'));
    else toast.error(t('common.refresh'));
  });
  useEffect(() => {
    if (actionData) announce(actionData);
  }, [actionData]);
  return (
    <div className="page">
      <AppHeader user={loaderData.user} />
      <main id="main" className="landing">
        <h1>{t('admin.title')}</h1>
        <section className="card stack" aria-labelledby="publish-title">
          <h2 id="publish-title">{t('admin.announcements')}</h2>
          <Form method="post" className="stack" key={actionData && 'ok' in actionData ? actionData.at : 'form'}>
            <input type="hidden" name="intent" value="publish" />
            <div className="field">
              <label htmlFor="a-title">{t('admin.titleLabel')}</label>
              <input id="a-title" name="title" required maxLength={TITLE_MAX} />
            </div>
            <div className="field">
              <label htmlFor="a-content">{t('admin.contentLabel')}</label>
              <textarea id="a-content" name="content" required maxLength={CONTENT_MAX} />
            </div>
            <div>
              <Button type="submit" loading={busy}>
                {t('admin.publish')}
              </Button>
            </div>
          </Form>
        </section>
        <section className="card stack" aria-labelledby="existing-title">
          <h2 id="existing-title">{t('admin.existing')}</h2>
          {loaderData.messages.length === 0 ? <p className="muted">{t('admin.none')}</p> : null}
          <ul className="admin-list">
            {loaderData.messages.map((m) => (
              <li key={m.id}>
                <span>
                  {m.title} · <LocalTime at={m.createTime} />
                </span>
                <Form method="post">
                  <input type="hidden" name="intent" value="remove" />
                  <input type="hidden" name="id" value={m.id} />
                  <Button type="submit" variant="danger" disabled={busy} aria-label={`${t('admin.remove')} ${m.title}`}>
                    {t('admin.remove')}
                  </Button>
                </Form>
              </li>
            ))}
          </ul>
        </section>
        <section className="card stack" aria-labelledby="trials-title">
          <h2 id="trials-title">{t('admin.trials')}</h2>
          {loaderData.trials.length === 0 ? (
            <p className="muted">{t('admin.none')}</p>
          ) : (
            <div className="table-wrap">
              <table className="table">
                <thead>
                  <tr>
                    <th scope="col">{t('admin.name')}</th>
                    <th scope="col">{t('admin.mobile')}</th>
                    <th scope="col">{t('admin.organisation')}</th>
                    <th scope="col">{t('admin.message')}</th>
                    <th scope="col">{t('admin.time')}</th>
                  </tr>
                </thead>
                <tbody>
                  {loaderData.trials.map((r) => (
                    <tr key={r.id}>
                      <td>{r.name}</td>
                      <td className="mono">{r.mobile}</td>
                      <td>{r.organisation}</td>
                      <td>{r.message}</td>
                      <td>
                        <LocalTime at={r.at} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </section>
        <section className="card stack" aria-labelledby="feedback-list-title">
          <h2 id="feedback-list-title">{t('admin.feedback')}</h2>
          {loaderData.feedback.length === 0 ? <p className="muted">{t('admin.none')}</p> : null}
          <ul className="admin-list">
            {loaderData.feedback.map((f) => (
              <li key={f.id}>
                <span className="message__content">{f.content}</span>
                <span className="muted">
                  {f.mobile} · <LocalTime at={f.at} />
                </span>
              </li>
            ))}
          </ul>
        </section>
      </main>
    </div>
  );
}
