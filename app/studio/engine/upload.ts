/**
 * A take's upload to the object store (ADR 086), straight from the browser, in fixed parts: part n
 * is always bytes (n-1)*P .. n*P of the take (P = STUDIO_PART_BYTES), so a part stored once is good
 * for the rest of the take's life and a reopened take resumes from the parts meta.upload lists.
 * While recording only whole parts go (pump); the short last part goes in finish(), which then
 * joins the parts (addlocalRecordFile).
 *
 * Failures: each part is tried 1 + STUDIO_UPLOAD_RETRIES times with STUDIO_RETRY_DELAYS_MS between,
 * then the upload is 'failed' (finish() again resumes). A dropped network is not a failure: the
 * upload pauses ('waiting-network'), drops the PUTs on the way without counting them, and goes on
 * from the stored parts when the browser is online again. Only an upload the server no longer has
 * (expired, '39001') makes it start over, with a new upload.
 *
 * The server and the store are reached through an UploadTransport, so the logic is tested with a
 * fake one (upload.test.ts).
 */
import type { ApiData, ApiRequest, Envelope } from '#core/contracts/api.ts';
import {
  STUDIO_PARALLEL_PARTS,
  STUDIO_PART_BYTES,
  STUDIO_RETRY_DELAYS_MS,
  STUDIO_SIGN_BATCH,
  STUDIO_UPLOAD_RETRIES,
  studioPartSize,
  type SignedPart,
} from '#core/contracts/studio.ts';
import { api, isOk, NETWORK_ERROR, newRequestId } from '#app/lib/api.ts';
import { currentLang } from '#app/lib/lang.ts';
import { codeMessage } from '#app/lib/messages.ts';
import type { StoredPart, Take, TakeUpload, UploadPhase, UploadProgress } from './types.ts';

/** A part's address this close to its end is signed again first: a 5 MiB PUT on a slow line takes a while. */
export const RESIGN_BEFORE_MS = 60_000;
/** While offline, navigator.onLine is looked at this often too ('online' events do get lost). */
export const NETWORK_POLL_MS = 1000;
/** A PUT without upload progress for this long hangs on a dead connection: treated as a network error. */
const STALL_MS = 60_000;
/** New uploads opened in a row without a part stored before giving up (a server that keeps losing them). */
const MAX_RESTARTS = 2;
/** addlocalRecordFile retries on a network error, with the same requestId. */
const JOIN_NETWORK_RETRIES = 2;

const UPLOAD_GONE = '39001';
const TOO_LARGE = '39002';
const UPLOAD_INCOMPLETE = '39005';
const TOO_FREQUENT = '39006';

/**
 * Why an upload failed. code: a server code ('39002' too large, ...), 'network' (no answer while
 * the browser says it is online), 'store' (the object store refused a part or sent no ETag),
 * 'take' (the take on disk cannot be read), 'empty', 'aborted', 'client' (a bug).
 */
export class UploadError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.name = 'UploadError';
    this.code = code;
  }
}

function asUploadError(error: unknown): UploadError {
  if (error instanceof UploadError) return error;
  return new UploadError('client', error instanceof Error ? error.message : String(error));
}

/** How one PUT of a part ended. */
export type PutResult =
  /** 2xx; etag is the response's ETag header (null when the store sent none or CORS hides it). */
  | { kind: 'ok'; etag: string | null }
  | { kind: 'http'; status: number }
  /** No answer: a network error, or the PUT stalled. */
  | { kind: 'network' }
  /** abort() was called. */
  | { kind: 'aborted' };

export interface PartPut {
  readonly done: Promise<PutResult>;
  abort(): void;
}

/** The server, the store and the network state as the upload uses them. */
export interface UploadTransport {
  createUploadToken(body: ApiRequest<'createUploadToken'>): Promise<Envelope<ApiData<'createUploadToken'>>>;
  signUploadParts(body: ApiRequest<'signUploadParts'>): Promise<Envelope<ApiData<'signUploadParts'>>>;
  /** Every try of one save passes the same requestId, so the server joins the parts once. */
  addlocalRecordFile(body: ApiRequest<'addlocalRecordFile'>, requestId: string): Promise<Envelope<ApiData<'addlocalRecordFile'>>>;
  abortUpload(body: ApiRequest<'abortUpload'>): Promise<Envelope<ApiData<'abortUpload'>>>;
  /** PUTs one part to its signed address with exactly the signed headers; onProgress gets the bytes sent so far. */
  put(part: SignedPart, body: Blob, onProgress: (sentBytes: number) => void): PartPut;
  /** navigator.onLine: false means surely offline (true may still be wrong). */
  online(): boolean;
  /** The browser's 'online' / 'offline' events; returns the unsubscribe. */
  watchNetwork(listener: (online: boolean) => void): () => void;
}

