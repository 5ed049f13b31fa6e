/**
 * The browser's event log (docs/product/01-account-and-lobby.md §7, 02-live-classroom.md §7;
 * ADR 102): events are queued, sent in batches of one room to `/api/addLog` every few seconds or
 * once BATCH_EVENTS are waiting, and the rest go with `navigator.sendBeacon` to `/log` when the
 * page is hidden or left. The client bounds itself too: at most SEND_PER_MINUTE events a minute,
 * QUEUE_MAX waiting (newer ones are counted as dropped and the count is sent later), every text
 * cut to TEXT_MAX. Logging never shows anything to the person and never throws.
 */
import type { ChannelProblem } from '#core/channel/open.ts';
import { LOG_BATCH_MAX_EVENTS } from '#core/messaging/messaging.schema.ts';
import { api, NETWORK_ERROR } from './api.ts';
import { safeGet, safeSet } from './storage.ts';

export const FLUSH_MS = 4000;
export const BATCH_EVENTS = 10;
export const QUEUE_MAX = 100;
export const SEND_PER_MINUTE = 40;
export const TEXT_MAX = 500;
/** The spec's browser key of the device id. */
export const IMEI_KEY = 'iMei';

interface Queued {
  event: string;
  roomNumber: string;
  at: number;
  details: Record<string, unknown>;
}

let queue: Queued[] = [];
let dropped = 0;
let timer: ReturnType<typeof setTimeout> | null = null;
let sentAt: number[] = [];
let flushing = false;
let listening = false;

/** Plain values only, texts cut, at most 30 keys: what the server's schema for other events accepts. */
function clean(details: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(details).slice(0, 30)) {
    const k = key.slice(0, 40);
    if (typeof value === 'string') out[k] = value.slice(0, TEXT_MAX);
    else if (typeof value === 'number') out[k] = Number.isFinite(value) ? value : null;
    else if (typeof value === 'boolean' || value === null) out[k] = value;
    else if (value instanceof Error) out[k] = value.message.slice(0, TEXT_MAX);
    else if (value !== undefined) out[k] = (JSON.stringify(value) ?? '').slice(0, TEXT_MAX);
  }
  return out;
}

/** Queue one event of a room ('' outside one). Never throws, never waits. */
export function logClientEvent(event: string, roomNumber: string, details?: Record<string, unknown>): void {
  if (typeof window === 'undefined') return;
  try {
    if (queue.length >= QUEUE_MAX) {
      dropped += 1;
      return;
    }
    queue.push({ event, roomNumber: /^\d{1,10}$/.test(roomNumber) ? roomNumber : '', at: Date.now(), details: clean(details ?? {}) });
    listen();
    if (queue.length >= BATCH_EVENTS) void flushClientLog();
    else timer ??= setTimeout(() => void flushClientLog(), FLUSH_MS);
  } catch {
    // logging never bothers a person
  }
}

/**
 * The log of a socket channel (core/channel/open.ts): a message from the server that broke its
 * schema is dropped there and told here as `channel_bad_message` (ADR 108), and on the console for
 * whoever is looking.
 */
export function channelLog(roomNumber = ''): (problem: ChannelProblem) => void {
  return (problem) => {
    if (typeof console !== 'undefined') console.warn(`${problem.channel} ${problem.kind} ${problem.name} dropped: ${problem.issue}`);
    logClientEvent('channel_bad_message', roomNumber, { ...problem });
  };
}

/** Events of one room, oldest first, as many as the minute's budget and one batch allow. */
function takeBatch(now: number): Queued[] {
  sentAt = sentAt.filter((t) => now - t < 60_000);
  const budget = Math.min(LOG_BATCH_MAX_EVENTS, SEND_PER_MINUTE - sentAt.length);
  if (budget <= 0 || queue.length === 0) return [];
  const room = queue[0]!.roomNumber;
  const batch: Queued[] = [];
  queue = queue.filter((e) => {
    if (batch.length < budget && e.roomNumber === room) {
      batch.push(e);
      return false;
    }
    return true;
  });
  if (dropped > 0 && batch.length < budget) {
    batch.push({ event: 'log_dropped', roomNumber: room, at: now, details: { count: dropped } });
    dropped = 0;
  }
  for (let i = 0; i < batch.length; i++) sentAt.push(now);
  return batch;
}

