/** The creator's view switch (docs/product/02-live-classroom.md §4): the tab, and the showState it saves. Anything else is video. */
export const VIEW_TABS = [
  { key: 'wb', showState: 'wb' },
  { key: 'ppt', showState: 'ppt' },
  { key: 'screen', showState: 'screen' },
  { key: 'video', showState: '' },
] as const;

export type ViewKey = (typeof VIEW_TABS)[number]['key'];

export function viewOf(showState: string): ViewKey {
  if (showState === 'wb' || showState === 'ppt' || showState === 'screen') return showState;
  // 'image' shows the board's image layer once the board lands; until then the board panel.
  if (showState === 'image') return 'wb';
  return 'video';
}

/**
 * The view the stage shows: a whiteboard class (type 2) always shows its board, whatever the
 * saved showState; every other class follows showState. The creator's tabs highlight this.
 */
export function shownView(roomType: number, showState: string): ViewKey {
  return roomType === 2 ? 'wb' : viewOf(showState);
}

/** May this tab be chosen? In a whiteboard class the board is the only main view. */
export function viewTabEnabled(roomType: number, key: ViewKey): boolean {
  return roomType !== 2 || key === 'wb';
}