/** Headers the browser sets itself and refuses from a script. */
const BROWSER_HEADERS = /^(content-length|host|connection|expect)$/i;

function xhrPut(part: SignedPart, body: Blob, onProgress: (sentBytes: number) => void): PartPut {
  const xhr = new XMLHttpRequest();
  const done = new Promise<PutResult>((resolve) => {
    let settled = false;
    let stall: ReturnType<typeof setTimeout> | undefined;
    const end = (result: PutResult): void => {
      if (settled) return;
      settled = true;
      clearTimeout(stall);
      resolve(result);
    };
    const watch = (): void => {
      clearTimeout(stall);
      stall = setTimeout(() => {
        end({ kind: 'network' });
        xhr.abort();
      }, STALL_MS);
    };
    xhr.open('PUT', part.url);
    for (const [name, value] of Object.entries(part.headers)) {
      if (!BROWSER_HEADERS.test(name)) xhr.setRequestHeader(name, value);
    }
    xhr.upload.onprogress = (e) => {
      watch();
      onProgress(e.loaded);
    };
    xhr.onload = () =>
      end(
        xhr.status >= 200 && xhr.status < 300 ? { kind: 'ok', etag: xhr.getResponseHeader('ETag') } : { kind: 'http', status: xhr.status },
      );
    xhr.onerror = () => end({ kind: 'network' });
    xhr.ontimeout = () => end({ kind: 'network' });
    xhr.onabort = () => end({ kind: 'aborted' });
    watch();
    // The slice has no type, so no Content-Type goes unless the signature asked for one.
    xhr.send(body);
  });
  return { done, abort: () => xhr.abort() };
}

/** The app's /api client, XMLHttpRequest PUTs (for upload progress) and the browser's network events. */
export function browserTransport(): UploadTransport {
  // The studio shows its own failure; the client's generic network toast would repeat it.
  const quiet = { quietNetworkError: true } as const;
  return {
    createUploadToken: (body) => api('createUploadToken', body, quiet),
    signUploadParts: (body) => api('signUploadParts', body, quiet),
    addlocalRecordFile: (body, requestId) => api('addlocalRecordFile', body, { ...quiet, requestId, retries: JOIN_NETWORK_RETRIES }),
    abortUpload: (body) => api('abortUpload', body, quiet),
    put: xhrPut,
    online: () => navigator.onLine,
    watchNetwork(listener) {
      const onOnline = (): void => listener(true);
      const onOffline = (): void => listener(false);
      window.addEventListener('online', onOnline);
      window.addEventListener('offline', onOffline);
      return () => {
        window.removeEventListener('online', onOnline);
        window.removeEventListener('offline', onOffline);
      };
    },
  };
}

/** The outcome of one try, as the retry loop (Upload.retrying) acts on it. */
type Step<T> =
  | { ok: T }
  /** Try again at once, not counted (a part's address signed again). */
  | { again: true }
  /** Interrupted (offline, abort, start over): the caller drops the work, to be done again. */
  | { aborted: true }
  /** Counted, then tried again after the backoff. */
  | { retry: UploadError }
  /** No answer: a pause when the browser is offline, else counted like retry. */
  | { network: UploadError }
  /** The server no longer has the upload: start over with a new one. */
  | { gone: UploadError }
  | { fatal: UploadError };

/** The wait before retry k (1-based): 0, 1, 3, 5 s, then 5 s again. */
export function retryDelayMs(k: number): number {
  const delays = STUDIO_RETRY_DELAYS_MS;
  return delays[Math.min(Math.max(k, 1), delays.length) - 1] ?? 0;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0 || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done);
  });
}

