/**
 * The SmsSender port. `console` prints the code and keeps it in a dev outbox (never in
 * production); `http` POSTs {mobile, code, purpose} as JSON to a webhook, the shape most SMS
 * gateways accept.
 */
import type { Logger } from './logger.ts';

export interface SmsMessage {
  mobile: string;
  code: string;
  purpose: string;
}

export interface SmsSender {
  send(message: SmsMessage): Promise<void>;
}

export interface OutboxEntry extends SmsMessage {
  at: number;
}

export class DevOutbox {
  readonly #entries: OutboxEntry[] = [];
  readonly capacity: number;
  constructor(capacity: number = 200) {
    this.capacity = capacity;
  }
  add(m: SmsMessage): void {
    this.#entries.unshift({ ...m, at: Date.now() });
    this.#entries.length = Math.min(this.#entries.length, this.capacity);
  }
  /** Newest first. */
  list(): OutboxEntry[] {
    return this.#entries.slice();
  }
}

export class ConsoleSmsSender implements SmsSender {
  private readonly logger: Logger;
  private readonly outbox: DevOutbox | null;
  constructor(logger: Logger, outbox: DevOutbox | null) {
    this.logger = logger;
    this.outbox = outbox;
  }
  send(m: SmsMessage): Promise<void> {
    this.logger.info({ mobile: m.mobile, smsCode: m.code, purpose: m.purpose }, `SMS code for ${m.mobile}: ${m.code}`);
    this.outbox?.add(m);
    return Promise.resolve();
  }
}

export class SmsDeliveryError extends Error {
  override name = 'SmsDeliveryError';
}

export class HttpSmsSender implements SmsSender {
  private readonly url: string;
  private readonly bearer: string | undefined;
  private readonly timeoutMs: number;
  constructor(url: string, bearer: string | undefined, timeoutMs: number = 5000) {
    this.url = url;
    this.bearer = bearer;
    this.timeoutMs = timeoutMs;
  }
  async send(m: SmsMessage): Promise<void> {
    let res: Response;
    try {
      res = await fetch(this.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(this.bearer ? { authorization: `Bearer ${this.bearer}` } : {}),
        },
        body: JSON.stringify({ mobile: m.mobile, code: m.code, purpose: m.purpose }),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (err) {
      throw new SmsDeliveryError(`SMS webhook unreachable: ${(err as Error).message}`);
    }
    if (!res.ok) throw new SmsDeliveryError(`SMS webhook answered HTTP ${res.status}`);
  }
}
