/**
 * The conversion port: turns one uploaded courseware file (on local disk) into page images, or a
 * video into a fast-start mp4 and a poster. The conversion job (core/jobs.ts 'courseware.convert')
 * downloads the original from the object store, calls this, and writes what it yields to the store
 * page by page, so the first page shows before the deck is done. The adapter lives in
 * workers/convert (LibreOffice headless, mupdf, sharp, ffprobe/ffmpeg).
 */

/** What the file is, decided from its content (magic bytes and container entries), never from its name alone. */
export type SourceKind = 'pptx' | 'ppt' | 'docx' | 'doc' | 'pdf' | 'mp4';

export interface ConvertedPage {
  /** 1-based page number. */
  page: number;
  /** JPEG, PAGE_IMAGE_WIDTH wide (core/contracts/courseware.ts). */
  image: Uint8Array;
  /** JPEG, PAGE_THUMB_WIDTH wide. */
  thumb: Uint8Array;
  width: number;
  height: number;
}

export interface ConvertedVideo {
  /** Local path of the remuxed mp4 (moov atom first); the job uploads it and then deletes it. */
  file: string;
  /** JPEG poster frame, at most PAGE_IMAGE_WIDTH wide. */
  poster: Uint8Array;
  width: number;
  height: number;
  durationMs: number;
}

export type ConvertFailure = 'encrypted' | 'corrupt' | 'too-many-pages' | 'timeout' | 'unsupported' | 'failed';

/** A conversion that cannot succeed; `retryable` failures (a crashed LibreOffice, a busy machine) are retried with backoff by the job. */
export class ConvertError extends Error {
  readonly reason: ConvertFailure;
  readonly retryable: boolean;
  constructor(reason: ConvertFailure, message: string, retryable = false) {
    super(message);
    this.name = 'ConvertError';
    this.reason = reason;
    this.retryable = retryable;
  }
}

/**
 * How a failed conversion job goes on: `retry` while the failure may pass (anything but a
 * ConvertError that says the file itself is the problem) and attempts are left; else the reason
 * to record ('failed' for an unexpected error), and whether it was one that might have passed.
 */
export function conversionOutcome(
  err: unknown,
  meta: { retryCount: number; retryLimit: number },
): { retry: true } | { retry: false; reason: ConvertFailure; retryable: boolean } {
  // By name too: an error thrown in a worker thread arrives as a plain Error with the name kept.
  const convertError = err instanceof ConvertError || (err instanceof Error && err.name === 'ConvertError') ? (err as ConvertError) : null;
  const retryable = convertError ? convertError.retryable : true;
  if (retryable && meta.retryCount < meta.retryLimit) return { retry: true };
  return { retry: false, reason: convertError?.reason ?? 'failed', retryable };
}

export interface ConvertOptions {
  /** Stop (and throw ConvertError 'timeout') past this; CONVERT_MAX_MS by default. */
  timeoutMs?: number;
  /** More pages than this: ConvertError 'too-many-pages'; CONVERT_MAX_PAGES by default. */
  maxPages?: number;
  signal?: AbortSignal;
  /** Videos: a WebM (a studio take recorded by Firefox) is taken too, and re-encoded; courseware stays mp4 only. */
  acceptWebm?: boolean;
}

export interface Converter {
  /** Reads the first bytes (and for zip containers the entry names) of a local file. null: not courseware we accept. */
  sniff(file: string): Promise<SourceKind | null>;
  /**
   * Documents: calls `onPage` for each page in order (awaiting it before the next, so the store is
   * written page by page) with `total` once known; resolves with the page count.
   */
  convertDocument(
    file: string,
    kind: Exclude<SourceKind, 'mp4'>,
    onPage: (page: ConvertedPage, total: number) => Promise<void>,
    options?: ConvertOptions,
  ): Promise<{ pages: number }>;
  convertVideo(file: string, options?: ConvertOptions): Promise<ConvertedVideo>;
  /** Ends any helper processes (a kept LibreOffice instance). */
  close(): Promise<void>;
}
