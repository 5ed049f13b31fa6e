import { useTranslation } from 'react-i18next';
import { data, Link } from 'react-router';
import type { Route } from './+types/user-name.ts';
import { invitePath } from '#core/contracts/api.ts';
import { appContext } from '#app/context.ts';
import { domainCode } from '#app/lib/domain-error.ts';
import { PreJoin, usesCamera } from '#app/classroom/PreJoin.tsx';
import { PageFrame } from '#app/components/PageFrame.tsx';
import { isRouteRoomId, loginPath } from '#app/lib/names.ts';
import { useVisitorJoin } from '#app/lobby/useVisitorJoin.ts';

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
  const { roomNumber, roomPath, found, roomType } = loaderData;
  const { busy, error, clearError, join } = useVisitorJoin(roomNumber, (joined) =>
    invitePath(joined.roomInfo.roomType, joined.roomInfo.roomNumber),
  );

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
      onNameChange={clearError}
      busy={busy}
      backTo="/home"
      onJoin={({ name }) => join(name)}
      footer={
        <p className="center">
          <Link to={loginPath(roomPath)}>{t('userName.teacherLogin')}</Link>
        </p>
      }
    />
  );
}
