/** Input schemas of the recording /api calls (core/contracts/recording.ts); the service checks the rules. */
import { z } from 'zod';

const roomNumber = z.string().max(64);
/** A bigint id as digits (JSON number accepted), as every id of this product travels. */
const id = z.union([z.string().regex(/^\d{1,19}$/), z.number().int().positive().max(Number.MAX_SAFE_INTEGER).transform(String)]);
const wholeNumber = (min: number, max: number) =>
  z
    .union([z.number(), z.string().regex(/^\d{1,16}$/)])
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));
const flag = z.union([z.boolean(), z.enum(['true', 'false', '1', '0'])]).transform((v) => v === true || v === 'true' || v === '1');

export const startTaskInput = z.object({ roomNumber });
export const stopTaskInput = z.object({ roomNumber, taskId: id });
export const recordStateInput = z.object({ roomNumber });
export const recordListInput = z.object({
  recordType: z.union([z.literal(1), z.literal(2), z.literal('1'), z.literal('2')]).transform((v) => Number(v) as 1 | 2),
  pageSize: wholeNumber(1, 50).default(10),
  /** createTime (ms epoch) of the last row shown; '' or absent for the first page. */
  pageTime: z
    .union([z.literal(''), z.string().regex(/^\d{1,15}$/), z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER)])
    .optional()
    .transform((v) => (v === undefined || v === '' || Number(v) === 0 ? null : Number(v))),
});
export const recordFileUrlInput = z.object({ fileId: id, taskId: z.union([z.literal(''), id]).optional(), download: flag.optional() });
export const recordFileInput = z.object({ fileId: id });
export const sharedRecordInput = z.object({ token: z.string().min(1).max(2048) });

/** What the recorder reports for a closed segment (parsed before it is stored). */
export const segmentSchema = z.strictObject({
  seq: z.number().int().min(0).max(10_000_000),
  key: z.string().min(1).max(600),
  durationMs: z.number().int().min(0).max(600_000),
  bytes: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
});
/** The joined MP4 as the recorder reports it. */
export const mp4Schema = z.strictObject({
  key: z.string().min(1).max(600),
  bytes: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
  durationMs: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
});
