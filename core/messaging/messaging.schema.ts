import { z } from 'zod';

/** Length rules are the service's (after white space is collapsed); this only bounds the input. */
export const feedbackInput = z.object({ content: z.string().max(1000), code: z.string().max(16) });

export const addLogInput = z
  .object({
    socketType: z.string().max(200).optional(),
    roomNumber: z.union([z.string().max(64), z.number()]).optional(),
    message: z.union([z.string().max(20_000), z.record(z.string(), z.unknown())]).optional(),
  })
  .loose();
