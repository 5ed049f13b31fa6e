/**
 * The upload's outcomes and retry rules (ADR 086): why it failed (UploadError), what one try came
 * to (Step) and what a refused /api answer means, the wait before each retry, and which stored
 * parts of an earlier page can stand.
 */
import type { Envelope } from '#core/contracts/api.ts';
import { STUDIO_RETRY_DELAYS_MS } from '#core/contracts/studio.ts';
import { NETWORK_ERROR } from '#app/lib/api.ts';
import { currentLang } from '#app/lib/lang.ts';
import { codeMessage } from '#app/lib/messages.ts';

export const UPLOAD_GONE = '39001';
export const TOO_LARGE = '39002';
export const UPLOAD_INCOMPLETE = '39005';
export const TOO_FREQUENT = '39006';

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

export function asUploadError(error: unknown): UploadError {
  if (error instanceof UploadError) return error;
  return new UploadError('client', error instanceof Error ? error.message : String(error));
}

/** The outcome of one try, as the retry loop (Upload.retrying) acts on it. */
export type Step<T> =
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

export function sleep(ms: number, signal: AbortSignal): Promise<void> {
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

export function errorOf(env: Envelope<unknown>): UploadError {
  const code = env.code === '0' ? 'client' : env.code;
  return new UploadError(code, env.msg || codeMessage(code, currentLang()) || `The server answered ${code}`);
}

/** What a failed /api answer means for the upload. */
export function stepOf(env: Envelope<unknown>): Step<never> {
  const error = errorOf(env);
  if (env.code === NETWORK_ERROR) return { network: error };
  if (env.code === UPLOAD_GONE) return { gone: error };
  if (env.code === TOO_FREQUENT) return { retry: error };
  return { fatal: error };
}

/** The upload loop's wake-up: wake() ends the wait now, or the next one at once if none is on. */
export class Wakeup {
  #waiting: (() => void) | null = null;
  #woken = false;

  /** Resolves at the next wake(), or after timeoutMs when given. */
  next(timeoutMs?: number): Promise<void> {
    if (this.#woken) {
      this.#woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = timeoutMs === undefined ? undefined : setTimeout(() => done(), timeoutMs);
      const done = (): void => {
        clearTimeout(timer);
        this.#waiting = null;
        resolve();
      };
      this.#waiting = done;
    });
  }

  wake(): void {
    if (this.#waiting) this.#waiting();
    else this.#woken = true;
  }
}
