/**
 * The conversion worker's adapter of the Converter port (core/courseware/converter.ts): sniffing by
 * content, Office -> PDF through LibreOffice headless, PDF -> page images through mupdf (worker
 * thread) and sharp, mp4 through ffprobe/ffmpeg. Decisions: docs/decisions/045-048.
 *
 *   const converter = createConverter({ workDir: '/var/tmp/banshu-convert' });
 *   const kind = await converter.sniff(file);            // null: refuse the upload
 *   await converter.convertDocument(file, kind, async (page, total) => { ...store page... });
 *   await converter.close();
 */
import { open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConvertError } from '#core/courseware/converter.ts';
import type { ConvertedPage, ConvertedVideo, ConvertOptions, Converter, SourceKind } from '#core/courseware/converter.ts';
import { CONVERT_MAX_MS, CONVERT_MAX_PAGES } from '#core/contracts/courseware.ts';
import { LibreOffice, jobDir, removeStaleProfiles } from './office.ts';
import { PdfRenderer } from './pdf.ts';
import { Pool } from './pool.ts';
import { readZipDirectory, sniffFile } from './sniff.ts';
import { convertVideoFile } from './video.ts';

export interface ConverterOptions {
  /** Scratch space: LibreOffice profiles, per-job directories, remuxed videos. */
  workDir: string;
  soffice: string;
  ffmpeg: string;
  ffprobe: string;
  /** LibreOffice conversions at once (each has its own profile). */
  officeSlots: number;
  /** PDF documents rendered at once (each by its own mupdf worker thread). */
  pdfWorkers: number;
  /** Extra environment of the LibreOffice processes (e.g. FONTCONFIG_FILE). */
  officeEnv: Record<string, string>;
  /** Start an idle LibreOffice ahead of each conversion (docs/decisions/045). */
  officeStandby: boolean;
  /** Address-space limit of each LibreOffice process. */
  officeMaxMemoryBytes: number;
  /** An Office zip whose entries would expand to more than this is refused before LibreOffice sees it. */
  zipMaxUncompressedBytes: number;
  zipMaxEntries: number;
  /** Make the LibreOffice profiles and load mupdf now rather than on the first document. */
  warm: boolean;
}

export const DEFAULT_CONVERTER_OPTIONS: ConverterOptions = {
  workDir: path.join(tmpdir(), 'banshu-convert'),
  soffice: 'soffice',
  ffmpeg: 'ffmpeg',
  ffprobe: 'ffprobe',
  officeSlots: 1,
  pdfWorkers: 2,
  officeEnv: {},
  officeStandby: true,
  officeMaxMemoryBytes: 3 * 1024 ** 3,
  zipMaxUncompressedBytes: 512 * 1024 ** 2,
  zipMaxEntries: 10_000,
  warm: true,
};

export class LocalConverter implements Converter {
  readonly options: ConverterOptions;
  readonly #office: LibreOffice;
  readonly #pdf: Pool<PdfRenderer>;
  /** Resolves once the LibreOffice profiles exist (started by the constructor when `warm`). */
  readonly ready: Promise<void>;

