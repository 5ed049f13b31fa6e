/**
 * The courseware calls of core/contracts/courseware.ts through the app's /api client, and the
 * direct upload of a file to the store (a presigned PUT, with progress and cancel).
 */
import type { ApiData, ApiRequest, Envelope } from '#core/contracts/api.ts';
import type { CoursewareApiAnswers } from '#core/contracts/courseware.ts';
import { api, type ApiOptions } from '#app/lib/api.ts';

export type CwName = keyof CoursewareApiAnswers;

/** `api()` narrowed to the courseware calls: the same client, typed by name. */
export function cwApi<N extends CwName>(name: N, body: ApiRequest<N>, options: ApiOptions = {}): Promise<Envelope<ApiData<N>>> {
  return api(name, body, options);
}

export interface PutHandle {
  done: Promise<'ok' | 'aborted' | 'failed'>;
  abort: () => void;
}

/** PUTs the file to the presigned address with the headers the server gave; progress in bytes. */
export function putFile(
  url: string,
  method: string,
  headers: Record<string, string>,
  file: Blob,
  onProgress: (sent: number, total: number) => void,
): PutHandle {
  const xhr = new XMLHttpRequest();
  const done = new Promise<'ok' | 'aborted' | 'failed'>((resolve) => {
    xhr.open(method, url);
    for (const [k, v] of Object.entries(headers)) {
      // The browser sets these itself and refuses to be told.
      if (/^(content-length|host)$/i.test(k)) continue;
      xhr.setRequestHeader(k, v);
    }
    xhr.upload.onprogress = (e) => onProgress(e.loaded, e.lengthComputable ? e.total : file.size);
    xhr.onload = () => resolve(xhr.status >= 200 && xhr.status < 300 ? 'ok' : 'failed');
    xhr.onerror = () => resolve('failed');
    xhr.ontimeout = () => resolve('failed');
    xhr.onabort = () => resolve('aborted');
    xhr.send(file);
  });
  return { done, abort: () => xhr.abort() };
}
