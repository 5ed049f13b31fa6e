/**
 * A socket for unit tests of the browser's channel clients: what core/channel/open.ts needs
 * (ChannelSocket: connected, on/off, emit with an acknowledgement and a timeout) and the few
 * lifecycle calls the clients make (connect, disconnect, once, close). The test plays the server:
 * `up()` connects, `fire(event, payload)` sends an event, `last(event).answer(err, ack)` answers
 * the latest request of that socket event.
 */
import type { ChannelSocket } from '#core/channel/open.ts';

type Handler = (...args: unknown[]) => void;

export interface SentRequest {
  event: string;
  payload: unknown;
  timeoutMs: number;
  answer: (err: Error | null, ack?: unknown) => void;
}

export class FakeSocket implements ChannelSocket {
  connected = false;
  active = false;
  auth: unknown;
  connects = 0;
  readonly handlers = new Map<string, Handler[]>();
  /** Requests sent with an acknowledgement, oldest first. */
  readonly sent: SentRequest[] = [];
  /** Plain emits (no acknowledgement awaited), e.g. a volatile stroke. */
  readonly emitted: { event: string; payload: unknown }[] = [];

  on(event: string, handler: Handler): this {
    this.handlers.set(event, [...(this.handlers.get(event) ?? []), handler]);
    return this;
  }
  once(event: string, handler: Handler): this {
    const once: Handler = (...args) => {
      this.off(event, once);
      handler(...args);
    };
    return this.on(event, once);
  }
  off(event: string, handler?: Handler): this {
    const left = handler ? (this.handlers.get(event) ?? []).filter((h) => h !== handler) : [];
    if (left.length) this.handlers.set(event, left);
    else this.handlers.delete(event);
    return this;
  }
  removeAllListeners(): this {
    this.handlers.clear();
    return this;
  }
  connect(): this {
    this.connects += 1;
    return this;
  }
  disconnect(): this {
    const was = this.connected;
    this.connected = false;
    if (was) this.fire('disconnect', 'io client disconnect');
    return this;
  }
  close(): this {
    return this.disconnect();
  }
  timeout(ms: number) {
    return {
      emit: (event: string, payload: unknown, answer: (err: Error | null, ack?: unknown) => void) => {
        this.sent.push({ event, payload, timeoutMs: ms, answer });
        return this;
      },
    };
  }
  get volatile() {
    return { emit: (event: string, payload: unknown) => this.emitted.push({ event, payload }) };
  }
  /** The server sends `event` (or the socket fires a lifecycle event). */
  fire(event: string, ...args: unknown[]): void {
    for (const h of this.handlers.get(event) ?? []) h(...args);
  }
  /** The transport comes up. */
  up(): void {
    this.connected = true;
    this.fire('connect');
  }
  /** The latest request sent as `event`. */
  last(event: string): SentRequest {
    const found = this.sent.filter((s) => s.event === event).at(-1);
    if (!found) throw new Error(`nothing sent as ${event}`);
    return found;
  }
}
