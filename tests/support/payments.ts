/** Paying through the sandbox gateway over HTTP, and forging notices, for tests and benchmarks. */
import { SANDBOX_SIGNATURE_HEADER, signNotice } from '#core/platform/payments.ts';
import { call } from './api.ts';
import type { TestServer } from './server.ts';

/** Orders the goods and starts paying; returns the order id and the QR content (the pay URL). */
export async function orderAndStartPaying(server: TestServer, token: string, goodsId: string, promoCode?: string) {
  const order = await call(server.url, 'createOrder', { goodsId }, { token });
  if (order.code !== '0') throw new Error(`createOrder ${order.code} ${order.msg}`);
  const orderId = order.data.orderInfo.orderId;
  const pay = await call(server.url, 'paymentOrder', { orderId, ...(promoCode ? { promoCode } : {}) }, { token });
  if (pay.code !== '0') throw new Error(`paymentOrder ${pay.code} ${pay.msg}`);
  return { orderId, tn: pay.data.tn, order: order.data.orderInfo };
}

/** Opens the pay page and presses pay, as the payer's phone would. */
export async function payOnSandbox(tn: string): Promise<{ page: string; result: string; status: number }> {
  const page = await (await fetch(tn)).text();
  const res = await fetch(tn, { method: 'POST' });
  return { page, result: await res.text(), status: res.status };
}

/** Test servers set the gateway secret, so a test can sign a notice as the gateway would. */
export const TEST_GATEWAY_SECRET = 'sandbox-secret-for-tests-0123456789abcdef';

/** POSTs a notice body to the notify endpoint, signed with `secret` (or with a given signature). */
export async function sendNotice(server: TestServer, body: string, signature: string | { secret: string }) {
  const sig = typeof signature === 'string' ? signature : signNotice(signature.secret, body);
  const res = await fetch(`${server.url}/payments/notify/sandbox`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', [SANDBOX_SIGNATURE_HEADER]: sig },
    body,
  });
  return { status: res.status, text: await res.text() };
}
