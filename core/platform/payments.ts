/**
 * The PaymentGateway port (docs/product/decisions.md: UnionPay QR payment becomes a port). The product asks the
 * gateway for something to put in a QR code (`tn`), and the gateway later POSTs a signed
 * notification to our notify address. `sandbox` is a built-in gateway that behaves like a real one:
 * the QR code encodes its own pay page; paying there sends an HMAC-signed HTTP notification.
 */
import { randomBytes } from 'node:crypto';
import { hmac, safeEqual, TokenSigner } from './secrets.ts';

export interface PaymentRequest {
  orderId: string;
  amount: number; // cents
  subject: string;
  expiresAt: Date;
}

export interface PaymentNotice {
  orderId: string;
  txn: string;
  amount: number; // cents
  status: 'SUCCESS';
  paidAt: number;
}

export interface PaymentGateway {
  readonly name: string;
  /** The QR code's content. Throws when the gateway cannot take the payment (25006). */
  createPayment(request: PaymentRequest): Promise<{ tn: string }>;
  /** The notice if its signature is the gateway's and its body well formed; null otherwise. */
  parseNotice(rawBody: string, headers: Record<string, string | string[] | undefined>): PaymentNotice | null;
}

export const SANDBOX_SIGNATURE_HEADER = 'x-sandbox-signature';
export const SANDBOX_PAY_PATH = '/sandbox-gateway/pay/';
export const notifyPath = (gateway: string) => `/payments/notify/${gateway}`;

const TXN_RULE = /^[A-Za-z0-9_-]{8,64}$/;

/** Signs a notification body the way the sandbox gateway does (tests forge with other secrets). */
export const signNotice = (secret: string, body: string) => hmac(secret, `notice:${body}`);

interface PayClaim extends Record<string, unknown> {
  o: string;
  a: number;
  s: string;
}

export class SandboxGateway implements PaymentGateway {
  readonly name = 'sandbox';
  readonly #secret: string;
  readonly #signer: TokenSigner;
  readonly #baseUrl: () => string;
  readonly #now: () => number;

  constructor(secret: string, baseUrl: () => string, now: () => number = Date.now) {
    this.#secret = secret;
    this.#signer = new TokenSigner(`pay-page:${secret}`);
    this.#baseUrl = baseUrl;
    this.#now = now;
  }

  createPayment(r: PaymentRequest): Promise<{ tn: string }> {
    const ttl = Math.max(1, Math.floor((r.expiresAt.getTime() - this.#now()) / 1000));
    const token = this.#signer.sign({ o: r.orderId, a: r.amount, s: r.subject.slice(0, 60) }, ttl, this.#now());
    return Promise.resolve({ tn: `${this.#baseUrl()}${SANDBOX_PAY_PATH}${token}` });
  }

  parseNotice(rawBody: string, headers: Record<string, string | string[] | undefined>): PaymentNotice | null {
    const raw = headers[SANDBOX_SIGNATURE_HEADER];
    const sig = Array.isArray(raw) ? raw[0] : raw;
    if (!sig || rawBody.length > 4096 || !safeEqual(signNotice(this.#secret, rawBody), sig)) return null;
    let v: unknown;
    try {
      v = JSON.parse(rawBody);
    } catch {
      return null;
    }
    if (typeof v !== 'object' || v === null) return null;
    const n = v as Record<string, unknown>;
    if (typeof n['orderId'] !== 'string' || n['orderId'].length > 64) return null;
    if (typeof n['txn'] !== 'string' || !TXN_RULE.test(n['txn'])) return null;
    if (typeof n['amount'] !== 'number' || !Number.isSafeInteger(n['amount'])) return null;
    if (n['status'] !== 'SUCCESS' || typeof n['paidAt'] !== 'number') return null;
    return { orderId: n['orderId'], txn: n['txn'], amount: n['amount'], status: 'SUCCESS', paidAt: n['paidAt'] };
  }

  // --- The gateway's own side: its pay page and its notification to the merchant. ---

  /** What the pay page shows, or null for a forged or expired link. */
  readPayLink(token: string): { orderId: string; amount: number; subject: string } | null {
    const c = this.#signer.verify<PayClaim>(token, this.#now());
    return c ? { orderId: c.o, amount: c.a, subject: c.s } : null;
  }

  /** The payer pressed 'pay': POST the signed notice to the merchant, as a real gateway does. */
  async pay(token: string): Promise<{ delivered: boolean; status: number }> {
    const link = this.readPayLink(token);
    if (!link) return { delivered: false, status: 0 };
    const body = JSON.stringify({
      orderId: link.orderId,
      txn: `SBX${randomBytes(12).toString('hex')}`,
      amount: link.amount,
      status: 'SUCCESS',
      paidAt: this.#now(),
    });
    const res = await fetch(`${this.#baseUrl()}${notifyPath(this.name)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [SANDBOX_SIGNATURE_HEADER]: signNotice(this.#secret, body) },
      body,
      signal: AbortSignal.timeout(10_000),
    });
    const text = await res.text();
    return { delivered: res.ok && text.trim() === 'success', status: res.status };
  }
}

/**
 * No gateway: the shop lists its packages but cannot take money (25006). The default in
 * production, where the sandbox would hand out packages for free.
 */
export class NoGateway implements PaymentGateway {
  readonly name = 'off';
  createPayment(): Promise<{ tn: string }> {
    return Promise.reject(new Error('no payment gateway is configured (PAYMENT_GATEWAY)'));
  }
  parseNotice(): PaymentNotice | null {
    return null;
  }
}
