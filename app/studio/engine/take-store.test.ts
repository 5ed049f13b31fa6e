import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { countSlices, newTakeId, parseMeta, recoverMeta, sliceName, sniffMediaType, takeStoreAt } from './take-store.ts';
import type { TakeMeta, TakeStore } from './types.ts';

const MP4_HEAD = Uint8Array.from([0, 0, 0, 0x20, 0x66, 0x74, 0x79, 0x70, 0x69, 0x73, 0x6f, 0x6d]);
const WEBM_HEAD = Uint8Array.from([0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x86, 0x81]);

function meta(patch: Partial<TakeMeta> = {}): TakeMeta {
  return {
    id: '1700000000000-abcdef12',
    createdAt: 1_700_000_000_000,
    mimeType: 'video/mp4;codecs=avc1,opus',
    mediaType: 'video/mp4',
    durationMs: 2000,
    bytes: 30,
    slices: 2,
    state: 'recording',
    ...patch,
  };
}

describe('take recovery (pure)', () => {
  it('names slices 000001, 000002, ... and counts only the unbroken run from 000001', () => {
    expect(sliceName(1)).toBe('000001');
    expect(sliceName(4321)).toBe('004321');
    expect(countSlices(['meta.json', '000002', '000001', '000004', '00003', 'x000003'])).toBe(2);
    expect(countSlices(['000002', '000003'])).toBe(0);
    expect(countSlices([])).toBe(0);
  });

  it('makes sortable, unique take ids', () => {
    const a = newTakeId(1_700_000_000_000);
    const b = newTakeId(1_700_000_000_000);
    expect(a).toMatch(/^1700000000000-[0-9a-f]{8}$/);
    expect(a).not.toBe(b);
    expect(newTakeId(1_700_000_000_001) > newTakeId(1_700_000_000_000)).toBe(true);
  });

  it('trusts the slice files over meta.json that is a slice behind, keeping its duration', () => {
    const stored = meta({ slices: 2, bytes: 30, durationMs: 2000, upload: { token: 't', expiresAt: 5, parts: [] } });
    expect(recoverMeta({ id: stored.id, stored, sliceSizes: [10, 20, 15] })).toEqual({ ...stored, slices: 3, bytes: 45 });
  });

  it('trusts the slice files when meta.json claims more than they hold', () => {
    const stored = meta({ slices: 5, bytes: 500 });
    expect(recoverMeta({ id: stored.id, stored, sliceSizes: [10, 20] })).toMatchObject({ slices: 2, bytes: 30, durationMs: 2000 });
  });

  it('ends the take at an empty slice file (a write the crash cut off)', () => {
    const stored = meta();
    expect(recoverMeta({ id: stored.id, stored, sliceSizes: [10, 20, 0, 7] })).toMatchObject({ slices: 2, bytes: 30 });
    expect(recoverMeta({ id: stored.id, stored, sliceSizes: [] })).toMatchObject({ slices: 0, bytes: 0 });
  });

  it('rebuilds a take whose meta.json is lost from its id and first bytes', () => {
    const id = '1700000000123-abcdef12';
    expect(recoverMeta({ id, stored: null, sliceSizes: [10, 20], sniffed: 'video/webm' })).toEqual({
      id,
      createdAt: 1_700_000_000_123,
      mimeType: 'video/webm',
      mediaType: 'video/webm',
      durationMs: 2000,
      bytes: 30,
      slices: 2,
      state: 'recording',
    });
    expect(recoverMeta({ id, stored: null, sliceSizes: [10], sniffed: null })).toBeNull();
    expect(recoverMeta({ id, stored: null, sliceSizes: [], sniffed: 'video/mp4' })).toBeNull();
  });

  it('tells MP4 from WebM by the first bytes', () => {
    expect(sniffMediaType(MP4_HEAD)).toBe('video/mp4');
    expect(sniffMediaType(WEBM_HEAD)).toBe('video/webm');
    expect(sniffMediaType(Uint8Array.from([1, 2, 3, 4, 5, 6, 7, 8]))).toBeNull();
    expect(sniffMediaType(new Uint8Array(0))).toBeNull();
  });

  it('reads meta.json back, refusing what is not a take meta and dropping only a broken upload record', () => {
    const good = meta({ state: 'stopped', upload: { token: 'tok', expiresAt: 9, parts: [{ partNumber: 1, size: 5, etag: '"e"' }] } });
    const id = good.id;
    expect(parseMeta(id, JSON.parse(JSON.stringify(good)))).toEqual(good);
    expect(parseMeta('other-id', good)).toBeNull();
    expect(parseMeta(id, { ...good, state: 'lost' })).toBeNull();
    expect(parseMeta(id, { ...good, mediaType: 'video/ogg' })).toBeNull();
    expect(parseMeta(id, { ...good, bytes: -1 })).toBeNull();
    expect(parseMeta(id, 'nonsense')).toBeNull();
    const brokenUpload = parseMeta(id, { ...good, upload: { token: 'tok', expiresAt: 9, parts: [{ partNumber: 'x' }] } });
    expect(brokenUpload).toEqual({ ...good, upload: undefined });
    expect(brokenUpload && 'upload' in brokenUpload).toBe(false);
  });
});

