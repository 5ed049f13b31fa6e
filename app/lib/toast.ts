/**
 * A tiny toast store outside React, so non-React code (the API client) can raise a toast.
 * The <Toaster> component subscribes with useSyncExternalStore.
 */
export type ToastKind = 'info' | 'success' | 'error';

export interface Toast {
  id: number;
  text: string;
  kind: ToastKind;
  /** When it was raised (ms epoch): a route change dismisses toasts older than NAVIGATION_GRACE_MS. */
  at: number;
}

export const TOAST_MS = 5000;

type Listener = () => void;
let toasts: readonly Toast[] = [];
let nextId = 1;
const listeners = new Set<Listener>();
const timers = new Map<number, ReturnType<typeof setTimeout>>();

function emit(): void {
  for (const l of listeners) l();
}

export function dismissToast(id: number): void {
  const timer = timers.get(id);
  if (timer) clearTimeout(timer);
  timers.delete(id);
  toasts = toasts.filter((t) => t.id !== id);
  emit();
}

let muted = false;

/** Observers see no toasts (docs/product/02-live-classroom.md §5); the classroom mutes them for its lifetime. */
export function muteToasts(on: boolean): void {
  muted = on;
}

export function showToast(text: string, kind: ToastKind = 'info', ms: number = TOAST_MS): number {
  if (typeof window === 'undefined') return 0; // toasts only exist in the browser
  if (muted) return 0;
  // The same text twice in a row (double click) shows once, with its timer restarted.
  const same = toasts.find((t) => t.text === text);
  if (same) dismissToast(same.id);
  const id = nextId++;
  toasts = [...toasts.slice(-3), { id, text, kind, at: Date.now() }];
  timers.set(
    id,
    setTimeout(() => dismissToast(id), ms),
  );
  emit();
  return id;
}

export const toast = {
  info: (text: string) => showToast(text, 'info'),
  success: (text: string) => showToast(text, 'success'),
  error: (text: string) => showToast(text, 'error'),
};

/**
 * The toasts one page raised about itself, to be dismissed when that page is done (ADR 098): the
 * sign-in page's 'Code sent' must not follow the teacher into the lobby when the sign-in comes
 * within NAVIGATION_GRACE_MS of it (an SMS code filled in by the phone), which the route-change
 * rule below would let through.
 */
export interface ToastScope {
  info(text: string): number;
  success(text: string): number;
  error(text: string): number;
  /** Dismisses every toast of this scope still shown. */
  dismissAll(): void;
}

export function toastScope(): ToastScope {
  const ids = new Set<number>();
  const raise = (kind: ToastKind) => (text: string) => {
    const id = showToast(text, kind);
    if (id) ids.add(id);
    return id;
  };
  return {
    info: raise('info'),
    success: raise('success'),
    error: raise('error'),
    dismissAll() {
      for (const id of ids) dismissToast(id);
      ids.clear();
    },
  };
}

/**
 * A toast raised this recently is about the navigation that follows it ('You have been removed',
 * then the move to the next page) and survives it; anything older belongs to the page being left.
 */
export const NAVIGATION_GRACE_MS = 1500;

/** On a route change (ADR 090): toasts of the page left behind go, e.g. 'Code sent' on the way into the lobby. */
export function dismissStaleToasts(now: number = Date.now()): void {
  for (const item of toasts) if (now - item.at > NAVIGATION_GRACE_MS) dismissToast(item.id);
}

export function subscribeToasts(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function getToasts(): readonly Toast[] {
  return toasts;
}

const EMPTY: readonly Toast[] = [];
export function getServerToasts(): readonly Toast[] {
  return EMPTY;
}
