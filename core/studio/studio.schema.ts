/** Input schemas of the studio /api calls (core/contracts/studio.ts); the service checks the rules. */
import { z } from 'zod';
import { STUDIO_MAX_PARTS, STUDIO_MEDIA_TYPES, STUDIO_PART_BYTES, STUDIO_SIGN_BATCH } from '../contracts/studio.ts';

/** An upload's handle: 32 random base64url characters. */
const uploadToken = z.string().regex(/^[A-Za-z0-9_-]{32}$/);
const partNumber = z.number().int().min(1).max(STUDIO_MAX_PARTS);

export const createUploadTokenInput = z.object({ mediaType: z.enum(STUDIO_MEDIA_TYPES).default('video/mp4') });
export const signUploadPartsInput = z.object({
  uploadToken,
  parts: z
    .array(z.strictObject({ partNumber, size: z.number().int().min(1).max(STUDIO_PART_BYTES) }))
    .min(1)
    .max(STUDIO_SIGN_BATCH),
});
export const addlocalRecordFileInput = z.object({
  fileName: z.string().max(200),
  /** The spec's fileUrl: the upload's token. */
  fileUrl: uploadToken,
  parts: z
    .array(z.strictObject({ partNumber, etag: z.string().min(1).max(200) }))
    .min(1)
    .max(STUDIO_MAX_PARTS),
  /** What the recorder counted (pauses left out); the worker's probe is what the library shows. */
  durationMs: z
    .number()
    .int()
    .min(0)
    .max(24 * 3600_000)
    .optional(),
});
export const abortUploadInput = z.object({ uploadToken });
