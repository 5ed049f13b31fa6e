/**
 * Courseware (docs/product/03-board-courseware-billing.md §2.1, §2.3, §3 document and conversion result, §4, §7): the wire contract
 * shared by the server, the conversion worker and the browser. The /api answers are declared here and
 * merged into `ApiAnswers` (core/contracts/api.ts); the room-channel and user-channel events are
 * declared here and merged into those contracts.
 *
 * Flow of an upload (docs/product/03-board-courseware-billing.md §4 "Upload to library"):
 *   browser: type + size check -> MD5 in 2 MiB slices (worker) -> `checkFileHash`
 *     exists: `addRoomDocument` with the same hash (no upload, no second conversion); another
 *             user's file only with the answer to `challenge` (a hash over a random range, ADR 069)
 *     else:   `createUpyunSign` -> PUT the file to `uploadUrl` (presigned; progress, cancel)
 *             -> `addRoomDocument` (server checks the stored object by content, registers it,
 *                queues the conversion job) -> taskId
 *   worker: `documentConvert` events to the room (and `addDocumentConvertEvent` /
 *           `documentStatus` to the uploader's user channel) page by page until done or failed.
 *   cancel during upload: `updateDocumentNotice` (the server forgets the pending upload).
 */
import { z } from 'zod';
import { bounded, call, whole, type Events, type Requests, type SameType } from './channel.ts';

/** docs/product/03-board-courseware-billing.md §3 Document.status: 0 uploading, 1 parsing, 2 parse timeout or fail, 3 parse done, 4 parse failed. */
export type DocumentStatus = 0 | 1 | 2 | 3 | 4;

/** 1 a document (ppt, pptx, doc, docx, pdf: slides as images), 3 a video (mp4). */
export type DocumentType = 1 | 3;

/** What the browser and the server both accept (docs/product/03-board-courseware-billing.md §5). */
export const COURSEWARE_EXTENSIONS = ['ppt', 'pptx', 'doc', 'docx', 'pdf', 'mp4'] as const;
export type CoursewareExtension = (typeof COURSEWARE_EXTENSIONS)[number];
/** docs/product/03-board-courseware-billing.md §5: at most 50,000,000 bytes ('file cannot exceed 50M'). */
export const COURSEWARE_MAX_BYTES = 50_000_000;
/** Hash slices of 2 MiB (docs/product/03-board-courseware-billing.md §9). */
export const HASH_SLICE_BYTES = 2 * 1024 * 1024;
/** Conversion limits (issue 6): pages and wall time per document. */
export const CONVERT_MAX_PAGES = 200;
export const CONVERT_MAX_MS = 5 * 60_000;
/** Page images 1280 px wide; thumbnails 240 px wide (JPEG). */
export const PAGE_IMAGE_WIDTH = 1280;
export const PAGE_THUMB_WIDTH = 240;
/** Library and picker page sizes (docs/product/03-board-courseware-billing.md §9). */
export const DOCUMENT_PAGE_SIZE = 10;
export const RECENT_DOCUMENTS_PAGE_SIZE = 8;
/** Signed storage links are valid 3600 s (docs/product/03-board-courseware-billing.md §9). */
export const SIGNED_URL_TTL_SECONDS = 3600;
/** Creator's slide change saved with a 500 ms debounce; portrait scroll step 0.1 up to 1.8. */
export const PAGE_SAVE_DEBOUNCE_MS = 500;
export const SLIDE_SCROLL_STEP = 0.1;
export const SLIDE_SCROLL_MAX = 1.8;
/** Video courseware: position heartbeat 5 s, viewers resync when more than 1 s off. */
export const VIDEO_HEARTBEAT_MS = 5000;
export const VIDEO_RESYNC_S = 1;

/** Proof of possession (ADR 069): the challenged range is at most this long, the nonce valid this long. */
export const HASH_CHALLENGE_MAX_BYTES = 64 * 1024;
export const HASH_CHALLENGE_TTL_SECONDS = 300;

/**
 * Reusing another user's stored file (ADR 069): answer with `rangeHash`, the lower-case hex MD5 of
 * the nonce's characters followed by the bytes [offset, offset + length) of the local file.
 */
export interface HashChallenge {
  offset: number;
  length: number;
  nonce: string;
  expiresAt: number; // ms epoch
}

