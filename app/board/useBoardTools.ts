/**
 * Tool state: the chosen tool and colour, the selection, the text being typed, and whether the
 * toolbar is folded away. A new page starts with nothing selected and no text open.
 */
import { useCallback, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { DEFAULT_TOOLS, type ToolState } from '#core/board/draw/tools.ts';
import { toast } from '#app/lib/toast.ts';
import { commitTextEdit, type TextEdit } from './editing.ts';
import type { BoardStore } from './store.ts';

export function useBoardTools(store: BoardStore | null, page: string, canDraw: boolean) {
  const { t } = useTranslation();
  const [tools, setTools] = useState<ToolState>(DEFAULT_TOOLS);
  const [selection, setSelection] = useState<string[]>([]);
  const [hidden, setHidden] = useState(false);
  const [edit, setEdit] = useState<TextEdit | null>(null);

  // A new page starts with nothing selected (reset while rendering, not in an effect after it).
  const [selectionPage, setSelectionPage] = useState(page);
  if (selectionPage !== page) {
    setSelectionPage(page);
    setSelection([]);
    setEdit(null);
  }

  /** Another tool than 'choose' drops the selection. */
  const changeTools = (next: ToolState) => {
    setTools(next);
    if (next.tool !== 'choose') setSelection([]);
  };

  const deleteSelection = useCallback(() => {
    if (!store || !canDraw) return;
    if (selection.length === 0) {
      toast.info(t('board.nothingSelected'));
      return;
    }
    store.deleteItems(page, selection);
    setSelection([]);
  }, [store, canDraw, selection, page, t]);

  const commitText = () => {
    if (!store || !edit) return;
    setEdit(null);
    commitTextEdit(store, page, edit, tools.color);
  };

  return { tools, changeTools, selection, setSelection, hidden, setHidden, edit, setEdit, deleteSelection, commitText };
}
