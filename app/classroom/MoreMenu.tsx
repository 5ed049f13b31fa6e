import { useCallback, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useDismiss } from '#app/lib/use-dismiss.ts';

export interface MoreMenuProps {
  showTrial: boolean;
  onEndClass: () => void;
  onTrial: () => void;
}

/** The creator's more-settings menu: end the class for everyone, the 10-minute trial. */
export function MoreMenu({ showTrial, onEndClass, onTrial }: MoreMenuProps) {
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

  return (
    <div className="menu" ref={box}>
      <button
        ref={button}
        type="button"
        className="btn btn--ghost"
        aria-haspopup="menu"
        aria-expanded={open}
        onClick={() => setOpen((o) => !o)}
      >
        {t('classroom.more')} <span aria-hidden="true">▾</span>
      </button>
      {open ? (
        <div className="menu__panel" role="menu">
          <ul className="menu__list">
            {showTrial ? (
              <li>
                <button type="button" role="menuitem" onClick={pick(onTrial)} autoFocus>
                  {t('classroom.trial')}
                </button>
              </li>
            ) : null}
            <li>
              <button type="button" role="menuitem" className="menu__danger" onClick={pick(onEndClass)} autoFocus={!showTrial}>
                {t('classroom.endClass')}
              </button>
            </li>
          </ul>
        </div>
      ) : null}
    </div>
  );
}