/** A document of the user's library as the API answers it. */
export interface DocumentInfo {
  documentId: string;
  documentName: string; // the file name as uploaded (cleaned), with its extension
  documentSource: string; // object key of the uploaded original
  fileHash: string; // lower-case hex MD5 of the whole file
  taskId: string; // the conversion task
  documentType: DocumentType;
  status: DocumentStatus;
  size: number; // bytes of the original
  pageCount: number; // pages converted so far (all of them once status is 3); 1 for a video
  createTime: number; // ms epoch
  /** Why it failed, when status is 2 or 4: 'timeout' | 'encrypted' | 'corrupt' | 'too-many-pages' | 'unsupported' | 'failed'. */
  failReason: string;
}

/** DocumentInfo as a schema (the user channel's events carry it; checked equal to the interface below). */
export const documentInfoSchema = z.strictObject({
  documentId: z.string(),
  documentName: z.string(),
  documentSource: z.string(),
  fileHash: z.string(),
  taskId: z.string(),
  documentType: z.union([z.literal(1), z.literal(3)]),
  status: z.union([z.literal(0), z.literal(1), z.literal(2), z.literal(3), z.literal(4)]),
  size: z.number(),
  pageCount: z.number(),
  createTime: z.number(),
  failReason: z.string(),
});
type _DocumentInfoChecked = [SameType<z.output<typeof documentInfoSchema>, DocumentInfo>] extends [true] ? true : never;
export const DOCUMENT_INFO_SCHEMA_CHECKED: _DocumentInfoChecked = true;

/** Video courseware control (docs/product/03-board-courseware-billing.md §7 customRoomEvent videoControl), sent by the creator only. */
export const VIDEO_CONTROL_TYPES = ['play', 'pause', 'seek', 'heartbeat'] as const;
/** The longest video position a control may name (a day). */
export const VIDEO_MAX_SECONDS = 86_400;

export const videoControlSchema = z.strictObject({
  type: z.enum(VIDEO_CONTROL_TYPES),
  currentTime: bounded(0, VIDEO_MAX_SECONDS), // seconds in the video
  /** Server time in ms when the server accepted it (filled in by the server). */
  at: z.number(),
});
export type VideoControl = z.infer<typeof videoControlSchema>;

/** The courseware a room shows (the room info fields of docs/product/03-board-courseware-billing.md §3, as a typed block). */
export const roomCoursewareSchema = z.strictObject({
  documentId: z.string(), // '' when none
  documentName: z.string(),
  documentType: z.union([z.literal(0), z.literal(1), z.literal(3)]), // 0 none
  resourceType: z.union([z.literal(1), z.literal(2)]), // 1 disk store (our own signed URLs), 2 S3-compatible object store
  /** Signed page image URLs in page order (for a video: the poster), valid SIGNED_URL_TTL_SECONDS from when this was sent. */
  images: z.array(z.string()),
  /** Signed URL of the fast-start mp4 for a video document; '' otherwise. */
  videoUrl: z.string(),
  /** Page sizes in pixels of the page images, same order as images (portrait pages scroll). */
  sizes: z.array(z.strictObject({ width: z.number(), height: z.number() })),
  pptCurrentPage: z.number(), // 1..pptTotalPage, 0 when none
  pptTotalPage: z.number(), // pages converted so far while converting
  /** 3 done, 1 still converting (pages keep arriving), 2/4 failed. */
  status: z.union([z.literal(0), z.literal(1), z.literal(2), z.literal(3), z.literal(4)]),
  /** Portrait page scroll, 0..SLIDE_SCROLL_MAX in steps of SLIDE_SCROLL_STEP (0 when absent). */
  scroll: z.number().optional(),
  /** The creator's last video control (play or pause and where), for a late joiner of a video document. */
  video: videoControlSchema.optional(),
});
export type RoomCourseware = z.infer<typeof roomCoursewareSchema>;