// A small in-memory stand-in for the origin-private file system: enough of the handles the store
// uses, and a record of every createWritable() to check how slices are written.

interface Disk {
  full: boolean;
  writables: { name: string; keepExistingData: boolean }[];
}

class FakeFileHandle {
  readonly kind = 'file';
  readonly name: string;
  data: Blob = new Blob([]);
  private readonly disk: Disk;

  constructor(name: string, disk: Disk) {
    this.name = name;
    this.disk = disk;
  }

  async getFile(): Promise<File> {
    return new File([this.data], this.name);
  }

  async createWritable(options?: { keepExistingData?: boolean }) {
    this.disk.writables.push({ name: this.name, keepExistingData: options?.keepExistingData ?? false });
    // Like Chromium: writes go to a swap file that replaces the file on close.
    const chunks: (Blob | string)[] = [];
    return {
      write: async (data: Blob | string) => {
        if (this.disk.full) throw new DOMException('The disk is full', 'QuotaExceededError');
        chunks.push(data);
      },
      close: async () => {
        this.data = new Blob(chunks);
      },
      abort: async () => undefined,
    };
  }
}

class FakeDir {
  readonly kind = 'directory';
  readonly name: string;
  readonly children = new Map<string, FakeDir | FakeFileHandle>();
  private readonly disk: Disk;

  constructor(name: string, disk: Disk) {
    this.name = name;
    this.disk = disk;
  }

  async getDirectoryHandle(name: string, options?: { create?: boolean }): Promise<FakeDir> {
    const found = this.children.get(name);
    if (found instanceof FakeDir) return found;
    if (found) throw new DOMException('a file', 'TypeMismatchError');
    if (!options?.create) throw new DOMException('no such folder', 'NotFoundError');
    const dir = new FakeDir(name, this.disk);
    this.children.set(name, dir);
    return dir;
  }

  async getFileHandle(name: string, options?: { create?: boolean }): Promise<FakeFileHandle> {
    const found = this.children.get(name);
    if (found instanceof FakeFileHandle) return found;
    if (found) throw new DOMException('a folder', 'TypeMismatchError');
    if (!options?.create) throw new DOMException('no such file', 'NotFoundError');
    const file = new FakeFileHandle(name, this.disk);
    this.children.set(name, file);
    return file;
  }

  async removeEntry(name: string, options?: { recursive?: boolean }): Promise<void> {
    const found = this.children.get(name);
    if (!found) throw new DOMException('no such entry', 'NotFoundError');
    if (found instanceof FakeDir && found.children.size > 0 && !options?.recursive) {
      throw new DOMException('not empty', 'InvalidModificationError');
    }
    this.children.delete(name);
  }

  async *entries(): AsyncGenerator<[string, FakeDir | FakeFileHandle]> {
    for (const entry of [...this.children]) yield entry;
  }

  /** Test helper: a file written outside the store (what a crashed page left). */
  put(name: string, data: BlobPart[]): void {
    const file = new FakeFileHandle(name, this.disk);
    file.data = new Blob(data);
    this.children.set(name, file);
  }

  async text(name: string): Promise<string> {
    return (this.children.get(name) as FakeFileHandle).data.text();
  }
}

