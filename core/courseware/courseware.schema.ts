/** Input schemas of the courseware /api calls (core/contracts/courseware.ts); the service checks the rules. */
import { z } from 'zod';

const roomNumber = z.string().max(64);
/** Lower-case hex MD5; upper case is accepted and lowered. */
export const fileHash = z
  .string()
  .regex(/^[0-9a-fA-F]{32}$/)
  .transform((s) => s.toLowerCase());
const id = z.union([z.string().regex(/^\d{1,19}$/), z.number().int().positive().max(Number.MAX_SAFE_INTEGER).transform(String)]);
const taskId = z.string().regex(/^[0-9a-f-]{36}$/);
/** An object key as we hand them out; '' where the call has none (a hash match). */
const objectKey = z.string().max(600);

/** A whole number as JSON number or as the digits of a form field; nothing else. */
const wholeNumber = (min: number, max: number) =>
  z
    .union([z.number(), z.string().regex(/^\d{1,16}$/)])
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));

export const noInput = z.object({});
export const checkFileHashInput = z.object({ fileHash });
export const createUpyunSignInput = z.object({
  fileName: z.string().min(1).max(255),
  fileSize: wholeNumber(0, Number.MAX_SAFE_INTEGER),
  fileHash,
  roomNumber: roomNumber.optional(),
});
export const addRoomDocumentInput = z.object({
  documentSource: objectKey,
  documentName: z.string().min(1).max(255),
  roomNumber: roomNumber.optional(),
  fileHash,
  documentType: z.union([z.literal(1), z.literal(3), z.literal('1'), z.literal('3')]).transform((v) => Number(v) as 1 | 3),
  /** The answer to checkFileHash's challenge (ADR 069), for another user's file without upload. */
  nonce: z.string().max(1024).optional(),
  rangeHash: fileHash.optional(),
});
export const updateDocumentNoticeInput = z
  .object({ roomNumber, documentSource: objectKey.optional(), taskId: taskId.optional() })
  .refine((v) => !!v.documentSource || !!v.taskId, 'documentSource or taskId');
export const roomInput = z.object({ roomNumber });
export const listInput = z.object({ pageNo: wholeNumber(1, 100_000).optional(), pageSize: wholeNumber(1, 50).optional() });
export const delInput = z.object({ taskId, documentId: id });
export const analysisInput = z.object({ documentId: id, roomNumber });
export const downloadInput = z.object({ documentId: id });
