import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Readable } from 'node:stream';
import { DiskObjectStore, ObjectTooLarge, attachmentDisposition, parseRange } from './objects.ts';

describe('DiskObjectStore', () => {
  let dir = '';
  let now = Date.UTC(2026, 10, 22);
  let store: DiskObjectStore;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'objects-'));
    store = new DiskObjectStore(
      dir,
      's'.repeat(64),
      () => 'http://127.0.0.1:3000',
      () => now,
    );
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

  it('signs PUT URLs for one key, size and content type that expire', async () => {
    const put = await store.signedPutUrl('documentConvert/2026/11/23/u/a.pdf', 'application/pdf', 1234, 3600);
    expect(put.method).toBe('PUT');
    expect(put.headers).toEqual({ 'Content-Type': 'application/pdf' });
    expect(put.expiresAt).toBe(now + 3600_000);
    const url = new URL(put.url);
    const [exp, size, sig] = ['exp', 'size', 'sig'].map((k) => url.searchParams.get(k)!);
    const key = 'documentConvert/2026/11/23/u/a.pdf';
    expect(store.verifyPut(key, exp!, size!, 'application/pdf', sig!)).toBe(true);
    expect(store.verifyPut('documentConvert/2026/11/23/u/b.pdf', exp!, size!, 'application/pdf', sig!)).toBe(false);
    expect(store.verifyPut(key, exp!, '99999999', 'application/pdf', sig!)).toBe(false);
    expect(store.verifyPut(key, exp!, size!, 'text/html', sig!)).toBe(false);
    expect(store.verifyPut(key, String(Number(exp) + 60), size!, 'application/pdf', sig!)).toBe(false);
    // A GET signature is no PUT signature, and the other way round.
    const get = new URL(await store.signedGetUrl(key, 3600));
    expect(store.verifyPut(key, get.searchParams.get('exp')!, size!, 'application/pdf', get.searchParams.get('sig')!)).toBe(false);
    expect(store.verify(key, exp!, sig!)).toBe(false);
    now += 3601_000;
    expect(store.verifyPut(key, exp!, size!, 'application/pdf', sig!)).toBe(false);
  });

  it('streams a body in under a size limit and keeps nothing of a larger one', async () => {
    expect((await store.putStream('up/a.bin', Readable.from([Buffer.alloc(600), Buffer.alloc(400)]), 'application/pdf', 1000)).size).toBe(
      1000,
    );
    expect(await store.head('up/a.bin')).toEqual({ size: 1000, contentType: 'application/pdf' });
    await expect(
      store.putStream('up/b.bin', Readable.from([Buffer.alloc(600), Buffer.alloc(401)]), 'application/pdf', 1000),
    ).rejects.toBeInstanceOf(ObjectTooLarge);
    expect(await store.head('up/b.bin')).toBeNull();
    expect(await store.readStart('up/a.bin', 4)).toEqual(new Uint8Array(4));
    expect(await store.readStart('up/none.bin', 4)).toBeNull();
  });
});

describe('parseRange and attachmentDisposition', () => {
  it('reads one bytes= range of an object, clamps the end and refuses what cannot be served', () => {
    expect(parseRange(undefined, 100)).toBeNull();
    expect(parseRange('bytes=0-9', 100)).toEqual({ start: 0, end: 9 });
    expect(parseRange('bytes=90-', 100)).toEqual({ start: 90, end: 99 });
    expect(parseRange('bytes=90-500', 100)).toEqual({ start: 90, end: 99 });
    expect(parseRange('bytes=-10', 100)).toEqual({ start: 90, end: 99 });
    expect(parseRange('bytes=-500', 100)).toEqual({ start: 0, end: 99 });
    expect(parseRange('bytes=100-', 100)).toBe('bad');
    expect(parseRange('bytes=9-3', 100)).toBe('bad');
    expect(parseRange('bytes=-0', 100)).toBe('bad');
    // Several ranges or other units: the whole object.
    expect(parseRange('bytes=0-1,5-6', 100)).toBeNull();
    expect(parseRange('items=0-1', 100)).toBeNull();
  });

  it('names the attachment in ASCII and in UTF-8', () => {
    expect(attachmentDisposition('课堂 "1".mp4')).toBe(
      `attachment; filename="__ _1_.mp4"; filename*=UTF-8''${encodeURIComponent('课堂 "1".mp4')}`,
    );
  });
});
