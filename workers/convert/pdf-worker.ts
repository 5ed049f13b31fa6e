/**
 * The mupdf side of PDF rendering, in a worker thread (workers/convert/pdf.ts starts it): mupdf is
 * WebAssembly and renders synchronously, so a slow or hostile page must not block the job's event
 * loop, and a page that runs past the deadline or makes the heap grow is ended by terminating this
 * thread, which frees its whole WebAssembly memory (up to 2 GiB).
 *
 * Messages in: {op:'open', file}, {op:'render', index}, {op:'close'}.
 * Messages out: {op:'opened', pages}, {op:'page', index, width, height, pixels (RGB, transferred)},
 * {op:'closed'}, {op:'error', reason, message}.
 */
import { readFileSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import * as mupdf from 'mupdf';

export interface PdfWorkerLimits {
  /** Output width of every page image. */
  width: number;
  /** Width of the thumbnail, drawn from the same page record (cheaper and sharper than downscaling). */
  thumbWidth: number;
  /** A page taller than this at `width` is refused (an absurd media box). */
  maxHeight: number;
  /** An image in a page that would decode to more pixels than this is refused (a decompression bomb). */
  maxImagePixels: number;
  /** All images drawn on one page together (each time it is drawn). */
  maxPagePixels: number;
}

export type PdfWorkerRequest = { op: 'open'; file: string } | { op: 'render'; index: number } | { op: 'close' };
export type PdfWorkerReply =
  | { op: 'opened'; pages: number }
  | { op: 'page'; index: number; width: number; height: number; pixels: ArrayBuffer; thumbHeight: number; thumbPixels: ArrayBuffer }
  | { op: 'closed' }
  | { op: 'error'; reason: 'encrypted' | 'corrupt' | 'unsupported'; message: string };

class Refused extends Error {
  readonly reason: 'encrypted' | 'corrupt' | 'unsupported';
  constructor(reason: 'encrypted' | 'corrupt' | 'unsupported', message: string) {
    super(message);
    this.reason = reason;
  }
}

const limits = workerData as PdfWorkerLimits;
const port = parentPort!;
let doc: mupdf.Document | null = null;

mupdf.setLog(null);

/** The first image (or soft mask) bigger than the limit, as 'W x H'; null when none. Never throws (it runs inside mupdf). */
function oversized(image: mupdf.Image): string | null {
  for (let im: mupdf.Image | null = image, depth = 0; im && depth < 4; im = im.getMask(), depth++) {
    const pixels = im.getWidth() * im.getHeight();
    if (!(pixels <= limits.maxImagePixels)) return `${String(im.getWidth())} x ${String(im.getHeight())}`;
  }
  return null;
}

function renderPage(index: number): PdfWorkerReply {
  if (!doc) throw new Refused('corrupt', 'no document open');
  const page = doc.loadPage(index);
  try {
    const [x0, y0, x1, y1] = page.getBounds();
    const w = x1 - x0;
    const h = y1 - y0;
    if (!(w > 0 && h > 0 && Number.isFinite(w) && Number.isFinite(h))) {
      throw new Refused('corrupt', `page ${String(index + 1)} has an empty or invalid media box`);
    }
    const scale = limits.width / w;
    const height = Math.max(1, Math.round(h * scale));
    if (height > limits.maxHeight) {
      throw new Refused('unsupported', `page ${String(index + 1)} is too tall (${String(height)} px at ${String(limits.width)} px wide)`);
    }
    // Record the page once (no image is decoded yet), look at every image's size, then draw the record.
    const list = page.toDisplayList(true);
    try {
      // Callbacks run inside mupdf: they note the first offender and never throw.
      let bomb = null as string | null;
      let pagePixels = 0;
      const look = (image: mupdf.Image) => {
        bomb ??= oversized(image);
        pagePixels += image.getWidth() * image.getHeight();
        if (pagePixels > limits.maxPagePixels) bomb ??= `more than ${String(limits.maxPagePixels)} in all`;
      };
      const checker = new mupdf.Device({ fillImage: look, fillImageMask: look, clipImageMask: look });
      try {
        list.run(checker, mupdf.Matrix.identity);
      } finally {
        checker.close();
        checker.destroy();
      }
      if (bomb !== null) throw new Refused('corrupt', `page ${String(index + 1)} has an image of ${bomb} pixels`);
      const pixels = draw(list, x0, y0, limits.width, scale, height);
      const thumbScale = limits.thumbWidth / w;
      const thumbHeight = Math.max(1, Math.round(h * thumbScale));
      const thumbPixels = draw(list, x0, y0, limits.thumbWidth, thumbScale, thumbHeight);
      return { op: 'page', index, width: limits.width, height, pixels, thumbHeight, thumbPixels };
    } finally {
      list.destroy();
    }
  } finally {
    page.destroy();
  }
}

/** Draws the page record into exactly width x height RGB pixels on white; returns them packed (no row padding). */
function draw(list: mupdf.DisplayList, x0: number, y0: number, width: number, scale: number, height: number): ArrayBuffer {
  const pixmap = new mupdf.Pixmap(mupdf.ColorSpace.DeviceRGB, [0, 0, width, height], false);
  try {
    pixmap.clear(255);
    const matrix = mupdf.Matrix.concat(mupdf.Matrix.translate(-x0, -y0), mupdf.Matrix.scale(scale, scale));
    const device = new mupdf.DrawDevice(matrix, pixmap);
    try {
      list.run(device, mupdf.Matrix.identity);
    } finally {
      device.close();
      device.destroy();
    }
    const stride = pixmap.getStride();
    const src = pixmap.getPixels();
    const rowBytes = width * 3;
    const out = new Uint8Array(rowBytes * height);
    if (stride === rowBytes) out.set(src.subarray(0, out.length));
    else for (let y = 0; y < height; y++) out.set(src.subarray(y * stride, y * stride + rowBytes), y * rowBytes);
    return out.buffer;
  } finally {
    pixmap.destroy();
  }
}

function handle(msg: PdfWorkerRequest): PdfWorkerReply {
  switch (msg.op) {
    case 'open': {
      doc?.destroy();
      doc = null;
      let opened: mupdf.Document;
      try {
        opened = mupdf.Document.openDocument(readFileSync(msg.file), 'application/pdf');
      } catch (e) {
        throw new Refused('corrupt', `not a readable PDF: ${e instanceof Error ? e.message : String(e)}`);
      }
      doc = opened;
      if (doc.needsPassword()) throw new Refused('encrypted', 'the PDF needs a password');
      return { op: 'opened', pages: doc.countPages() };
    }
    case 'render':
      return renderPage(msg.index);
    case 'close':
      doc?.destroy();
      doc = null;
      mupdf.emptyStore();
      return { op: 'closed' };
  }
}

port.on('message', (msg: PdfWorkerRequest) => {
  let reply: PdfWorkerReply;
  try {
    reply = handle(msg);
  } catch (e) {
    reply =
      e instanceof Refused
        ? { op: 'error', reason: e.reason, message: e.message }
        : { op: 'error', reason: 'corrupt', message: e instanceof Error ? e.message : String(e) };
  }
  if (reply.op === 'page') port.postMessage(reply, [reply.pixels, reply.thumbPixels]);
  else port.postMessage(reply);
});
