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
 * fake one (upload.test.ts). Its parts: the transport (upload-transport.ts), the outcomes and retry
 * rules (upload-steps.ts), the signed addresses (upload-signing.ts).
 */
import { STUDIO_PARALLEL_PARTS, STUDIO_PART_BYTES, STUDIO_UPLOAD_RETRIES, studioPartSize } from '#core/contracts/studio.ts';
import type { ApiData } from '#core/contracts/api.ts';
import { isOk, NETWORK_ERROR, newRequestId } from '#app/lib/api.ts';
import { currentLang } from '#app/lib/lang.ts';
import { codeMessage } from '#app/lib/messages.ts';
import { PartLedger } from './upload-parts.ts';
import { PartSigner } from './upload-signing.ts';
import {
  asUploadError,
  errorOf,
  retryDelayMs,
  sleep,
  Wakeup,
  stepOf,
  TOO_LARGE,
  UPLOAD_GONE,
  UPLOAD_INCOMPLETE,
  UploadError,
  type Step,
} from './upload-steps.ts';
import { browserTransport, type PutResult, type UploadTransport } from './upload-transport.ts';
import type { StoredPart, Take, TakeUpload, UploadPhase, UploadProgress } from './types.ts';

/** While offline, navigator.onLine is looked at this often too ('online' events do get lost). */
export const NETWORK_POLL_MS = 1000;
/** New uploads opened in a row without a part stored before giving up (a server that keeps losing them). */
const MAX_RESTARTS = 2;

export { RESIGN_BEFORE_MS } from './upload-signing.ts';
export { retryDelayMs, UploadError } from './upload-steps.ts';
export { browserTransport, type PartPut, type PutResult, type UploadTransport } from './upload-transport.ts';

interface Flight {
  /** Bytes of this part sent by the PUT on the way. */
  sent: number;
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
  /** The parts stored and due (upload-parts.ts). */
  private readonly parts: PartLedger;
  /** Signed part addresses (upload-signing.ts). */
  private readonly signer: PartSigner;
  private readonly flights = new Map<number, Flight>();
  /** Bumped when the upload starts over or is dropped: work of an older generation is thrown away. */
  private gen = 0;
  /** Aborted (and replaced) to stop every PUT and backoff on the way: offline, failure, start over. */
  private interrupts = new AbortController();
  private offline = false;
  private closed = false;
  private looping = false;
  private loop: Promise<void> = Promise.resolve();
  /** What the loop waits on between rounds. */
  private readonly wakeup = new Wakeup();
  private finishing: Promise<string> | null = null;
  private restarts = 0;
  /** A join answered 'gone' or 'incomplete' in this finish and the take was sent again: a second time fails. */
  private joinRestarted = false;
  private joinRequestId: string | null = null;
  private lastProgress = '';

