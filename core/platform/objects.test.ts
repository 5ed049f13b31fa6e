import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DiskObjectStore } from './objects.ts';

describe('DiskObjectStore', () => {
  let dir = '';
  let now = Date.UTC(2026, 10, 22);
  let store: DiskObjectStore;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'objects-'));
    store = new DiskObjectStore(dir, 's'.repeat(64), () => 'http://127.0.0.1:3000', () => now);
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('stores, reads and deletes objects with their type', async () => {
    await store.put('docs/a/page-1.jpg', new Uint8Array([1, 2, 3]), 'image/jpeg');
    expect(await store.head('docs/a/page-1.jpg')).toEqual({ size: 3, contentType: 'image/jpeg' });
    await store.delete('docs/a/page-1.jpg');
    expect(await store.head('docs/a/page-1.jpg')).toBeNull();
  });

  it('signs URLs that expire and cannot be moved to another key', async () => {
    const url = new URL(await store.signedGetUrl('docs/a.pdf', 3600));
    const exp = url.searchParams.get('exp')!;
    const sig = url.searchParams.get('sig')!;
    expect(url.pathname).toBe('/objects/docs/a.pdf');
    expect(store.verify('docs/a.pdf', exp, sig)).toBe(true);
    expect(store.verify('docs/b.pdf', exp, sig)).toBe(false);
    expect(store.verify('docs/a.pdf', String(Number(exp) + 1), sig)).toBe(false);
    now += 3601_000;
    expect(store.verify('docs/a.pdf', exp, sig)).toBe(false);
  });

  it('refuses keys that climb out of its folder', async () => {
    for (const key of ['../etc/passwd', 'a/../../b', '/abs', 'a//b', '', 'a/./b']) {
      await expect(store.put(key, new Uint8Array(), 'x/y')).rejects.toThrow(/invalid object key/);
    }
  });
});
