/**
 * The file hash of the upload (docs/product/03-board-courseware-billing.md §4, §9): MD5 over the whole file, read in 2 MiB slices so a
 * 50 MB file never sits in memory at once. The reading loop is here (tested in Node with the same
 * incremental MD5); `md5File` runs it in a Web Worker so the page stays responsive.
 */
import SparkMD5 from 'spark-md5';
import { HASH_SLICE_BYTES, type HashChallenge } from '#core/contracts/courseware.ts';

export type HashMessage =
  { type: 'progress'; done: number; total: number } | { type: 'done'; hash: string } | { type: 'error'; message: string };

interface Incremental {
  append(chunk: ArrayBuffer): unknown;
  end(): string;
}

/** Slice by slice: append each to the incremental hash and report bytes done. */
export async function hashFile(
  file: Blob,
  sliceBytes: number,
  create: () => Incremental,
  progress: (done: number, total: number) => void,
): Promise<string> {
  const md5 = create();
  const total = file.size;
  let done = 0;
  progress(0, total);
  while (done < total) {
    const end = Math.min(total, done + sliceBytes);
    md5.append(await file.slice(done, end).arrayBuffer());
    done = end;
    progress(done, total);
  }
  return md5.end().toLowerCase();
}

/**
 * The answer to the server's challenge when the same bytes are stored for another user (ADR 069):
 * MD5 of the nonce's characters, then the challenged range of the file (at most 64 KiB, read here).
 */
export async function answerChallenge(
  file: Blob,
  c: Pick<HashChallenge, 'offset' | 'length' | 'nonce'>,
): Promise<{ nonce: string; rangeHash: string }> {
  const md5 = new SparkMD5.ArrayBuffer();
  md5.append(new TextEncoder().encode(c.nonce).buffer);
  const range = await file.slice(c.offset, c.offset + c.length).arrayBuffer();
  if (range.byteLength !== c.length) throw new Error('the file is shorter than the challenged range');
  md5.append(range);
  return { nonce: c.nonce, rangeHash: md5.end().toLowerCase() };
}

/** Hashes in a worker; `signal` stops it. Resolves with the lower-case hex MD5. */
export function md5File(file: File, onProgress: (done: number, total: number) => void, signal?: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./hash.worker.ts', import.meta.url), { type: 'module' });
    const stop = () => {
      worker.terminate();
      reject(new DOMException('aborted', 'AbortError'));
    };
    if (signal?.aborted) return stop();
    signal?.addEventListener('abort', stop, { once: true });
    worker.onmessage = (event: MessageEvent<HashMessage>) => {
      const m = event.data;
      if (m.type === 'progress') onProgress(m.done, m.total);
      else {
        signal?.removeEventListener('abort', stop);
        worker.terminate();
        if (m.type === 'done') resolve(m.hash);
        else reject(new Error(m.message));
      }
    };
    worker.onerror = (event) => {
      signal?.removeEventListener('abort', stop);
      worker.terminate();
      reject(new Error(event.message || 'hash worker failed'));
    };
    worker.postMessage({ file, sliceBytes: HASH_SLICE_BYTES });
  });
}
