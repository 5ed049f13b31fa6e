/**
 * Takes in the browser's origin-private file system (ADR 086). A take is the folder
 * `studio-takes/<takeId>/` holding each MediaRecorder slice as its own file (000001, 000002, ...)
 * and meta.json. A slice is never rewritten: Chromium's createWritable() writes to a copy of the
 * file and swaps it in on close, so growing one file would copy the whole take every second, while
 * a small file per slice costs the same at minute 1 and minute 90. The swap on close also means a
 * file is either whole or still empty after a crash, never half written.
 *
 * After a crash meta.json may be one slice behind (the slice is written first), so a take opened
 * again trusts the slice files: recoverMeta below decides, and is a pure function so it is tested
 * without a browser.
 *
 * A tab holds a Web Lock per take it has open, so a second tab neither offers a take that the
 * first is still recording or saving as "unsaved", nor opens it.
 */
import { STUDIO_SLICE_MS, type StudioMediaType } from '#core/contracts/studio.ts';
import { mediaTypeOf } from './recorder.ts';
import type { StoredPart, Take, TakeMeta, TakeState, TakeStore } from './types.ts';

const ROOT_DIR = 'studio-takes';
const META_FILE = 'meta.json';
const SLICE_FILE = /^\d{6}$/;
const LOCK_PREFIX = 'banshu-studio-take:';
const TAKE_STATES: readonly TakeState[] = ['recording', 'stopped', 'saved'];

/** The file name of slice n (1-based). */
export function sliceName(n: number): string {
  return String(n).padStart(6, '0');
}

/** How many slice files are present in sequence from 000001 (a gap ends the take). */
export function countSlices(names: Iterable<string>): number {
  const present = new Set<number>();
  for (const name of names) if (SLICE_FILE.test(name)) present.add(Number(name));
  let count = 0;
  while (present.has(count + 1)) count += 1;
  return count;
}

/** A new take id: sortable by time (13-digit ms until the year 2286) and unique. */
export function newTakeId(now: number = Date.now()): string {
  return `${now}-${crypto.randomUUID().slice(0, 8)}`;
}

