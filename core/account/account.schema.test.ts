import { describe, expect, it } from 'vitest';
import { MOBILE_RULE, normaliseName } from './account.schema.ts';

describe('the one name rule', () => {
  it.each([
    ['王小明', '王小明'],
    ['  Ms Li ', 'Ms Li'],
    ['Tom 2', 'Tom 2'],
    ['abcdefghij', 'abcdefghij'],
    ['一二三四五六七八九十', '一二三四五六七八九十'],
  ])('accepts %j', (raw, want) => expect(normaliseName(raw)).toBe(want));

  it.each(['', '  ', 'abcdefghijk', 'a  b', 'tom😀', '<b>', "o'neil", 'a\nb', 'a\tb', '\u200bab', 'ａｂ', 42, null, undefined, ['a']])(
    'refuses %j',
    (raw) => expect(normaliseName(raw)).toBeNull(),
  );
});

describe('mobile rule', () => {
  it('takes mainland mobiles only', () => {
    expect(MOBILE_RULE.test('13812345678')).toBe(true);
    expect(MOBILE_RULE.test('19912345678')).toBe(true);
    for (const bad of ['12812345678', '1381234567', '138123456789', '+8613812345678', '1381234567x'])
      expect(MOBILE_RULE.test(bad)).toBe(false);
  });
});
