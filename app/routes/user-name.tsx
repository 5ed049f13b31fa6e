import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { isRoomRefusal, refusalPath } from '#app/lib/refusal.ts';
import { data, Link, useNavigate } from 'react-router';
import type { Route } from './+types/user-name.ts';
import { invitePath } from '#core/contracts/api.ts';
import { appContext } from '#app/context.ts';
import { domainCode } from '#app/lib/domain-error.ts';
import type { JoinedState } from '#app/classroom/joined.ts';
import { PreJoin, usesCamera, type PreJoinChoice } from '#app/classroom/PreJoin.tsx';
import { PageFrame } from '#app/components/PageFrame.tsx';
import { useLang } from '#app/components/lang.tsx';
import { api, isOk, NETWORK_ERROR } from '#app/lib/api.ts';
import { useRequestLock } from '#app/lib/lock.ts';
import { codeMessage } from '#app/lib/messages.ts';
import { checkName, isRouteRoomId, loginPath } from '#app/lib/names.ts';
import { safeSet, TOURIST_NAME_KEY, updateKey } from '#app/lib/storage.ts';
import { toast } from '#app/lib/toast.ts';

export async function loader({ params, context }: Route.LoaderArgs) {
  if (!isRouteRoomId(params.id)) throw data(null, { status: 404 });
  const { services, viewer, ip } = context.get(appContext);
  try {
    // Counted like the API's look-ups: this page must not tell a walker which numbers exist (ADR 066).
    const room = await services.roomLookups.roomInfo(viewer, ip, params.id);
    return { roomNumber: params.id, roomPath: invitePath(room.roomType, room.roomNumber), found: true, roomType: room.roomType as number };
  } catch (error) {
    if (domainCode(error) === '31002') return { roomNumber: params.id, roomPath: `/${params.id}`, found: false, roomType: 0 };
    if (domainCode(error) === '31006') throw data(null, { status: 429 });
    throw error;
  }
}

export function meta() {
  return [{ title: '板书 · 输入姓名 / Your name' }];
}

/**
 * The visitor's pre-join (docs/product/01-account-and-lobby.md §2, ADR 089): a tourist names themself here, beside
 * the camera preview and the switches, and enters without an account. Back leads to the lobby.
 */
export default function UserName({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation();
  const { lang } = useLang();
  const navigate = useNavigate();
  const { busy, run } = useRequestLock();
  const [error, setError] = useState<string | null>(null);
  const { roomNumber, roomPath, found, roomType } = loaderData;

  const join = ({ name }: PreJoinChoice) => {
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
        // A refusal of the room (full, closed, removed...) opens the refusal page (ADR 091).
        if (isRoomRefusal(envelope.code)) void navigate(refusalPath(envelope.code, roomNumber, envelope.reason), { replace: true });
        else if (envelope.code !== NETWORK_ERROR) toast.error(codeMessage(envelope.code, lang) ?? envelope.msg);
        return;
      }
      safeSet('session', TOURIST_NAME_KEY, check.name);
      safeSet('local', updateKey(roomNumber), 'true');
      const room = envelope.data.roomInfo;
      const state: JoinedState = { joined: envelope.data, at: Date.now(), preJoined: true };
      await navigate(invitePath(room.roomType, room.roomNumber), { state, replace: true });
    });
  };

  if (!found) {
    return (
      <PageFrame>
        <section className="card card--narrow stack" aria-labelledby="name-title">
          <h1 id="name-title">{t('userName.roomMissing')}</h1>
          <p className="muted">{t('userName.room', { n: roomNumber })}</p>
          <Link to="/home" className="btn btn--primary">
            {t('prejoin.back')}
          </Link>
        </section>
      </PageFrame>
    );
  }
  return (
    <PreJoin
      roomNumber={roomNumber}
      audience={roomType === 4}
      camera={usesCamera(roomType)}
      needName
      nameError={error}
      onNameChange={() => setError(null)}
      busy={busy}
      backTo="/home"
      onJoin={join}
      footer={
        <p className="center">
          <Link to={loginPath(roomPath)}>{t('userName.teacherLogin')}</Link>
        </p>
      }
    />
  );
}
