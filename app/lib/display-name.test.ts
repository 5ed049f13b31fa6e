import { describe, expect, it } from 'vitest';
import { defaultNameDigits, shownName } from './display-name.ts';

const en = (_key: 'chrome.defaultName', { digits }: { digits: string }) => `Teacher ${digits}`;

describe('shownName', () => {
  it('shows the generated default in the page language', () => {
    expect(defaultNameDigits('老师8987')).toBe('8987');
    expect(shownName('老师8987', en)).toBe('Teacher 8987');
  });
  it('keeps a chosen name as it is', () => {
    expect(shownName('老师张', en)).toBe('老师张');
    expect(shownName('老师89871', en)).toBe('老师89871');
    expect(shownName('Anna', en)).toBe('Anna');
  });
});
