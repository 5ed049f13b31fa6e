/**
 * The 'network exception' message of docs/product/01-account-and-lobby.md §8 with its RETRY
 * (ADR 102): a store outside React, so the API client can raise it. Failures that come together
 * share one message; RETRY runs every pending retry once (each re-sends its call, or re-runs the
 * action that made it, with the same request id) and closes the message; a retry that fails
 * again raises it again.
 */
/** The callers' sentences about what did not happen (translation keys: the message follows a language switch). */
export type NetworkTextKey = 'create.failedRetry' | 'login.codeSendFailed' | 'payment.createFailed';

export interface NetworkAlert {
  /** Changes with every raise, so a screen reader hears a repeated failure. */
  id: number;
  /** The caller's sentence about what did not happen ('classroom creation failed, please retry'), if any. */
  text: NetworkTextKey | null;
}

type Retry = () => unknown;
type Listener = () => void;

let current: NetworkAlert | null = null;
let retries = new Map<string, Retry>();
let nextId = 1;
let muted = false;
const listeners = new Set<Listener>();

/** Observers see no messages (docs/product/02-live-classroom.md §5): their room mutes this for its lifetime. */
export function muteNetworkAlert(on: boolean): void {
  muted = on;
  if (on) dismissNetworkAlert();
}

function emit(): void {
  for (const l of listeners) l();
}

/** Raised by api() when a call timed out, met a network error or an HTTP status above 404. */
export function raiseNetworkAlert(key: string, retry: Retry, text: NetworkTextKey | null = null): void {
  if (typeof window === 'undefined' || muted) return;
  retries.set(key, retry);
  current = { id: nextId++, text: text ?? current?.text ?? null };
  emit();
}

export function dismissNetworkAlert(): void {
  if (!current) return;
  current = null;
  retries = new Map();
  emit();
}

/** RETRY: closes the message and runs each pending retry once. */
export function retryNetworkAlert(): void {
  const pending = [...retries.values()];
  dismissNetworkAlert();
  for (const retry of pending) void retry();
}

export function subscribeNetworkAlert(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function getNetworkAlert(): NetworkAlert | null {
  return current;
}

export function getServerNetworkAlert(): NetworkAlert | null {
  return null;
}
