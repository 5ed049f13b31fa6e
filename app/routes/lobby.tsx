import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router';
import type { Route } from './+types/lobby.ts';
import { appContext } from '#app/context.ts';
import { AppHeader } from '#app/components/AppHeader.tsx';
import { Button } from '#app/components/Button.tsx';
import { LoadingOverlay } from '#app/components/LoadingOverlay.tsx';
import { PageFrame } from '#app/components/PageFrame.tsx';
import { isTeacher, routeGuard } from '#app/lib/guard.server.ts';
import { cleanRoomNumber, loginPath, studioNumber } from '#app/lib/names.ts';
import { useDownloadAnchor } from '#app/lib/download-anchor.ts';
import { shownName } from '#app/lib/display-name.ts';
import { parseUa } from '#app/lib/ua.ts';
import { JoinByNumber } from '#app/lobby/JoinByNumber.tsx';
import { RoomTypePicker } from '#app/lobby/RoomTypePicker.tsx';
import { useCreateRoom } from '#app/lobby/useCreateRoom.ts';
import { useCreateDeviceCheck } from '#app/lobby/CreateDeviceCheck.tsx';
import { useJoinRoom } from '#app/lobby/useJoinRoom.ts';

export const middleware: Route.MiddlewareFunction[] = [routeGuard];

export function loader({ context, request }: Route.LoaderArgs) {
  const { viewer } = context.get(appContext);
  const device = parseUa(request.headers.get('user-agent') ?? '').device;
  // A teacher's lobby; anyone else (no session, a named visitor) gets the front door (ADR 098).
  return { user: isTeacher(viewer) ? { mobile: viewer.mobile, name: viewer.name } : null, computer: device === 'pc' };
}

export function meta() {
  return [{ title: '板书 Banshu' }];
}

export default function Lobby({ loaderData }: Route.ComponentProps) {
  const { user, computer } = loaderData;
  return user ? <TeacherLobby user={user} computer={computer} /> : <FrontDoor />;
}

/**
 * `/` without a teacher's session (ADR 098): a student's way in by number, the teacher's sign-in,
 * and the landing page for anyone who wants to know what this is. Never a dead end.
 */
function FrontDoor() {
  const { t } = useTranslation();
  useDownloadAnchor(); // `/#download`: the download section is on the landing page
  return (
    <PageFrame className="frame--login">
      <div className="front" data-testid="front-door">
        <section className="card front__join" aria-labelledby="front-title">
          <h1 id="front-title">{t('journeys.front.title')}</h1>
          <p className="muted">{t('journeys.front.lead')}</p>
          <JoinByNumber name="front" />
        </section>
        <section className="card front__teacher" aria-labelledby="front-teacher-title">
          <h2 id="front-teacher-title">{t('journeys.front.teacherTitle')}</h2>
          <p className="muted">{t('journeys.front.teacherText')}</p>
          <Link className="btn btn--secondary" to={loginPath('/')} data-testid="front-sign-in">
            {t('journeys.front.signIn')}
          </Link>
        </section>
        <p className="front__links">
          <Link to="/home" data-testid="front-about">
            {t('journeys.front.about')}
          </Link>
          <Link to="/createDemo">{t('demo.tryDemo')}</Link>
        </p>
      </div>
    </PageFrame>
  );
}

function TeacherLobby({ user, computer }: { user: { mobile: string; name: string }; computer: boolean }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  useDownloadAnchor(); // `/#download`: the download section is on the landing page
  const [view, setView] = useState<'landing' | 'picker'>('landing');
  const [number, setNumber] = useState('');
  const creating = useCreateRoom();
  // 'Create classroom' enters through the device check (docs/product/01-account-and-lobby.md §2), which can always be skipped.
  const deviceCheck = useCreateDeviceCheck(() => setView('picker'));
  const joining = useJoinRoom();

  const submitJoin = (event: FormEvent) => {
    event.preventDefault();
    void joining.join(number);
  };

  return (
    <div className="page">
      <AppHeader user={user} />
      <main id="main" className="lobby">
        {view === 'landing' ? (
          <>
            <div className="lobby__hero">
              <h1>{user.name ? t('lobby.hello', { name: shownName(user.name, t) }) : t('lobby.title')}</h1>
              <p className="muted">{t('lobby.intro')}</p>
            </div>
            <div className="lobby__grid">
              <section className="card lobby__card lobby__card--create" aria-labelledby="create-title">
                <h2 id="create-title">{t('lobby.createTitle')}</h2>
                <p className="muted">{t('lobby.createText')}</p>
                <Button onClick={() => void deviceCheck.start()} data-testid="open-picker">
                  {t('lobby.createButton')}
                </Button>
              </section>
              <section className="card lobby__card" aria-labelledby="join-title">
                <h2 id="join-title">{t('lobby.joinTitle')}</h2>
                <form className="join" onSubmit={submitJoin}>
                  <label htmlFor="room-number" className="visually-hidden">
                    {t('lobby.joinLabel')}
                  </label>
                  <input
                    id="room-number"
                    name="roomNumber"
                    inputMode="numeric"
                    autoComplete="off"
                    maxLength={10}
                    placeholder={t('lobby.joinPlaceholder')}
                    value={number}
                    onChange={(e) => setNumber(cleanRoomNumber(e.target.value))}
                  />
                  <Button type="submit" loading={joining.busy}>
                    {t('lobby.joinButton')}
                  </Button>
                </form>
                <Link to="/createDemo" data-testid="lobby-try-demo">
                  {t('demo.tryDemoShort')}
                </Link>
              </section>
              <section className="card lobby__card lobby__card--studio" aria-labelledby="studio-title">
                <h2 id="studio-title">
                  {t('lobby.studioTitle')} <span className="badge">{t('lobby.computerOnly')}</span>
                </h2>
                <p className="muted">{t('lobby.studioText')}</p>
                <Button variant="secondary" disabled={!computer} onClick={() => void navigate(`/rec/${studioNumber()}`)}>
                  {t('lobby.studioButton')}
                </Button>
              </section>
            </div>
          </>
        ) : (
          <RoomTypePicker onBack={() => setView('landing')} onCreate={creating.create} creating={creating.busy} />
        )}
      </main>
      {deviceCheck.dialog}
      {creating.busy ? <LoadingOverlay label={t('create.creating')} /> : null}
      {joining.busy ? <LoadingOverlay label={t('join.joining')} /> : null}
    </div>
  );
}
