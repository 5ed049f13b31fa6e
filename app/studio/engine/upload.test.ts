import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ApiData, ApiRequest, Envelope } from '#core/contracts/api.ts';
import { STUDIO_PARALLEL_PARTS, STUDIO_PART_BYTES, STUDIO_UPLOAD_RETRIES, type SignedPart } from '#core/contracts/studio.ts';
import { abortUploadInput, addlocalRecordFileInput, createUploadTokenInput, signUploadPartsInput } from '#core/studio/studio.schema.ts';
import type { Take, TakeMeta, UploadProgress } from './types.ts';
import { createUpload, type PartPut, type PutResult, retryDelayMs, UploadError, type UploadTransport } from './upload.ts';

const P = STUDIO_PART_BYTES;

// Take bytes follow a pattern with a period of 251 (prime, so no two parts hold the same bytes):
// a part sent from the wrong offset does not match. Slices are views of one base Blob, so a take
// of many parts costs no memory.
const PERIOD = 251;
const base = new Blob([Uint8Array.from({ length: P + PERIOD }, (_, i) => i % PERIOD)]);

/** The Take interface in memory. */
class MemoryTake implements Take {
  readonly meta: TakeMeta;
  private readonly slices: Blob[] = [];

  constructor(patch: Partial<TakeMeta> = {}) {
    this.meta = {
      id: '1700000000000-abcdef12',
      createdAt: 1_700_000_000_000,
      mimeType: 'video/mp4;codecs=avc1,opus',
      mediaType: 'video/mp4',
      durationMs: 0,
      bytes: 0,
      slices: 0,
      state: 'recording',
      ...patch,
    };
  }

  async append(slice: Blob, durationMs: number): Promise<void> {
    this.slices.push(slice);
    this.meta.slices += 1;
    this.meta.bytes += slice.size;
    this.meta.durationMs = durationMs;
  }

  async update(patch: Partial<Omit<TakeMeta, 'id' | 'createdAt'>>): Promise<void> {
    Object.assign(this.meta, patch);
  }

  async blob(): Promise<Blob> {
    return new Blob(this.slices, { type: this.meta.mediaType });
  }

  /** Appends `total` bytes of the pattern in slices of at most `sliceBytes`. */
  async record(total: number, sliceBytes = 1_000_003): Promise<void> {
    for (let left = total; left > 0;) {
      const size = Math.min(left, sliceBytes);
      const at = this.meta.bytes % PERIOD;
      await this.append(base.slice(at, at + size), this.meta.durationMs + 1000);
      left -= size;
    }
  }
}

const ok = <T>(data: T): Envelope<T> => ({ code: '0', msg: '', data });
const refused = <T>(code: string): Envelope<T> => ({ code, msg: `refused ${code}`, data: null });

interface ServerUpload {
  expiresAt: number;
  parts: Map<number, { etag: string; body: Blob }>;
  joined?: string;
}

/**
 * A fake of the server and the object store. Each PUT takes `putMs` (or putMsOf(part)); outcomes
 * can be forced per part; the network can drop (with or without the browser's event).
 */
class FakeServer implements UploadTransport {
  putMs = 100;
  putMsOf: ((partNumber: number) => number) | null = null;
  uploadTtlMs = 24 * 3600_000;
  signTtlMs = 3600_000;
  isOnline = true;
  readonly uploads = new Map<string, ServerUpload>();
  /** Forced outcomes of the next PUTs of a part, in order ('ok' stores it as usual). */
  readonly forced = new Map<number, (PutResult | 'no-etag')[]>();
  /** Forced answers of the next addlocalRecordFile calls. */
  readonly joinAnswers: string[] = [];
  readonly putsOf = new Map<number, number>();
  readonly storesOf = new Map<number, number>();
  readonly created: string[] = [];
  readonly signCalls: ApiRequest<'signUploadParts'>[] = [];
  readonly joinCalls: { body: ApiRequest<'addlocalRecordFile'>; requestId: string }[] = [];
  readonly aborted: string[] = [];
  inFlight = 0;
  maxInFlight = 0;
  private readonly listeners = new Set<(online: boolean) => void>();
  private readonly signedSize = new Map<string, number>();
  private nextFileId = 9000;

