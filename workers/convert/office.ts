/**
 * Office -> PDF through LibreOffice headless (docs/decisions/045). Each conversion runs in a
 * LibreOffice process of its own, in its own process group, under a deadline and an
 * address-space limit, with a profile directory per slot (one conversion at a time per slot).
 *
 * - The profile is made once per slot, by a warm-up conversion of a tiny document at start:
 *   making a profile is a large part of a fresh process's cost.
 * - Standby: after each conversion (and after the warm-up) an idle soffice is started on the
 *   slot's profile. The next `soffice --convert-to` on that profile hands its work to the standby
 *   through the profile's pipe, so the start-up cost (loading LibreOffice) was paid while idle.
 *   LibreOffice 7.4 ends that instance after the handed-over conversion, so every document still
 *   gets a fresh process; when no standby is alive the client simply converts by itself.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { readFileSync } from 'node:fs';
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
  /** Keep an idle soffice started ahead of the next conversion of each slot. */
  standby: boolean;
}

interface Slot {
  profile: string;
  ready: Promise<void> | null;
  /** The idle soffice waiting for the next conversion of this slot, and when it has exited. */
  standby: { child: ChildProcess; exited: Promise<void> } | null;
  /** The last conversion's standby winding down (and the next one starting); awaited before the next conversion. */
  settling: Promise<void>;
}

export class LibreOffice {
  readonly #options: OfficeOptions;
  readonly #slots: Pool<Slot>;
  #closed = false;

  /** Ends the standby processes when this process exits without close() (they are detached). */
  readonly #onExit = () => {
    for (const slot of this.#slots.items) if (slot.standby) killGroup(slot.standby.child);
  };

  constructor(options: OfficeOptions) {
    this.#options = options;
    instances++;
    process.once('exit', this.#onExit);
    this.#slots = new Pool<Slot>(
      Array.from({ length: Math.max(1, options.slots) }, (_, i) => ({
        profile: path.join(options.workDir, `lo-profile-${String(process.pid)}-${String(instances)}-${String(i)}`),
        ready: null,
        standby: null,
        settling: Promise.resolve(),
      })),
    );
  }

  /** Makes the profiles now (a tiny conversion each), so the first real document does not pay for it. */
  warm(): Promise<void> {
    return Promise.all(this.#slots.items.map((s) => this.#prepare(s))).then(() => undefined);
  }

  #prepare(slot: Slot): Promise<void> {
    slot.ready ??= (async () => {
      // A new profile starts with our hardened settings (LibreOffice keeps and merges them).
      await mkdir(path.join(slot.profile, 'user'), { recursive: true });
      await writeFile(path.join(slot.profile, 'user', 'registrymodifications.xcu'), HARDENED_SETTINGS);
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
      this.#startStandby(slot);
    })();
    return slot.ready;
  }

  #command(args: string[]): [string, string[]] {
    const limit = this.#options.maxMemoryBytes;
    return limit > 0 ? ['prlimit', [`--as=${String(limit)}`, '--', this.#options.binary, ...args]] : [this.#options.binary, args];
  }

  #env(): NodeJS.ProcessEnv {
    return { ...process.env, HOME: path.join(this.#options.workDir, 'lo-home'), SAL_USE_VCLPLUGIN: 'svp', ...this.#options.env };
  }

  #startStandby(slot: Slot): void {
    if (!this.#options.standby || this.#closed || slot.standby) return;
    const [command, argv] = this.#command([...BASE_ARGS, `-env:UserInstallation=${pathToFileURL(slot.profile).href}`]);
    const child = spawn(command, argv, { detached: true, stdio: 'ignore', env: this.#env() });
    const exited = new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.once('error', () => resolve());
    });
    child.unref();
    const standby = { child, exited };
    slot.standby = standby;
    // Recorded so that a later worker can stop it if this process dies without closing.
    // Written under another name and renamed, so a reader never sees an empty file.
    if (child.pid) {
      const file = `${slot.profile}.standby`;
      void writeFile(`${file}.tmp`, String(child.pid))
        .then(() => rename(`${file}.tmp`, file))
        .catch(() => undefined);
    }
    void exited.then(() => {
      if (slot.standby === standby) slot.standby = null;
    });
  }

  async #settle(slot: Slot, old: Slot['standby'], restart: boolean): Promise<void> {
    if (old) {
      await Promise.race([old.exited, new Promise((r) => setTimeout(r, STANDBY_EXIT_GRACE_MS))]);
      killGroup(old.child);
      await old.exited;
    }
    if (restart) this.#startStandby(slot);
  }

  /** Kills a slot's standby (its whole process group) and waits until it is gone. */
  async #stopStandby(slot: Slot): Promise<void> {
    const standby = slot.standby;
    if (!standby) return;
    killGroup(standby.child);
    await standby.exited;
  }