/** name -> answer data; merged into ApiAnswers (requests: the schemas of core/courseware/courseware.schema.ts). */
export interface CoursewareApiAnswers {
  /** 1 disk store, 2 S3-compatible store (chosen by S3_ENDPOINT). */
  getResourceType: { resourceType: 1 | 2 };
  /** The file hash check of docs/product/03-board-courseware-billing.md §7: is a file with this MD5 already in the caller's library (or converted for anyone)? */
  checkFileHash: { fileExist: boolean; documentInfo: DocumentInfo | null; challenge: HashChallenge | null };
  /**
   * The signed-upload call: a presigned PUT for the browser to send the file straight to the store.
   * `saveName` is the object key to pass back as documentSource (documentConvert/{y}/{m}/{d}/{unique}/{file}, videos under documentConvert/videos/).
   */
  createUpyunSign: {
    uploadUrl: string;
    method: 'PUT';
    headers: Record<string, string>;
    saveName: string;
    expiresAt: number;
    resourceType: 1 | 2;
  };
  /**
   * Register an uploaded (or hash-matched) file and, if new, queue its conversion; when roomNumber
   * is given (the creator's room), the room shows it. documentStatus: the document's status now.
   * Another user's file without upload needs `nonce` and `rangeHash`, the answer to checkFileHash's challenge.
   */
  addRoomDocument: { taskId: string; documentId: string; documentStatus: DocumentStatus; courseware: RoomCourseware | null };
  /** The uploader cancelled: forget the pending upload (documentSource or taskId). */
  updateDocumentNotice: null;
  /** The creator closes the room's courseware: images cleared, documentType 0, page 1 of 1, scroll 0. */
  closeRoomDocument: null;
  /** The caller's library, newest first; pageNo from 1. */
  getMyDocumentList: { documentList: DocumentInfo[]; total: number };
  /** Delete from the caller's library (not while converting: status 2, 3 or 4). */
  delUserDocument: null;
  /** Open a document of the caller's library in the caller's room (recent-documents picker, library 'open in a room'). */
  analysisDocumentExisting: { courseware: RoomCourseware };
  /** A signed download link to the original file of the caller's document. */
  getDocumentDownloadUrl: { url: string; expiresAt: number };
  /** The room's courseware now, with freshly signed links (for anyone in the room; also in the join snapshot). */
  getRoomCourseware: { courseware: RoomCourseware };
}

/** Room channel, server -> browser (merged into roomEvents of room-events.ts). */
export const coursewareRoomEvents = {
  /**
   * docs/product/03-board-courseware-billing.md §3 conversion result. status '200' with phase 'progress' as each page is written (the
   * first page shows before the deck is done), '200' with phase 'done' at the end; any other status
   * ('500') means it failed: the uploader sees 'parse failed' and the courseware is closed.
   */
  documentConvert: z.strictObject({
    status: z.enum(['200', '500']),
    phase: z.enum(['progress', 'done', 'failed']),
    taskId: z.string(),
    documentId: z.string(),
    userId: z.string(),
    done: z.number(), // pages written so far
    total: z.number(), // pages in the document (0 while not yet known)
    courseware: roomCoursewareSchema,
  }),
  /** The room's courseware changed (opened, closed, page, scroll): the whole block, freshly signed. */
  courseware: z.strictObject({ courseware: roomCoursewareSchema, by: z.string() }),
  /** The creator's video control (play, pause, seek, heartbeat). */
  videoControl: videoControlSchema.extend({ by: z.string() }),
};

export type CoursewareRoomEvents = Events<typeof coursewareRoomEvents>;

/**
 * Room channel, browser -> server (creator only; acked like the other requests; merged into
 * roomRequests). The page's range and the scroll's steps are the service's rules ('34010').
 */
export const coursewareRoomRequests = {
  /** Creator: slide page 1..total (saved; debounce in the browser, 500 ms) and scroll (0..1.8 step 0.1); answers the block as saved. */
  setCoursewarePage: call(
    z.strictObject({ page: whole(-1_000_000, 1_000_000), scroll: bounded(-1_000, 1_000).nullable().optional() }),
    roomCoursewareSchema,
  ),
  /** Creator: answers the control as the server stamped it. */
  videoControl: call(videoControlSchema.omit({ at: true }), videoControlSchema),
};
export type CoursewareRoomRequests = Requests<typeof coursewareRoomRequests>;

/** User channel, server -> browser (merged into userEvents): the library list follows conversions. */
export const coursewareUserEvents = {
  /** A new document was registered (insert at the top with status 1). */
  addDocumentConvertEvent: z.strictObject({ document: documentInfoSchema }),
  /** A document's status or page count changed. */
  documentStatus: z.strictObject({ document: documentInfoSchema }),
};
export type CoursewareUserEvents = Events<typeof coursewareUserEvents>;

/** Board layer of a slide (core/contracts/board.ts: `doc:{id}:{slide}`). */
export const slideLayer = (documentId: string, page: number) => `doc:${documentId}:${page}`;
