import { useTranslation } from 'react-i18next';
import { BellRing, ListChecks, Shuffle, Timer, Toolbox, Trophy, Vote, type LucideIcon } from 'lucide-react';
import { useMenu } from '#app/lib/use-menu.ts';

export type ToolKey = 'quiz' | 'poll' | 'timer' | 'buzzer' | 'pick' | 'reward';

/** An item another part of the classroom adds to the menu (the breakout groups, ADR 118). */
export interface ToolsMenuExtra {
  key: string;
  label: string;
  icon: LucideIcon;
  testId: string;
  disabled?: boolean;
  onSelect: () => void;
}

const ITEMS: Array<{ key: ToolKey; icon: LucideIcon }> = [
  { key: 'quiz', icon: ListChecks },
  { key: 'poll', icon: Vote },
  { key: 'timer', icon: Timer },
  { key: 'buzzer', icon: BellRing },
  { key: 'pick', icon: Shuffle },
  { key: 'reward', icon: Trophy },
];

/**
 * The teacher's Tools menu in the top bar, beside More (ADR 114): one item per tool. Arrow keys,
 * Home and End move between the items; Escape or a click outside closes it and gives the focus back.
 */
export function ToolsMenu({
  onPick,
  disabled,
  extra = [],
}: {
  onPick: (tool: ToolKey) => void;
  disabled: boolean;
  extra?: ToolsMenuExtra[];
}) {
  const { t } = useTranslation();
  const { open, setOpen, box, button, onKeyDown } = useMenu();

  return (
    <div className="menu tools-menu" ref={box} onKeyDown={onKeyDown}>
      <button
        ref={button}
        type="button"
        className="btn btn--ghost tools-menu__button"
        aria-haspopup="menu"
        aria-expanded={open}
        aria-label={t('tools.menuLabel')}
        title={t('tools.menuLabel')}
        disabled={disabled}
        data-testid="tools-button"
        onClick={() => setOpen((o) => !o)}
      >
        <Toolbox size={18} aria-hidden="true" />
        <span className="tools-menu__label">{t('tools.menu')}</span>
      </button>
      {open ? (
        <div className="menu__panel" role="menu" aria-label={t('tools.menuLabel')} data-testid="tools-menu">
          <ul className="menu__list" role="none">
            {ITEMS.map(({ key, icon: Icon }, i) => (
              <li role="none" key={key}>
                <button
                  type="button"
                  role="menuitem"
                  autoFocus={i === 0}
                  data-testid={`tools-${key}`}
                  onClick={() => {
                    setOpen(false);
                    onPick(key);
                  }}
                >
                  <Icon size={18} aria-hidden="true" />
                  {t(`tools.${key}`)}
                </button>
              </li>
            ))}
            {extra.map(({ key, label, icon: Icon, testId, disabled: off, onSelect }) => (
              <li role="none" key={key}>
                <button
                  type="button"
                  role="menuitem"
                  disabled={off}
                  data-testid={testId}
                  onClick={() => {
                    setOpen(false);
                    onSelect();
                  }}
                >
                  <Icon size={18} aria-hidden="true" />
                  {label}
                </button>
              </li>
            ))}
          </ul>
        </div>
      ) : null}
    </div>
  );
}
