/**
 * The object-store port (courseware, page images, board images, recordings) and its disk adapter.
 * The disk adapter hands out HMAC-signed URLs that expire (GET and, for uploads, PUT with a size
 * limit) served by our own HTTP server; the S3 adapter (s3-objects.ts) presigns with the SDK.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { copyFile, mkdir, open, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

export interface ObjectInfo {
  size: number;
  contentType: string;
}

export interface ObjectStore {
  put(key: string, body: Uint8Array, contentType: string): Promise<void>;
  get(key: string): Promise<{ stream: Readable; info: ObjectInfo } | null>;
  head(key: string): Promise<ObjectInfo | null>;
  delete(key: string): Promise<void>;
  /**
   * A URL a browser may GET until it expires; range requests work (a player seeks). With
   * `downloadName` the answer asks for an attachment of that name.
   */
  signedGetUrl(key: string, ttlSeconds: number, opts?: GetOptions): Promise<string>;
  /** 1 our own disk store (signed by us), 2 an S3-compatible store (docs/product/03-board-courseware-billing.md §3 resourceType). */
  readonly resourceType: 1 | 2;
  /**
   * A URL a browser may PUT one file to until it expires: the body must carry `contentType` and
   * be exactly `size` bytes (the store refuses anything else).
   */
  signedPutUrl(key: string, contentType: string, size: number, ttlSeconds: number): Promise<SignedPut>;
  /** The first `bytes` bytes (fewer when the object is smaller); null when it does not exist. */
  readStart(key: string, bytes: number): Promise<Uint8Array | null>;
  /** Writes the object to a local file (the worker's temp dir); null when it does not exist. */
  download(key: string, file: string): Promise<ObjectInfo | null>;
  /** Stores a local file (large: streamed, not read into memory). */
  putFile(key: string, file: string, contentType: string): Promise<void>;
  /**
   * Multipart upload (the studio, ADR 086): opens one for `key` and answers the store's upload id.
   * A browser PUTs each part to its own signed URL; the answer's ETag names the stored part; a
   * part PUT again replaces it.
   */
  createMultipart(key: string, contentType: string): Promise<string>;
  /**
   * Stores bytes [start, end) of a local file as part `partNumber` of the upload (the recorder
   * sends its MP4 in parts while the class runs, ADR 106) and answers the part's ETag. A part sent
   * again replaces it.
   */
  uploadPart(key: string, uploadId: string, partNumber: number, file: string, start: number, end: number): Promise<string>;
  /**
   * Only a store on this machine's disk: the local file becomes the object by a rename (a copy
   * only across file systems), so a large file costs nothing to store. The file is gone after.
   */
  adoptFile?(key: string, file: string, contentType: string): Promise<void>;
  /** A URL a browser may PUT part `partNumber` (exactly `size` bytes) to until it expires. */
  signedPartUrl(key: string, uploadId: string, partNumber: number, size: number, ttlSeconds: number): Promise<SignedPut>;
  /**
   * Joins the parts, in part-number order, into the object `key` and answers its size. Refuses
   * (MultipartRefused, nothing written) when a part is missing, its ETag is not the stored part's,
   * or a part but the last is under MULTIPART_MIN_PART bytes.
   */
  completeMultipart(key: string, uploadId: string, parts: ReadonlyArray<{ partNumber: number; etag: string }>): Promise<number>;
  /** Drops the upload and its stored parts (nothing happens when it is gone already). */
  abortMultipart(key: string, uploadId: string): Promise<void>;
}

/** S3's smallest part (all but the last). */
export const MULTIPART_MIN_PART = 5 * 1024 * 1024;

/** A multipart upload that cannot be joined as asked (a missing or changed part, a short part). */
export class MultipartRefused extends Error {
  override name = 'MultipartRefused';
}

/** An ETag as stores write it, without quotes (S3 quotes it; browsers read it either way). */
export const bareEtag = (etag: string): string => etag.trim().replace(/^W\//, '').replace(/^"|"$/g, '');

/** The disk store keeps the parts of upload `id` under this prefix (also how the PUT route recognises a part). */
export const DISK_PART_PREFIX = 'multipart/';
const UPLOAD_ID_RULE = /^[A-Za-z0-9_-]{16,64}$/;

/** The disk store's key of part `n` of upload `id`; null when `key` is not one. */
export function diskPartOf(key: string): { uploadId: string; partNumber: number } | null {
  const m = /^multipart\/([A-Za-z0-9_-]{16,64})\/(\d{5})$/.exec(key);
  return m ? { uploadId: m[1]!, partNumber: Number(m[2]) } : null;
}

export interface GetOptions {
  downloadName?: string;
}

/** `Content-Disposition: attachment` with the name in both forms (an ASCII fallback and RFC 5987 UTF-8). */
export function attachmentDisposition(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

/** A single `bytes=` range of a `size`-byte object: inclusive start and end; null when absent, 'bad' when unsatisfiable. */
export function parseRange(header: string | undefined, size: number): { start: number; end: number } | null | 'bad' {
  if (!header) return null;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return null;
  let start: number;
  let end: number;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0) return 'bad';
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  }
  if (start >= size || start > end) return 'bad';
  return { start, end };
}

