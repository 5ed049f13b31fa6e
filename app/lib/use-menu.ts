import { useCallback, useRef, useState, type KeyboardEvent } from 'react';
import { useDismiss } from './use-dismiss.ts';

const KEYS = ['ArrowDown', 'ArrowUp', 'Home', 'End'];

/**
 * A popup menu of the classroom's bar (More, Tools): its open state, the refs of its box and
 * button, Escape or a press outside to close it (useDismiss), and the keys that move between its
 * shown items: the arrows (round), Home and End. An arrow on the closed menu's button opens it.
 */
export function useMenu() {
  const [open, setOpen] = useState(false);
  const close = useCallback(() => setOpen(false), []);
  const box = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  useDismiss(open, close, box, button);

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (!KEYS.includes(event.key)) return;
    event.preventDefault();
    if (!open) {
      setOpen(true);
      return;
    }
    // Items hidden by the layout (the More menu's invite item on a wide bar) are skipped.
    const items = [...(box.current?.querySelectorAll<HTMLElement>('[role="menuitem"]') ?? [])].filter(
      (el) => el.getClientRects().length > 0,
    );
    if (items.length === 0) return;
    const at = items.indexOf(document.activeElement as HTMLElement);
    const next =
      event.key === 'Home'
        ? 0
        : event.key === 'End'
          ? items.length - 1
          : (at + (event.key === 'ArrowDown' ? 1 : -1) + items.length) % items.length;
    items[next]?.focus();
  };

  return { open, setOpen, close, box, button, onKeyDown };
}
