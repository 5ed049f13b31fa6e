/**
 * The packages on sale (docs/product/03-board-courseware-billing.md §9). Ids, kinds and sizes are the product's; prices (cents) and
 * what is on the shelf are settings (GOODS_PRICES, GOODS_OFF_SHELF), so no price hides in code.
 */
import type { Config } from '../platform/config.ts';

export type GoodsKind = 'month' | 'credits' | 'bigclass';

export interface GoodsDef {
  goodsId: string;
  kind: GoodsKind;
  /** spec: goodsType 1 = vip (the monthly membership); 2 use packs; 3 big-class packages (ADR 020). */
  goodsType: 1 | 2 | 3;
  /** Days of membership or of the big-class package; 0 for use packs (credits do not expire). */
  duration: number;
  /** Credits of a use pack, people of a big-class package, 0 for the monthly membership. */
  quantity: number;
  defaultPrice: number;
}

export const GOODS: readonly GoodsDef[] = [
  { goodsId: 'GB00000001', kind: 'month', goodsType: 1, duration: 30, quantity: 0, defaultPrice: 9990 },
  { goodsId: 'GB00000005', kind: 'credits', goodsType: 2, duration: 0, quantity: 5, defaultPrice: 3990 },
  { goodsId: 'GB00000006', kind: 'credits', goodsType: 2, duration: 0, quantity: 10, defaultPrice: 6990 },
  { goodsId: 'GB00000007', kind: 'credits', goodsType: 2, duration: 0, quantity: 20, defaultPrice: 11990 },
  { goodsId: 'GB00000002', kind: 'bigclass', goodsType: 3, duration: 30, quantity: 10, defaultPrice: 19990 },
  { goodsId: 'GB00000003', kind: 'bigclass', goodsType: 3, duration: 30, quantity: 20, defaultPrice: 29990 },
  { goodsId: 'GB00000004', kind: 'bigclass', goodsType: 3, duration: 30, quantity: 30, defaultPrice: 39990 },
];

export interface Goods extends GoodsDef {
  price: number;
  onShelf: boolean;
}

/** Names in both languages; the order keeps the name in the buyer's language at order time. */
export function goodsName(g: GoodsDef, lang: 'zh' | 'en'): string {
  switch (g.kind) {
    case 'month':
      return lang === 'en' ? 'Monthly membership' : '月度会员';
    case 'credits':
      return lang === 'en' ? `${g.quantity}-use pack` : `${g.quantity} 次课时包`;
    case 'bigclass':
      return lang === 'en' ? `Large class for ${g.quantity}` : `${g.quantity} 人大班课套餐`;
  }
}

export function goodsDesc(g: GoodsDef, lang: 'zh' | 'en', creditHours: number): string {
  switch (g.kind) {
    case 'month':
      return lang === 'en'
        ? `${g.duration} days, unlimited video classes of up to 1-to-3, ${creditHours} hours per session`
        : `${g.duration} 天内不限次数，视频教室最多 1 对 3，每节 ${creditHours} 小时`;
    case 'credits':
      return lang === 'en'
        ? `${g.quantity} paid mini classes; each use opens ${creditHours} hours of unlimited room creation`
        : `${g.quantity} 次付费小班课，每次可在 ${creditHours} 小时内不限次创建教室`;
    case 'bigclass':
      return lang === 'en'
        ? `Large classes of up to ${g.quantity} people for ${g.duration} days`
        : `${g.duration} 天内大班课最多 ${g.quantity} 人`;
  }
}

export function catalogue(config: Pick<Config, 'GOODS_PRICES' | 'GOODS_OFF_SHELF'>): Goods[] {
  const prices = new Map<string, number>();
  for (const pair of (config.GOODS_PRICES ?? '').split(',').filter(Boolean)) {
    const [id, cents] = pair.split('=');
    if (id && cents) prices.set(id, Number(cents));
  }
  const off = new Set((config.GOODS_OFF_SHELF ?? '').split(',').filter(Boolean));
  return GOODS.map((g) => ({ ...g, price: prices.get(g.goodsId) ?? g.defaultPrice, onShelf: !off.has(g.goodsId) }));
}
