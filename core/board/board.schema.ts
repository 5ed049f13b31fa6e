import { z } from 'zod';

/** `/api/createWbToken`: the asker's own user id and the room number as the channel id. */
/** `/api/getWbReview`: a page of the creator's board (default `wb:0`); the page is checked by the service. */
export const wbReviewInput = z.object({
  roomNumber: z.string().max(64),
  page: z.string().max(80).optional(),
});

export const phoneUploadLinkInput = z.object({ roomNumber: z.string().max(64) });

export const createWbTokenInput = z.object({
  userId: z.union([z.string().regex(/^\d{1,19}$/), z.number().int().positive().transform(String)]),
  channelId: z.string().max(64),
});