/** Stored parts from meta.json that can stand: sane numbers, and the size part n has in a take of `bytes`. */
function usableParts(parts: readonly StoredPart[], bytes: number): StoredPart[] {
  return parts.filter(
    (p) =>
      Number.isInteger(p.partNumber) && p.partNumber >= 1 && p.etag !== '' && p.size > 0 && p.size === studioPartSize(p.partNumber, bytes),
  );
}

interface Flight {
  /** Bytes of this part sent by the PUT on the way. */
  sent: number;
}

interface Signing {
  gen: number;
  parts: ReadonlySet<number>;
  done: Promise<Step<void>>;
}

class Upload implements TakeUpload {
  onProgress: ((p: UploadProgress) => void) | null = null;

  private readonly take: Take;
  private readonly transport: UploadTransport;
  private phase: UploadPhase = 'idle';
  private failure: UploadError | null = null;
  /** Whole parts due when the failure came: pump() tries again once a new one is due. */
  private failedAtWholeParts = 0;
  private token: { token: string; expiresAt: number } | null = null;
  /** The longest take the server takes; known once this page opened the upload. */
  private maxBytes: number | null = null;
  private readonly stored = new Map<number, StoredPart>();
  /** Signed addresses by part number, with the size they were signed for. */
  private readonly urls = new Map<number, { part: SignedPart; size: number }>();
  private signing: Signing | null = null;
  private readonly flights = new Map<number, Flight>();
  /** Bumped when the upload starts over or is dropped: work of an older generation is thrown away. */
  private gen = 0;
  /** Aborted (and replaced) to stop every PUT and backoff on the way: offline, failure, start over. */
  private interrupts = new AbortController();
  /** finish() was called: the short last part is due too. */
  private final = false;
  private offline = false;
  private closed = false;
  private looping = false;
  private loop: Promise<void> = Promise.resolve();
  private wakeLoop: (() => void) | null = null;
  private woken = false;
  private finishing: Promise<string> | null = null;
  private restarts = 0;
  /** A join answered 'gone' or 'incomplete' in this finish and the take was sent again: a second time fails. */
  private joinRestarted = false;
  private joinRequestId: string | null = null;
  private lastProgress = '';

  constructor(take: Take, transport: UploadTransport) {
    this.take = take;
    this.transport = transport;
    const upload = take.meta.upload;
    if (upload) {
      this.token = { token: upload.token, expiresAt: upload.expiresAt };
      for (const p of usableParts(upload.parts, take.meta.bytes)) this.stored.set(p.partNumber, p);
    }
    if (take.meta.state === 'saved' && take.meta.fileId) {
      this.phase = 'done';
      this.finishing = Promise.resolve(take.meta.fileId);
    }
  }

  pump(): void {
    if (this.closed || this.phase === 'done') return;
    if (this.failure) {
      // While recording a failure is not the end: a new whole part due tries again (a natural backoff).
      if (this.final || this.wholeParts() <= this.failedAtWholeParts) {
        this.emit();
        return;
      }
      this.failure = null;
      this.restarts = 0;
      this.setPhase('idle');
    }
    void this.ensureLoop();
    this.emit();
  }

  finish(fileName: string): Promise<string> {
    if (this.finishing) return this.finishing;
    const run = this.runFinish(fileName.trim());
    this.finishing = run;
    // A failed finish can be called again and resumes; a successful one keeps answering its fileId.
    run.catch(() => {
      if (this.finishing === run) this.finishing = null;
    });
    return run;
  }

  async abort(): Promise<void> {
    if (this.closed || this.phase === 'done') return;
    this.closed = true;
    const token = this.token?.token ?? this.take.meta.upload?.token;
    this.dropUpload();
    this.setPhase('idle');
    this.wake();
    await this.take.update({ upload: undefined }).catch(() => undefined);
    if (token) await this.transport.abortUpload({ uploadToken: token }).catch(() => undefined);
  }

