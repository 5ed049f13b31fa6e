import { useCallback, useId, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useDismiss } from '#app/lib/use-dismiss.ts';
import { Link, NavLink, useNavigate } from 'react-router';
import { api } from '#app/lib/api.ts';
import { LanguageSwitch } from './lang.tsx';
import { useConfirm } from './Dialog.tsx';
import { Brand } from './Brand.tsx';
import { shownName } from '#app/lib/display-name.ts';
import { ChevronDown } from 'lucide-react';

export interface HeaderUser {
  mobile: string;
  name: string;
}

/** Masks the middle of a mobile number the way the old side menu did: 138****1234. */
function maskMobile(mobile: string): string {
  return mobile.length === 11 ? `${mobile.slice(0, 3)}****${mobile.slice(7)}` : mobile;
}

export function AppHeader({ user }: { user: HeaderUser | null }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const confirm = useConfirm();
  const [open, setOpen] = useState(false);
  const closeMenu = useCallback(() => setOpen(false), []);
  const menuId = useId();
  const wrapRef = useRef<HTMLDivElement>(null);
  const buttonRef = useRef<HTMLButtonElement>(null);

  useDismiss(open, closeMenu, wrapRef, buttonRef);

  const logout = async () => {
    setOpen(false);
    if (!(await confirm({ message: t('menu.logoutConfirm') }))) return;
    await api('logout', {}, { quietNetworkError: true });
    localStorage.clear();
    await navigate('/login');
  };

  return (
    <header className="app-header">
      <Brand />
      {user ? (
        <nav className="app-header__nav" aria-label={t('menu.account')}>
          <NavLink to="/" end className="app-header__link">
            {t('menu.lobby')}
          </NavLink>
          <NavLink to="/profile/room" className="app-header__link">
            {t('menu.myRooms')}
          </NavLink>
          <NavLink to="/profile/personal" className="app-header__link">
            {t('menu.personal')}
          </NavLink>
          <NavLink to="/profile/payment" className="app-header__link">
            {t('menu.payment')}
          </NavLink>
        </nav>
      ) : null}
      <div className="app-header__end">
        <LanguageSwitch />
        {user ? (
          <div className="menu" ref={wrapRef}>
            <button
              ref={buttonRef}
              type="button"
              className="menu__button"
              aria-expanded={open}
              aria-controls={menuId}
              onClick={() => setOpen((v) => !v)}
            >
              <span className="menu__avatar" aria-hidden="true">
                {(shownName(user.name, t) || user.mobile).slice(0, 1)}
              </span>
              <span className="menu__mobile">{maskMobile(user.mobile)}</span>
              {/* The name includes what the button shows (WCAG 2.5.3), then what it does. */}
              <span className="visually-hidden">{t('menu.open')}</span>
              <ChevronDown className="menu__caret" size={16} aria-hidden="true" />
            </button>
            {open ? (
              <div className="menu__panel" id={menuId}>
                <p className="menu__who">
                  <strong>{shownName(user.name, t) || maskMobile(user.mobile)}</strong>
                  <span>{user.mobile}</span>
                </p>
                <ul className="menu__list">
                  <li>
                    <Link to="/profile/room" onClick={() => setOpen(false)}>
                      {t('menu.myRooms')}
                    </Link>
                  </li>
                  <li>
                    <Link to="/profile/personal" onClick={() => setOpen(false)}>
                      {t('menu.personal')}
                    </Link>
                  </li>
                  <li>
                    <Link to="/profile/payment" onClick={() => setOpen(false)}>
                      {t('menu.payment')}
                    </Link>
                  </li>
                  <li>
                    <Link to="/profile/message" onClick={() => setOpen(false)}>
                      {t('menu.message')}
                    </Link>
                  </li>
                  <li>
                    <button type="button" onClick={() => void logout()}>
                      {t('menu.logout')}
                    </button>
                  </li>
                </ul>
              </div>
            ) : null}
          </div>
        ) : null}
      </div>
    </header>
  );
}
