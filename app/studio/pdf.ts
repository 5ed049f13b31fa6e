/**
 * The studio's document view: a PDF from the teacher's disk, opened and drawn in this browser by
 * pdf.js (nothing is uploaded). pdf.js is loaded when the first PDF is chosen, its worker comes
 * from this site (bundled by Vite; the page's CSP allows worker-src 'self').
 */
import type * as PdfJsLib from 'pdfjs-dist';
import workerUrl from 'pdfjs-dist/build/pdf.worker.min.mjs?url';

export const PDF_TYPE = 'application/pdf';

/** The spec's rule (docs/product/02-live-classroom.md §5): the file's type, not its name. */
export function isPdfFile(file: { type: string }): boolean {
  return file.type === PDF_TYPE;
}

export interface PdfDoc {
  readonly pages: number;
  /** Draws page `n` (1-based) into the canvas, as large as fits `maxW` x `maxH` device pixels. */
  render(n: number, canvas: HTMLCanvasElement, maxW: number, maxH: number): Promise<void>;
  destroy(): void;
}

type PdfJs = typeof PdfJsLib;
let loading: Promise<PdfJs> | null = null;

function pdfjs(): Promise<PdfJs> {
  loading ??= import('pdfjs-dist').then((lib) => {
    lib.GlobalWorkerOptions.workerSrc = workerUrl;
    return lib;
  });
  return loading;
}

/** Opens a PDF's bytes; rejects when pdf.js cannot read them ('parse failed'). */
export async function openPdf(bytes: ArrayBuffer): Promise<PdfDoc> {
  const lib = await pdfjs();
  const task = lib.getDocument({
    data: new Uint8Array(bytes),
    // Everything stays on this page: no wasm, fonts or maps fetched from elsewhere.
    useWasm: false,
    enableXfa: false,
    stopAtErrors: false,
  });
  const doc = await task.promise;
  let current: { cancel(): void } | null = null;
  return {
    pages: doc.numPages,
    async render(n, canvas, maxW, maxH) {
      current?.cancel();
      const page = await doc.getPage(Math.min(doc.numPages, Math.max(1, n)));
      const base = page.getViewport({ scale: 1 });
      const scale = Math.max(0.1, Math.min(maxW / base.width, maxH / base.height));
      const viewport = page.getViewport({ scale });
      // Drawn off screen first, so the visible page never flashes white between pages.
      const scratch = document.createElement('canvas');
      scratch.width = Math.max(1, Math.floor(viewport.width));
      scratch.height = Math.max(1, Math.floor(viewport.height));
      const task = page.render({ canvas: scratch, viewport, background: '#ffffff' });
      current = task;
      try {
        await task.promise;
      } finally {
        if (current === task) current = null;
      }
      canvas.width = scratch.width;
      canvas.height = scratch.height;
      canvas.getContext('2d')?.drawImage(scratch, 0, 0);
    },
    destroy() {
      current?.cancel();
      void task.destroy();
    },
  };
}
