import { useTranslation } from 'react-i18next';
import { Ellipsis, Power, Timer, UserPlus } from 'lucide-react';
import { useMenu } from '#app/lib/use-menu.ts';
import { ServiceLinkItem, UpgradeLinkItem } from './UpgradeCall.tsx';

export interface MoreMenuProps {
  showTrial: boolean;
  onEndClass: () => void;
  onTrial: () => void;
  /** The invite panel: an item of its own here when the bar is too narrow for its button (ADR 090). */
  onInvite: () => void;
}

/**
 * The creator's More menu: what the top bar has no room for (invite, below 1180 px), the
 * 10-minute trial, the upgrade and online-service links when the settings give them (ADR 103), and
 * ending the class for everyone. Arrow keys, Home and End move between the items (app/lib/use-menu.ts, shared with the Tools menu).
 */
export function MoreMenu({ showTrial, onEndClass, onTrial, onInvite }: MoreMenuProps) {
  const { t } = useTranslation();
  const { open, setOpen, close: closeMenu, box, button, onKeyDown } = useMenu();

  const pick = (fn: () => void) => () => {
    setOpen(false);
    fn();
  };

  return (
    <div className="menu room-more" ref={box} onKeyDown={onKeyDown}>
      <button
        ref={button}
        type="button"
        className="btn btn--ghost room-more__button"
        aria-haspopup="menu"
        aria-expanded={open}
        aria-label={t('chrome.moreLabel')}
        title={t('chrome.moreLabel')}
        data-testid="more-button"
        onClick={() => setOpen((o) => !o)}
      >
        <Ellipsis size={18} aria-hidden="true" />
        <span className="room-more__label">{t('classroom.more')}</span>
      </button>
      {open ? (
        <div className="menu__panel" role="menu" aria-label={t('chrome.moreLabel')} data-testid="more-menu">
          <ul className="menu__list" role="none">
            <li role="none" className="room-more__overflow">
              <button type="button" role="menuitem" onClick={pick(onInvite)} data-testid="more-invite">
                <UserPlus size={18} aria-hidden="true" />
                {t('classroom.inviteButton')}
              </button>
            </li>
            {showTrial ? (
              <li role="none">
                <button type="button" role="menuitem" onClick={pick(onTrial)} autoFocus>
                  <Timer size={18} aria-hidden="true" />
                  {t('classroom.trial')}
                </button>
              </li>
            ) : null}
            <UpgradeLinkItem onPick={closeMenu} />
            <ServiceLinkItem onPick={closeMenu} />
            <li role="none">
              <button type="button" role="menuitem" className="menu__danger" onClick={pick(onEndClass)} autoFocus={!showTrial}>
                <Power size={18} aria-hidden="true" />
                {t('classroom.endClass')}
              </button>
            </li>
          </ul>
        </div>
      ) : null}
    </div>
  );
}
