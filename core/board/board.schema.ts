import { z } from 'zod';

/** `/api/createWbToken`: the asker's own user id and the room number as the channel id. */
export const createWbTokenInput = z.object({
  userId: z.union([z.string().regex(/^\d{1,19}$/), z.number().int().positive().transform(String)]),
  channelId: z.string().max(64),
});