  private async runFinish(fileName: string): Promise<string> {
    if (this.closed) throw new UploadError('aborted', 'The upload was dropped');
    if (this.take.meta.bytes === 0) throw new UploadError('empty', 'The take is empty');
    this.final = true;
    this.failure = null;
    this.restarts = 0;
    this.joinRestarted = false;
    this.emit();
    for (;;) {
      await this.ensureLoop();
      if (this.closed) throw new UploadError('aborted', 'The upload was dropped');
      if (this.failure) throw this.failure;
      // The loop ends with every part stored; anything else (a start over just now) goes round again.
      if (!this.token || !this.allStored()) continue;
      this.setPhase('completing');
      const fileId = await this.join(fileName);
      if (fileId !== null) {
        this.setPhase('done');
        await this.take.update({ state: 'saved', fileId, fileName, upload: undefined }).catch(() => undefined);
        return fileId;
      }
      if (this.closed) throw new UploadError('aborted', 'The upload was dropped');
      if (this.failure) throw this.failure;
      // Offline or started over: the loop waits for the network or sends the parts again.
    }
  }

  private async join(fileName: string): Promise<string | null> {
    const token = this.token;
    if (!token) return null;
    const count = this.lastDuePart();
    const parts: { partNumber: number; etag: string }[] = [];
    for (let n = 1; n <= count; n++) {
      const p = this.stored.get(n);
      if (!p) return null;
      parts.push({ partNumber: n, etag: p.etag });
    }
    this.joinRequestId ??= newRequestId();
    const requestId = this.joinRequestId;
    const durationMs = Math.max(0, Math.round(this.take.meta.durationMs));
    return this.retrying(this.gen, this.interrupts.signal, async (): Promise<Step<string>> => {
      const env = await this.transport.addlocalRecordFile({ fileName, fileUrl: token.token, parts, durationMs }, requestId);
      if (isOk(env)) return { ok: env.data.fileId };
      if (env.code === UPLOAD_INCOMPLETE || env.code === UPLOAD_GONE) {
        // The server lost the upload, or its parts are not the ones listed here: send the whole
        // take again with a new upload, once per finish (a second time the server is the trouble).
        if (this.joinRestarted) return { fatal: this.errorOf(env) };
        this.joinRestarted = true;
        return { gone: this.errorOf(env) };
      }
      return this.stepOf(env);
    });
  }

  private ensureLoop(): Promise<void> {
    if (this.looping) {
      this.wake();
    } else {
      this.looping = true;
      this.loop = this.run();
    }
    return this.loop;
  }

  /** Sends the due parts, STUDIO_PARALLEL_PARTS at a time, until none is due or the upload failed. */
  private async run(): Promise<void> {
    const unwatch = this.transport.watchNetwork((online) => this.networkChanged(online));
    try {
      for (;;) {
        if (this.closed || this.failure) return;
        if (this.offline || !this.transport.online()) {
          if (this.transport.online()) {
            this.offline = false;
            continue;
          }
          this.markOffline();
          await this.nextWake(NETWORK_POLL_MS);
          continue;
        }
        // After finish() an upload is needed even with every part stored: the join goes to one.
        if (this.flights.size === 0 && !this.hasDue() && (this.token || !this.final)) {
          if (this.phase === 'uploading' || this.phase === 'waiting-network') this.setPhase('idle');
          return;
        }
        if (this.token && this.token.expiresAt <= Date.now()) {
          this.restart(this.gen, new UploadError(UPLOAD_GONE, 'The upload has expired'));
          continue;
        }
        if (!this.token) {
          await this.open();
          continue;
        }
        this.setPhase('uploading');
        this.launchDue();
        if (this.flights.size > 0) await this.nextWake();
      }
    } finally {
      unwatch();
      this.looping = false;
    }
  }

  private async open(): Promise<void> {
    const gen = this.gen;
    this.setPhase('uploading');
    const opened = await this.retrying(gen, this.interrupts.signal, async (): Promise<Step<ApiData<'createUploadToken'>>> => {
      const env = await this.transport.createUploadToken({ mediaType: this.take.meta.mediaType });
      return isOk(env) ? { ok: env.data } : this.stepOf(env);
    });
    if (!opened || gen !== this.gen || this.closed) return;
    if (opened.partBytes !== STUDIO_PART_BYTES) {
      this.fail(new UploadError('client', `The server cuts parts of ${opened.partBytes} bytes, this page ${STUDIO_PART_BYTES}`));
      return;
    }
    this.token = { token: opened.uploadToken, expiresAt: opened.expiresAt };
    this.maxBytes = opened.maxBytes;
    this.stored.clear();
    this.urls.clear();
    this.joinRequestId = null;
    await this.saveParts();
  }