describe('openTakeStore (a fake OPFS; the Web Locks are Node 24 own, shared like the tabs of one origin)', () => {
  let disk: Disk;
  let opfs: FakeDir;
  const realLocks = navigator.locks;

  beforeEach(() => {
    disk = { full: false, writables: [] };
    opfs = new FakeDir('', disk);
    vi.stubGlobal('FileSystemFileHandle', FakeFileHandle);
    vi.stubGlobal('navigator', {
      locks: realLocks,
      storage: {
        getDirectory: async () => opfs,
        persist: async () => true,
        estimate: async () => ({ quota: 10_000, usage: 2_500 }),
      },
    });
  });
  afterEach(() => void vi.unstubAllGlobals());

  /** A store of its own over the fake folder: each call is another tab of the origin. */
  async function store(): Promise<TakeStore> {
    return takeStoreAt((await opfs.getDirectoryHandle('studio-takes', { create: true })) as unknown as FileSystemDirectoryHandle);
  }

  /** openTakeStore of a fresh module (it keeps one store per page). */
  async function freshOpenTakeStore(): Promise<() => Promise<TakeStore | null>> {
    vi.resetModules();
    return (await import('./take-store.ts')).openTakeStore;
  }

  async function takesDir(): Promise<FakeDir> {
    return opfs.getDirectoryHandle('studio-takes');
  }

  it('answers one store per page, over studio-takes/', async () => {
    const openTakeStore = await freshOpenTakeStore();
    const a = await openTakeStore();
    expect(a).not.toBeNull();
    expect(await openTakeStore()).toBe(a);
    expect(opfs.children.get('studio-takes')).toBeInstanceOf(FakeDir);
  });

  it('is null without OPFS, or without createWritable (Safari before 26)', async () => {
    const openTakeStore = await freshOpenTakeStore();
    vi.stubGlobal('navigator', { storage: {} });
    expect(await openTakeStore()).toBeNull();
    vi.stubGlobal('navigator', { storage: { getDirectory: async () => opfs } });
    vi.stubGlobal('FileSystemFileHandle', class {});
    expect(await openTakeStore()).toBeNull();
    vi.stubGlobal('FileSystemFileHandle', FakeFileHandle);
    vi.stubGlobal('navigator', {
      storage: {
        getDirectory: async () => {
          throw new DOMException('private window', 'SecurityError');
        },
      },
    });
    expect(await openTakeStore()).toBeNull();
  });

  it('writes each slice once as its own new file, then meta.json, and reads the take back as one Blob', async () => {
    const s = await store();
    const take = await s.create('video/mp4;codecs=avc1,opus');
    expect(take.meta).toMatchObject({ mediaType: 'video/mp4', state: 'recording', slices: 0, bytes: 0 });
    await Promise.all([take.append(new Blob(['aaa']), 1000), take.append(new Blob(['bb']), 2000), take.append(new Blob(['c']), 3001)]);
    const dir = await (await takesDir()).getDirectoryHandle(take.meta.id);
    expect([...dir.children.keys()].sort()).toEqual(['000001', '000002', '000003', 'meta.json']);
    const onDisk = JSON.parse(await dir.text('meta.json'));
    expect(onDisk).toMatchObject({ slices: 3, bytes: 6, durationMs: 3001, state: 'recording' });
    // Never a growing file: every slice file written exactly once, never keeping old data.
    const sliceWrites = disk.writables.filter((w) => w.name !== 'meta.json');
    expect(sliceWrites.map((w) => w.name)).toEqual(['000001', '000002', '000003']);
    expect(disk.writables.every((w) => !w.keepExistingData)).toBe(true);
    const blob = await take.blob();
    expect(blob.type).toBe('video/mp4');
    expect(await blob.text()).toBe('aaabbc');
  });

  it('refuses the slices after one that could not be written, so the take has no hole', async () => {
    const s = await store();
    const take = await s.create('video/webm');
    await take.append(new Blob(['one']), 1000);
    disk.full = true;
    await expect(take.append(new Blob(['two']), 2000)).rejects.toMatchObject({ name: 'QuotaExceededError' });
    disk.full = false;
    await expect(take.append(new Blob(['three']), 3000)).rejects.toMatchObject({ name: 'QuotaExceededError' });
    expect(take.meta).toMatchObject({ slices: 1, bytes: 3 });
    expect(await (await take.blob()).text()).toBe('one');
  });

  it('recovers a crashed take from its files: the slice meta.json missed, not the cut-off or stray ones', async () => {
    await store();
    const root = await takesDir();
    const id = '1700000000000-deadbeef';
    const dir = await root.getDirectoryHandle(id, { create: true });
    dir.put('meta.json', [JSON.stringify(meta({ id, slices: 2, bytes: 5, durationMs: 2000 }))]);
    dir.put('000001', ['12']);
    dir.put('000002', ['345']);
    dir.put('000003', ['6789']); // written, meta.json not yet
    dir.put('000004', []); // created, its write never closed
    dir.put('000006', ['x']);

    const s = await store();
    const listed = await s.unsaved();
    expect(listed).toEqual([expect.objectContaining({ id, slices: 3, bytes: 9, durationMs: 2000, state: 'recording' })]);

    const take = await s.open(id);
    expect(take?.meta).toMatchObject({ slices: 3, bytes: 9, durationMs: 2000 });
    expect(await (await take!.blob()).text()).toBe('123456789');
    expect([...dir.children.keys()].sort()).toEqual(['000001', '000002', '000003', 'meta.json']);
    expect(JSON.parse(await dir.text('meta.json'))).toMatchObject({ slices: 3, bytes: 9 });
    // The same page opening it again gets the same take (one write queue per folder).
    expect(await s.open(id)).toBe(take);
  });

  it('rebuilds a take whose meta.json is gone, from its first bytes', async () => {
    await store();
    const root = await takesDir();
    const id = '1700000000999-0badf00d';
    const dir = await root.getDirectoryHandle(id, { create: true });
    dir.put('000001', [MP4_HEAD]);
    dir.put('000002', ['more']);
    const take = await (await store()).open(id);
    expect(take?.meta).toMatchObject({ id, mediaType: 'video/mp4', slices: 2, bytes: MP4_HEAD.length + 4, createdAt: 1_700_000_000_999 });
    expect(JSON.parse(await dir.text('meta.json'))).toMatchObject({ slices: 2 });
  });

  it('lists unsaved takes newest first, clearing saved or empty ones, without one another tab has open', async () => {
    await store();
    const root = await takesDir();
    const leftover = async (id: string, patch: Partial<TakeMeta>) => {
      const dir = await root.getDirectoryHandle(id, { create: true });
      dir.put('meta.json', [JSON.stringify(meta({ id, slices: 1, bytes: 1, ...patch }))]);
      if (patch.bytes !== 0) dir.put('000001', ['x']);
    };
    await leftover('1700000000001-aaaaaaaa', { createdAt: 1, state: 'stopped' });
    await leftover('1700000000003-cccccccc', { createdAt: 3, state: 'recording' });
    await leftover('1700000000002-bbbbbbbb', { createdAt: 2, state: 'saved', fileId: '5' });
    await leftover('1700000000004-dddddddd', { createdAt: 4, bytes: 0, slices: 0 });

    const tabA = await store();
    const tabB = await store();
    // Tab A records a take: tab B must neither offer it nor open or delete it.
    const recording = await tabA.create('video/webm');
    await recording.append(new Blob(['live']), 1000);
    expect((await tabB.unsaved()).map((m) => m.id)).toEqual(['1700000000003-cccccccc', '1700000000001-aaaaaaaa']);
    // The saved and the empty leftovers are cleared away as they are found; the one being recorded stays.
    expect(root.children.has('1700000000002-bbbbbbbb')).toBe(false);
    expect(root.children.has('1700000000004-dddddddd')).toBe(false);
    expect(root.children.has(recording.meta.id)).toBe(true);
    expect(await tabB.open(recording.meta.id)).toBeNull();
    await expect(tabB.remove(recording.meta.id)).rejects.toThrow(/another tab/);
    // Tab A does not offer its own take while recording it; once stopped it does.
    expect((await tabA.unsaved()).map((m) => m.id)).not.toContain(recording.meta.id);
    await recording.update({ state: 'stopped' });
    expect((await tabA.unsaved()).map((m) => m.id)[0]).toBe(recording.meta.id);

    // A take tab B has open is tab B's until removed; then it is gone for everyone.
    const opened = await tabB.open('1700000000001-aaaaaaaa');
    expect(opened).not.toBeNull();
    expect(await tabA.open('1700000000001-aaaaaaaa')).toBeNull();
    await tabB.remove('1700000000001-aaaaaaaa');
    expect(root.children.has('1700000000001-aaaaaaaa')).toBe(false);
    expect(await tabA.open('1700000000001-aaaaaaaa')).toBeNull();
  });

  it('asks to persist, and answers the free space', async () => {
    const s = await store();
    expect(await s.persist()).toBe(true);
    expect(await s.freeBytes()).toBe(7_500);
  });
});
