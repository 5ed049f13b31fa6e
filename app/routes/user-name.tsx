import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { data, Link, useNavigate } from 'react-router';
import type { Route } from './+types/user-name.ts';
import { invitePath } from '#core/contracts/api.ts';
import { appContext } from '#app/context.ts';
import { domainCode } from '#app/lib/domain-error.ts';
import type { JoinedState } from '#app/classroom/joined.ts';
import { Button } from '#app/components/Button.tsx';
import { PageFrame } from '#app/components/PageFrame.tsx';
import { useLang } from '#app/components/lang.tsx';
import { api, isOk, NETWORK_ERROR } from '#app/lib/api.ts';
import { useRequestLock } from '#app/lib/lock.ts';
import { codeMessage } from '#app/lib/messages.ts';
import { checkName, isRouteRoomId, loginPath, NAME_MAX } from '#app/lib/names.ts';
import { safeSet, TOURIST_NAME_KEY, updateKey } from '#app/lib/storage.ts';
import { toast } from '#app/lib/toast.ts';

export async function loader({ params, context }: Route.LoaderArgs) {
  if (!isRouteRoomId(params.id)) throw data(null, { status: 404 });
  const { services, viewer, ip } = context.get(appContext);
  try {
    // Counted like the API's look-ups: this page must not tell a walker which numbers exist (ADR 066).
    const room = await services.roomLookups.roomInfo(viewer, ip, params.id);
    return { roomNumber: params.id, roomPath: invitePath(room.roomType, room.roomNumber), found: true };
  } catch (error) {
    if (domainCode(error) === '31002') return { roomNumber: params.id, roomPath: `/${params.id}`, found: false };
    if (domainCode(error) === '31006') throw data(null, { status: 429 });
    throw error;
  }
}

export function meta() {
  return [{ title: '板书 · 输入姓名 / Your name' }];
}

/** The visitor name screen (docs/product/01-account-and-lobby.md §2): a tourist names themself and enters without an account. */
export default function UserName({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation();
  const { lang } = useLang();
  const navigate = useNavigate();
  const { busy, run } = useRequestLock();
  const [name, setName] = useState('');
  const [error, setError] = useState<string | null>(null);
  const { roomNumber, roomPath, found } = loaderData;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const check = checkName(name);
    if (!check.ok) {
      const text = check.reason === 'empty' ? t('userName.empty') : t('userName.invalid');
      setError(text);
      toast.error(text);
      return;
    }
    void run(async (requestId) => {
      const envelope = await api('touristJoinRoom', { roomNumber, userName: check.name }, { requestId, retries: 1 });
      if (!isOk(envelope)) {
        if (envelope.code !== NETWORK_ERROR) toast.error(codeMessage(envelope.code, lang) ?? envelope.msg);
        return;
      }
      safeSet('session', TOURIST_NAME_KEY, check.name);
      safeSet('local', updateKey(roomNumber), 'true');
      const room = envelope.data.roomInfo;
      const state: JoinedState = { joined: envelope.data, at: Date.now() };
      await navigate(invitePath(room.roomType, room.roomNumber), { state, replace: true });
    });
  };

  return (
    <PageFrame>
      <section className="card card--narrow stack" aria-labelledby="name-title">
        <div>
          <Link to="/profile" className="btn btn--ghost btn--small">
            <span aria-hidden="true">←</span> {t('common.back')}
          </Link>
        </div>
        <h1 id="name-title">{t('userName.title')}</h1>
        <p className="muted">
          {t('userName.room', { n: roomNumber })} · {t('userName.text')}
        </p>
        {!found ? (
          <p className="hint" role="alert">
            {t('userName.roomMissing')}
          </p>
        ) : null}
        <form className="stack" onSubmit={submit} noValidate>
          <div className="field">
            <label htmlFor="visitor-name">{t('userName.label')}</label>
            <input
              id="visitor-name"
              name="userName"
              autoComplete="nickname"
              maxLength={NAME_MAX + 2}
              placeholder={t('userName.placeholder')}
              value={name}
              onChange={(e) => {
                setName(e.target.value);
                setError(null);
              }}
              aria-invalid={error ? true : undefined}
              aria-describedby={error ? 'visitor-name-error' : undefined}
              autoFocus
            />
            {error ? (
              <p id="visitor-name-error" className="field__error">
                {error}
              </p>
            ) : null}
          </div>
          <Button type="submit" block loading={busy}>
            {t('userName.enter')}
          </Button>
        </form>
        <p className="center">
          <Link to={loginPath(roomPath)}>{t('userName.teacherLogin')}</Link>
        </p>
      </section>
    </PageFrame>
  );
}