  private launchDue(): void {
    const bytes = this.take.meta.bytes;
    if (this.maxBytes !== null && bytes > this.maxBytes) {
      this.fail(new UploadError(TOO_LARGE, codeMessage(TOO_LARGE, currentLang()) ?? 'The recording is too large'));
      return;
    }
    const last = this.lastDuePart();
    for (let n = 1; n <= last && this.flights.size < STUDIO_PARALLEL_PARTS; n++) {
      if (!this.flights.has(n) && !this.isStored(n)) this.launch(n);
    }
  }

  private launch(n: number): void {
    const flight: Flight = { sent: 0 };
    this.flights.set(n, flight);
    const settle = (): void => {
      if (this.flights.get(n) === flight) this.flights.delete(n);
      this.emit();
      this.wake();
    };
    void this.sendPart(n, flight, this.gen, this.interrupts.signal).then(settle, (error: unknown) => {
      this.fail(asUploadError(error));
      settle();
    });
  }

  /** Signs (when needed) and PUTs part n, with retries; records it as stored on success. */
  private async sendPart(n: number, flight: Flight, gen: number, signal: AbortSignal): Promise<void> {
    let resigned = false;
    const part = await this.retrying(gen, signal, async (): Promise<Step<StoredPart>> => {
      const size = studioPartSize(n, this.take.meta.bytes);
      const url = await this.signedUrl(n, size, gen);
      if (!('url' in url)) return url;
      const blob = await this.take.blob();
      const start = (n - 1) * STUDIO_PART_BYTES;
      if (blob.size < start + size)
        return { fatal: new UploadError('take', `The take has ${blob.size} bytes, part ${n} needs ${start + size}`) };
      if (signal.aborted) return { aborted: true };
      const put = this.transport.put(url, blob.slice(start, start + size), (sent) => {
        flight.sent = Math.min(sent, size);
        this.emit();
      });
      const stop = (): void => put.abort();
      signal.addEventListener('abort', stop);
      let result: PutResult;
      try {
        result = await put.done;
      } finally {
        signal.removeEventListener('abort', stop);
        flight.sent = 0;
      }
      switch (result.kind) {
        case 'ok':
          if (result.etag) return { ok: { partNumber: n, size, etag: result.etag } };
          return { retry: new UploadError('store', `Part ${n}: the store sent no ETag (its CORS rules must expose it)`) };
        case 'aborted':
          return { aborted: true };
        case 'network':
          return { network: new UploadError(NETWORK_ERROR, `Part ${n}: no answer from the store`) };
        case 'http': {
          const error = new UploadError('store', `Part ${n}: the store answered HTTP ${result.status}`);
          if (result.status === 408 || result.status === 429 || result.status >= 500) return { retry: error };
          // Refused: most likely the signature (expired, clock skew) or an upload the server dropped.
          // A new address once; signing also tells whether the upload is gone.
          this.urls.delete(n);
          if (resigned) return { retry: error };
          resigned = true;
          return { again: true };
        }
      }
    });
    if (!part || gen !== this.gen) return;
    this.stored.set(n, part);
    this.restarts = 0;
    this.emit();
    await this.saveParts();
  }

  /** Part n's signed address for `size` bytes, signing it with the next due parts (one call for up to STUDIO_SIGN_BATCH). */
  private async signedUrl(n: number, size: number, gen: number): Promise<SignedPart | Step<never>> {
    for (let round = 0; round < 3; round++) {
      const token = this.token;
      if (!token || gen !== this.gen) return { aborted: true };
      if (token.expiresAt <= Date.now()) return { gone: new UploadError(UPLOAD_GONE, 'The upload has expired') };
      const cached = this.urls.get(n);
      if (cached && cached.size === size && this.fresh(cached.part)) return cached.part;
      const signing = this.signing?.gen === gen ? this.signing : this.startSigning(n, size, token.token, gen);
      const step = await signing.done;
      if (gen !== this.gen) return { aborted: true };
      if (!signing.parts.has(n)) continue;
      if (!('ok' in step)) return step;
      const signed = this.urls.get(n);
      if (signed && signed.size === size) return signed.part;
    }
    return { retry: new UploadError('client', `Part ${n} was not signed`) };
  }

