/**
 * The browser's typed client for the /api contract (core/contracts/api.ts). The session travels
 * as the httpOnly cookie; every call also carries the spec's headers and the current language.
 */
import { type ApiData, type ApiName, type ApiRequest, type Envelope, REQUEST_ID_PARAM } from '#core/contracts/api.ts';
import { currentLang } from './lang.ts';
import { networkMessage } from './messages.ts';
import { raiseNetworkAlert, type NetworkTextKey } from './network-alert.ts';

/** The code api() answers with when no envelope came back (timeout, network error, HTTP > 404, bad JSON). */
export const NETWORK_ERROR = 'network';

/** How long one attempt may take before it is abandoned (ADR 102); the server's API_TIMEOUT_MS replaces it at start. */
export const DEFAULT_API_TIMEOUT_MS = 15_000;
let timeoutMs = DEFAULT_API_TIMEOUT_MS;

/** The root applies the server's setting (its loader data) before any page calls. */
export function configureApi(settings: { timeoutMs: number }): void {
  if (Number.isFinite(settings.timeoutMs) && settings.timeoutMs > 0) timeoutMs = settings.timeoutMs;
}

export function apiTimeoutMs(): number {
  return timeoutMs;
}

/** Calls that never raise the 'network exception' message (docs/product/01-account-and-lobby.md §8: not for log calls). */
const SILENT_CALLS: ReadonlySet<ApiName> = new Set<ApiName>(['addLog']);

/** The retry of the action a request id belongs to (lock.ts registers the running task by its id). */
type RetryLookup = (requestId: string) => (() => unknown) | undefined;
let actionRetry: RetryLookup = () => undefined;
export function setActionRetryLookup(lookup: RetryLookup): void {
  actionRetry = lookup;
}

export interface ApiOptions {
  /** Reuse one id for every retry of one user action, so the server does the work once. */
  requestId?: string;
  /** Retries after a network failure, with the same requestId. */
  retries?: number;
  /** Do not raise the 'network exception' message; the caller shows its own (background reads). */
  quietNetworkError?: boolean;
  /** The message's sentence about what failed ('classroom creation failed, please retry'). */
  networkText?: NetworkTextKey;
  /**
   * What RETRY does. Default: re-run the action this request id belongs to (useRequestLock), else
   * re-send this same call with the same request id.
   */
  onRetry?: () => unknown;
  signal?: AbortSignal;
}

/** An attempt abandoned after apiTimeoutMs(). */
class TimeoutError extends Error {}

export function newRequestId(): string {
  return crypto.randomUUID();
}

type Listener = (code: string) => void;
const sessionEndedListeners = new Set<Listener>();

/** Called when the server says the session is gone (6, 21001): the root sends the user to /login. */
export function onSessionEnded(listener: Listener): () => void {
  sessionEndedListeners.add(listener);
  return () => sessionEndedListeners.delete(listener);
}

async function once<N extends ApiName>(
  name: N,
  body: ApiRequest<N>,
  requestId: string,
  signal?: AbortSignal,
): Promise<Envelope<ApiData<N>>> {
  const lang = currentLang();
  const timer = new AbortController();
  const timeout = setTimeout(() => timer.abort(new TimeoutError(`no answer in ${timeoutMs} ms`)), timeoutMs);
  try {
    return await send(name, body, requestId, lang, signal ? AbortSignal.any([signal, timer.signal]) : timer.signal);
  } catch (error) {
    throw timer.signal.aborted ? (timer.signal.reason as Error) : error;
  } finally {
    clearTimeout(timeout);
  }
}

async function send<N extends ApiName>(
  name: N,
  body: ApiRequest<N>,
  requestId: string,
  lang: string,
  signal: AbortSignal,
): Promise<Envelope<ApiData<N>>> {
  const url = `/api/${name}?${REQUEST_ID_PARAM}=${encodeURIComponent(requestId)}&ua=web`;
  const res = await fetch(url, {
    method: 'POST',
    credentials: 'same-origin',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json',
      lang,
      platform: '4',
      version: '2.0.0',
      channel: 'web',
      requestTime: String(Date.now()),
    },
    body: JSON.stringify(body),
    signal,
  });
  if (res.status > 404) throw new Error(`HTTP ${res.status}`);
  const answer: unknown = await res.json();
  if (!isEnvelopeOf(name, answer)) throw new Error('not an envelope');
  // Some of the spec's clients saw numeric 0; the contract is the string.
  return { ...answer, code: String(answer.code) };
}

/**
 * The answer of call N: an envelope whose data is ApiData<N>. Only the envelope's shape is checked
 * here; its data is what the server's handler for N is compile-checked to answer (server/web/api.ts
 * types each handler by name), so the name is what types it.
 */
function isEnvelopeOf<N extends ApiName>(_name: N, v: unknown): v is Envelope<ApiData<N>> {
  if (typeof v !== 'object' || v === null || !('code' in v) || !('data' in v)) return false;
  return (typeof v.code === 'string' || typeof v.code === 'number') && (!('msg' in v) || typeof v.msg === 'string');
}

export async function api<N extends ApiName>(name: N, body: ApiRequest<N>, options: ApiOptions = {}): Promise<Envelope<ApiData<N>>> {
  const requestId = options.requestId ?? newRequestId();
  let attempts = (options.retries ?? 0) + 1;
  for (;;) {
    try {
      const envelope = await once(name, body, requestId, options.signal);
      if (envelope.code === '6' || envelope.code === '21001') {
        for (const l of sessionEndedListeners) l(envelope.code);
      }
      return envelope;
    } catch (error) {
      attempts -= 1;
      if (options.signal?.aborted) return { code: NETWORK_ERROR, msg: '', data: null };
      // A quick failure (connection refused, reset) is tried again at once; a timeout already cost the person its wait.
      if (attempts > 0 && !(error instanceof TimeoutError)) continue;
      const msg = networkMessage(currentLang());
      if (!options.quietNetworkError && !SILENT_CALLS.has(name)) {
        const retry = options.onRetry ?? actionRetry(requestId) ?? (() => api(name, body, { ...options, requestId, retries: 0 }));
        raiseNetworkAlert(`${name}:${requestId}`, retry, options.networkText ?? null);
      }
      return { code: NETWORK_ERROR, msg, data: null };
    }
  }
}

export function isOk<T>(envelope: Envelope<T>): envelope is Envelope<T> & { data: T } {
  return envelope.code === '0' && envelope.data !== null;
}