  constructor(take: Take, transport: UploadTransport) {
    this.take = take;
    this.transport = transport;
    this.parts = new PartLedger(() => this.take.meta.bytes);
    this.signer = new PartSigner({
      transport,
      token: () => this.token,
      gen: () => this.gen,
      bytes: () => this.take.meta.bytes,
      lastDuePart: () => this.parts.lastDuePart(),
      isStored: (n) => this.parts.isStored(n),
    });
    const upload = take.meta.upload;
    if (upload) {
      this.token = { token: upload.token, expiresAt: upload.expiresAt };
      this.parts.restore(upload.parts);
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
      if (this.parts.final || this.parts.wholeParts() <= this.failedAtWholeParts) {
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
    this.wakeup.wake();
    await this.take.update({ upload: undefined }).catch(() => undefined);
    if (token) await this.transport.abortUpload({ uploadToken: token }).catch(() => undefined);
  }

  private async runFinish(fileName: string): Promise<string> {
    if (this.closed) throw new UploadError('aborted', 'The upload was dropped');
    if (this.take.meta.bytes === 0) throw new UploadError('empty', 'The take is empty');
    this.parts.final = true;
    this.failure = null;
    this.restarts = 0;
    this.joinRestarted = false;
    this.emit();
    for (;;) {
      await this.ensureLoop();
      if (this.closed) throw new UploadError('aborted', 'The upload was dropped');
      if (this.failure) throw this.failure;
      // The loop ends with every part stored; anything else (a start over just now) goes round again.
      if (!this.token || !this.parts.allStored()) continue;
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
    const count = this.parts.lastDuePart();
    const parts: { partNumber: number; etag: string }[] = [];
    for (let n = 1; n <= count; n++) {
      const p = this.parts.get(n);
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
        if (this.joinRestarted) return { fatal: errorOf(env) };
        this.joinRestarted = true;
        return { gone: errorOf(env) };
      }
      return stepOf(env);
    });
  }

  private ensureLoop(): Promise<void> {
    if (this.looping) {
      this.wakeup.wake();
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
          await this.wakeup.next(NETWORK_POLL_MS);
          continue;
        }
        // After finish() an upload is needed even with every part stored: the join goes to one.
        if (this.flights.size === 0 && !this.parts.hasDue(this.flights) && (this.token || !this.parts.final)) {
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
        if (this.flights.size > 0) await this.wakeup.next();
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
      return isOk(env) ? { ok: env.data } : stepOf(env);
    });
    if (!opened || gen !== this.gen || this.closed) return;
    if (opened.partBytes !== STUDIO_PART_BYTES) {
      this.fail(new UploadError('client', `The server cuts parts of ${opened.partBytes} bytes, this page ${STUDIO_PART_BYTES}`));
      return;
    }
    this.token = { token: opened.uploadToken, expiresAt: opened.expiresAt };
    this.maxBytes = opened.maxBytes;
    this.parts.clear();
    this.signer.forgetAll();
    this.joinRequestId = null;
    await this.saveParts();
  }

  private launchDue(): void {
    const bytes = this.take.meta.bytes;
    if (this.maxBytes !== null && bytes > this.maxBytes) {
      this.fail(new UploadError(TOO_LARGE, codeMessage(TOO_LARGE, currentLang()) ?? 'The recording is too large'));
      return;
    }
    const last = this.parts.lastDuePart();
    for (let n = 1; n <= last && this.flights.size < STUDIO_PARALLEL_PARTS; n++) {
      if (!this.flights.has(n) && !this.parts.isStored(n)) this.launch(n);
    }
  }

  private launch(n: number): void {
    const flight: Flight = { sent: 0 };
    this.flights.set(n, flight);
    const settle = (): void => {
      if (this.flights.get(n) === flight) this.flights.delete(n);
      this.emit();
      this.wakeup.wake();
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
      const url = await this.signer.signedUrl(n, size, gen);
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
          this.signer.forget(n);
          if (resigned) return { retry: error };
          resigned = true;
          return { again: true };
        }
      }
    });
    if (!part || gen !== this.gen) return;
    this.parts.set(n, part);
    this.restarts = 0;
    this.emit();
    await this.saveParts();
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
    this.wakeup.wake();
  }

  private dropUpload(): void {
    this.gen += 1;
    this.interrupt();
    this.token = null;
    this.parts.clear();
    this.signer.clear();
    this.joinRequestId = null;
  }

  private fail(error: UploadError): void {
    if (this.failure || this.closed) return;
    this.failure = error;
    this.failedAtWholeParts = this.parts.wholeParts();
    this.interrupt();
    this.setPhase('failed');
    this.wakeup.wake();
  }

  /** Offline, from the work on the way: it stops, and the loop goes to wait for the network. */
  private goOffline(): void {
    this.markOffline();
    this.wakeup.wake();
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
      this.wakeup.wake();
    }
  }

  private interrupt(): void {
    this.interrupts.abort();
    this.interrupts = new AbortController();
  }

  private async saveParts(): Promise<void> {
    const token = this.token;
    if (!token) return;
    const parts = this.parts.list();
    // Not saving it only costs sending those parts again after a reload.
    await this.take.update({ upload: { token: token.token, expiresAt: token.expiresAt, parts } }).catch(() => undefined);
  }

  private setPhase(phase: UploadPhase): void {
    this.phase = phase;
    this.emit();
  }

  private emit(): void {
    const listener = this.onProgress;
    if (!listener) return;
    let sentBytes = this.parts.storedBytes();
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
