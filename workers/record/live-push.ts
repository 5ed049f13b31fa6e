/**
 * A class pushed live to a video platform (issue 14, ADR 084): the encoder's H.264 + AAC, joined at
 * a keyframe from its MPEG-TS tap, copied into FLV over RTMP(S) by an ffmpeg of its own. That
 * ffmpeg can fail, stall or be refused without touching the encoder: the recording of the same
 * class goes on whatever happens here, and the reverse.
 *
 * States: 'connecting' (first attempt), 'live' (the platform took the stream and bytes flow),
 * 'reconnecting' (the endpoint was lost; tried again after 1 s, then every 2 s for as long as
 * `retryForMs` since the loss), 'failed' (the key was refused, or the retries ran
 * out), 'ended'. A publish refused after the connection was made (a wrong key: the platform says
 * no) fails at once; a connection that cannot be made is a lost endpoint.
 *
 * The URL holds the stream key, a secret: it is never logged and never leaves this class
 * (`redactedUrl` is what may be shown).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { Logger } from './types.ts';
import type { TsTap } from './ts-tap.ts';

export type LiveState = 'connecting' | 'live' | 'reconnecting' | 'failed' | 'ended';

export interface LiveStatus {
  state: LiveState;
  /** Output bitrate ffmpeg reports (kbit/s), 0 while not live. */
  kbps: number;
  /** Why it failed: the platform refused the stream, or it could not be reached for the whole retry time. */
  reason?: 'refused' | 'unreachable';
}

export interface LivePushOptions {
  /** rtmp:// or rtmps:// with the stream key: never logged. */
  url: string;
  tap: TsTap;
  logger: Logger;
  onStatus: (s: LiveStatus) => void;
  /** How long a lost endpoint is tried again before the push fails (default 10 minutes). */
  retryForMs?: number;
}

/**
 * Waits between attempts after a loss: 1 s, then 2 s and staying there, so a platform that comes
 * back is streamed to again within about 3 s however long it was away (an attempt is an ffmpeg
 * start and an RTMP handshake: cheap; the tap gives the new push the last keyframe at once).
 */
export const RETRY_DELAYS_MS = [1000, 2000];
const DEFAULT_RETRY_FOR_MS = 10 * 60_000;
/** An ffmpeg asked to end that has not exited by then is killed. */
const END_GRACE_MS = 3000;
/** No progress line from ffmpeg for this long (from its start): the connection is stuck, start again. */
const STALL_MS = 10_000;

/** Words of ffmpeg's log that say the endpoint could not be reached (not a refusal). */
const UNREACHABLE =
  /Connection refused|Connection timed out|Network is unreachable|No route to host|Cannot assign requested address|Name or service not known|Temporary failure in name resolution|Connection reset by peer|Broken pipe|End of file/i;

/** The URL without its key, for logs and the teacher's screen: scheme, host and application. */
export function redactedUrl(url: string): string {
  try {
    const u = new URL(url);
    const app = u.pathname.split('/').filter(Boolean)[0] ?? '';
    return `${u.protocol}//${u.host}/${app}${app ? '/' : ''}***`;
  } catch {
    return '(invalid url)';
  }
}

export function pushArgs(url: string): string[] {
  return [
    ...['-hide_banner', '-nostdin', '-loglevel', 'warning'],
    ...['-progress', 'pipe:1', '-stats_period', '0.5'],
    ...['-f', 'mpegts', '-analyzeduration', '1000000', '-i', 'pipe:0'],
    ...['-map', '0:v:0', '-map', '0:a:0', '-c', 'copy', '-bsf:a', 'aac_adtstoasc'],
    ...['-f', 'flv', '-flvflags', 'no_duration_filesize', url],
  ];
}

export class LivePush {
  readonly #o: LivePushOptions;
  #child: ChildProcess | null = null;
  #leave: (() => void) | null = null;
  #status: LiveStatus = { state: 'connecting', kbps: 0 };
  #lostAt = 0;
  #attempt = 0;
  #timer: NodeJS.Timeout | null = null;
  #stall: NodeJS.Timeout | null = null;
  #ended = false;
  /** Attempts made (diagnostics and tests). */
  attempts = 0;

  constructor(o: LivePushOptions) {
    this.#o = o;
    this.#start();
  }

  get status(): LiveStatus {
    return this.#status;
  }