  private startSigning(n: number, size: number, token: string, gen: number): Signing {
    const batch = [{ partNumber: n, size }];
    const bytes = this.take.meta.bytes;
    const last = this.lastDuePart();
    for (let m = 1; m <= last && batch.length < STUDIO_SIGN_BATCH; m++) {
      if (m === n || this.isStored(m)) continue;
      const s = studioPartSize(m, bytes);
      const cached = this.urls.get(m);
      if (cached && cached.size === s && this.fresh(cached.part)) continue;
      batch.push({ partNumber: m, size: s });
    }
    const done = (async (): Promise<Step<void>> => {
      const env = await this.transport.signUploadParts({ uploadToken: token, parts: batch });
      if (!isOk(env)) return this.stepOf(env);
      if (gen === this.gen) {
        for (const part of env.data.parts) {
          const asked = batch.find((b) => b.partNumber === part.partNumber);
          if (asked) this.urls.set(part.partNumber, { part, size: asked.size });
        }
      }
      return { ok: undefined };
    })().catch((error: unknown): Step<void> => ({ fatal: asUploadError(error) }));
    const signing: Signing = { gen, parts: new Set(batch.map((b) => b.partNumber)), done };
    this.signing = signing;
    // Registered before any caller awaits `done`, so it runs first: a caller that was not in this
    // batch then starts the next one.
    void done.then(() => {
      if (this.signing === signing) this.signing = null;
    });
    return signing;
  }

  /**
   * Runs one piece of work with the upload's retry rules; null when it did not succeed (the
   * reason is already acted on: failed, offline, started over, interrupted).
   */
  private async retrying<T>(gen: number, signal: AbortSignal, attempt: () => Promise<Step<T>>): Promise<T | null> {
    let retries = 0;
    for (;;) {
      if (gen !== this.gen || signal.aborted || this.closed || this.failure) return null;
      if (!this.transport.online()) {
        this.goOffline();
        return null;
      }
      let step: Step<T>;
      try {
        step = await attempt();
      } catch (error) {
        step = { fatal: asUploadError(error) };
      }
      if (gen !== this.gen || this.closed) return null;
      // A result that made it counts even when an interruption came at the same moment.
      if ('ok' in step) return step.ok;
      if ('aborted' in step || signal.aborted) return null;
      if ('again' in step) continue;
      if ('gone' in step) {
        this.restart(gen, step.gone);
        return null;
      }
      if ('fatal' in step) {
        this.fail(step.fatal);
        return null;
      }
      let error: UploadError;
      if ('network' in step) {
        // A network error while the browser says offline is the pause, not a failure.
        if (!this.transport.online()) {
          this.goOffline();
          return null;
        }
        error = step.network;
      } else {
        error = step.retry;
      }
      retries += 1;
      if (retries > STUDIO_UPLOAD_RETRIES) {
        this.fail(error);
        return null;
      }
      await sleep(retryDelayMs(retries), signal);
    }
  }

  private errorOf(env: Envelope<unknown>): UploadError {
    const code = env.code === '0' ? 'client' : env.code;
    return new UploadError(code, env.msg || codeMessage(code, currentLang()) || `The server answered ${code}`);
  }

  /** What a failed /api answer means for the upload. */
  private stepOf(env: Envelope<unknown>): Step<never> {
    const error = this.errorOf(env);
    if (env.code === NETWORK_ERROR) return { network: error };
    if (env.code === UPLOAD_GONE) return { gone: error };
    if (env.code === TOO_FREQUENT) return { retry: error };
    return { fatal: error };
  }

  /** The server lost the upload (or it expired): a new one, from zero. */
  private restart(gen: number, reason: UploadError): void {
    // Several parts hear it at once; the first starts over, the rest are already stale.
    if (gen !== this.gen) return;
    if (this.restarts >= MAX_RESTARTS) {
      this.fail(reason);
      return;
    }
    this.restarts += 1;
    const old = this.token;
    this.dropUpload();
    // Quietly: a gone upload answers 39001, an incomplete one frees its parts.
    if (old) void this.transport.abortUpload({ uploadToken: old.token }).catch(() => undefined);
    void this.take.update({ upload: undefined }).catch(() => undefined);
    this.emit();
    this.wake();
  }

