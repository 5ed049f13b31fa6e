/**
 * Cloud recording (issue 13): the /api answers merged into `ApiAnswers` (core/contracts/api.ts)
 * and the events merged into the room and user channels. recordState: '0' idle, '2' starting
 * (asked, no recorder yet), '1' recording. Record type 1 is a studio recording, 2 a class (cloud) recording (docs/product/decisions.md).
 */
import { z } from 'zod';
import type { Events } from './channel.ts';

export type RecordState = '0' | '1' | '2';
export type RecordType = 1 | 2;

/** The library's page size (docs/product/03-board-courseware-billing.md §9: records 10). */
export const RECORD_PAGE_SIZE = 10;
/** A share link's lifetime (ADR 073). */
export const RECORD_SHARE_DAYS = 7;
/** The watch page of a share link: `${publicUrl}${RECORD_WATCH_PATH}/<token>`. */
export const RECORD_WATCH_PATH = '/watch';

/** Containers a recording or a studio video is stored in, by the extension its file carries. */
const VIDEO_EXTENSIONS = ['mp4', 'webm'] as const;
export type VideoExtension = (typeof VIDEO_EXTENSIONS)[number];

/** The container of a stored object, from its key's extension (recordings are MP4 unless the key says otherwise). */
export function videoExtensionOf(objectKey: string): VideoExtension {
  const ext = /\.([A-Za-z0-9]+)$/.exec(objectKey)?.[1]?.toLowerCase();
  return (VIDEO_EXTENSIONS as readonly string[]).includes(ext ?? '') ? (ext as VideoExtension) : 'mp4';
}

/**
 * The name a download is saved under: whatever the teacher typed, ending in the file's real
 * extension. A name that already ends in it keeps it; one ending in the other video extension
 * (a name typed for the wrong container) has it replaced; anything else gets it appended
 * ('第一课.v2' becomes '第一课.v2.mp4'). An empty name becomes 'recording'.
 */
export function downloadFileName(name: string, ext: VideoExtension): string {
  let base = name.trim();
  const typed = /\.([A-Za-z0-9]+)$/.exec(base)?.[1]?.toLowerCase();
  if (typed === ext) return base;
  if (typed && (VIDEO_EXTENSIONS as readonly string[]).includes(typed)) base = base.slice(0, -(typed.length + 1)).trimEnd();
  return `${base || 'recording'}.${ext}`;
}

export interface RecordRow {
  id: string;
  fileId: string;
  taskId: string;
  fileName: string;
  /** Bytes as a decimal string; '' while the MP4 is being made ('transcoding'). */
  fileSize: string;
  durationMs: number | null;
  /** ms epoch; also the list's cursor (pageTime). */
  createTime: number;
  type: RecordType;
  roomNumber: string;
  /** The MP4 could not be made (a studio take the worker could not read); absent otherwise. */
  failed?: true;
}

export interface RecordingApiAnswers {
  /** The creator starts recording the class: recordState '2' until a recorder takes it (ADR 071). */
  startTask: { taskId: string };
  /** The creator stops it: recordState '0'; the record is listed at once with fileSize '' until its MP4 is ready. */
  stopTask: Record<string, never>;
  /**
   * For everyone in the room; taskId '' when nothing is being recorded. startedAt (ms epoch, server
   * time) only while recordState is '1': when the task was first taken, so a reloaded page's elapsed
   * time counts from the real start.
   */
  getRoomMemberRecordState: { recordState: RecordState; taskId: string; startedAt?: number };
  /** The owner's records, newest first; pageTime: createTime of the last row shown. */
  getRecordList: { recordList: RecordRow[]; total: number };
  /** A signed GET link (range requests work); with download, the link asks for an attachment. */
  /** posterUrl: a signed link to the poster frame, when the record has one (studio recordings). */
  getRecordFileUrl: { fileUrl: string; posterUrl?: string };
  delRecord: Record<string, never>;
  /** A signed link to the watch page, valid RECORD_SHARE_DAYS (ADR 073); expiresAt ms epoch. */
  createRecordShareLink: { url: string; expiresAt: number };
  /** No session needed: what the watch page plays. */
  getSharedRecord: { fileName: string; fileUrl: string; fileSize: string; durationMs: number | null; createTime: number };
}

const taskIdSchema = z.string().regex(/^\d{1,19}$/);

/**
 * Room channel: the recorder started (code '0'; startedAt ms epoch, server time, as
 * getRoomMemberRecordState answers it), or the recording failed ('timeout': no recorder took it in time).
 */
export const recordingRoomEvents = {
  roomRecord: z.strictObject({
    code: z.literal('0'),
    taskId: taskIdSchema,
    recordState: z.literal('1'),
    startedAt: z.number().int().nonnegative(),
  }),
  roomRecordFailed: z.strictObject({ taskId: taskIdSchema, reason: z.enum(['timeout', 'failed']) }),
};
export type RecordingRoomEvents = Events<typeof recordingRoomEvents>;

/** User channel: the owner's MP4 is listed (an open library refreshes). */
export const recordingUserEvents = {
  roomRecord: z.strictObject({ code: z.literal('0'), taskId: taskIdSchema, fileId: z.string().regex(/^\d{1,19}$/) }),
};