/** The container from a take's first bytes, for a take whose meta.json is lost. */
export function sniffMediaType(head: Uint8Array): StudioMediaType | null {
  // ISO BMFF (MP4): the first box is 'ftyp' at offset 4.
  if (head.length >= 8 && head[4] === 0x66 && head[5] === 0x74 && head[6] === 0x79 && head[7] === 0x70) return 'video/mp4';
  // EBML (WebM) magic.
  if (head.length >= 4 && head[0] === 0x1a && head[1] === 0x45 && head[2] === 0xdf && head[3] === 0xa3) return 'video/webm';
  return null;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isCount(v: unknown): v is number {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0;
}

function parseParts(v: unknown): StoredPart[] | null {
  if (!Array.isArray(v)) return null;
  const parts: StoredPart[] = [];
  for (const p of v as unknown[]) {
    if (!isRecord(p)) return null;
    const { partNumber, size, etag } = p;
    if (!Number.isInteger(partNumber) || !isCount(size) || typeof etag !== 'string') return null;
    parts.push({ partNumber: partNumber as number, size, etag });
  }
  return parts;
}

/** meta.json as read back, or null when it is not a take's meta (hand-edited, cut short). */
export function parseMeta(id: string, value: unknown): TakeMeta | null {
  if (!isRecord(value)) return null;
  const v = value;
  if (v.id !== id || !isCount(v.createdAt) || typeof v.mimeType !== 'string') return null;
  if (v.mediaType !== 'video/mp4' && v.mediaType !== 'video/webm') return null;
  if (!isCount(v.durationMs) || !isCount(v.bytes) || !isCount(v.slices)) return null;
  if (!TAKE_STATES.includes(v.state as TakeState)) return null;
  const meta: TakeMeta = {
    id,
    createdAt: v.createdAt,
    mimeType: v.mimeType,
    mediaType: v.mediaType,
    durationMs: v.durationMs,
    bytes: v.bytes,
    slices: v.slices,
    state: v.state as TakeState,
  };
  // A broken upload record is only dropped: the parts are sent again, the take is kept.
  const upload = v.upload;
  if (isRecord(upload) && typeof upload.token === 'string' && isCount(upload.expiresAt)) {
    const parts = parseParts(upload.parts);
    if (parts) meta.upload = { token: upload.token, expiresAt: upload.expiresAt, parts };
  }
  if (typeof v.fileId === 'string') meta.fileId = v.fileId;
  if (typeof v.fileName === 'string') meta.fileName = v.fileName;
  return meta;
}

export interface RecoveryInput {
  id: string;
  /** meta.json parsed (parseMeta), or null when missing or unreadable. */
  stored: TakeMeta | null;
  /** Sizes of the slice files present in sequence from 000001 (countSlices). */
  sliceSizes: readonly number[];
  /** The container sniffed from slice 1, used only when meta.json is lost. */
  sniffed?: StudioMediaType | null;
}

/**
 * The take as its files say. The slice files win over meta.json: meta is written after each
 * slice, so a crash in between leaves it a slice behind. An empty file is a slice whose write
 * never closed (the crash came first); it and anything after it are not part of the take.
 * durationMs stays what meta last said (the files do not know it). Without meta.json the take is
 * rebuilt from its id and first bytes; null when there is nothing to rebuild.
 */
export function recoverMeta({ id, stored, sliceSizes, sniffed }: RecoveryInput): TakeMeta | null {
  let slices = 0;
  let bytes = 0;
  for (const size of sliceSizes) {
    if (!(size > 0)) break;
    slices += 1;
    bytes += size;
  }
  if (stored) return { ...stored, id, slices, bytes };
  if (slices === 0 || !sniffed) return null;
  const createdAt = Number(id.split('-')[0]);
  return {
    id,
    createdAt: Number.isFinite(createdAt) ? createdAt : 0,
    mimeType: sniffed,
    mediaType: sniffed,
    // About one slice per timeslice: the best guess left; the server's probe has the real length.
    durationMs: slices * STUDIO_SLICE_MS,
    bytes,
    slices,
    state: 'recording',
  };
}

function isNotFound(error: unknown): boolean {
  return error instanceof DOMException && (error.name === 'NotFoundError' || error.name === 'TypeMismatchError');
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

/** Writes a whole small file (a fresh writable, not keepExistingData) and returns it as read back. */
async function writeFile(dir: FileSystemDirectoryHandle, name: string, data: Blob | string): Promise<File> {
  const handle = await dir.getFileHandle(name, { create: true });
  const writable = await handle.createWritable();
  try {
    await writable.write(data);
    await writable.close();
  } catch (error) {
    await writable.abort().catch(() => undefined);
    throw error;
  }
  return handle.getFile();
}

class OpfsTake implements Take {
  readonly meta: TakeMeta;
  private readonly dir: FileSystemDirectoryHandle;
  /** Slice n is files[n - 1]: disk-backed File objects, read once (slices never change). */
  private readonly files: File[];
  private queue: Promise<void> = Promise.resolve();
  /** Once a slice could not be written, later slices would leave a hole in the video: refuse them. */
  private broken: Error | null = null;

  constructor(dir: FileSystemDirectoryHandle, meta: TakeMeta, files: File[]) {
    this.dir = dir;
    this.meta = meta;
    this.files = files;
  }

  append(slice: Blob, durationMs: number): Promise<void> {
    return this.enqueue(async () => {
      if (this.broken) throw this.broken;
      if (slice.size === 0) return;
      const n = this.meta.slices + 1;
      let file: File;
      try {
        file = await writeFile(this.dir, sliceName(n), slice);
      } catch (error) {
        this.broken = asError(error);
        throw this.broken;
      }
      this.files[n - 1] = file;
      this.meta.slices = n;
      this.meta.bytes += file.size;
      this.meta.durationMs = durationMs;
      await this.writeMeta();
    });
  }

  update(patch: Partial<Omit<TakeMeta, 'id' | 'createdAt'>>): Promise<void> {
    // In memory at once (readers see it now); on disk in order with the slices.
    Object.assign(this.meta, patch);
    return this.enqueue(() => this.writeMeta());
  }

  async blob(): Promise<Blob> {
    return new Blob(this.files.slice(0, this.meta.slices), { type: this.meta.mediaType });
  }

  private async writeMeta(): Promise<void> {
    await writeFile(this.dir, META_FILE, JSON.stringify(this.meta));
  }

  private enqueue(op: () => Promise<void>): Promise<void> {
    const run = this.queue.then(op);
    // One failed write must not stop the ones after it (each reports its own failure).
    this.queue = run.catch(() => undefined);
    return run;
  }
}

interface Inspected {
  dir: FileSystemDirectoryHandle;
  meta: TakeMeta;
  files: File[];
  /** meta.json disagrees with the files (or is missing). */
  stale: boolean;
  /** Slice-named files that are not part of the take (after an empty one or a gap). */
  strays: string[];
}

/** Reads a take's folder and recovers its meta; null when it is not a take. */
async function inspect(root: FileSystemDirectoryHandle, id: string): Promise<Inspected | null> {
  let dir: FileSystemDirectoryHandle;
  try {
    dir = await root.getDirectoryHandle(id);
  } catch (error) {
    if (isNotFound(error)) return null;
    throw error;
  }
  const sliceHandles = new Map<string, FileSystemFileHandle>();
  let metaHandle: FileSystemFileHandle | null = null;
  for await (const [name, handle] of dir.entries()) {
    if (handle.kind !== 'file') continue;
    if (name === META_FILE) metaHandle = handle;
    else if (SLICE_FILE.test(name)) sliceHandles.set(name, handle);
  }
  const count = countSlices(sliceHandles.keys());
  const present: File[] = await Promise.all(
    Array.from({ length: count }, (_, i) => (sliceHandles.get(sliceName(i + 1)) as FileSystemFileHandle).getFile()),
  );
  let stored: TakeMeta | null = null;
  if (metaHandle) {
    try {
      stored = parseMeta(id, JSON.parse(await (await metaHandle.getFile()).text()));
    } catch {
      stored = null;
    }
  }
  let sniffed: StudioMediaType | null = null;
  const first = present[0];
  if (!stored && first) sniffed = sniffMediaType(new Uint8Array(await first.slice(0, 16).arrayBuffer()));
  const meta = recoverMeta({ id, stored, sliceSizes: present.map((f) => f.size), sniffed });
  if (!meta) return null;
  const files = present.slice(0, meta.slices);
  const strays = [...sliceHandles.keys()].filter((name) => Number(name) > meta.slices);
  const stale = !stored || stored.slices !== meta.slices || stored.bytes !== meta.bytes;
  return { dir, meta, files, stale, strays };
}

class OpfsTakeStore implements TakeStore {
  private readonly root: FileSystemDirectoryHandle;
  /** Takes this page has open (and holds the lock of). */
  private readonly live = new Map<string, OpfsTake>();
  private readonly releases = new Map<string, () => void>();

  constructor(root: FileSystemDirectoryHandle) {
    this.root = root;
  }

  async create(mimeType: string): Promise<Take> {
    const id = newTakeId();
    // Locked before the folder exists, so another tab never sees it unlocked.
    await this.claim(id);
    try {
      const dir = await this.root.getDirectoryHandle(id, { create: true });
      const meta: TakeMeta = {
        id,
        createdAt: Date.now(),
        mimeType,
        mediaType: mediaTypeOf(mimeType),
        durationMs: 0,
        bytes: 0,
        slices: 0,
        state: 'recording',
      };
      await writeFile(dir, META_FILE, JSON.stringify(meta));
      const take = new OpfsTake(dir, meta, []);
      this.live.set(id, take);
      return take;
    } catch (error) {
      this.release(id);
      throw error;
    }
  }

  async unsaved(): Promise<TakeMeta[]> {
    const heldElsewhere = await this.heldLocks();
    const out: TakeMeta[] = [];
    for await (const [id, handle] of this.root.entries()) {
      if (handle.kind !== 'directory') continue;
      const live = this.live.get(id);
      if (live) {
        // This page's own take: offered unless it is being recorded right now or is saved.
        if (live.meta.state === 'stopped' && live.meta.bytes > 0) out.push({ ...live.meta });
        continue;
      }
      if (heldElsewhere.has(LOCK_PREFIX + id)) continue;
      const found = await inspect(this.root, id).catch(() => null);
      if (!found) continue;
      if (found.meta.state === 'saved' || found.meta.bytes === 0) {
        // Nobody holds it, and it is in the cloud or the teacher's downloads (or holds nothing):
        // its files would only fill the browser's storage (a tab closed right after a save leaves them).
        // (Asked again: a take another tab began since the list was read is held by now.)
        if (!(await this.heldLocks()).has(LOCK_PREFIX + id)) await this.root.removeEntry(id, { recursive: true }).catch(() => undefined);
        continue;
      }
      out.push(found.meta);
    }
    return out.sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
  }

  async open(id: string): Promise<Take | null> {
    const live = this.live.get(id);
    if (live) return live;
    if (!(await this.claim(id))) return null;
    try {
      const found = await inspect(this.root, id);
      if (!found) {
        this.release(id);
        return null;
      }
      const take = new OpfsTake(found.dir, found.meta, found.files);
      // Repairs are best effort: the files are the truth either way.
      for (const name of found.strays) await found.dir.removeEntry(name).catch(() => undefined);
      if (found.stale) await take.update({}).catch(() => undefined);
      this.live.set(id, take);
      return take;
    } catch (error) {
      this.release(id);
      throw error;
    }
  }

  async remove(id: string): Promise<void> {
    if (!this.live.has(id) && !(await this.claim(id))) throw new Error('The take is open in another tab');
    this.live.delete(id);
    try {
      await this.root.removeEntry(id, { recursive: true });
    } catch (error) {
      if (!isNotFound(error)) throw error;
    } finally {
      this.release(id);
    }
  }

  async persist(): Promise<boolean> {
    try {
      return typeof navigator.storage.persist === 'function' ? await navigator.storage.persist() : false;
    } catch {
      return false;
    }
  }

  async freeBytes(): Promise<number | null> {
    try {
      const { quota, usage } = await navigator.storage.estimate();
      if (quota === undefined || usage === undefined) return null;
      return Math.max(0, quota - usage);
    } catch {
      return null;
    }
  }

  /** Takes the take's lock for the life of this page (or until remove); false when another tab has it. */
  private claim(id: string): Promise<boolean> {
    const locks = typeof navigator === 'undefined' ? undefined : navigator.locks;
    if (!locks) return Promise.resolve(true);
    return new Promise<boolean>((resolve) => {
      locks
        .request(LOCK_PREFIX + id, { ifAvailable: true }, async (lock) => {
          if (!lock) {
            resolve(false);
            return;
          }
          resolve(true);
          await new Promise<void>((release) => this.releases.set(id, release));
        })
        // Locks refused altogether (an opaque origin): work without them, as before they existed.
        .catch(() => resolve(true));
    });
  }

  private release(id: string): void {
    this.releases.get(id)?.();
    this.releases.delete(id);
  }

  /** Names of the take locks held by other tabs. */
  private async heldLocks(): Promise<Set<string>> {
    const locks = typeof navigator === 'undefined' ? undefined : navigator.locks;
    if (!locks) return new Set();
    try {
      const { held = [] } = await locks.query();
      const mine = new Set([...this.releases.keys()].map((id) => LOCK_PREFIX + id));
      return new Set(held.flatMap((l) => (l.name && !mine.has(l.name) ? [l.name] : [])));
    } catch {
      return new Set();
    }
  }
}

let shared: Promise<TakeStore | null> | null = null;

/**
 * The studio's take store, or null when the browser has no usable origin-private file system. One
 * store per page: the takes a page has open are locked by its store, so a second store in the
 * same page would be locked out of them like another tab.
 */
export async function openTakeStore(): Promise<TakeStore | null> {
  shared ??= findTakeStore().then((store) => {
    // Unavailable now (a private window) may not be for good: look again next time.
    if (!store) shared = null;
    return store;
  });
  return shared;
}

/** A store over `root` (the studio-takes folder) of its own, as another tab has: for tests. */
export function takeStoreAt(root: FileSystemDirectoryHandle): TakeStore {
  return new OpfsTakeStore(root);
}

async function findTakeStore(): Promise<TakeStore | null> {
  if (typeof navigator === 'undefined' || typeof navigator.storage?.getDirectory !== 'function') return null;
  // Safari had OPFS long before createWritable (only sync handles in workers): no use here.
  if (typeof FileSystemFileHandle === 'undefined' || typeof FileSystemFileHandle.prototype.createWritable !== 'function') return null;
  try {
    const opfs = await navigator.storage.getDirectory();
    return new OpfsTakeStore(await opfs.getDirectoryHandle(ROOT_DIR, { create: true }));
  } catch {
    // Private windows in some browsers refuse the file system (SecurityError).
    return null;
  }
}
