/**
 * Office -> PDF through LibreOffice headless (docs/decisions/045). One soffice process per
 * conversion, each in its own process group, under a deadline and an address-space limit, with
 * its own profile directory. A profile is made once per slot (a warm-up conversion of a tiny
 * document at start) and reused: making a profile is a large part of a fresh process's cost.
 * Two soffice processes must never share a profile at the same time (the second would hand its
 * work to the first through the profile's pipe), so each slot runs one conversion at a time.
 */
import { copyFile, mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ConvertError } from '#core/courseware/converter.ts';
import type { SourceKind } from '#core/courseware/converter.ts';
import { Pool } from './pool.ts';
import { abortReason, run } from './process.ts';

export type OfficeKind = Exclude<SourceKind, 'mp4' | 'pdf'>;

/** The import filter for each kind, so LibreOffice reads the file as what we sniffed and nothing else. */
const IMPORT_FILTER: Record<OfficeKind, string> = {
  pptx: 'Impress MS PowerPoint 2007 XML',
  ppt: 'MS PowerPoint 97',
  docx: 'MS Word 2007 XML',
  doc: 'MS Word 97',
};

export interface OfficeOptions {
  /** soffice binary. */
  binary: string;
  /** Where profiles and per-job directories live. */
  workDir: string;
  /** Conversions at once (each with its own profile). */
  slots: number;
  /** Address-space limit of each soffice process, bytes (0: none). */
  maxMemoryBytes: number;
  /** Extra environment for soffice. */
  env: Record<string, string>;
}

interface Slot {
  profile: string;
  ready: Promise<void> | null;
}

export class LibreOffice {
  readonly #options: OfficeOptions;
  readonly #slots: Pool<Slot>;

  constructor(options: OfficeOptions) {
    this.#options = options;
    this.#slots = new Pool<Slot>(
      Array.from({ length: Math.max(1, options.slots) }, (_, i) => ({
        profile: path.join(options.workDir, `lo-profile-${String(i)}`),
        ready: null,
      })),
    );
  }

  /** Makes the profiles now (a tiny conversion each), so the first real document does not pay for it. */
  warm(): Promise<void> {
    return Promise.all(this.#slots.items.map((s) => this.#prepare(s))).then(() => undefined);
  }

  #prepare(slot: Slot): Promise<void> {
    slot.ready ??= (async () => {
      const dir = await mkdtemp(path.join(this.#options.workDir, 'lo-warm-'));
      try {
        const input = path.join(dir, 'warm.fodt');
        await writeFile(input, WARM_DOCUMENT);
        await this.#soffice(slot, input, dir, undefined, 60_000, new AbortController().signal);
      } catch {
        // A failed warm-up only costs speed: the real conversion makes the profile itself.
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    })();
    return slot.ready;
  }

  /**
   * Converts `file` (already sniffed as `kind`) to a PDF in `outDir`; resolves with its path.
   * ConvertError: 'timeout' past the deadline, 'corrupt' when LibreOffice cannot load it,
   * 'failed' (retryable) when LibreOffice crashed.
   */
  async toPdf(file: string, kind: OfficeKind, outDir: string, deadline: number, signal: AbortSignal): Promise<string> {
    return this.#slots.use(signal, async (slot) => {
      await this.#prepare(slot);
      if (deadline <= Date.now()) throw new ConvertError('timeout', 'the time limit passed before LibreOffice could start');
      const input = path.join(outDir, `source.${kind}`);
      await copyFile(file, input);
      const result = await this.#soffice(slot, input, outDir, IMPORT_FILTER[kind], deadline - Date.now(), signal);
      const pdf = path.join(outDir, 'source.pdf');
      if (result.killed || result.signal || result.code !== 0) {
        // Killed or crashed mid-way, the profile may be half written: make a fresh one (the next
        // conversion on this slot waits for it).
        await rm(slot.profile, { recursive: true, force: true });
        slot.ready = null;
        void this.#prepare(slot);
      }
      if (result.killed === 'timeout') throw new ConvertError('timeout', 'LibreOffice ran past the time limit');
      if (result.killed === 'aborted') throw abortReason(signal);
      if (result.signal || result.code !== 0) {
        throw new ConvertError('failed', `LibreOffice ended with ${result.signal ?? `exit ${String(result.code)}`}: ${lastLine(result.stderr)}`, true);
      }
      const made = await stat(pdf).catch(() => null);
      if (!made || made.size === 0) throw new ConvertError('corrupt', `LibreOffice could not read the ${kind}: ${lastLine(result.stderr)}`);
      return pdf;
    });
  }

  #soffice(slot: Slot, input: string, outDir: string, filter: string | undefined, timeoutMs: number, signal: AbortSignal) {
    const args = [
      '--headless',
      '--invisible',
      '--norestore',
      '--nologo',
      '--nodefault',
      '--nolockcheck',
      `-env:UserInstallation=${pathToFileURL(slot.profile).href}`,
      ...(filter ? [`--infilter=${filter}`] : []),
      '--convert-to',
      'pdf',
      '--outdir',
      outDir,
      input,
    ];
    const limit = this.#options.maxMemoryBytes;
    const [command, argv] = limit > 0 ? ['prlimit', [`--as=${String(limit)}`, '--', this.#options.binary, ...args]] : [this.#options.binary, args];
    return run(command, argv, {
      timeoutMs,
      signal,
      env: { ...process.env, HOME: path.join(this.#options.workDir, 'lo-home'), SAL_USE_VCLPLUGIN: 'svp', ...this.#options.env },
    });
  }

  async close(): Promise<void> {
    await Promise.all(this.#slots.items.map((s) => s.ready ?? Promise.resolve()));
  }
}

/** Creates the directory a LibreOffice conversion works in. */
export async function jobDir(workDir: string): Promise<string> {
  await mkdir(workDir, { recursive: true });
  return mkdtemp(path.join(workDir, 'job-'));
}

function lastLine(text: string): string {
  const lines = text.split('\n').filter((l) => l.trim() && !l.includes('javaldx'));
  return (lines.at(-1) ?? '').trim().slice(0, 300);
}

/** A one-line flat ODF text document for the warm-up run. */
const WARM_DOCUMENT = `<?xml version="1.0" encoding="UTF-8"?>
<office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" office:version="1.2" office:mimetype="application/vnd.oasis.opendocument.text"><office:body><office:text><text:p>板书 warm-up</text:p></office:text></office:body></office:document>
`;
