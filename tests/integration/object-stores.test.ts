/**
 * The object-store port on both adapters: the disk store behind our own signed GET and PUT links
 * (their rules: expired, forged, another key, too big, wrong type, written once), and the S3
 * adapter against s3rver (put, head, get, ranges, downloads, presigned GET and PUT from a plain
 * HTTP client, as a browser would).
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MULTIPART_MIN_PART, MultipartRefused, type ObjectStore } from '#core/platform/objects.ts';
import { S3ObjectStore } from '#core/platform/s3-objects.ts';
import { randomUUID } from 'node:crypto';
import { signIn } from '#tests/support/api.ts';
import { startS3, type TestS3 } from '#tests/support/s3.ts';
import { startTestServer, type TestServer } from '#tests/support/server.ts';

/**
 * The disk store takes a signed PUT only while a document awaits that upload (ADR 056): a
 * pending row as createUpyunSign makes it.
 */
async function awaitUpload(server: TestServer, key: string, size: number): Promise<string> {
  const { userId } = await signIn(server);
  const now = new Date();
  const row = await server.banshu.platform.database.db
    .insertInto('documents')
    .values({
      user_id: userId,
      name: 'a.pdf',
      source_key: key,
      pages_prefix: key.slice(0, key.lastIndexOf('/')),
      file_hash: '0'.repeat(32),
      task_id: randomUUID(),
      document_type: 1,
      status: 0,
      size,
      created_at: now,
      updated_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return String(row.id);
}

/** What every adapter must do, whatever is behind it. */
async function portContract(
  objects: ObjectStore,
  dir: string,
  beforePut: (key: string, size: number) => Promise<unknown> = async () => undefined,
): Promise<void> {
  const key = `documentConvert/2026/11/23/${Date.now()}/a.pdf`;
  const bytes = new TextEncoder().encode('%PDF-1.4 hello');
  await objects.put(key, bytes, 'application/pdf');
  expect(await objects.head(key)).toEqual({ size: bytes.byteLength, contentType: 'application/pdf' });
  expect(await objects.readStart(key, 5)).toEqual(new TextEncoder().encode('%PDF-'));
  expect(await objects.readStart(key, 1000)).toEqual(bytes);
  const local = path.join(dir, 'copy.pdf');
  expect(await objects.download(key, local)).toMatchObject({ size: bytes.byteLength });
  expect(new Uint8Array(await readFile(local))).toEqual(bytes);
  // A signed GET from a plain client.
  const got = await fetch(await objects.signedGetUrl(key, 60));
  expect(got.status).toBe(200);
  expect(await got.text()).toBe('%PDF-1.4 hello');
  // A large file is streamed from disk.
  const big = path.join(dir, 'big.bin');
  await writeFile(big, Buffer.alloc(3 * 1024 * 1024, 7));
  await objects.putFile(`${key}.big`, big, 'video/mp4');
  expect(await objects.head(`${key}.big`)).toEqual({ size: 3 * 1024 * 1024, contentType: 'video/mp4' });
  // A presigned PUT, as the browser sends it.
  const upKey = `${key}.up`;
  const body = Buffer.from('%PDF-1.7 uploaded by a browser');
  const put = await objects.signedPutUrl(upKey, 'application/pdf', body.byteLength, 3600);
  await beforePut(upKey, body.byteLength);
  const res = await fetch(put.url, { method: 'PUT', headers: put.headers, body });
  expect(res.status, await res.clone().text()).toBe(200);
  expect(await objects.head(upKey)).toEqual({ size: body.byteLength, contentType: 'application/pdf' });
  // A multipart upload from byte ranges of a local file (the recorder's assembly, ADR 106).
  const parts = path.join(dir, 'parts.bin');
  const partsBody = Buffer.alloc(MULTIPART_MIN_PART + 1000);
  for (let i = 0; i < partsBody.length; i += 4) partsBody.writeUInt32BE(i, i);
  await writeFile(parts, partsBody);
  const mkey = `${key}.parts.mp4`;
  const id = await objects.createMultipart(mkey, 'video/mp4');
  const first = await objects.uploadPart(mkey, id, 1, parts, 0, MULTIPART_MIN_PART);
  // A part sent again replaces the first try.
  await objects.uploadPart(mkey, id, 2, parts, 0, 1000);
  const second = await objects.uploadPart(mkey, id, 2, parts, MULTIPART_MIN_PART, partsBody.length);
  await expect(objects.uploadPart(mkey, id, 3, parts, MULTIPART_MIN_PART, partsBody.length + 1)).rejects.toThrow();
  expect(
    await objects.completeMultipart(mkey, id, [
      { partNumber: 2, etag: second },
      { partNumber: 1, etag: first },
    ]),
  ).toBe(partsBody.length);
  expect(await objects.head(mkey)).toEqual({ size: partsBody.length, contentType: 'video/mp4' });
  const joined = path.join(dir, 'joined.bin');
  await objects.download(mkey, joined);
  expect((await readFile(joined)).equals(partsBody)).toBe(true);
  // A part but the last under 5 MiB: refused, nothing written; the upload then aborted. (s3rver
  // does not check S3's rule; the disk store does, as S3 itself.)
  if (objects.resourceType === 1) {
    const small = await objects.createMultipart(`${mkey}.small`, 'video/mp4');
    const tags = [
      { partNumber: 1, etag: await objects.uploadPart(`${mkey}.small`, small, 1, parts, 0, 1000) },
      { partNumber: 2, etag: await objects.uploadPart(`${mkey}.small`, small, 2, parts, 1000, 2000) },
    ];
    await expect(objects.completeMultipart(`${mkey}.small`, small, tags)).rejects.toBeInstanceOf(MultipartRefused);
    expect(await objects.head(`${mkey}.small`)).toBeNull();
    await objects.abortMultipart(`${mkey}.small`, small);
  }
  // A store on this disk takes a local file by a rename (the recorder's finished MP4, ADR 106).
  if (objects.adoptFile) {
    const own = path.join(dir, 'adopted.bin');
    await writeFile(own, partsBody);
    await objects.adoptFile(`${key}.adopted.mp4`, own, 'video/mp4');
    expect(await objects.head(`${key}.adopted.mp4`)).toEqual({ size: partsBody.length, contentType: 'video/mp4' });
    expect((await objects.readStart(`${key}.adopted.mp4`, 8))!).toEqual(new Uint8Array(partsBody.subarray(0, 8)));
    await expect(readFile(own)).rejects.toThrow();
  }
  // Missing objects.
  await objects.delete(key);
  expect(await objects.head(key)).toBeNull();
  expect(await objects.get(key)).toBeNull();
  expect(await objects.readStart(key, 5)).toBeNull();
  expect(await objects.download(key, local)).toBeNull();
}

describe('disk object store behind signed links', () => {
  let server: TestServer;
  let dir = '';
  beforeAll(async () => {
    server = await startTestServer();
    dir = await mkdtemp(path.join(tmpdir(), 'objects-it-'));
  });
  afterAll(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('is the store without S3_ENDPOINT and keeps the port contract', async () => {
    expect(server.banshu.platform.objects.resourceType).toBe(1);
    await portContract(server.banshu.platform.objects, dir, (key, size) => awaitUpload(server, key, size));
  });

  it('refuses expired, forged, moved, oversized, retyped and repeated uploads, keeping nothing', async () => {
    const objects = server.banshu.platform.objects;
    const key = 'documentConvert/2026/11/23/rules/a.pdf';
    const body = Buffer.from('%PDF-1.4 0123456789');
    const put = await objects.signedPutUrl(key, 'application/pdf', body.byteLength, 3600);
    const send = (url: string, b: BodyInit, headers: Record<string, string> = put.headers) =>
      fetch(url, { method: 'PUT', headers, body: b });
    // A good link for a key no document awaits (registered, cancelled, never signed for one): closed.
    expect((await send(put.url, body)).status).toBe(410);
    await awaitUpload(server, key, body.byteLength);

    expect((await send(put.url.replace(/sig=[^&]+/, 'sig=AAAA'), body)).status).toBe(403);
    expect((await send(put.url.replace('/a.pdf', '/b.pdf'), body)).status).toBe(403);
    expect(await send(put.url.replace(/size=\d+/, 'size=50000000'), Buffer.alloc(50)).then((r) => r.status)).toBe(403);
    expect((await send(put.url, body, { 'Content-Type': 'text/html' })).status).toBe(403);
    // Larger than signed: refused from its declared length, and while streaming without one.
    expect((await send(put.url, Buffer.concat([body, Buffer.from('x')]))).status).toBe(413);
    const chunked = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(new Uint8Array(body));
        c.enqueue(new Uint8Array(64 * 1024));
        c.close();
      },
    });
    const streamed = await fetch(put.url, { method: 'PUT', headers: put.headers, body: chunked, duplex: 'half' } as RequestInit).then(
      (r) => r.status,
      () => 0,
    );
    expect([0, 413]).toContain(streamed);
    expect((await send(put.url, body.subarray(0, 5))).status).toBe(400);
    expect(await objects.head(key)).toBeNull();

    expect((await send(put.url, body)).status).toBe(200);
    expect(await objects.head(key)).toEqual({ size: body.byteLength, contentType: 'application/pdf' });
    // Written once: the same link cannot replace what was checked and registered.
    expect((await send(put.url, Buffer.from('%PDF-1.4 9876543210'))).status).toBe(409);
    expect((await objects.readStart(key, 100))!.toString()).toBe(new Uint8Array(body).toString());

    // Cancelled (the row gone): a good link writes nothing.
    const cancelled = await objects.signedPutUrl(`${key}.3`, 'application/pdf', body.byteLength, 3600);
    const row = await awaitUpload(server, `${key}.3`, body.byteLength);
    await server.banshu.platform.database.db.deleteFrom('documents').where('id', '=', row).execute();
    expect((await send(cancelled.url, body)).status).toBe(410);
    expect(await objects.head(`${key}.3`)).toBeNull();

    // Expired an hour later.
    const later = await objects.signedPutUrl(`${key}.2`, 'application/pdf', body.byteLength, 3600);
    await awaitUpload(server, `${key}.2`, body.byteLength);
    server.clock.advance(3601_000);
    expect((await send(later.url, body)).status).toBe(403);
    expect(await objects.head(`${key}.2`)).toBeNull();
  });
});

