/**
 * The object-store port (courseware, page images, board images, recordings) and its disk adapter.
 * The disk adapter hands out HMAC-signed URLs that expire; the S3 adapter arrives with courseware.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';

export interface ObjectInfo {
  size: number;
  contentType: string;
}

export interface ObjectStore {
  put(key: string, body: Uint8Array, contentType: string): Promise<void>;
  get(key: string): Promise<{ stream: Readable; info: ObjectInfo } | null>;
  head(key: string): Promise<ObjectInfo | null>;
  delete(key: string): Promise<void>;
  /** A URL a browser may GET until it expires. */
  signedGetUrl(key: string, ttlSeconds: number): Promise<string>;
}

const KEY_RULE = /^[a-zA-Z0-9][a-zA-Z0-9/_.-]{0,400}$/;

export function assertObjectKey(key: string): void {
  if (!KEY_RULE.test(key) || key.split('/').some((part) => part === '..' || part === '.' || part === '')) {
    throw new Error(`invalid object key: ${JSON.stringify(key)}`);
  }
}

export class DiskObjectStore implements ObjectStore {
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

  async delete(key: string): Promise<void> {
    const file = this.#file(key);
    await rm(file, { force: true });
    await rm(`${file}.type`, { force: true });
  }

  #sign(key: string, exp: number): string {
    return createHmac('sha256', this.secret).update(`${key}\n${exp}`).digest('base64url');
  }

  signedGetUrl(key: string, ttlSeconds: number): Promise<string> {
    assertObjectKey(key);
    const exp = Math.floor(this.now() / 1000) + ttlSeconds;
    const encoded = key.split('/').map(encodeURIComponent).join('/');
    return Promise.resolve(`${this.baseUrl()}/objects/${encoded}?exp=${exp}&sig=${this.#sign(key, exp)}`);
  }

  /** Checks a URL this store signed; false when forged, altered or expired. */
  verify(key: string, exp: string, sig: string): boolean {
    if (!/^\d{1,12}$/.test(exp)) return false;
    const n = Number(exp);
    if (n * 1000 < this.now()) return false;
    try {
      assertObjectKey(key);
    } catch {
      return false;
    }
    const want = Buffer.from(this.#sign(key, n));
    const got = Buffer.from(sig);
    return want.length === got.length && timingSafeEqual(want, got);
  }
}
