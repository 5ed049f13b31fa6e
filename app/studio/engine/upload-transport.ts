/**
 * How a take's upload reaches the server and the object store (ADR 086): the /api calls, the PUT
 * of one part (XMLHttpRequest, for its upload progress; a stalled one is a network error), and the
 * browser's network state. upload.ts drives an UploadTransport, so its tests use a fake one.
 */
import type { ApiData, ApiRequest, Envelope } from '#core/contracts/api.ts';
import type { SignedPart } from '#core/contracts/studio.ts';
import { api } from '#app/lib/api.ts';

/** A PUT without upload progress for this long hangs on a dead connection: treated as a network error. */
const STALL_MS = 60_000;
/** How one PUT of a part ended. */
export type PutResult =
  /** 2xx; etag is the response's ETag header (null when the store sent none or CORS hides it). */
  | { kind: 'ok'; etag: string | null }
  | { kind: 'http'; status: number }
  /** No answer: a network error, or the PUT stalled. */
  | { kind: 'network' }
  /** abort() was called. */
  | { kind: 'aborted' };

export interface PartPut {
  readonly done: Promise<PutResult>;
  abort(): void;
}

/** The server, the store and the network state as the upload uses them. */
export interface UploadTransport {
  createUploadToken(body: ApiRequest<'createUploadToken'>): Promise<Envelope<ApiData<'createUploadToken'>>>;
  signUploadParts(body: ApiRequest<'signUploadParts'>): Promise<Envelope<ApiData<'signUploadParts'>>>;
  /** Every try of one save passes the same requestId, so the server joins the parts once. */
  addlocalRecordFile(body: ApiRequest<'addlocalRecordFile'>, requestId: string): Promise<Envelope<ApiData<'addlocalRecordFile'>>>;
  abortUpload(body: ApiRequest<'abortUpload'>): Promise<Envelope<ApiData<'abortUpload'>>>;
  /** PUTs one part to its signed address with exactly the signed headers; onProgress gets the bytes sent so far. */
  put(part: SignedPart, body: Blob, onProgress: (sentBytes: number) => void): PartPut;
  /** navigator.onLine: false means surely offline (true may still be wrong). */
  online(): boolean;
  /** The browser's 'online' / 'offline' events; returns the unsubscribe. */
  watchNetwork(listener: (online: boolean) => void): () => void;
}

/** Headers the browser sets itself and refuses from a script. */
const BROWSER_HEADERS = /^(content-length|host|connection|expect)$/i;

function xhrPut(part: SignedPart, body: Blob, onProgress: (sentBytes: number) => void): PartPut {
  const xhr = new XMLHttpRequest();
  const done = new Promise<PutResult>((resolve) => {
    let settled = false;
    let stall: ReturnType<typeof setTimeout> | undefined;
    const end = (result: PutResult): void => {
      if (settled) return;
      settled = true;
      clearTimeout(stall);
      resolve(result);
    };
    const watch = (): void => {
      clearTimeout(stall);
      stall = setTimeout(() => {
        end({ kind: 'network' });
        xhr.abort();
      }, STALL_MS);
    };
    xhr.open('PUT', part.url);
    for (const [name, value] of Object.entries(part.headers)) {
      if (!BROWSER_HEADERS.test(name)) xhr.setRequestHeader(name, value);
    }
    xhr.upload.onprogress = (e) => {
      watch();
      onProgress(e.loaded);
    };
    xhr.onload = () =>
      end(
        xhr.status >= 200 && xhr.status < 300 ? { kind: 'ok', etag: xhr.getResponseHeader('ETag') } : { kind: 'http', status: xhr.status },
      );
    xhr.onerror = () => end({ kind: 'network' });
    xhr.ontimeout = () => end({ kind: 'network' });
    xhr.onabort = () => end({ kind: 'aborted' });
    watch();
    // The slice has no type, so no Content-Type goes unless the signature asked for one.
    xhr.send(body);
  });
  return { done, abort: () => xhr.abort() };
}

/** addlocalRecordFile retries on a network error, with the same requestId. */
const JOIN_NETWORK_RETRIES = 2;

/** The app's /api client, XMLHttpRequest PUTs (for upload progress) and the browser's network events. */
export function browserTransport(): UploadTransport {
  // The studio shows its own failure; the client's generic network toast would repeat it.
  const quiet = { quietNetworkError: true } as const;
  return {
    createUploadToken: (body) => api('createUploadToken', body, quiet),
    signUploadParts: (body) => api('signUploadParts', body, quiet),
    addlocalRecordFile: (body, requestId) => api('addlocalRecordFile', body, { ...quiet, requestId, retries: JOIN_NETWORK_RETRIES }),
    abortUpload: (body) => api('abortUpload', body, quiet),
    put: xhrPut,
    online: () => navigator.onLine,
    watchNetwork(listener) {
      const onOnline = (): void => listener(true);
      const onOffline = (): void => listener(false);
      window.addEventListener('online', onOnline);
      window.addEventListener('offline', onOffline);
      return () => {
        window.removeEventListener('online', onOnline);
        window.removeEventListener('offline', onOffline);
      };
    },
  };
}