  /** Goes on or offline; `announce` false changes navigator.onLine without the browser's event. */
  setOnline(online: boolean, announce = true): void {
    this.isOnline = online;
    if (announce) for (const l of this.listeners) l(online);
  }

  putTotal(): number {
    return [...this.putsOf.values()].reduce((a, b) => a + b, 0);
  }

  async createUploadToken(body: ApiRequest<'createUploadToken'>): Promise<Envelope<ApiData<'createUploadToken'>>> {
    createUploadTokenInput.parse(body);
    if (!this.isOnline) return refused('network');
    const token = `token${this.created.length + 1}`.padEnd(32, '_');
    this.created.push(token);
    const expiresAt = Date.now() + this.uploadTtlMs;
    this.uploads.set(token, { expiresAt, parts: new Map() });
    return ok({ uploadToken: token, partBytes: P, maxBytes: 100 * P, expiresAt });
  }

  async signUploadParts(body: ApiRequest<'signUploadParts'>): Promise<Envelope<ApiData<'signUploadParts'>>> {
    signUploadPartsInput.parse(body);
    this.signCalls.push(body);
    if (!this.isOnline) return refused('network');
    const upload = this.uploads.get(body.uploadToken);
    if (!upload || upload.expiresAt <= Date.now()) return refused('39001');
    const expiresAt = Date.now() + this.signTtlMs;
    const parts: SignedPart[] = body.parts.map(({ partNumber, size }) => {
      const url = `https://store.test/${body.uploadToken}/${partNumber}?sig=${this.signCalls.length}`;
      this.signedSize.set(url, size);
      return { partNumber, url, headers: { 'content-type': 'application/octet-stream' }, expiresAt };
    });
    return ok({ parts });
  }

  async addlocalRecordFile(body: ApiRequest<'addlocalRecordFile'>, requestId: string): Promise<Envelope<ApiData<'addlocalRecordFile'>>> {
    addlocalRecordFileInput.parse(body);
    this.joinCalls.push({ body, requestId });
    const forced = this.joinAnswers.shift();
    if (forced) return refused(forced);
    if (!this.isOnline) return refused('network');
    const upload = this.uploads.get(body.fileUrl);
    if (!upload) return refused('39001');
    if (upload.joined) return ok({ fileId: upload.joined });
    if (body.parts.some((p) => upload.parts.get(p.partNumber)?.etag !== p.etag)) return refused('39005');
    upload.joined = String(this.nextFileId++);
    return ok({ fileId: upload.joined });
  }

  async abortUpload(body: ApiRequest<'abortUpload'>): Promise<Envelope<ApiData<'abortUpload'>>> {
    abortUploadInput.parse(body);
    this.aborted.push(body.uploadToken);
    this.uploads.delete(body.uploadToken);
    return ok({});
  }

  put(part: SignedPart, body: Blob, onProgress: (sentBytes: number) => void): PartPut {
    const [token = '', number = ''] = new URL(part.url).pathname.slice(1).split('/');
    const n = Number(number);
    this.putsOf.set(n, (this.putsOf.get(n) ?? 0) + 1);
    this.inFlight += 1;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    let resolve!: (r: PutResult) => void;
    const done = new Promise<PutResult>((r) => (resolve = r));
    const ms = this.putMsOf?.(n) ?? this.putMs;
    const half = setTimeout(() => onProgress(Math.floor(body.size / 2)), ms / 2);
    const end = (result: PutResult): void => {
      clearTimeout(half);
      clearTimeout(timer);
      this.inFlight -= 1;
      resolve(result);
    };
    const timer = setTimeout(() => {
      if (!this.isOnline) return end({ kind: 'network' });
      const forced = this.forced.get(n)?.shift();
      if (forced === 'no-etag') return end({ kind: 'ok', etag: null });
      if (forced) return end(forced);
      const upload = this.uploads.get(token);
      if (!upload) return end({ kind: 'http', status: 404 });
      if (part.expiresAt <= Date.now()) return end({ kind: 'http', status: 403 });
      if (this.signedSize.get(part.url) !== body.size) return end({ kind: 'http', status: 400 });
      const etag = `"${token.slice(0, 6)}-${n}-${this.putsOf.get(n)}"`;
      upload.parts.set(n, { etag, body });
      this.storesOf.set(n, (this.storesOf.get(n) ?? 0) + 1);
      onProgress(body.size);
      end({ kind: 'ok', etag });
    }, ms);
    return { done, abort: () => end({ kind: 'aborted' }) };
  }

