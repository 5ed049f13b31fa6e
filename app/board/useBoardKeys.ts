/** The board's keyboard: undo/redo, delete, deselect, copy/paste. Not while typing somewhere. */
import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import type { BoardItem } from '#core/contracts/board.ts';
import { translateData } from '#core/board/draw/geometry.ts';
import { toast } from '#app/lib/toast.ts';
import { boardShortcut, keyIsElsewhere } from './editing.ts';
import type { BoardStore } from './store.ts';

export function useBoardKeys(
  store: BoardStore | null,
  page: string,
  canDraw: boolean,
  selection: string[],
  setSelection: (ids: string[]) => void,
  deleteSelection: () => void,
): void {
  const { t } = useTranslation();
  const clipboard = useRef<BoardItem | null>(null);

  useEffect(() => {
    if (!store || !canDraw) return;
    const onKey = (e: KeyboardEvent) => {
      if (keyIsElsewhere(e)) return;
      const action = boardShortcut(e, selection.length > 0);
      const mod = e.ctrlKey || e.metaKey;
      const key = e.key.toLowerCase();
      if (action === 'undo' || action === 'redo' || action === 'delete') {
        e.preventDefault();
        if (action === 'undo') store.undo(page);
        else if (action === 'redo') store.redo(page);
        else deleteSelection();
      } else if (action === 'deselect') {
        setSelection([]);
      } else if (mod && key === 'c' && selection.length > 0) {
        if (selection.length > 1) {
          toast.info(t('board.multiSelect'));
          return;
        }
        clipboard.current = store.layer(page).get(selection[0]!) ?? null;
      } else if (mod && key === 'v' && clipboard.current) {
        const copy = clipboard.current;
        const op = store.create(page, copy.data.kind === 'image' ? 'uploadImg' : 'choose', translateData(copy.data, 20, 20));
        if (op.id) setSelection([op.id]);
        clipboard.current = { ...copy, data: translateData(copy.data, 20, 20) };
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [store, canDraw, page, selection, setSelection, deleteSelection, t]);
}
