import { z } from 'zod';
import { myRoomsInput } from '../rooms/room.schema.ts';

/** pageTime is a position (goods) or a ms epoch (orders, announcements): the room list's rule fits both. */
export const pageInput = myRoomsInput;

export const GOODS_ID_RULE = /^GB\d{8}$/;
export const ORDER_ID_RULE = /^[A-Z0-9]{6,40}$/;
/** docs/product/03-board-courseware-billing.md §5: a promo code has at most 10 characters, and is optional. */
export const PROMO_CODE_MAX = 10;

export const createOrderInput = z.object({ goodsId: z.string().regex(GOODS_ID_RULE) });
export const orderIdInput = z.object({ orderId: z.string().regex(ORDER_ID_RULE) });
export const paymentOrderInput = z.object({
  orderId: z.string().regex(ORDER_ID_RULE),
  promoCode: z
    .string()
    .max(PROMO_CODE_MAX)
    .regex(/^[A-Za-z0-9 ]*$/)
    .optional(),
});