  private dropUpload(): void {
    this.gen += 1;
    this.interrupt();
    this.token = null;
    this.stored.clear();
    this.urls.clear();
    this.signing = null;
    this.joinRequestId = null;
  }

  private fail(error: UploadError): void {
    if (this.failure || this.closed) return;
    this.failure = error;
    this.failedAtWholeParts = this.wholeParts();
    this.interrupt();
    this.setPhase('failed');
    this.wake();
  }

  /** Offline, from the work on the way: it stops, and the loop goes to wait for the network. */
  private goOffline(): void {
    this.markOffline();
    this.wake();
  }

  /** The loop's own check (waking itself would spin it). */
  private markOffline(): void {
    if (!this.offline) {
      this.offline = true;
      // The PUTs on the way cannot finish: drop them now (not counted) rather than wait for errors.
      this.interrupt();
    }
    if (!this.failure && !this.closed && this.phase !== 'done') this.setPhase('waiting-network');
  }

  private networkChanged(online: boolean): void {
    if (!online) {
      this.goOffline();
    } else if (this.offline) {
      this.offline = false;
      this.wake();
    }
  }

  private interrupt(): void {
    this.interrupts.abort();
    this.interrupts = new AbortController();
  }

  private nextWake(timeoutMs?: number): Promise<void> {
    if (this.woken) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = timeoutMs === undefined ? undefined : setTimeout(() => done(), timeoutMs);
      const done = (): void => {
        clearTimeout(timer);
        this.wakeLoop = null;
        resolve();
      };
      this.wakeLoop = done;
    });
  }

  private wake(): void {
    if (this.wakeLoop) this.wakeLoop();
    else this.woken = true;
  }

  private async saveParts(): Promise<void> {
    const token = this.token;
    if (!token) return;
    const parts = [...this.stored.values()].sort((a, b) => a.partNumber - b.partNumber);
    // Not saving it only costs sending those parts again after a reload.
    await this.take.update({ upload: { token: token.token, expiresAt: token.expiresAt, parts } }).catch(() => undefined);
  }

  private fresh(part: SignedPart): boolean {
    return part.expiresAt - Date.now() > RESIGN_BEFORE_MS;
  }

  private wholeParts(): number {
    return Math.floor(this.take.meta.bytes / STUDIO_PART_BYTES);
  }

  /** The highest part due: whole parts while recording, the short last one too after finish(). */
  private lastDuePart(): number {
    return this.final ? Math.ceil(this.take.meta.bytes / STUDIO_PART_BYTES) : this.wholeParts();
  }

  private isStored(n: number): boolean {
    const p = this.stored.get(n);
    return p !== undefined && p.size === studioPartSize(n, this.take.meta.bytes);
  }

  private hasDue(): boolean {
    const last = this.lastDuePart();
    for (let n = 1; n <= last; n++) if (!this.flights.has(n) && !this.isStored(n)) return true;
    return false;
  }

  private allStored(): boolean {
    const last = this.lastDuePart();
    for (let n = 1; n <= last; n++) if (!this.isStored(n)) return false;
    return last > 0;
  }

  private setPhase(phase: UploadPhase): void {
    this.phase = phase;
    this.emit();
  }

  private emit(): void {
    const listener = this.onProgress;
    if (!listener) return;
    let sentBytes = 0;
    for (const p of this.stored.values()) if (this.isStored(p.partNumber)) sentBytes += p.size;
    for (const f of this.flights.values()) sentBytes += f.sent;
    const progress: UploadProgress = { phase: this.phase, sentBytes, totalBytes: this.take.meta.bytes };
    if (this.phase === 'failed' && this.failure) {
      progress.error = this.failure.message;
      progress.code = this.failure.code;
    }
    const key = `${progress.phase}|${sentBytes}|${progress.totalBytes}|${progress.code ?? ''}`;
    if (key === this.lastProgress) return;
    this.lastProgress = key;
    listener(progress);
  }
}

/**
 * The upload of one take. The take's meta.upload (from an earlier page) is picked up: its stored
 * parts are not sent again unless that upload has expired or the server lost it.
 */
export function createUpload(take: Take, transport: UploadTransport = browserTransport()): TakeUpload {
  return new Upload(take, transport);
}