function body(batch: Queued[]) {
  return { roomNumber: batch[0]!.roomNumber, events: batch.map((e) => ({ event: e.event, at: e.at, details: e.details })) };
}

/** Sends what is waiting now (one batch per room); the rest waits for the next minute's budget. */
export async function flushClientLog(): Promise<void> {
  if (timer) clearTimeout(timer);
  timer = null;
  if (flushing) return;
  flushing = true;
  try {
    for (let batch = takeBatch(Date.now()); batch.length > 0; batch = takeBatch(Date.now())) {
      const answer = await api('addLog', body(batch), { quietNetworkError: true });
      if (answer.code === NETWORK_ERROR) {
        // Offline (a socket drop is logged just then): the batch waits for the network, first in line.
        queue = [...batch.filter((e) => e.event !== 'log_dropped'), ...queue].slice(0, QUEUE_MAX);
        sentAt = sentAt.slice(0, Math.max(0, sentAt.length - batch.length));
        break;
      }
    }
  } catch {
    // dropped: logging never bothers a person
  } finally {
    flushing = false;
    if (queue.length > 0) timer ??= setTimeout(() => void flushClientLog(), FLUSH_MS);
  }
}

/** The page is going away: what is left leaves by beacon, which outlives the page. */
export function beaconClientLog(): void {
  if (typeof navigator.sendBeacon !== 'function') return;
  for (let batch = takeBatch(Date.now()); batch.length > 0; batch = takeBatch(Date.now())) {
    const sent = navigator.sendBeacon('/log', new Blob([JSON.stringify(body(batch))], { type: 'text/plain' }));
    if (!sent) break;
  }
}

function listen(): void {
  if (listening) return;
  listening = true;
  window.addEventListener('pagehide', beaconClientLog);
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'hidden') beaconClientLog();
  });
}

/** This browser's device id (the spec's `iMei`), made once and kept. */
export function deviceId(): string {
  let id = safeGet('local', IMEI_KEY);
  if (!id) {
    id = crypto.randomUUID();
    safeSet('local', IMEI_KEY, id);
  }
  return id;
}

/** Browser and OS names with versions, read from the user agent (good enough for support). */
export function describeAgent(ua: string): { browser: string; os: string } {
  const pick = (re: RegExp) => re.exec(ua)?.[1];
  const browser =
    (pick(/Edg\/([\d.]+)/) && `Edge ${pick(/Edg\/([\d.]+)/)}`) ||
    (pick(/MicroMessenger\/([\d.]+)/) && `WeChat ${pick(/MicroMessenger\/([\d.]+)/)}`) ||
    (pick(/Firefox\/([\d.]+)/) && `Firefox ${pick(/Firefox\/([\d.]+)/)}`) ||
    (pick(/(?:Chrome|CriOS)\/([\d.]+)/) && `Chrome ${pick(/(?:Chrome|CriOS)\/([\d.]+)/)}`) ||
    (pick(/Version\/([\d.]+).*Safari/) && `Safari ${pick(/Version\/([\d.]+).*Safari/)}`) ||
    'unknown';
  const os =
    (pick(/Android ([\d.]+)/) && `Android ${pick(/Android ([\d.]+)/)}`) ||
    (pick(/(?:iPhone|CPU) OS ([\d_]+)/) && `iOS ${pick(/(?:iPhone|CPU) OS ([\d_]+)/)!.replaceAll('_', '.')}`) ||
    (pick(/Windows NT ([\d.]+)/) && `Windows NT ${pick(/Windows NT ([\d.]+)/)}`) ||
    (pick(/Mac OS X ([\d_.]+)/) && `macOS ${pick(/Mac OS X ([\d_.]+)/)!.replaceAll('_', '.')}`) ||
    (/CrOS/.test(ua) && 'ChromeOS') ||
    (/Linux/.test(ua) && 'Linux') ||
    'unknown';
  return { browser: browser.slice(0, 80), os: os.slice(0, 80) };
}

