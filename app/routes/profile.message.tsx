import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { Route } from './+types/profile.message.ts';
import type { Announcement } from '#core/contracts/api.ts';
import { MESSAGE_PAGE_SIZE } from '#core/messaging/messaging.service.ts';
import { appContext } from '#app/context.ts';
import { Button } from '#app/components/Button.tsx';
import { LocalTime } from '#app/components/LocalTime.tsx';
import { api, isOk } from '#app/lib/api.ts';
import { useRequestLock } from '#app/lib/lock.ts';
import { toast } from '#app/lib/toast.ts';
import { ArrowLeft } from 'lucide-react';

export async function loader({ context }: Route.LoaderArgs) {
  const { viewer, services } = context.get(appContext);
  if (!viewer) throw new Response('Unauthorized', { status: 401 });
  return services.messaging.list({ pageSize: MESSAGE_PAGE_SIZE });
}

export function meta() {
  return [{ title: '板书 · 消息中心 / Messages' }];
}

/** The message centre (docs/product/03-board-courseware-billing.md §2.7): announcements, 44 px rows, load more, detail with back. */
export default function Messages({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation();
  const [list, setList] = useState<Announcement[]>(loaderData.messageList);
  const [more, setMore] = useState({ hasMore: loaderData.hasMore, next: loaderData.nextPageTime });
  const [open, setOpen] = useState<Announcement | null>(null);
  const lock = useRequestLock();

  const loadMore = () =>
    lock.run(async () => {
      const envelope = await api('getAdminMessageList', { pageTime: more.next, pageSize: MESSAGE_PAGE_SIZE }, { quietNetworkError: true });
      if (!isOk(envelope)) return void toast.error(t('messages.loadFailed'));
      setList((prev) => [...prev, ...envelope.data.messageList.filter((m) => !prev.some((p) => p.id === m.id))]);
      setMore({ hasMore: envelope.data.hasMore, next: envelope.data.nextPageTime });
    });

  if (open) {
    return (
      <article className="stack" aria-labelledby="message-title">
        <div>
          <button type="button" className="btn btn--ghost" onClick={() => setOpen(null)} autoFocus>
            <ArrowLeft size={18} aria-hidden="true" /> {t('messages.back')}
          </button>
        </div>
        <h1 id="message-title">{open.title}</h1>
        <p className="muted">
          <LocalTime at={open.createTime} />
        </p>
        <div className="card message__content" data-testid="message-content">
          {open.content}
        </div>
      </article>
    );
  }

  return (
    <section className="stack" aria-labelledby="messages-title">
      <h1 id="messages-title">{t('messages.title')}</h1>
      {list.length === 0 ? (
        <p className="empty">{t('messages.empty')}</p>
      ) : (
        <ul className="messages" aria-label={t('messages.list')}>
          {list.map((m) => (
            <li key={m.id} className="messages__row">
              <button type="button" onClick={() => setOpen(m)}>
                <span>{m.title}</span>
                <span className="muted">
                  <LocalTime at={m.createTime} />
                </span>
              </button>
            </li>
          ))}
        </ul>
      )}
      {more.hasMore ? (
        <div>
          <Button variant="secondary" loading={lock.busy} onClick={() => void loadMore()}>
            {t('messages.loadMore')}
          </Button>
        </div>
      ) : null}
    </section>
  );
}
