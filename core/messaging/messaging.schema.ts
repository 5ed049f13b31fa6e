import { z } from 'zod';

/** Length rules are the service's (after white space is collapsed); this only bounds the input. */
export const feedbackInput = z.object({ content: z.string().max(1000), code: z.string().max(16) });

/** A client event (`/api/addLog` and `POST /log`): a structured message is kept as its JSON text; other keys are ignored. */
export const addLogInput = z
  .object({
    socketType: z.string().max(200).optional(),
    roomNumber: z
      .union([z.string().max(64), z.number()])
      .transform((v) => String(v))
      .optional(),
    message: z
      .union([z.string().max(20_000), z.record(z.string(), z.unknown())])
      .transform((v) => (typeof v === 'string' ? v : JSON.stringify(v)))
      .optional(),
  })
  .loose();
export type ClientLog = z.output<typeof addLogInput>;

/** The landing page's trial form (form fields; a missing field reads as empty, the service applies the rules). */
export const trialInput = z.object({
  name: z.string().max(400).default(''),
  mobile: z.string().max(200).default(''),
  organisation: z.string().max(800).default(''),
  message: z.string().max(5000).default(''),
});
