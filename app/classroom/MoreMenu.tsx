import { useCallback, useRef, useState, type KeyboardEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Ellipsis, Power, Timer, UserPlus } from 'lucide-react';
import { useDismiss } from '#app/lib/use-dismiss.ts';
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
 * ending the class for everyone. Arrow keys move between the items.
 */
export function MoreMenu({ showTrial, onEndClass, onTrial, onInvite }: MoreMenuProps) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  const closeMenu = useCallback(() => setOpen(false), []);
  const box = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);

  useDismiss(open, closeMenu, box, button);

  const pick = (fn: () => void) => () => {
    setOpen(false);
    fn();
  };

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.key !== 'ArrowDown' && event.key !== 'ArrowUp') return;
    const items = [...(box.current?.querySelectorAll<HTMLElement>('[role="menuitem"]') ?? [])].filter(
      (el) => el.getClientRects().length > 0,
    );
    if (items.length === 0) return;
    event.preventDefault();
    const at = items.indexOf(document.activeElement as HTMLElement);
    const next = event.key === 'ArrowDown' ? (at + 1) % items.length : (at - 1 + items.length) % items.length;
    items[next]?.focus();
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
