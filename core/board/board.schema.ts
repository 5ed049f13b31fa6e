import { z } from 'zod';

/** `/api/createWbToken`: the asker's own user id and the room number as the channel id. */
/** `/api/getWbReview`: a page of the creator's board (default `wb:0`); the page is checked by the service. */
export const wbReviewInput = z.object({
  roomNumber: z.string().max(64),
  page: z.string().max(80).optional(),
});

/** `POST /board-images/urls`: the image keys whose signed URLs a board needs (the room rule is the service's). */
export const imageUrlsInput = z.strictObject({ keys: z.array(z.string().max(256)).max(500) });

export const phoneUploadLinkInput = z.object({ roomNumber: z.string().max(64) });

export const createWbTokenInput = z.object({
  userId: z.union([z.string().regex(/^\d{1,19}$/), z.number().int().positive().transform(String)]),
  channelId: z.string().max(64),
});

/** `/api/getRoomView` (ADR 093): the room number and, from `/ppt/{id}/{uid}`, the user id named in the address. */
export const roomViewInput = z.object({
  roomNumber: z.string().max(64),
  uid: z
    .string()
    .regex(/^\d{1,19}$/)
    .optional(),
});
