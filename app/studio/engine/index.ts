/** The studio's take engine (ADR 086): the screens import it from here. */
export { openTakeStore } from './take-store.ts';
export { createRecorder, mediaTypeOf, pickMimeType } from './recorder.ts';
export { browserTransport, createUpload, UploadError, type PartPut, type PutResult, type UploadTransport } from './upload.ts';
export type * from './types.ts';
