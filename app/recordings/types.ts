/**
 * The cloud-recording calls and events as the browser uses them (issue 13's shared contract).
 * Temporary: the server side declares these in core/contracts; once that is merged, this file's
 * shapes are replaced by imports from there and `recApi` by the app's `api` (the names become
 * ApiName). Until then every call still goes through `api()`, typed by name here.
 */
import type { Envelope } from '#core/contracts/api.ts';
import { api, type ApiOptions } from '#app/lib/api.ts';

/** '0' idle, '2' starting (waiting for a recorder), '1' recording. */
export type RecordState = '0' | '1' | '2';

/** 1 the automatic class recording (cloud), 2 a studio recording. */
export type RecordType = 1 | 2;
export const RECORD_TYPES: readonly RecordType[] = [1, 2];

export interface RecordRow {
  id: string;
  fileId: string;
  taskId: string;
  fileName: string;
  /** Bytes as a decimal string; '' while the MP4 is still being made ('transcoding'). */
  fileSize: string;
  durationMs: number | null;
  /** ms epoch; also the list's cursor (`pageTime`). */
  createTime: number;
  type: RecordType;
  roomNumber: string;
}

export const RECORD_PAGE_SIZE = 10;

export interface RecordingApi {
  startTask: { req: { roomNumber: string }; data: { taskId: string } };
  stopTask: { req: { roomNumber: string; taskId: string }; data: Record<string, never> };
  getRoomMemberRecordState: {
    req: { roomNumber: string };
    /** `startedAt` (ms epoch, server time) is read when the server sends it; the contract does not name it yet. */
    data: { recordState: RecordState; taskId: string; startedAt?: number };
  };
  getRecordList: { req: { recordType: RecordType; pageSize: number; pageTime?: string }; data: { recordList: RecordRow[]; total: number } };
  getRecordFileUrl: { req: { fileId: string; taskId?: string; download?: boolean }; data: { fileUrl: string } };
  delRecord: { req: { fileId: string }; data: Record<string, never> };
  createRecordShareLink: { req: { fileId: string }; data: { url: string; expiresAt: number } };
  getSharedRecord: {
    req: { token: string };
    data: { fileName: string; fileUrl: string; fileSize: string; durationMs: number | null; createTime: number };
  };
}

export type RecName = keyof RecordingApi;

/** `api()` for the recording calls: the same client (headers, retries, session end), typed by name. */
export function recApi<N extends RecName>(
  name: N,
  body: RecordingApi[N]['req'],
  options: ApiOptions = {},
): Promise<Envelope<RecordingApi[N]['data']>> {
  // The names are not in core/contracts' ApiName until the server's branch is merged.
  const loose = api as unknown as (name: string, body: unknown, options: ApiOptions) => Promise<Envelope<RecordingApi[N]['data']>>;
  return loose(name, body, options);
}

/** Room channel events (to everyone in the room). */
export interface RecordRoomEvents {
  roomRecord: (p: { code: string; taskId: string; recordState: RecordState; startedAt?: number }) => void;
  roomRecordFailed: (p: { taskId: string; reason: string }) => void;
}

/** User channel event (to the owner): the MP4 is listed. */
export interface RecordUserEvents {
  roomRecord: (p: { code: string; taskId: string; fileId: string }) => void;
}
