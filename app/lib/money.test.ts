import { describe, expect, it } from 'vitest';
import { formatMoney } from './money.ts';

describe('formatMoney', () => {
  it('shows cents as yuan with two decimals', () => {
    expect(formatMoney(3990)).toBe('¥39.90');
    expect(formatMoney(9990)).toBe('¥99.90');
    expect(formatMoney(1)).toBe('¥0.01');
    expect(formatMoney(1_000_000)).toBe('¥10000.00');
  });
  it('shows amounts over 1,000,000 cents in 万', () => {
    expect(formatMoney(1_000_001)).toBe('¥1万');
    expect(formatMoney(1_500_000)).toBe('¥1.5万');
    expect(formatMoney(123_456_789)).toBe('¥123.46万');
  });
});
