/**
 * MD5 of a file off the main thread (docs/product/03-board-courseware-billing.md §9: 2 MiB slices), with progress after each slice.
 * In: { file: File, sliceBytes: number }. Out: { type: 'progress', done, total } then
 * { type: 'done', hash } or { type: 'error', message }.
 */
import SparkMD5 from 'spark-md5';
import { hashFile, type HashMessage } from './hash.ts';

const scope = self as unknown as {
  onmessage: ((e: MessageEvent<{ file: File; sliceBytes: number }>) => void) | null;
  postMessage: (m: HashMessage) => void;
};

scope.onmessage = (event) => {
  const { file, sliceBytes } = event.data;
  hashFile(
    file,
    sliceBytes,
    () => new SparkMD5.ArrayBuffer(),
    (done, total) => scope.postMessage({ type: 'progress', done, total }),
  ).then(
    (hash) => scope.postMessage({ type: 'done', hash }),
    (error: unknown) => scope.postMessage({ type: 'error', message: error instanceof Error ? error.message : String(error) }),
  );
};
