/**
 * The recording studio (issue 15, ADR 086): a lesson video recorded in the teacher's browser,
 * kept slice by slice in the browser's origin-private file system, and uploaded straight to the
 * object store in parts while it is recorded. The server opens the upload (createUploadToken),
 * signs each part's PUT (signUploadParts), joins the parts and lists the record when the teacher
 * saves it (addlocalRecordFile), and a worker job makes the fast-start MP4 with AAC sound and a
 * poster. The rules here are read by both ends.
 */
import { z } from 'zod';

/** The shortest take that stops normally (a forced stop skips the rule): docs/product/02 §5. */
export const STUDIO_MIN_RECORD_MS = 5000;
/** MediaRecorder's timeslice: each slice is written to the take's folder as it arrives. */
export const STUDIO_SLICE_MS = 1000;
/** A file name: trimmed, 1 to this many characters. */
export const STUDIO_FILE_NAME_MAX = 15;
/** Whiteboard pages in the studio. */
export const STUDIO_BOARD_PAGES = 3;
/** Each part's PUT is retried this many times (with backoff) before the upload is 'failed'. */
export const STUDIO_UPLOAD_RETRIES = 6;
/** Waits before each retry, ms (then the last one again). */
export const STUDIO_RETRY_DELAYS_MS = [0, 1000, 3000, 5000] as const;
/** Parts on the way at once. */
export const STUDIO_PARALLEL_PARTS = 6;
/**
 * Every part but the last is exactly this long (S3's smallest part is 5 MiB), so part n is always
 * bytes (n-1)*P .. n*P of the take, whenever and wherever it is uploaded.
 */
export const STUDIO_PART_BYTES = 5 * 1024 * 1024;
/** S3's limit on parts of one upload. */
export const STUDIO_MAX_PARTS = 10_000;
/** Parts signed by one signUploadParts call. */
export const STUDIO_SIGN_BATCH = 20;
/** Free space under this: the studio warns before and while recording. */
export const STUDIO_LOW_SPACE_BYTES = 1024 * 1024 * 1024;
/** What MediaRecorder may have written (Chromium: MP4 with H.264 and Opus; Firefox: WebM). */
export const STUDIO_MEDIA_TYPES = ['video/mp4', 'video/webm'] as const;
export type StudioMediaType = (typeof STUDIO_MEDIA_TYPES)[number];

/** The file name rule of both ends: null when fine, else which message ('please fill in the file name'; the length). */
export function studioFileNameProblem(name: string): 'empty' | 'long' | null {
  const trimmed = name.trim();
  if (trimmed === '') return 'empty';
  if ([...trimmed].length > STUDIO_FILE_NAME_MAX) return 'long';
  return null;
}

/** Part n's size in a take of `total` bytes. */
export function studioPartSize(partNumber: number, total: number): number {
  return Math.max(0, Math.min(STUDIO_PART_BYTES, total - (partNumber - 1) * STUDIO_PART_BYTES));
}

export interface SignedPart {
  partNumber: number;
  url: string;
  /** Headers the PUT must carry. */
  headers: Record<string, string>;
  /** ms epoch. */
  expiresAt: number;
}

export interface StudioApiAnswers {
  /**
   * Opens an upload for one take. uploadToken names it in the calls below (and is the spec's
   * `fileUrl` of addlocalRecordFile); maxBytes is the longest take the operator accepts.
   */
  createUploadToken: { uploadToken: string; partBytes: number; maxBytes: number; expiresAt: number };
  /** PUT addresses for the parts asked (each part number with its exact size). */
  signUploadParts: { parts: SignedPart[] };
  /**
   * Joins the parts and lists the record in the library's studio tab (fileSize '' until the MP4 is
   * made). Saving the same upload again answers the same fileId (a double submit makes one record).
   */
  addlocalRecordFile: { fileId: string };
  /** Drops an upload that will not be saved (record again, save locally) and the parts stored. */
  abortUpload: Record<string, never>;
}

const fileIdSchema = z.string().regex(/^\d{1,19}$/);

/** User channel: a studio record's MP4 is ready ('failed': the upload could not be made into a video). */
export const studioUserEvents = {
  studioRecord: z.strictObject({
    fileId: fileIdSchema,
    state: z.enum(['ready', 'failed']),
    fileSize: z.string().regex(/^\d{0,19}$/),
  }),
};
