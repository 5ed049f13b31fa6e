/**
 * A minimal keep-alive HTTP/1.1 client for load generation: one TCP connection, one request in
 * flight at a time, requests pre-serialised, responses framed by Content-Length (or chunked).
 * Much lighter than node:http's client, so on a small machine the load generator is not what
 * limits the bare handler's numbers. Each connection may bind its own loopback source address
 * (127.0.0.x), so per-address rules on the server see many clients rather than one.
 */
import { connect, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';

export interface HttpAnswer {
  status: number;
  body: string;
}

export class HttpError extends Error {
  override name = 'HttpError';
}

interface Pending {
  resolve: (a: HttpAnswer) => void;
  reject: (e: Error) => void;
  /** performance.now() when sent, for the timeout sweep. */
  sentAt: number;
}

/**
 * Timeouts by one sweep a second over the open connections, rather than a timer per request
 * (creating and clearing a timer per request costs the client a noticeable share of its CPU).
 */
const live = new Set<Connection>();
let sweeper: NodeJS.Timeout | null = null;
function watch(c: Connection): void {
  live.add(c);
  sweeper ??= setInterval(() => {
    const now = performance.now();
    for (const conn of live) conn.expire(now);
    if (live.size === 0 && sweeper) {
      clearInterval(sweeper);
      sweeper = null;
    }
  }, 1000);
  sweeper.unref();
}

const HEADER_END = Buffer.from('\r\n\r\n');
const CRLF = Buffer.from('\r\n');
const CONTENT_LENGTH = Buffer.from('\r\nContent-Length: ');

export class Connection {
  readonly host: string;
  readonly port: number;
  readonly localAddress: string | undefined;
  readonly timeoutMs: number;
  #socket: Socket | null = null;
  #connecting: Promise<Socket> | null = null;
  #buf: Buffer = Buffer.alloc(0);
  #pending: Pending | null = null;

  constructor(url: string, opts: { localAddress?: string | undefined; timeoutMs?: number } = {}) {
    const u = new URL(url);
    this.host = u.hostname;
    this.port = Number(u.port);
    this.localAddress = opts.localAddress;
    this.timeoutMs = opts.timeoutMs ?? 10_000;
  }

  #open(): Promise<Socket> {
    if (this.#socket && !this.#socket.destroyed) return Promise.resolve(this.#socket);
    this.#connecting ??= new Promise<Socket>((resolve, reject) => {
      const socket = connect({ host: this.host, port: this.port, ...(this.localAddress ? { localAddress: this.localAddress } : {}) });
      socket.setNoDelay(true);
      const onError = (err: Error) => {
        this.#connecting = null;
        reject(err);
      };
      socket.once('error', onError);
      socket.once('connect', () => {
        socket.off('error', onError);
        this.#socket = socket;
        this.#connecting = null;
        this.#buf = Buffer.alloc(0);
        watch(this);
        // Events of an old socket must not touch its successor.
        socket.on('data', (chunk: Buffer) => {
          if (this.#socket === socket) this.#onData(chunk);
        });
        socket.on('error', (err) => {
          if (this.#socket === socket) this.#fail(err);
        });
        socket.on('close', () => {
          if (this.#socket === socket) this.#fail(new HttpError('connection closed by server'));
        });
        resolve(socket);
      });
    });
    return this.#connecting;
  }

  #fail(err: Error): void {
    this.#socket?.destroy();
    this.#socket = null;
    const p = this.#pending;
    this.#pending = null;
    if (p) p.reject(err);
  }

  #onData(chunk: Buffer): void {
    this.#buf = this.#buf.length ? Buffer.concat([this.#buf, chunk]) : chunk;
    const p = this.#pending;
    if (!p) return;
    const headEnd = this.#buf.indexOf(HEADER_END);
    if (headEnd < 0) return;
    const buf = this.#buf;
    // "HTTP/1.1 200 ": the status digits at 9..11.
    const status = (buf[9]! - 48) * 100 + (buf[10]! - 48) * 10 + (buf[11]! - 48);
    const bodyStart = headEnd + 4;
    let body: Buffer;
    let consumed: number;
    // Fast path: Node's servers spell the header this way; anything else takes the slow path.
    let len = -1;
    const at = buf.indexOf(CONTENT_LENGTH);
    if (at >= 0 && at < headEnd) {
      len = 0;
      for (let i = at + CONTENT_LENGTH.length; buf[i]! >= 48 && buf[i]! <= 57; i++) len = len * 10 + buf[i]! - 48;
    }
    const lower =
      len < 0 || (buf.indexOf('onnection: close', 0, 'latin1') >= 0 && buf.indexOf('onnection: close', 0, 'latin1') < headEnd)
        ? buf.toString('latin1', 0, headEnd).toLowerCase()
        : '';
    const cl = len < 0 ? /\r\ncontent-length:\s*(\d+)/.exec(lower) : null;
    if (cl) len = Number(cl[1]);
    if (len >= 0) {
      if (this.#buf.length < bodyStart + len) return;
      body = this.#buf.subarray(bodyStart, bodyStart + len);
      consumed = bodyStart + len;
    } else if (/\r\ntransfer-encoding:\s*chunked/.test(lower)) {
      const parts: Buffer[] = [];
      let at = bodyStart;
      for (;;) {
        const lineEnd = this.#buf.indexOf(CRLF, at);
        if (lineEnd < 0) return;
        const size = Number.parseInt(this.#buf.toString('latin1', at, lineEnd), 16);
        if (Number.isNaN(size)) return this.#fail(new HttpError('bad chunk size'));
        const dataStart = lineEnd + 2;
        if (this.#buf.length < dataStart + size + 2) return;
        if (size === 0) {
          consumed = dataStart + 2;
          break;
        }
        parts.push(this.#buf.subarray(dataStart, dataStart + size));
        at = dataStart + size + 2;
      }
      body = Buffer.concat(parts);
    } else {
      return this.#fail(new HttpError('response without Content-Length or chunked framing'));
    }
    const text = body.toString('utf8');
    this.#buf = this.#buf.subarray(consumed);
    this.#pending = null;
    if (lower && /\r\nconnection:\s*close/.test(lower)) {
      this.#socket?.destroy();
      this.#socket = null;
    }
    p.resolve({ status, body: text });
  }

  /** Fails the request in flight when it is older than the timeout (called by the sweep). */
  expire(now: number): void {
    if (this.#pending && now - this.#pending.sentAt > this.timeoutMs) {
      this.#fail(new HttpError(`no answer within ${String(this.timeoutMs)} ms`));
    }
  }

  /** The bytes of a JSON POST, to build once and send many times with send(). */
  request(path: string, json: string, headers: Record<string, string> = {}): Buffer {
    let extra = '';
    for (const [k, v] of Object.entries(headers)) extra += `${k}: ${v}\r\n`;
    return Buffer.from(
      `POST ${path} HTTP/1.1\r\nHost: ${this.host}:${String(this.port)}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${String(Buffer.byteLength(json))}\r\n${extra}\r\n${json}`,
    );
  }

  /** POSTs a JSON body; resolves with the status and body text, rejects on network errors and timeouts. */
  post(path: string, json: string, headers: Record<string, string> = {}): Promise<HttpAnswer> {
    return this.send(this.request(path, json, headers));
  }

  /** Sends a request built by request(). */
  async send(req: Buffer): Promise<HttpAnswer> {
    if (this.#pending) throw new HttpError('one request at a time per connection');
    const socket = this.#socket && !this.#socket.destroyed ? this.#socket : await this.#open();
    return await new Promise<HttpAnswer>((resolve, reject) => {
      this.#pending = { resolve, reject, sentAt: performance.now() };
      socket.write(req);
    });
  }

  close(): void {
    live.delete(this);
    this.#socket?.destroy();
    this.#socket = null;
  }
}
