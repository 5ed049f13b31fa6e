/**
 * The object-store port on an S3-compatible store (AWS S3, MinIO, Garage, s3rver in tests), chosen
 * when S3_ENDPOINT is set. Browsers upload straight to the store with a presigned PUT whose
 * content type and length are signed; downloads are presigned GETs. Path-style addressing, and
 * checksums only where an operation requires them (several S3-compatible servers store streamed
 * uploads with the checksum framing otherwise).
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import {
  assertObjectKey,
  attachmentDisposition,
  bareEtag,
  MultipartRefused,
  type GetOptions,
  type ObjectInfo,
  type ObjectStore,
  type SignedPut,
} from './objects.ts';

export interface S3Settings {
  endpoint: string;
  bucket: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
}

const isMissing = (err: unknown): boolean => {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e?.name === 'NotFound' || e?.name === 'NoSuchKey' || e?.$metadata?.httpStatusCode === 404;
};

export class S3ObjectStore implements ObjectStore {
  readonly resourceType = 2 as const;
  readonly client: S3Client;
  private readonly bucket: string;
  private readonly now: () => number;

  constructor(s: S3Settings, now: () => number = Date.now) {
    this.bucket = s.bucket;
    this.now = now;
    this.client = new S3Client({
      endpoint: s.endpoint,
      region: s.region,
      forcePathStyle: true,
      credentials: { accessKeyId: s.accessKeyId, secretAccessKey: s.secretAccessKey },
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  async put(key: string, body: Uint8Array, contentType: string): Promise<void> {
    assertObjectKey(key);
    await this.client.send(
      new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: body, ContentType: contentType, ContentLength: body.byteLength }),
    );
  }

  async putFile(key: string, file: string, contentType: string): Promise<void> {
    assertObjectKey(key);
    const { size } = await stat(file);
    await this.client.send(
      new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: createReadStream(file), ContentType: contentType, ContentLength: size }),
    );
  }

  async head(key: string): Promise<ObjectInfo | null> {
    assertObjectKey(key);
    try {
      const r = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return { size: r.ContentLength ?? 0, contentType: r.ContentType ?? 'application/octet-stream' };
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
  }

  async get(key: string): Promise<{ stream: Readable; info: ObjectInfo } | null> {
    assertObjectKey(key);
    try {
      const r = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      if (!r.Body) return null;
      return {
        stream: r.Body as Readable,
        info: { size: r.ContentLength ?? 0, contentType: r.ContentType ?? 'application/octet-stream' },
      };
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
  }

  async readStart(key: string, bytes: number): Promise<Uint8Array | null> {
    assertObjectKey(key);
    try {
      const r = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key, Range: `bytes=0-${Math.max(0, bytes - 1)}` }));
      if (!r.Body) return null;
      const all = await r.Body.transformToByteArray();
      return all.subarray(0, bytes);
    } catch (err) {
      if (isMissing(err)) return null;
      // An empty object has no byte 0: a range past the end.
      if ((err as { $metadata?: { httpStatusCode?: number } })?.$metadata?.httpStatusCode === 416) return new Uint8Array();
      throw err;
    }
  }

  async download(key: string, file: string): Promise<ObjectInfo | null> {
    const obj = await this.get(key);
    if (!obj) return null;
    await pipeline(obj.stream, createWriteStream(file));
    return obj.info;
  }

  async delete(key: string): Promise<void> {
    assertObjectKey(key);
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }

  /** S3 answers range requests itself; a download name becomes the signed response-content-disposition. */
  signedGetUrl(key: string, ttlSeconds: number, opts?: GetOptions): Promise<string> {
    assertObjectKey(key);
    const name = opts?.downloadName;
    return getSignedUrl(
      this.client,
      new GetObjectCommand({
        Bucket: this.bucket,
        Key: key,
        ...(name === undefined ? {} : { ResponseContentDisposition: attachmentDisposition(name) }),
      }),
      { expiresIn: ttlSeconds },
    );
  }

  async signedPutUrl(key: string, contentType: string, size: number, ttlSeconds: number): Promise<SignedPut> {
    assertObjectKey(key);
    if (!Number.isSafeInteger(size) || size < 0) throw new Error('invalid size');
    const url = await getSignedUrl(
      this.client,
      new PutObjectCommand({ Bucket: this.bucket, Key: key, ContentType: contentType, ContentLength: size }),
      // The store checks both: a body of another length or type does not match the signature.
      { expiresIn: ttlSeconds, signableHeaders: new Set(['content-type', 'content-length']) },
    );
    return { url, method: 'PUT', headers: { 'Content-Type': contentType }, expiresAt: this.now() + ttlSeconds * 1000 };
  }

  async createMultipart(key: string, contentType: string): Promise<string> {
    assertObjectKey(key);
    const r = await this.client.send(new CreateMultipartUploadCommand({ Bucket: this.bucket, Key: key, ContentType: contentType }));
    if (!r.UploadId) throw new Error('the store opened no multipart upload');
    return r.UploadId;
  }

  async uploadPart(key: string, uploadId: string, partNumber: number, file: string, start: number, end: number): Promise<string> {
    assertObjectKey(key);
    if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || end <= start) throw new Error('invalid part range');
    const { size } = await stat(file);
    if (end > size) throw new Error(`the file holds ${String(size)} bytes, the part ends at ${String(end)}`);
    const r = await this.client.send(
      new UploadPartCommand({
        Bucket: this.bucket,
        Key: key,
        UploadId: uploadId,
        PartNumber: partNumber,
        Body: createReadStream(file, { start, end: end - 1 }),
        ContentLength: end - start,
      }),
    );
    if (!r.ETag) throw new Error('the store answered the part without an ETag');
    return bareEtag(r.ETag);
  }

  /** The part's length is signed: the store refuses a body of another size. */
  async signedPartUrl(key: string, uploadId: string, partNumber: number, size: number, ttlSeconds: number): Promise<SignedPut> {
    assertObjectKey(key);
    if (!Number.isSafeInteger(size) || size < 1) throw new Error('invalid size');
    const url = await getSignedUrl(
      this.client,
      new UploadPartCommand({ Bucket: this.bucket, Key: key, UploadId: uploadId, PartNumber: partNumber, ContentLength: size }),
      { expiresIn: ttlSeconds, signableHeaders: new Set(['content-length']) },
    );
    return { url, method: 'PUT', headers: {}, expiresAt: this.now() + ttlSeconds * 1000 };
  }

  /** The store checks each part's ETag and the 5 MiB rule itself; its refusals become MultipartRefused. */
  async completeMultipart(key: string, uploadId: string, parts: ReadonlyArray<{ partNumber: number; etag: string }>): Promise<number> {
    assertObjectKey(key);
    const sorted = [...parts].sort((a, b) => a.partNumber - b.partNumber);
    try {
      await this.client.send(
        new CompleteMultipartUploadCommand({
          Bucket: this.bucket,
          Key: key,
          UploadId: uploadId,
          MultipartUpload: { Parts: sorted.map((p) => ({ PartNumber: p.partNumber, ETag: `"${bareEtag(p.etag)}"` })) },
        }),
      );
    } catch (err) {
      const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
      const status = e.$metadata?.httpStatusCode ?? 0;
      if (status >= 400 && status < 500) throw new MultipartRefused(`${e.name ?? 'refused'} (${String(status)})`);
      throw err;
    }
    const info = await this.head(key);
    if (!info) throw new MultipartRefused('the joined object is not in the store');
    return info.size;
  }

  /** A store without the call (s3rver) or an upload gone already: the parts are left to the bucket's lifecycle rule. */
  async abortMultipart(key: string, uploadId: string): Promise<void> {
    assertObjectKey(key);
    try {
      await this.client.send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: key, UploadId: uploadId }));
    } catch (err) {
      const status = (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode ?? 0;
      if (status === 404 || status === 405 || status === 501) return;
      throw err;
    }
  }

  close(): void {
    this.client.destroy();
  }
}