  #set(s: LiveStatus): void {
    const changed = s.state !== this.#status.state || s.kbps !== this.#status.kbps || s.reason !== this.#status.reason;
    this.#status = s;
    if (changed) this.#o.onStatus(s);
  }

  #start(): void {
    if (this.#ended) return;
    this.attempts++;
    this.#o.logger.info({ to: redactedUrl(this.#o.url), attempt: this.attempts }, 'live push connecting');
    const child = spawn('ffmpeg', pushArgs(this.#o.url), { stdio: ['pipe', 'pipe', 'pipe'] });
    this.#child = child;
    let log = '';
    let live = false;
    let progress = '';
    child.stdin.on('error', () => undefined);
    child.stderr.on('data', (c: Buffer) => {
      log = (log + c.toString()).slice(-4000);
    });
    child.stdout.on('data', (c: Buffer) => {
      progress += c.toString();
      let nl: number;
      while ((nl = progress.indexOf('\n')) >= 0) {
        const line = progress.slice(0, nl).trim();
        progress = progress.slice(nl + 1);
        const [k, v] = line.split('=');
        if (k === 'total_size' && Number(v) > 0 && !live) {
          live = true;
          this.#attempt = 0;
          this.#lostAt = 0;
          this.#set({ state: 'live', kbps: this.#status.kbps });
        }
        if (k === 'bitrate' && live) {
          const kbps = Math.round(Number.parseFloat(v ?? '') || 0);
          this.#set({ state: 'live', kbps });
        }
        if (k === 'progress') this.#watchStall(child);
      }
    });
    child.once('error', (err) => (log += String(err)));
    child.once('close', (code) => {
      this.#leave?.();
      this.#leave = null;
      if (this.#stall) clearTimeout(this.#stall);
      if (this.#child === child) this.#child = null;
      if (this.#ended) return;
      // Never the URL: ffmpeg's log names it, so only the redacted form and the error's words.
      const words = log.replaceAll(this.#o.url, redactedUrl(this.#o.url)).slice(-400);
      const refused = !live && !UNREACHABLE.test(log);
      this.#o.logger.warn({ code, live, refused, to: redactedUrl(this.#o.url), log: words }, 'the live push stopped');
      if (refused) return this.#fail('refused');
      this.#lost();
    });
    // A handshake that hangs (an endpoint that takes the connection and says nothing) counts as a stall too.
    this.#watchStall(child);
    this.#leave = this.#o.tap.join((chunk) => {
      if (!child.stdin.destroyed && child.stdin.writableLength < 16 * 1024 * 1024) child.stdin.write(chunk);
    });
  }

  #watchStall(child: ChildProcess): void {
    if (this.#stall) clearTimeout(this.#stall);
    this.#stall = setTimeout(() => {
      this.#o.logger.warn({ to: redactedUrl(this.#o.url) }, 'the live push made no progress; starting it again');
      child.kill('SIGKILL');
    }, STALL_MS);
    this.#stall.unref();
  }

  #lost(): void {
    const now = performance.now();
    if (this.#lostAt === 0) this.#lostAt = now;
    const retryFor = this.#o.retryForMs ?? DEFAULT_RETRY_FOR_MS;
    if (now - this.#lostAt >= retryFor) return this.#fail('unreachable');
    this.#set({ state: 'reconnecting', kbps: 0 });
    const delay = RETRY_DELAYS_MS[Math.min(this.#attempt, RETRY_DELAYS_MS.length - 1)]!;
    this.#attempt++;
    this.#timer = setTimeout(() => this.#start(), Math.min(delay, Math.max(0, this.#lostAt + retryFor - now)));
  }

  #fail(reason: 'refused' | 'unreachable'): void {
    this.#ended = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#set({ state: 'failed', kbps: 0, reason });
  }

  /** Ends the push: ffmpeg writes what it has and closes the stream (killed after 3 s). */
  async end(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    const wasEnded = this.#ended;
    this.#ended = true;
    this.#leave?.();
    this.#leave = null;
    const child = this.#child;
    if (child && child.exitCode === null && child.signalCode === null) {
      const closed = new Promise<void>((r) => child.once('close', () => r()));
      child.stdin?.end();
      const kill = setTimeout(() => child.kill('SIGKILL'), END_GRACE_MS);
      await closed;
      clearTimeout(kill);
    }
    if (!wasEnded) this.#set({ state: 'ended', kbps: 0 });
  }
}
