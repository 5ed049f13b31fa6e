/**
 * Payment HTTP: the notify endpoint every gateway POSTs to, and the sandbox gateway's own pay page
 * (a stand-in for the real gateway's site; it lives under its own path and talks to us only by
 * the signed notification, as a real gateway would).
 */
import express, { type Express, type Request, type Response } from 'express';
import { notifyPath, SANDBOX_PAY_PATH } from '#core/platform/payments.ts';
import type { Platform } from '../platform.ts';

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const yuan = (cents: number) => (cents / 100).toFixed(2);

/** The page's <style> carries the response's CSP nonce (ADR 067). */
function page(res: Response, title: string, body: string): string {
  const nonce = typeof res.locals['cspNonce'] === 'string' ? ` nonce="${esc(res.locals['cspNonce'])}"` : '';
  return `<!doctype html><html lang="zh"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(title)}</title><style${nonce}>
body{font-family:system-ui,sans-serif;background:#eef1f6;margin:0;display:grid;place-items:center;min-height:100vh;color:#1b2330}
main{background:#fff;border-radius:12px;padding:28px 32px;box-shadow:0 6px 24px #0002;max-width:360px;width:calc(100% - 32px);text-align:center}
h1{font-size:18px;margin:0 0 4px}.sub{color:#5b6573;font-size:13px;margin:0 0 20px}.amount{font-size:34px;font-weight:700;margin:8px 0}
dl{display:grid;grid-template-columns:auto 1fr;gap:6px 12px;text-align:left;font-size:14px;margin:16px 0}dt{color:#5b6573}dd{margin:0;word-break:break-all}
button{font:inherit;font-size:16px;width:100%;padding:12px;border:0;border-radius:8px;background:#1a7f37;color:#fff;cursor:pointer}
button:focus-visible{outline:3px solid #0b5cd5;outline-offset:2px}.ok{color:#1a7f37}.bad{color:#b3261e}</style></head>
<body><main>${body}</main></body></html>`;
}

export function mountPayments(app: Express, platform: Platform): void {
  const { services, sandbox, logger } = platform;

  app.post(
    /^\/payments\/notify\/([a-z0-9-]{1,32})$/,
    express.text({ type: () => true, limit: '8kb' }),
    async (req: Request, res: Response) => {
      const gateway = (req.params as Record<string, string>)[0] ?? '';
      const raw = typeof req.body === 'string' ? req.body : '';
      const outcome = await services.orders.handleNotice(gateway, raw, req.headers, req.ip ?? 'unknown');
      // 'success' tells the gateway to stop retrying; a forged or wrong notice is refused.
      const accepted = outcome === 'paid' || outcome === 'duplicate' || outcome === 'already-paid';
      res
        .status(accepted ? 200 : 400)
        .type('text/plain')
        .send(accepted ? 'success' : 'fail');
    },
  );

  if (!sandbox) return;
  const payPath = new RegExp(`^${SANDBOX_PAY_PATH.replace(/\//g, '\\/')}([A-Za-z0-9_.-]{10,2048})$`);
  app.get(payPath, (req: Request, res: Response) => {
    const token = (req.params as Record<string, string>)[0] ?? '';
    const link = sandbox.readPayLink(token);
    res.set('Cache-Control', 'no-store');
    if (!link) {
      res
        .status(404)
        .type('html')
        .send(
          page(res, 'Sandbox', `<h1 class="bad">支付链接无效或已过期</h1><p class="sub">This payment link is invalid or has expired.</p>`),
        );
      return;
    }
    res.type('html').send(
      page(
        res,
        '沙箱支付 · Sandbox pay',
        `<h1>沙箱支付 · Sandbox gateway</h1><p class="sub">测试用支付页，不会扣款 · A test gateway: no money moves</p>
<div class="amount" data-testid="sandbox-amount">¥${yuan(link.amount)}</div>
<dl><dt>商品 Item</dt><dd>${esc(link.subject)}</dd><dt>订单 Order</dt><dd data-testid="sandbox-order">${esc(link.orderId)}</dd></dl>
<form method="post"><button type="submit">确认支付 · Pay</button></form>`,
      ),
    );
  });

  app.post(payPath, async (req: Request, res: Response) => {
    const token = (req.params as Record<string, string>)[0] ?? '';
    res.set('Cache-Control', 'no-store');
    try {
      const r = await sandbox.pay(token);
      if (r.delivered) {
        res
          .type('html')
          .send(
            page(
              res,
              '支付成功 · Paid',
              `<h1 class="ok" data-testid="sandbox-done">支付成功 · Payment complete</h1><p class="sub">可以关闭此页 · You may close this page.</p>`,
            ),
          );
      } else {
        res
          .status(r.status === 0 ? 404 : 502)
          .type('html')
          .send(
            page(
              res,
              '支付失败 · Failed',
              `<h1 class="bad">支付失败 · Payment failed</h1><p class="sub">商户未确认 · The merchant did not confirm (${r.status}).</p>`,
            ),
          );
      }
    } catch (err) {
      logger.warn({ err }, 'sandbox gateway could not notify');
      res
        .status(502)
        .type('html')
        .send(page(res, '支付失败 · Failed', `<h1 class="bad">支付失败 · Payment failed</h1>`));
    }
  });
}

export { notifyPath };
