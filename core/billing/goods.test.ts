import { describe, expect, it } from 'vitest';
import { catalogue, goodsName } from './goods.ts';

describe('catalogue', () => {
  it('has the spec prices by default and takes prices and the shelf from the settings', () => {
    const plain = catalogue({});
    expect(plain.map((g) => [g.goodsId, g.price])).toEqual([
      ['GB00000001', 9990],
      ['GB00000005', 3990],
      ['GB00000006', 6990],
      ['GB00000007', 11990],
      ['GB00000002', 19990],
      ['GB00000003', 29990],
      ['GB00000004', 39990],
    ]);
    const set = catalogue({ GOODS_PRICES: 'GB00000005=100,GB00000001=1', GOODS_OFF_SHELF: 'GB00000006' });
    expect(set.find((g) => g.goodsId === 'GB00000005')?.price).toBe(100);
    expect(set.find((g) => g.goodsId === 'GB00000001')?.price).toBe(1);
    expect(set.filter((g) => !g.onShelf).map((g) => g.goodsId)).toEqual(['GB00000006']);
    expect(goodsName(plain[1]!, 'zh')).toBe('5 次课时包');
  });
});
