/**
 * The studio's take engine as the screens use it (ADR 086): a take is a folder in the browser's
 * origin-private file system (OPFS) holding each MediaRecorder slice as its own file and a
 * meta.json; a recorder writes slices there as they arrive; an upload sends the take to the
 * object store in fixed 5 MiB parts while it is still being recorded and resumes from the parts
 * already stored. The screens (app/studio/*.tsx) import these types only from here.
 */
import type { StudioMediaType } from '#core/contracts/studio.ts';

/** A part the store has (its ETag is needed to join the parts). */
export interface StoredPart {
  partNumber: number;
  size: number;
  etag: string;
}

export type TakeState = 'recording' | 'stopped' | 'saved';

/** meta.json of a take; rewritten after each slice (small), so a crash loses at most the slice in flight. */
export interface TakeMeta {
  /** Sortable and unique: `${Date.now()}-${random}`. */
  id: string;
  /** ms epoch. */
  createdAt: number;
  /** MediaRecorder's mimeType with codecs, e.g. 'video/mp4;codecs=avc1,opus'. */
  mimeType: string;
  /** The container alone, as the server takes it. */
  mediaType: StudioMediaType;
  /** Recorded time without pauses, ms, as of the last slice written. */
  durationMs: number;
  /** Bytes of all slices written. */
  bytes: number;
  /** Slices written (files 000001, 000002, ... in the take's folder). */
  slices: number;
  state: TakeState;
  /** The server's upload for this take, once opened (createUploadToken), and the parts it holds. */
  upload?: { token: string; expiresAt: number; parts: StoredPart[] };
  /** Once saved to the cloud. */
  fileId?: string;
  fileName?: string;
}

export interface Take {
  readonly meta: TakeMeta;
  /** Appends one slice durably (its own file, then meta.json); calls are queued in order. */
  append(slice: Blob, durationMs: number): Promise<void>;
  /** Updates meta.json. */
  update(patch: Partial<Omit<TakeMeta, 'id' | 'createdAt'>>): Promise<void>;
  /** The whole take as one Blob of meta.mediaType (disk-backed: slices are OPFS files). */
  blob(): Promise<Blob>;
}

export interface TakeStore {
  /** A new take in state 'recording'. */
  create(mimeType: string): Promise<Take>;
  /**
   * Takes that are not saved (state 'recording' after a crash, or 'stopped'), newest first. Leaves
   * out empty takes, takes another tab has open (it may still be recording them), and this page's
   * take while it is being recorded. slices/bytes are what the files say.
   */
  unsaved(): Promise<TakeMeta[]>;
  /**
   * A take to resume (recover, upload): its meta repaired from the slice files. null when there is
   * no such take or another tab has it open. This page keeps it open (a Web Lock) until remove()
   * or the page goes; opening it again answers the same object.
   */
  open(id: string): Promise<Take | null>;
  /** Deletes the take's folder; throws when another tab has it open. */
  remove(id: string): Promise<void>;
  /** Asks the browser to keep the studio's files under storage pressure (navigator.storage.persist). */
  persist(): Promise<boolean>;
  /** Free bytes the origin may still use (navigator.storage.estimate: quota - usage); null when unknown. */
  freeBytes(): Promise<number | null>;
}

export type RecorderState = 'idle' | 'recording' | 'paused' | 'stopped';

export interface TakeRecorder {
  readonly state: RecorderState;
  /** Recorded time without pauses, ms (live, not only at slice boundaries). */
  elapsedMs(): number;
  start(): void;
  pause(): void;
  resume(): void;
  /** Resolves once the last slice is in the take and meta.state is 'stopped'. */
  stop(): Promise<void>;
  /**
   * A slice could not be written (disk full, OPFS gone): the screens show it and stop. Also heard,
   * once, when MediaRecorder fails or ends on its own (every track of the stream ended); stop()
   * still resolves once what was recorded is in the take.
   */
  onError: ((error: Error) => void) | null;
  /** A slice is in the take (file and meta.json written): the moment to call TakeUpload.pump(). */
  onSlice?: ((meta: TakeMeta) => void) | null;
}

export type UploadPhase = 'idle' | 'uploading' | 'waiting-network' | 'completing' | 'done' | 'failed';

export interface UploadProgress {
  phase: UploadPhase;
  /** Bytes the store holds (finished parts) plus bytes of parts on the way. */
  sentBytes: number;
  /** The take's bytes so far (grows while recording). */
  totalBytes: number;
  /** The last failure's text, when phase is 'failed'. */
  error?: string;
  /**
   * The last failure's code, when phase is 'failed': a server code ('39002' the take is too
   * large, ...), 'network', 'store' (the object store refused a part), 'take' (the take on disk
   * cannot be read), 'client'. See UploadError in upload.ts.
   */
  code?: string;
}

export interface TakeUpload {
  /** While recording: uploads every whole part written so far (call after each slice; cheap when nothing is due). */
  pump(): void;
  /**
   * After stop: uploads what is left (the last part may be short), then addlocalRecordFile with the
   * name. Resolves with the record's fileId; rejects when retries end (phase 'failed'). Calling it
   * again after a failure resumes from the parts stored, never from zero; while one finish runs a
   * second call returns the same promise (double submit).
   */
  finish(fileName: string): Promise<string>;
  /** Drops the server's upload (record again, saved locally). */
  abort(): Promise<void>;
  /** Progress for the bar; called on every change. */
  onProgress: ((p: UploadProgress) => void) | null;
}
