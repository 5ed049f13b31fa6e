/**
 * Money is held in cents and shown in yuan (docs/product/03-board-courseware-billing.md §9); amounts over 1,000,000 cents (¥10,000)
 * are shown in 万 (ten thousand yuan).
 */
const WAN_FROM_CENTS = 1_000_000;

export function formatMoney(cents: number): string {
  if (!Number.isFinite(cents)) return '¥0.00';
  if (Math.abs(cents) > WAN_FROM_CENTS) {
    const wan = cents / WAN_FROM_CENTS;
    return `¥${Number(wan.toFixed(2))}万`;
  }
  return `¥${(cents / 100).toFixed(2)}`;
}
