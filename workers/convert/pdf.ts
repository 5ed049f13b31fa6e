/**
 * PDF -> page images: mupdf renders each page in a worker thread (pdf-worker.ts) at exactly the
 * page image width, sharp encodes the JPEG and the thumbnail here. While sharp encodes page n and
 * the caller stores it, the worker already renders page n + 1.
 */
import { Worker } from 'node:worker_threads';
import sharp from 'sharp';
import { ConvertError } from '#core/courseware/converter.ts';
import type { ConvertedPage } from '#core/courseware/converter.ts';
import { PAGE_IMAGE_WIDTH, PAGE_THUMB_WIDTH } from '#core/contracts/courseware.ts';
import { abortReason } from './process.ts';
import type { PdfWorkerLimits, PdfWorkerReply, PdfWorkerRequest } from './pdf-worker.ts';

export interface PdfRenderOptions {
  maxPages: number;
  signal: AbortSignal;
}

/** JPEG qualities (docs/decisions/046): text stays crisp at 1280 px; thumbnails only need the look. */
export const PAGE_JPEG_QUALITY = 85;
export const THUMB_JPEG_QUALITY = 75;

/** Pages rendered and encoded ahead of the one the caller is storing. */
const PAGES_AHEAD = 2;

export const PDF_LIMITS: PdfWorkerLimits = {
  width: PAGE_IMAGE_WIDTH,
  thumbWidth: PAGE_THUMB_WIDTH,
  maxHeight: PAGE_IMAGE_WIDTH * 16,
  maxImagePixels: 120_000_000,
  maxPagePixels: 480_000_000,
};

/** One mupdf worker thread, started on first use and replaced after any run that did not end cleanly. */
export class PdfRenderer {
  #worker: Worker | null = null;
  #pending: { resolve: (r: PdfWorkerReply) => void; reject: (e: Error) => void } | null = null;
  #limits: PdfWorkerLimits;

  constructor(limits: PdfWorkerLimits = PDF_LIMITS) {
    this.#limits = limits;
  }

  /** Starts the worker (loads mupdf's WebAssembly, ~150 ms) ahead of the first document. */
  warm(): void {
    this.#ensure();
  }

  #ensure(): Worker {
    if (this.#worker) return this.#worker;
    const worker = new Worker(new URL('./pdf-worker.ts', import.meta.url), { workerData: this.#limits });
    worker.unref();
    // Replies and exits of a worker we already let go (terminated after a timeout) are ignored.
    worker.on('message', (reply: PdfWorkerReply) => {
      worker.unref();
      if (this.#worker !== worker) return;
      const pending = this.#pending;
      this.#pending = null;
      pending?.resolve(reply);
    });
    const fail = (e: Error) => {
      if (this.#worker !== worker) return;
      this.#worker = null;
      const pending = this.#pending;
      this.#pending = null;
      pending?.reject(e);
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new ConvertError('failed', `the PDF renderer stopped (exit ${String(code)})`, true)));
    this.#worker = worker;
    return worker;
  }

  #ask(msg: PdfWorkerRequest, signal: AbortSignal): Promise<PdfWorkerReply> {
    const worker = this.#ensure();
    if (this.#pending) return Promise.reject(new Error('PdfRenderer: one request at a time'));
    return new Promise<PdfWorkerReply>((resolve, reject) => {
      const onAbort = () => {
        // A page that runs past the deadline is stopped the only way a synchronous render can be.
        this.#pending = null;
        this.#worker = null;
        void worker.terminate();
        reject(abortReason(signal));
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      this.#pending = {
        resolve: (r) => {
          signal.removeEventListener('abort', onAbort);
          resolve(r);
        },
        reject: (e) => {
          signal.removeEventListener('abort', onAbort);
          reject(e);
        },
      };
      worker.ref(); // keeps the process alive while a page is being rendered
      worker.postMessage(msg);
    });
  }

  /** Renders every page of a PDF in order, awaiting onPage for each; resolves with the page count. */
  async render(file: string, onPage: (page: ConvertedPage, total: number) => Promise<void>, options: PdfRenderOptions): Promise<number> {
    const { signal } = options;
    let clean = false;
    let stopped = false;
    try {
      const opened = expect(await this.#ask({ op: 'open', file }, signal), 'opened');
      const total = opened.pages;
      if (total < 1) throw new ConvertError('corrupt', 'the PDF has no pages');
      if (total > options.maxPages) {
        throw new ConvertError('too-many-pages', `the document has ${String(total)} pages (at most ${String(options.maxPages)})`);
      }
      // Pages are rendered one after the other by the worker and encoded as they come, up to
      // PAGES_AHEAD beyond the one being handed to onPage (so both cores work); onPage sees them in order.
      let renders: Promise<unknown> = Promise.resolve();
      const schedule = (index: number) => {
        const rendered = renders
          .then(() => {
            if (stopped) throw new ConvertError('failed', 'rendering stopped');
            return this.#ask({ op: 'render', index }, signal);
          })
          .then((r) => expect(r, 'page'));
        renders = rendered.catch(() => undefined);
        const encoded = rendered.then(encodePage);
        encoded.catch(() => undefined); // awaited in its turn; a failure meanwhile is seen there
        return encoded;
      };
      const queue: Array<Promise<Omit<ConvertedPage, 'page'>>> = [];
      for (let i = 0; i < Math.min(PAGES_AHEAD, total); i++) queue.push(schedule(i));
      for (let i = 0; i < total; i++) {
        const page = await queue.shift()!;
        if (i + PAGES_AHEAD < total) queue.push(schedule(i + PAGES_AHEAD));
        signal.throwIfAborted();
        await onPage({ ...page, page: i + 1 }, total);
      }
      await renders;
      expect(await this.#ask({ op: 'close' }, signal), 'closed');
      clean = true;
      return total;
    } finally {
      stopped = true;
      if (!clean) await this.#recycle();
    }
  }

  /** After a failure: a fresh worker for the next document (frees whatever mupdf had allocated). */
  async #recycle(): Promise<void> {
    const worker = this.#worker;
    this.#worker = null;
    this.#pending = null;
    if (worker) await worker.terminate();
  }

  async close(): Promise<void> {
    await this.#recycle();
  }
}

function expect<K extends PdfWorkerReply['op']>(reply: PdfWorkerReply, op: K): Extract<PdfWorkerReply, { op: K }> {
  if (reply.op === 'error') throw new ConvertError(reply.reason, reply.message);
  if (reply.op !== op) throw new ConvertError('failed', `unexpected reply ${reply.op} from the PDF renderer`, true);
  return reply as Extract<PdfWorkerReply, { op: K }>;
}

async function encodePage(r: Extract<PdfWorkerReply, { op: 'page' }>): Promise<Omit<ConvertedPage, 'page'>> {
  const [image, thumb] = await Promise.all([
    sharp(new Uint8Array(r.pixels), { raw: { width: r.width, height: r.height, channels: 3 } })
      .jpeg({ quality: PAGE_JPEG_QUALITY })
      .toBuffer(),
    sharp(new Uint8Array(r.thumbPixels), { raw: { width: PAGE_THUMB_WIDTH, height: r.thumbHeight, channels: 3 } })
      .jpeg({ quality: THUMB_JPEG_QUALITY })
      .toBuffer(),
  ]);
  return { image, thumb, width: r.width, height: r.height };
}