  /**
   * Converts `file` (already sniffed as `kind`) to a PDF in `outDir`; resolves with its path.
   * ConvertError: 'timeout' past the deadline, 'corrupt' when LibreOffice cannot load it,
   * 'failed' (retryable) when LibreOffice crashed.
   */
  async toPdf(file: string, kind: OfficeKind, outDir: string, deadline: number, signal: AbortSignal): Promise<string> {
    return this.#slots.use(signal, async (slot) => {
      await slot.settling;
      await this.#prepare(slot);
      const standby = slot.standby;
      if (deadline <= Date.now()) throw new ConvertError('timeout', 'the time limit passed before LibreOffice could start');
      const input = path.join(outDir, `source.${kind}`);
      await copyFile(file, input);
      const result = await this.#soffice(slot, input, outDir, IMPORT_FILTER[kind], deadline - Date.now(), signal);
      const pdf = path.join(outDir, 'source.pdf');
      const failed = Boolean(result.killed || result.signal || result.code !== 0);
      // The standby did the work (or had died): it ends by itself after the conversion; a killed
      // client leaves it converting, so it is stopped now. Off the critical path, the next standby
      // starts once this one is gone (after a failure, the fresh profile's warm-up starts it).
      if (standby && failed) killGroup(standby.child);
      slot.settling = this.#settle(slot, standby, !failed).then(async () => {
        if (!failed) return;
        // Killed or crashed mid-way, the profile may be half written: make a fresh one (the next
        // conversion on this slot waits for it; its warm-up starts the next standby).
        await rm(slot.profile, { recursive: true, force: true });
        slot.ready = null;
        await this.#prepare(slot);
      });
      if (result.killed === 'timeout') throw new ConvertError('timeout', 'LibreOffice ran past the time limit');
      if (result.killed === 'aborted') throw abortReason(signal);
      if (result.signal || result.code !== 0) {
        throw new ConvertError(
          'failed',
          `LibreOffice ended with ${result.signal ?? `exit ${String(result.code)}`}: ${lastLine(result.stderr)}`,
          true,
        );
      }
      const made = await stat(pdf).catch(() => null);
      if (!made || made.size === 0)
        throw new ConvertError('corrupt', `LibreOffice could not read the ${kind}${standby ? '' : `: ${lastLine(result.stderr)}`}`);
      return pdf;
    });
  }

  #soffice(slot: Slot, input: string, outDir: string, filter: string | undefined, timeoutMs: number, signal: AbortSignal) {
    const args = [
      ...BASE_ARGS,
      `-env:UserInstallation=${pathToFileURL(slot.profile).href}`,
      ...(filter ? [`--infilter=${filter}`] : []),
      '--convert-to',
      'pdf',
      '--outdir',
      outDir,
      input,
    ];
    const [command, argv] = this.#command(args);
    return run(command, argv, { timeoutMs, signal, env: this.#env() });
  }

  async close(): Promise<void> {
    this.#closed = true;
    process.removeListener('exit', this.#onExit);
    await Promise.all(this.#slots.items.map((s) => s.ready ?? Promise.resolve()));
    await Promise.all(this.#slots.items.map((s) => s.settling));
    await Promise.all(this.#slots.items.map((s) => this.#stopStandby(s)));
    await Promise.all(this.#slots.items.map((s) => rm(s.profile, { recursive: true, force: true })));
    await Promise.all(this.#slots.items.map((s) => rm(`${s.profile}.standby`, { force: true })));
  }
}

/**
 * Profiles are named after the process (and the instance in it), so two workers sharing a work
 * directory never share a profile; this removes the profiles of processes that no longer run.
 */
export async function removeStaleProfiles(workDir: string): Promise<void> {
  const names = await readdir(workDir).catch(() => [] as string[]);
  for (const name of names) {
    const pid = /^lo-profile-(\d+)-\d+-\d+$/.exec(name)?.[1];
    if (!pid || Number(pid) === process.pid || isAlive(Number(pid))) continue;
    // Its standby may have outlived it (killed with SIGKILL, no exit handler): stop that first.
    const standby = Number(await readFile(path.join(workDir, `${name}.standby`), 'utf8').catch(() => ''));
    if (standby > 0 && isAlive(standby)) {
      const cmdline = await readFile(`/proc/${String(standby)}/cmdline`, 'utf8').catch(() => '');
      if (cmdline.includes(name)) {
        try {
          process.kill(-standby, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    }
    await rm(path.join(workDir, name), { recursive: true, force: true });
    await rm(path.join(workDir, `${name}.standby`), { force: true });
    await rm(path.join(workDir, `${name}.standby.tmp`), { force: true });
  }
}

/** Running (a zombie waiting for its parent to reap it counts as gone). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code !== 'ESRCH';
  }
  try {
    const stat = readFileSync(`/proc/${String(pid)}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

let instances = 0;

const BASE_ARGS = ['--headless', '--invisible', '--norestore', '--nologo', '--nodefault', '--nolockcheck'];
/** How long a standby may take to end by itself after its conversion before it is killed. */
const STANDBY_EXIT_GRACE_MS = 5000;

function killGroup(child: ChildProcess): void {
  try {
    if (child.pid) process.kill(-child.pid, 'SIGKILL');
  } catch {
    // already gone
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

/**
 * Profile settings for untrusted documents: never load linked content from outside the document
 * (a linked image at http://169.254.169.254/… or any internal address would otherwise be fetched
 * during the conversion and drawn into the page), never run macros.
 */
const HARDENED_SETTINGS = `<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Common/Security/Scripting"><prop oor:name="BlockUntrustedRefererLinks" oor:op="fuse"><value>true</value></prop></item>
<item oor:path="/org.openoffice.Office.Common/Security/Scripting"><prop oor:name="MacroSecurityLevel" oor:op="fuse"><value>3</value></prop></item>
<item oor:path="/org.openoffice.Office.Common/Security/Scripting"><prop oor:name="DisableMacrosExecution" oor:op="fuse"><value>true</value></prop></item>
</oor:items>
`;

/** A one-line flat ODF text document for the warm-up run. */
const WARM_DOCUMENT = `<?xml version="1.0" encoding="UTF-8"?>
<office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" office:version="1.2" office:mimetype="application/vnd.oasis.opendocument.text"><office:body><office:text><text:p>板书 warm-up</text:p></office:text></office:body></office:document>
`;