export interface SignedPut {
  url: string;
  method: 'PUT';
  /** Headers the browser must send with the PUT. */
  headers: Record<string, string>;
  /** ms epoch. */
  expiresAt: number;
}

/** The body of a signed PUT was larger than its signature allows. */
export class ObjectTooLarge extends Error {
  override name = 'ObjectTooLarge';
}

const KEY_RULE = /^[a-zA-Z0-9][a-zA-Z0-9/_.-]{0,400}$/;

export function assertObjectKey(key: string): void {
  if (!KEY_RULE.test(key) || key.split('/').some((part) => part === '..' || part === '.' || part === '')) {
    throw new Error(`invalid object key: ${JSON.stringify(key)}`);
  }
}

export class DiskObjectStore implements ObjectStore {
  readonly resourceType = 1 as const;
  private readonly root: string;
  private readonly secret: string;
  private readonly baseUrl: () => string;
  private readonly now: () => number;
  /** `baseUrl` is read at signing time: the public URL may be known only once the port is bound. */
  constructor(root: string, secret: string, baseUrl: () => string, now: () => number = Date.now) {
    this.root = root;
    this.secret = secret;
    this.baseUrl = baseUrl;
    this.now = now;
  }

  #file(key: string): string {
    assertObjectKey(key);
    return path.join(this.root, key);
  }

  async put(key: string, body: Uint8Array, contentType: string): Promise<void> {
    const file = this.#file(key);
    await mkdir(path.dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
    await writeFile(tmp, body);
    await writeFile(`${tmp}.type`, contentType);
    await rename(`${tmp}.type`, `${file}.type`);
    await rename(tmp, file);
  }

  async head(key: string): Promise<ObjectInfo | null> {
    const file = this.#file(key);
    try {
      const s = await stat(file);
      let contentType = 'application/octet-stream';
      try {
        contentType = (await readFile(`${file}.type`, 'utf8')).trim() || contentType;
      } catch {
        /* no type recorded */
      }
      return { size: s.size, contentType };
    } catch {
      return null;
    }
  }

  async get(key: string): Promise<{ stream: Readable; info: ObjectInfo } | null> {
    const info = await this.head(key);
    if (!info) return null;
    return { stream: createReadStream(this.#file(key)), info };
  }

  /** Bytes start..end (inclusive) of an object, for range requests. */
  getRange(key: string, start: number, end: number): Readable {
    return createReadStream(this.#file(key), { start, end });
  }

  async delete(key: string): Promise<void> {
    const file = this.#file(key);
    await rm(file, { force: true });
    await rm(`${file}.type`, { force: true });
  }

  /** The download name is signed with the key (a link cannot be renamed); links without one sign as before. */
  #sign(key: string, exp: number, downloadName?: string): string {
    const text = downloadName === undefined ? `${key}\n${exp}` : `${key}\n${exp}\n${downloadName}`;
    return createHmac('sha256', this.secret).update(text).digest('base64url');
  }

  signedGetUrl(key: string, ttlSeconds: number, opts?: GetOptions): Promise<string> {
    assertObjectKey(key);
    const exp = Math.floor(this.now() / 1000) + ttlSeconds;
    const encoded = key.split('/').map(encodeURIComponent).join('/');
    const name = opts?.downloadName;
    const dl = name === undefined ? '' : `&dl=${encodeURIComponent(name)}`;
    return Promise.resolve(`${this.baseUrl()}/objects/${encoded}?exp=${exp}${dl}&sig=${this.#sign(key, exp, name)}`);
  }

  /** Checks a URL this store signed; false when forged, altered or expired. */
  verify(key: string, exp: string, sig: string, downloadName?: string): boolean {
    if (!/^\d{1,12}$/.test(exp)) return false;
    const n = Number(exp);
    if (n * 1000 < this.now()) return false;
    try {
      assertObjectKey(key);
    } catch {
      return false;
    }
    const want = Buffer.from(this.#sign(key, n, downloadName));
    const got = Buffer.from(sig);
    return want.length === got.length && timingSafeEqual(want, got);
  }

  #signPut(key: string, exp: number, size: number, contentType: string): string {
    return createHmac('sha256', this.secret).update(`PUT\n${key}\n${exp}\n${size}\n${contentType}`).digest('base64url');
  }

  signedPutUrl(key: string, contentType: string, size: number, ttlSeconds: number): Promise<SignedPut> {
    assertObjectKey(key);
    if (!Number.isSafeInteger(size) || size < 0) throw new Error('invalid size');
    const exp = Math.floor(this.now() / 1000) + ttlSeconds;
    const encoded = key.split('/').map(encodeURIComponent).join('/');
    const sig = this.#signPut(key, exp, size, contentType);
    return Promise.resolve({
      url: `${this.baseUrl()}/objects/${encoded}?exp=${exp}&size=${size}&sig=${sig}`,
      method: 'PUT',
      headers: { 'Content-Type': contentType },
      expiresAt: exp * 1000,
    });
  }

  /** Checks a PUT URL this store signed for this key, size and content type; false when forged, altered or expired. */
  verifyPut(key: string, exp: string, size: string, contentType: string, sig: string): boolean {
    if (!/^\d{1,12}$/.test(exp) || !/^\d{1,15}$/.test(size)) return false;
    const n = Number(exp);
    if (n * 1000 < this.now()) return false;
    try {
      assertObjectKey(key);
    } catch {
      return false;
    }
    const want = Buffer.from(this.#signPut(key, n, Number(size), contentType));
    const got = Buffer.from(sig);
    return want.length === got.length && timingSafeEqual(want, got);
  }

  /**
   * Streams a body into the store, refusing it (ObjectTooLarge, nothing stored) as soon as it
   * passes `maxBytes`; the object appears only once complete.
   */
  async putStream(key: string, body: Readable, contentType: string, maxBytes: number): Promise<{ size: number; md5: string }> {
    const file = this.#file(key);
    await mkdir(path.dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}.${Date.now()}.${Math.random().toString(36).slice(2)}.tmp`;
    let size = 0;
    const hash = createHash('md5');
    const limit = new Transform({
      transform(chunk: Buffer, _enc, done) {
        size += chunk.length;
        if (size > maxBytes) return done(new ObjectTooLarge(`more than ${maxBytes} bytes`));
        hash.update(chunk);
        done(null, chunk);
      },
    });
    try {
      await pipeline(body, limit, createWriteStream(tmp));
      await writeFile(`${tmp}.type`, contentType);
      await rename(`${tmp}.type`, `${file}.type`);
      await rename(tmp, file);
      return { size, md5: hash.digest('hex') };
    } catch (err) {
      await rm(tmp, { force: true });
      await rm(`${tmp}.type`, { force: true });
      throw err;
    }
  }

  async readStart(key: string, bytes: number): Promise<Uint8Array | null> {
    const file = this.#file(key);
    let fh;
    try {
      fh = await open(file, 'r');
    } catch {
      return null;
    }
    try {
      const buf = Buffer.alloc(bytes);
      const { bytesRead } = await fh.read(buf, 0, bytes, 0);
      return new Uint8Array(buf.subarray(0, bytesRead));
    } finally {
      await fh.close();
    }
  }

  async download(key: string, file: string): Promise<ObjectInfo | null> {
    const info = await this.head(key);
    if (!info) return null;
    await copyFile(this.#file(key), file);
    return info;
  }

  async putFile(key: string, file: string, contentType: string): Promise<void> {
    const target = this.#file(key);
    await mkdir(path.dirname(target), { recursive: true });
    const tmp = `${target}.${process.pid}.${Date.now()}.tmp`;
    await pipeline(createReadStream(file), createWriteStream(tmp));
    await writeFile(`${tmp}.type`, contentType);
    await rename(`${tmp}.type`, `${target}.type`);
    await rename(tmp, target);
  }

  async adoptFile(key: string, file: string, contentType: string): Promise<void> {
    const target = this.#file(key);
    await mkdir(path.dirname(target), { recursive: true });
    const typeTmp = `${target}.${process.pid}.${Date.now()}.type.tmp`;
    await writeFile(typeTmp, contentType);
    await rename(typeTmp, `${target}.type`);
    try {
      await rename(file, target);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
      // Another file system: copied, then the original goes.
      const tmp = `${target}.${process.pid}.${Date.now()}.tmp`;
      await pipeline(createReadStream(file), createWriteStream(tmp));
      await rename(tmp, target);
      await rm(file, { force: true });
    }
  }

  /** Parts are objects of their own under multipart/<id>/ (PUT through the signed route); the content type waits in a file there. */
  async createMultipart(key: string, contentType: string): Promise<string> {
    assertObjectKey(key);
    const id = randomBytes(18).toString('base64url');
    const dir = this.#file(`${DISK_PART_PREFIX}${id}/upload`);
    await mkdir(path.dirname(dir), { recursive: true });
    await writeFile(dir, JSON.stringify({ key, contentType }));
    return id;
  }

  #partKey(uploadId: string, partNumber: number): string {
    if (!UPLOAD_ID_RULE.test(uploadId)) throw new Error('invalid upload id');
    if (!Number.isInteger(partNumber) || partNumber < 1 || partNumber > 99_999) throw new Error('invalid part number');
    return `${DISK_PART_PREFIX}${uploadId}/${String(partNumber).padStart(5, '0')}`;
  }

  signedPartUrl(key: string, uploadId: string, partNumber: number, size: number, ttlSeconds: number): Promise<SignedPut> {
    assertObjectKey(key);
    return this.signedPutUrl(this.#partKey(uploadId, partNumber), 'application/octet-stream', size, ttlSeconds);
  }

  async uploadPart(key: string, uploadId: string, partNumber: number, file: string, start: number, end: number): Promise<string> {
    const upload = await this.multipartOf(uploadId);
    if (!upload || upload.key !== key) throw new MultipartRefused('no such upload');
    if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || end <= start) throw new Error('invalid part range');
    const target = this.#file(this.#partKey(uploadId, partNumber));
    const tmp = `${target}.${process.pid}.${Date.now()}.tmp`;
    const hash = createHash('md5');
    let size = 0;
    const count = new Transform({
      transform(chunk: Buffer, _enc, done) {
        size += chunk.length;
        hash.update(chunk);
        done(null, chunk);
      },
    });
    try {
      await pipeline(createReadStream(file, { start, end: end - 1 }), count, createWriteStream(tmp));
      if (size !== end - start) throw new Error(`the file holds ${String(size)} of the part's ${String(end - start)} bytes`);
      await rename(tmp, target);
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    }
    return hash.digest('hex');
  }

  /** The upload's target key and content type, or null when it is gone (completed or aborted). */
  async multipartOf(uploadId: string): Promise<{ key: string; contentType: string } | null> {
    if (!UPLOAD_ID_RULE.test(uploadId)) return null;
    try {
      return JSON.parse(await readFile(this.#file(`${DISK_PART_PREFIX}${uploadId}/upload`), 'utf8')) as {
        key: string;
        contentType: string;
      };
    } catch {
      return null;
    }
  }

  async completeMultipart(key: string, uploadId: string, parts: ReadonlyArray<{ partNumber: number; etag: string }>): Promise<number> {
    const upload = await this.multipartOf(uploadId);
    if (!upload || upload.key !== key) throw new MultipartRefused('no such upload');
    const sorted = [...parts].sort((a, b) => a.partNumber - b.partNumber);
    if (sorted.length === 0) throw new MultipartRefused('no parts');
    const target = this.#file(key);
    await mkdir(path.dirname(target), { recursive: true });
    const tmp = `${target}.${process.pid}.${Date.now()}.tmp`;
    const out = await open(tmp, 'w');
    let size = 0;
    try {
      for (const [i, p] of sorted.entries()) {
        if (i > 0 && sorted[i - 1]!.partNumber === p.partNumber) throw new MultipartRefused(`part ${p.partNumber} twice`);
        let body: Buffer;
        try {
          body = await readFile(this.#file(this.#partKey(uploadId, p.partNumber)));
        } catch {
          throw new MultipartRefused(`part ${p.partNumber} is not stored`);
        }
        if (createHash('md5').update(body).digest('hex') !== bareEtag(p.etag))
          throw new MultipartRefused(`part ${p.partNumber} is not the one stored`);
        if (i < sorted.length - 1 && body.length < MULTIPART_MIN_PART) throw new MultipartRefused(`part ${p.partNumber} is too small`);
        await out.write(body);
        size += body.length;
      }
      await out.sync();
    } catch (err) {
      await out.close();
      await rm(tmp, { force: true });
      throw err;
    }
    await out.close();
    await writeFile(`${tmp}.type`, upload.contentType);
    await rename(`${tmp}.type`, `${target}.type`);
    await rename(tmp, target);
    await rm(this.#file(`${DISK_PART_PREFIX}${uploadId}/upload`), { force: true });
    await rm(path.dirname(this.#file(`${DISK_PART_PREFIX}${uploadId}/upload`)), { recursive: true, force: true });
    return size;
  }

  async abortMultipart(_key: string, uploadId: string): Promise<void> {
    if (!UPLOAD_ID_RULE.test(uploadId)) return;
    await rm(path.dirname(this.#file(`${DISK_PART_PREFIX}${uploadId}/upload`)), { recursive: true, force: true });
  }
}