describe('S3 object store on s3rver', () => {
  let s3: TestS3;
  let dir = '';
  beforeAll(async () => {
    s3 = await startS3();
    dir = await mkdtemp(path.join(tmpdir(), 'objects-s3-'));
  });
  afterAll(async () => {
    await s3.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('keeps the port contract', async () => {
    const objects = new S3ObjectStore({
      endpoint: s3.endpoint,
      bucket: s3.bucket,
      region: 'us-east-1',
      accessKeyId: 'S3RVER',
      secretAccessKey: 'S3RVER',
    });
    try {
      expect(objects.resourceType).toBe(2);
      await portContract(objects, dir);
      // The size and type of a presigned PUT are signed headers (the store refuses others).
      const put = new URL((await objects.signedPutUrl('documentConvert/x/a.pdf', 'application/pdf', 10, 60)).url);
      expect(put.searchParams.get('X-Amz-SignedHeaders')).toBe('content-length;content-type;host');
    } finally {
      objects.close();
    }
  });

  describe('chosen by S3_ENDPOINT', () => {
    let server: TestServer | null = null;
    afterEach(async () => {
      await server?.close();
      server = null;
    });
    it('serves the platform, and the disk routes are off', async () => {
      server = await startTestServer({ env: s3.env });
      const objects = server.banshu.platform.objects;
      expect(objects.resourceType).toBe(2);
      expect(server.banshu.platform.diskObjects).toBeNull();
      await objects.put('board/1/x.txt', new TextEncoder().encode('hi'), 'text/plain');
      expect((await fetch(await objects.signedGetUrl('board/1/x.txt', 60))).status).toBe(200);
      expect((await fetch(`${server.url}/objects/board/1/x.txt?exp=9999999999&sig=x`)).status).toBe(403);
    });
  });
});