  constructor(options: Partial<ConverterOptions> = {}) {
    this.options = { ...DEFAULT_CONVERTER_OPTIONS, ...options };
    this.#office = new LibreOffice({
      binary: this.options.soffice,
      workDir: this.options.workDir,
      slots: this.options.officeSlots,
      maxMemoryBytes: this.options.officeMaxMemoryBytes,
      env: this.options.officeEnv,
      standby: this.options.officeStandby,
    });
    this.#pdf = new Pool(Array.from({ length: Math.max(1, this.options.pdfWorkers) }, () => new PdfRenderer()));
    if (this.options.warm) {
      this.#pdf.items[0]?.warm();
      this.ready = jobDir(this.options.workDir)
        .then((dir) => rm(dir, { recursive: true, force: true }))
        .then(() => removeStaleProfiles(this.options.workDir))
        .then(() => this.#office.warm())
        .catch(() => undefined); // a failed warm-up only costs speed; conversions report real errors
    } else {
      this.ready = Promise.resolve();
    }
  }

  sniff(file: string): Promise<SourceKind | null> {
    return sniffFile(file);
  }

  async convertDocument(
    file: string,
    kind: Exclude<SourceKind, 'mp4'>,
    onPage: (page: ConvertedPage, total: number) => Promise<void>,
    options: ConvertOptions = {},
  ): Promise<{ pages: number }> {
    return this.#withDeadline(options, async (deadline, signal) => {
      const maxPages = options.maxPages ?? CONVERT_MAX_PAGES;
      const render = (pdf: string) => this.#pdf.use(signal, (renderer) => renderer.render(pdf, onPage, { maxPages, signal }));
      if (kind === 'pdf') return { pages: await render(file) };
      if (kind === 'pptx' || kind === 'docx') await this.#checkZip(file, kind, maxPages);
      const dir = await jobDir(this.options.workDir);
      try {
        const pdf = await this.#office.toPdf(file, kind, dir, deadline, signal);
        return { pages: await render(pdf) };
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });
  }

  convertVideo(file: string, options: ConvertOptions = {}): Promise<ConvertedVideo> {
    return this.#withDeadline(options, (deadline, signal) =>
      convertVideoFile(
        { ffmpeg: this.options.ffmpeg, ffprobe: this.options.ffprobe, workDir: this.options.workDir },
        file,
        deadline,
        signal,
        options.acceptWebm === true,
      ),
    );
  }

  async close(): Promise<void> {
    await Promise.all(this.#pdf.items.map((r) => r.close()));
    await this.#office.close();
  }

  /**
   * Refuses a zip whose directory promises a decompression bomb (LibreOffice would inflate it all),
   * and a pptx with more slides than allowed (counted from its entries, before LibreOffice runs).
   */
  async #checkZip(file: string, kind: 'pptx' | 'docx', maxPages: number): Promise<void> {
    const fh = await open(file, 'r');
    try {
      const entries = await readZipDirectory(fh, (await fh.stat()).size);
      if (!entries) throw new ConvertError('corrupt', 'not a readable zip container');
      if (entries.length > this.options.zipMaxEntries)
        throw new ConvertError('corrupt', `the file holds ${String(entries.length)} entries`);
      const total = entries.reduce((sum, e) => sum + e.uncompressed, 0);
      if (total > this.options.zipMaxUncompressedBytes) {
        throw new ConvertError('corrupt', `the file would expand to ${String(Math.round(total / 1024 ** 2))} MiB`);
      }
      if (kind === 'pptx') {
        const slides = entries.filter((e) => /^ppt\/slides\/slide\d+\.xml$/.test(e.name)).length;
        if (slides > maxPages)
          throw new ConvertError('too-many-pages', `the presentation has ${String(slides)} slides (at most ${String(maxPages)})`);
      }
    } finally {
      await fh.close();
    }
  }

  /** Runs `work` with one deadline for all its steps; past it everything started is stopped and 'timeout' is thrown. */
  async #withDeadline<T>(options: ConvertOptions, work: (deadline: number, signal: AbortSignal) => Promise<T>): Promise<T> {
    const timeoutMs = options.timeoutMs ?? CONVERT_MAX_MS;
    const deadline = Date.now() + timeoutMs;
    const controller = new AbortController();
    const timer = setTimeout(
      () => controller.abort(new ConvertError('timeout', `the conversion ran past ${String(Math.round(timeoutMs / 1000))} s`)),
      timeoutMs,
    );
    const onAbort = () => controller.abort(new ConvertError('failed', 'the conversion was cancelled', true));
    if (options.signal?.aborted) onAbort();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      return await work(deadline, controller.signal);
    } catch (e) {
      if (e instanceof ConvertError) throw e;
      if (controller.signal.aborted && controller.signal.reason instanceof ConvertError) throw controller.signal.reason;
      throw new ConvertError('failed', e instanceof Error ? e.message : String(e), true);
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
    }
  }
}

export function createConverter(options: Partial<ConverterOptions> = {}): LocalConverter {
  return new LocalConverter(options);
}