/** The spec's `system_info` at join: browser, OS, screen, language and the device id. */
export function logSystemInfo(roomNumber: string, role: string): void {
  if (typeof window === 'undefined') return;
  const { browser, os } = describeAgent(navigator.userAgent);
  logClientEvent('system_info', roomNumber, {
    browser,
    os,
    screen: `${window.screen.width}x${window.screen.height}@${window.devicePixelRatio}`,
    language: navigator.language,
    iMei: deviceId(),
    phone: window.matchMedia('(pointer: coarse)').matches,
    userAgent: navigator.userAgent.slice(0, 400),
    role,
  });
}

/** For tests: forget the queue and the budget. */
export function resetClientLog(): void {
  queue = [];
  dropped = 0;
  sentAt = [];
  if (timer) clearTimeout(timer);
  timer = null;
}

type DeviceResult = 'ok' | 'off' | 'pending' | 'missing' | 'denied' | 'busy' | 'error';

/** One device as the pre-join saw it at Join: switched off, running, still opening, or its problem. */
export function deviceResult(d: { wanted: boolean; on: boolean; stream: MediaStream | null; problem: string | null }): DeviceResult {
  if (!d.wanted || !d.on) return 'off';
  if (d.problem === 'noDevices' || d.problem === 'noWebcam' || d.problem === 'noMicrophone' || d.problem === 'unplugged') return 'missing';
  if (d.problem === 'denied') return 'denied';
  if (d.problem === 'occupied') return 'busy';
  if (d.problem) return 'error';
  return d.stream ? 'ok' : 'pending';
}

type SeenDevice = { wanted: boolean; on: boolean; stream: MediaStream | null; problem: string | null };

/** The spec's `check_devices`, from the pre-join's Join (the room's one device step, ADR 089). */
export function logDeviceCheck(roomNumber: string, camera: SeenDevice, microphone: SeenDevice): void {
  const label = (d: SeenDevice, kind: 'video' | 'audio') =>
    d.stream
      ?.getTracks()
      .find((t) => t.kind === kind)
      ?.label.slice(0, 120);
  const cameraLabel = label(camera, 'video');
  const microphoneLabel = label(microphone, 'audio');
  logClientEvent('check_devices', roomNumber, {
    source: 'prejoin',
    camera: deviceResult(camera),
    microphone: deviceResult(microphone),
    ...(cameraLabel ? { cameraLabel } : {}),
    ...(microphoneLabel ? { microphoneLabel } : {}),
  });
}

/** Uncaught errors and unhandled rejections while in a room (`client_error`); returns the unsubscribe. */
export function logRoomErrors(roomNumber: string): () => void {
  let count = 0;
  const report = (details: { kind: 'error' | 'unhandledrejection'; message: string; source?: string; line?: number }) => {
    // A loop of the same error must not fill the queue: ten a page visit are enough to see it.
    if (++count > 10) return;
    logClientEvent('client_error', roomNumber, details);
  };
  const onError = (e: ErrorEvent) =>
    report({
      kind: 'error',
      message: String(e.message || e.error || 'error').slice(0, TEXT_MAX),
      ...(e.filename ? { source: e.filename.slice(0, 300) } : {}),
      ...(e.lineno ? { line: e.lineno } : {}),
    });
  const onRejection = (e: PromiseRejectionEvent) => {
    const reason: unknown = e.reason;
    report({ kind: 'unhandledrejection', message: String(reason instanceof Error ? reason.message : reason).slice(0, TEXT_MAX) });
  };
  window.addEventListener('error', onError);
  window.addEventListener('unhandledrejection', onRejection);
  return () => {
    window.removeEventListener('error', onError);
    window.removeEventListener('unhandledrejection', onRejection);
  };
}

/** One decimal, as the spec reports the minutes on leaving. */
export function toMinutes(ms: number): number {
  return Math.round(ms / 6000) / 10;
}
