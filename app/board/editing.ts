/**
 * Editing that every board surface shares (the classroom's board and the studio's local one): the
 * text box and the keyboard shortcuts.
 */
import { TEXT_BOX_WIDTH, TEXT_FONT_SIZE, type BoardItem } from '#core/contracts/board.ts';
import type { Point } from '#core/board/draw/geometry.ts';
import type { BoardStore } from './store.ts';
import type { ToolState } from '#core/board/draw/tools.ts';

/** A text box open on the board: where, the text item being changed (null: a new one), what is typed. */
export interface TextEdit {
  at: Point;
  item: BoardItem | null;
  text: string;
}

/** Puts a closed text box on the page: a changed item is updated, new text is added; empty text adds nothing. */
export function commitTextEdit(store: BoardStore, page: string, edit: TextEdit, color: ToolState['color']): void {
  const text = edit.text.replace(/\s+$/u, '');
  if (text.trim() === '') return;
  if (edit.item && edit.item.data.kind === 'text') {
    if (text !== edit.item.data.text)
      store.submit({ type: 'update', btype: 'kbText', id: edit.item.id, data: { ...edit.item.data, text }, page });
    return;
  }
  store.create(page, 'kbText', {
    kind: 'text',
    text,
    x: Math.round(edit.at.x),
    y: Math.round(edit.at.y),
    width: TEXT_BOX_WIDTH,
    fontSize: TEXT_FONT_SIZE,
    color,
  });
}

/** A key press meant for a field being typed in or for an open dialog, not for the board. */
export function keyIsElsewhere(e: KeyboardEvent): boolean {
  const el = e.target as HTMLElement | null;
  if (el && (el.tagName === 'INPUT' || el.tagName === 'TEXTAREA' || el.tagName === 'SELECT' || el.isContentEditable)) return true;
  return document.querySelector('dialog[open]') !== null;
}

/**
 * The shortcut a key press asks of a board: undo (Ctrl/Cmd+Z), redo (Ctrl/Cmd+Y or Shift+Ctrl/Cmd+Z),
 * delete the selection (Backspace, Delete), drop the selection (Escape); null for any other key.
 */
export function boardShortcut(e: KeyboardEvent, hasSelection: boolean): 'undo' | 'redo' | 'delete' | 'deselect' | null {
  const mod = e.ctrlKey || e.metaKey;
  const key = e.key.toLowerCase();
  if (mod && key === 'z' && !e.shiftKey) return 'undo';
  if (mod && (key === 'y' || (key === 'z' && e.shiftKey))) return 'redo';
  if (!mod && (e.key === 'Backspace' || e.key === 'Delete') && hasSelection) return 'delete';
  if (e.key === 'Escape') return 'deselect';
  return null;
}