  online(): boolean {
    return this.isOnline;
  }

  watchNetwork(listener: (online: boolean) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

/** Runs the fake clock until the promise settles (or maxMs of fake time passed). */
async function settle<T>(promise: Promise<T>, maxMs = 120_000, stepMs = 50): Promise<T> {
  let done = false;
  promise.then(
    () => (done = true),
    () => (done = true),
  );
  for (let t = 0; !done && t < maxMs; t += stepMs) await vi.advanceTimersByTimeAsync(stepMs);
  return promise;
}

/** The record the server joined holds exactly the take's bytes, part by part. */
async function expectJoinedTake(server: FakeServer, take: MemoryTake): Promise<void> {
  const last = server.joinCalls.at(-1);
  expect(last).toBeDefined();
  const { fileUrl, parts } = last!.body;
  const upload = server.uploads.get(fileUrl)!;
  const whole = await take.blob();
  expect(parts.map((p) => p.partNumber)).toEqual(Array.from({ length: Math.ceil(whole.size / P) }, (_, i) => i + 1));
  for (const { partNumber, etag } of parts) {
    const stored = upload.parts.get(partNumber)!;
    expect(stored.etag).toBe(etag);
    const want = new Uint8Array(await whole.slice((partNumber - 1) * P, partNumber * P).arrayBuffer());
    const got = new Uint8Array(await stored.body.arrayBuffer());
    expect(got.length).toBe(want.length);
    expect(Buffer.compare(got, want)).toBe(0);
  }
}

function watch(upload: ReturnType<typeof createUpload>): UploadProgress[] {
  const seen: UploadProgress[] = [];
  upload.onProgress = (p) => seen.push(p);
  return seen;
}

describe('createUpload', () => {
  let server: FakeServer;
  beforeEach(() => {
    vi.useFakeTimers();
    server = new FakeServer();
  });
  afterEach(() => void vi.useRealTimers());

  it('waits like the rule says between retries: 0, 1, 3, 5 s, then 5 s', () => {
    expect([1, 2, 3, 4, 5, 6].map(retryDelayMs)).toEqual([0, 1000, 3000, 5000, 5000, 5000]);
  });

  it('sends only whole parts while recording, the short last part at finish, and joins them in order', async () => {
    const take = new MemoryTake();
    const upload = createUpload(take, server);
    const seen = watch(upload);

    // Under one part: nothing due, no upload opened yet.
    await take.record(P - 10);
    upload.pump();
    await vi.advanceTimersByTimeAsync(1000);
    expect(server.created).toHaveLength(0);
    expect(server.putTotal()).toBe(0);

    await take.record(1.5 * P);
    upload.pump();
    // Halfway through the PUTs the bar counts the bytes on the way.
    await vi.advanceTimersByTimeAsync(server.putMs / 2 + 1);
    expect(seen.at(-1)).toMatchObject({ phase: 'uploading', sentBytes: P, totalBytes: take.meta.bytes });
    await vi.advanceTimersByTimeAsync(1000);
    expect(server.created).toHaveLength(1);
    expect(Object.fromEntries(server.putsOf)).toEqual({ 1: 1, 2: 1 });
    expect(server.signCalls.flatMap((c) => c.parts)).toEqual([
      { partNumber: 1, size: P },
      { partNumber: 2, size: P },
    ]);
    expect(take.meta.upload?.parts.map((p) => [p.partNumber, p.size])).toEqual([
      [1, P],
      [2, P],
    ]);

    await take.record(0.7 * P);
    upload.pump();
    await vi.advanceTimersByTimeAsync(1000);
    // 3.2 parts recorded: part 3 is whole now, part 4 is not.
    expect(Object.fromEntries(server.putsOf)).toEqual({ 1: 1, 2: 1, 3: 1 });

    const fileId = await settle(upload.finish(' Lesson 1 '));
    expect(fileId).toBe('9000');
    expect(Object.fromEntries(server.putsOf)).toEqual({ 1: 1, 2: 1, 3: 1, 4: 1 });
    expect(server.signCalls.at(-1)?.parts).toEqual([{ partNumber: 4, size: take.meta.bytes - 3 * P }]);
    expect(server.joinCalls).toHaveLength(1);
    expect(server.joinCalls[0]!.body).toMatchObject({ fileName: 'Lesson 1', durationMs: take.meta.durationMs });
    await expectJoinedTake(server, take);
    expect(take.meta).toMatchObject({ state: 'saved', fileId: '9000', fileName: 'Lesson 1' });
    expect(take.meta.upload).toBeUndefined();
    expect(seen.at(-1)).toEqual({ phase: 'done', sentBytes: take.meta.bytes, totalBytes: take.meta.bytes });
    expect(seen.some((p) => p.phase === 'completing')).toBe(true);
  });

  it(`sends at most ${STUDIO_PARALLEL_PARTS} parts at once`, async () => {
    const take = new MemoryTake();
    await take.record(10 * P + 123, P);
    const upload = createUpload(take, server);
    await settle(upload.finish('x'));
    expect(server.maxInFlight).toBe(STUDIO_PARALLEL_PARTS);
    expect([...server.storesOf.values()]).toEqual(Array(11).fill(1));
    // Signed in batches, not one call per part.
    expect(server.signCalls.length).toBeLessThan(11);
    await expectJoinedTake(server, take);
  });

  it('retries a part that fails twice, with the backoff, and goes on', async () => {
    const take = new MemoryTake();
    await take.record(3 * P, P);
    const upload = createUpload(take, server);
    const seen = watch(upload);
    server.forced.set(2, [{ kind: 'http', status: 500 }, { kind: 'network' }]);
    const finished = upload.finish('x');
    // Part 2: fails at 100 ms, again at once (0 s) and fails at 200 ms, then waits 1 s.
    await vi.advanceTimersByTimeAsync(1150);
    expect(server.putsOf.get(2)).toBe(2);
    await vi.advanceTimersByTimeAsync(100);
    expect(server.putsOf.get(2)).toBe(3);
    expect(await settle(finished)).toBe('9000');
    expect(Object.fromEntries(server.putsOf)).toEqual({ 1: 1, 2: 3, 3: 1 });
    expect(seen.some((p) => p.phase === 'failed')).toBe(false);
    await expectJoinedTake(server, take);
  });

  it('fails after a part failed 7 times; finish() again resumes without sending the stored parts again', async () => {
    const take = new MemoryTake();
    await take.record(3.5 * P, P);
    const upload = createUpload(take, server);
    const seen = watch(upload);
    server.forced.set(3, Array(STUDIO_UPLOAD_RETRIES + 1).fill({ kind: 'http', status: 503 }));

    const first = upload.finish('x');
    await expect(settle(first)).rejects.toMatchObject({ name: 'UploadError', code: 'store' });
    expect(server.putsOf.get(3)).toBe(7);
    expect(seen.at(-1)).toMatchObject({ phase: 'failed', code: 'store', error: expect.stringContaining('503') });
    expect(server.joinCalls).toHaveLength(0);
    // The other parts made it and are remembered in the take (a reload would resume too).
    expect(take.meta.upload?.parts.map((p) => p.partNumber)).toEqual([1, 2, 4]);

    const second = upload.finish('x');
    expect(second).not.toBe(first);
    expect(await settle(second)).toBe('9000');
    expect(Object.fromEntries(server.putsOf)).toEqual({ 1: 1, 2: 1, 3: 8, 4: 1 });
    expect(server.created).toHaveLength(1);
    expect(server.joinCalls).toHaveLength(1);
    await expectJoinedTake(server, take);
  });

  it('treats a missing ETag as a failed part', async () => {
    const take = new MemoryTake();
    await take.record(P / 2);
    const upload = createUpload(take, server);
    server.forced.set(1, Array(STUDIO_UPLOAD_RETRIES + 1).fill('no-etag'));
    await expect(settle(upload.finish('x'))).rejects.toMatchObject({ code: 'store', message: expect.stringContaining('ETag') });
    expect(server.putsOf.get(1)).toBe(7);
  });

  it('signs a refused part again once without counting it', async () => {
    const take = new MemoryTake();
    await take.record(P / 2);
    const upload = createUpload(take, server);
    // One 403 of a fresh signature, then six 500s: 1 + 6 retries would be spent if the 403 counted.
    server.forced.set(1, [{ kind: 'http', status: 403 }, ...Array(STUDIO_UPLOAD_RETRIES).fill({ kind: 'http', status: 500 })]);
    expect(await settle(upload.finish('x'))).toBe('9000');
    expect(server.putsOf.get(1)).toBe(8);
    expect(server.signCalls.filter((c) => c.parts.some((p) => p.partNumber === 1))).toHaveLength(2);
  });

  it('pauses while offline (the event), spends no retries, and resumes from the parts stored', async () => {
    const take = new MemoryTake();
    await take.record(6 * P, P);
    const upload = createUpload(take, server);
    const seen = watch(upload);
    server.putMsOf = (n) => n * 200;
    const finished = upload.finish('x');
    await vi.advanceTimersByTimeAsync(700);
    // Parts 1-3 are stored (200, 400, 600 ms); 4-6 are on the way when the network drops.
    expect([...server.storesOf.keys()].sort()).toEqual([1, 2, 3]);
    server.setOnline(false);
    await vi.advanceTimersByTimeAsync(0);
    expect(seen.at(-1)?.phase).toBe('waiting-network');
    expect(server.inFlight).toBe(0);
    const putsWhenOffline = server.putTotal();

    await vi.advanceTimersByTimeAsync(120_000);
    expect(server.putTotal()).toBe(putsWhenOffline);
    expect(seen.at(-1)?.phase).toBe('waiting-network');

    // Back: part 4 then uses the whole retry budget and still makes it.
    server.forced.set(4, Array(STUDIO_UPLOAD_RETRIES).fill({ kind: 'http', status: 500 }));
    server.setOnline(true);
    expect(await settle(finished)).toBe('9000');
    expect(Object.fromEntries(server.putsOf)).toEqual({ 1: 1, 2: 1, 3: 1, 4: 8, 5: 2, 6: 2 });
    expect([...server.storesOf.values()]).toEqual(Array(6).fill(1));
    expect(seen.some((p) => p.phase === 'failed')).toBe(false);
    expect(server.created).toHaveLength(1);
    await expectJoinedTake(server, take);
  });

  it('pauses on a network error while navigator.onLine is false, and notices it is back by polling', async () => {
    const take = new MemoryTake();
    await take.record(4 * P, P);
    const upload = createUpload(take, server);
    const seen = watch(upload);
    server.putMsOf = (n) => n * 200;
    const finished = upload.finish('x');
    await vi.advanceTimersByTimeAsync(500);
    // No 'offline' event: part 3 ends in a network error at 600 ms, and the browser says offline.
    server.setOnline(false, false);
    await vi.advanceTimersByTimeAsync(200);
    expect(seen.at(-1)?.phase).toBe('waiting-network');
    await vi.advanceTimersByTimeAsync(60_000);
    expect(seen.some((p) => p.phase === 'failed')).toBe(false);

    // No 'online' event either: the 1 s poll of navigator.onLine finds it.
    server.forced.set(3, Array(STUDIO_UPLOAD_RETRIES).fill({ kind: 'http', status: 500 }));
    server.setOnline(true, false);
    expect(await settle(finished, 60_000)).toBe('9000');
    expect(server.putsOf.get(3)).toBe(1 + STUDIO_UPLOAD_RETRIES + 1);
    expect([...server.storesOf.values()]).toEqual(Array(4).fill(1));
    await expectJoinedTake(server, take);
  });

  it('makes one record of a double submit, and asks again with the same requestId after a network error', async () => {
    const take = new MemoryTake();
    await take.record(P + 5);
    const upload = createUpload(take, server);
    server.joinAnswers.push('network');
    const a = upload.finish('x');
    const b = upload.finish('x');
    expect(b).toBe(a);
    expect(await settle(a)).toBe('9000');
    expect(server.joinCalls).toHaveLength(2);
    expect(server.joinCalls[1]!.requestId).toBe(server.joinCalls[0]!.requestId);
    // Saved: another finish answers the same record without asking the server.
    expect(await upload.finish('x')).toBe('9000');
    expect(server.joinCalls).toHaveLength(2);
  });

  it('resumes a reopened take from the parts its meta lists', async () => {
    const first = new MemoryTake();
    await first.record(3 * P + 77, P);
    const before = createUpload(first, server);
    before.pump();
    await vi.advanceTimersByTimeAsync(1000);
    expect(first.meta.upload?.parts).toHaveLength(3);

    // The page is reloaded: a new upload object on the same take meta (as take-store recovers it).
    const reopened = new MemoryTake({ upload: structuredClone(first.meta.upload), state: 'stopped' });
    await reopened.record(3 * P + 77, P);
    const after = createUpload(reopened, server);
    expect(await settle(after.finish('x'))).toBe('9000');
    expect(server.created).toHaveLength(1);
    expect(Object.fromEntries(server.putsOf)).toEqual({ 1: 1, 2: 1, 3: 1, 4: 1 });
    await expectJoinedTake(server, reopened);
  });

  it('opens a new upload when the stored one has expired, and sends everything to it', async () => {
    const take = new MemoryTake();
    await take.record(2 * P + 1, P);
    const old = createUpload(take, server);
    old.pump();
    await vi.advanceTimersByTimeAsync(1000);
    const oldToken = take.meta.upload!.token;
    take.meta.upload!.expiresAt = Date.now() - 1;

    const upload = createUpload(take, server);
    expect(await settle(upload.finish('x'))).toBe('9000');
    expect(server.created).toHaveLength(2);
    expect(server.joinCalls[0]!.body.fileUrl).toBe(server.created[1]);
    expect(server.aborted).toEqual([oldToken]);
    expect(Object.fromEntries(server.putsOf)).toEqual({ 1: 2, 2: 2, 3: 1 });
    await expectJoinedTake(server, take);
  });

  it('opens a new upload when the server says the upload is gone (39001)', async () => {
    const take = new MemoryTake();
    await take.record(2 * P, P);
    const upload = createUpload(take, server);
    upload.pump();
    await vi.advanceTimersByTimeAsync(1000);
    // The server dropped it (its clean-up), though this page's clock says it is still good.
    server.uploads.delete(take.meta.upload!.token);
    await take.record(P / 3);
    expect(await settle(upload.finish('x'))).toBe('9000');
    expect(server.created).toHaveLength(2);
    expect(Object.fromEntries(server.putsOf)).toEqual({ 1: 2, 2: 2, 3: 1 });
    await expectJoinedTake(server, take);
  });

  it('tries again while recording once a new part is due after a failure', async () => {
    const take = new MemoryTake();
    await take.record(P, P);
    const upload = createUpload(take, server);
    const seen = watch(upload);
    server.forced.set(1, Array(STUDIO_UPLOAD_RETRIES + 1).fill({ kind: 'http', status: 500 }));
    upload.pump();
    await vi.advanceTimersByTimeAsync(30_000);
    expect(seen.at(-1)?.phase).toBe('failed');
    // More slices but no new whole part: stays failed, sends nothing.
    await take.record(P / 2);
    upload.pump();
    await vi.advanceTimersByTimeAsync(1000);
    expect(server.putsOf.get(1)).toBe(7);
    // Part 2 is whole: both go.
    await take.record(P / 2);
    upload.pump();
    await vi.advanceTimersByTimeAsync(1000);
    expect(Object.fromEntries(server.storesOf)).toEqual({ 1: 1, 2: 1 });
    expect(seen.at(-1)?.phase).toBe('idle');
  });

  it('abort() drops the server upload and the take forgets it', async () => {
    const take = new MemoryTake();
    await take.record(P);
    const upload = createUpload(take, server);
    upload.pump();
    await vi.advanceTimersByTimeAsync(1000);
    const token = take.meta.upload!.token;
    await upload.abort();
    expect(server.aborted).toEqual([token]);
    expect(take.meta.upload).toBeUndefined();
    await expect(upload.finish('x')).rejects.toBeInstanceOf(UploadError);
  });
});
