import { describe, expect, it } from 'vitest';
import { shownView, viewOf, viewTabEnabled, VIEW_TABS } from './views.ts';

describe("the creator's view tabs", () => {
  it('follow showState in a video class', () => {
    expect(shownView(1, '')).toBe('video');
    expect(shownView(1, 'wb')).toBe('wb');
    expect(shownView(4, 'screen')).toBe('screen');
    expect(shownView(1, 'image')).toBe(viewOf('image'));
    expect(VIEW_TABS.every((v) => viewTabEnabled(1, v.key))).toBe(true);
  });

  it('show the board in a whiteboard class, whatever showState says, and offer only it', () => {
    for (const s of ['', 'ppt', 'screen', 'wb', 'junk']) expect(shownView(2, s)).toBe('wb');
    expect(VIEW_TABS.filter((v) => viewTabEnabled(2, v.key)).map((v) => v.key)).toEqual(['wb']);
  });
});
