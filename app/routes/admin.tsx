import { useEffect, useEffectEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { data, Form, Link, useNavigation } from 'react-router';
import type { Route } from './+types/admin.ts';
import { CONTENT_MAX, TITLE_MAX } from '#core/messaging/messaging.service.ts';
import { appContext } from '#app/context.ts';
import { AppHeader } from '#app/components/AppHeader.tsx';
import { Button } from '#app/components/Button.tsx';
import { LocalTime } from '#app/components/LocalTime.tsx';
import { domainCode } from '#app/lib/domain-error.ts';
import { routeGuard } from '#app/lib/guard.server.ts';
import { toast } from '#app/lib/toast.ts';
import '#app/styles/netlog.css';

export const middleware: Route.MiddlewareFunction[] = [routeGuard];

/** Only the mobile numbers in ADMIN_MOBILES; everyone else sees a page that does not exist. */
function requireAdmin(context: Route.LoaderArgs['context']) {
  const { viewer, services } = context.get(appContext);
  if (!services.site.isAdmin(viewer)) throw data(null, { status: 404 });
  return { viewer: viewer!, services };
}

/** The client-log filter from the address (ADR 102): room number, person (user id), page. */
function logFilter(url: URL) {
  const room = (url.searchParams.get('logRoom') ?? '').trim();
  const person = (url.searchParams.get('logUser') ?? '').trim();
  const page = Number(url.searchParams.get('logPage') ?? '1');
  return {
    roomNumber: /^\d{1,10}$/.test(room) ? room : '',
    userId: /^\d{1,19}$/.test(person) ? person : '',
    page: Number.isInteger(page) && page >= 1 && page <= 10_000 ? page : 1,
  };
}

export async function loader({ context, request }: Route.LoaderArgs) {
  const { viewer, services } = requireAdmin(context);
  const filter = logFilter(new URL(request.url));
  const [messages, trials, feedback, logs] = await Promise.all([
    services.messaging.list({ pageSize: 50 }),
    services.site.latestTrials(50),
    services.messaging.latestFeedback(50),
    services.site.logs({
      ...(filter.roomNumber ? { roomNumber: filter.roomNumber } : {}),
      ...(filter.userId ? { userId: filter.userId } : {}),
      page: filter.page,
    }),
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
    logs: { ...logs, filter },
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
  const busy = navigation.state === 'submitting';
  const filtered = loaderData.logs.filter.roomNumber !== '' || loaderData.logs.filter.userId !== '' || loaderData.logs.filter.page > 1;
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
        {/* A filtered log view (a link from a complaint) opens on the log; otherwise it follows the other sections. */}
        {filtered ? <ClientLogs logs={loaderData.logs} /> : null}
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
        {filtered ? null : <ClientLogs logs={loaderData.logs} />}
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

type LogsData = Route.ComponentProps['loaderData']['logs'];

/** A stored event's details, shown as indented JSON when they are JSON (an old client's plain text as it came). */
function pretty(message: string): string {
  try {
    return JSON.stringify(JSON.parse(message), null, 1);
  } catch {
    return message;
  }
}

/** The operators' view of the client event log (ADR 102): filter by room and person, newest first, paged. */
function ClientLogs({ logs }: { logs: LogsData }) {
  const { t } = useTranslation();
  const { filter } = logs;
  const pageLink = (page: number) => {
    const q = new URLSearchParams();
    if (filter.roomNumber) q.set('logRoom', filter.roomNumber);
    if (filter.userId) q.set('logUser', filter.userId);
    if (page > 1) q.set('logPage', String(page));
    const text = q.toString();
    return `/admin${text ? `?${text}` : ''}#logs-title`;
  };
  return (
    <section className="card stack" aria-labelledby="logs-title" data-testid="admin-logs">
      <h2 id="logs-title">{t('netlog.logs.title')}</h2>
      <p className="muted">{t('netlog.logs.hint')}</p>
      <Form method="get" className="logs__filters" preventScrollReset>
        <div className="field">
          <label htmlFor="log-room">{t('netlog.logs.room')}</label>
          <input
            id="log-room"
            name="logRoom"
            inputMode="numeric"
            pattern="[0-9]{1,10}"
            maxLength={10}
            defaultValue={filter.roomNumber}
            key={`r${filter.roomNumber}`}
          />
        </div>
        <div className="field">
          <label htmlFor="log-user">{t('netlog.logs.person')}</label>
          <input
            id="log-user"
            name="logUser"
            inputMode="numeric"
            pattern="[0-9]{1,19}"
            maxLength={19}
            defaultValue={filter.userId}
            key={`u${filter.userId}`}
          />
        </div>
        <div className="logs__actions">
          <Button type="submit">{t('netlog.logs.filter')}</Button>
          {filter.roomNumber || filter.userId ? (
            <Link className="btn btn--secondary" to="/admin#logs-title" preventScrollReset>
              {t('netlog.logs.clear')}
            </Link>
          ) : null}
        </div>
      </Form>
      {logs.rows.length === 0 ? (
        <p className="muted" data-testid="admin-logs-none">
          {t('netlog.logs.none')}
        </p>
      ) : (
        <ol className="logs__list" data-testid="admin-logs-list">
          {logs.rows.map((r) => (
            <li key={r.id} className="logs__item" data-testid="admin-log" data-event={r.event} data-room={r.roomNumber}>
              <span className="logs__event">{r.event || '—'}</span>
              <span className="logs__who">
                {r.roomNumber ? (
                  <Link to={`/admin?logRoom=${r.roomNumber}#logs-title`} preventScrollReset title={t('netlog.logs.room')}>
                    {r.roomNumber}
                  </Link>
                ) : (
                  '—'
                )}
                {' · '}
                {r.userId ? (
                  <Link to={`/admin?logUser=${r.userId}#logs-title`} preventScrollReset title={t('netlog.logs.person')}>
                    {r.name ? `${r.name} (${r.userId})` : r.userId}
                  </Link>
                ) : (
                  t('netlog.logs.anyone')
                )}
              </span>
              <span className="muted">
                <LocalTime at={r.at} /> · {r.ip}
              </span>
              <pre className="logs__details" aria-label={t('netlog.logs.details')} tabIndex={0}>
                {pretty(r.message)}
              </pre>
            </li>
          ))}
        </ol>
      )}
      <nav className="logs__pager" aria-label={t('netlog.logs.title')}>
        {filter.page > 1 ? (
          <Link className="btn btn--secondary" to={pageLink(filter.page - 1)} preventScrollReset>
            {t('netlog.logs.newer')}
          </Link>
        ) : (
          <span />
        )}
        <span className="muted">{t('netlog.logs.page', { n: filter.page })}</span>
        {logs.hasMore ? (
          <Link className="btn btn--secondary" to={pageLink(filter.page + 1)} preventScrollReset data-testid="admin-logs-older">
            {t('netlog.logs.older')}
          </Link>
        ) : (
          <span />
        )}
      </nav>
    </section>
  );
}
