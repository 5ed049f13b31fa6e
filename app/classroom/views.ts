/** The creator's view switch (spec §4): the tab, and the showState it saves. Anything else is video. */
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
