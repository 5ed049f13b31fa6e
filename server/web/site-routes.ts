/**
 * Small HTTP endpoints outside /api: the feedback captcha image (GET) and `/log`, the spec's
 * second address for client events (it also takes `navigator.sendBeacon` bodies).
 */
import express, { type Express, type Request, type Response } from 'express';
import { FEEDBACK_CAPTCHA_PATH } from '#core/contracts/api.ts';
import { addLogInput, LOG_BATCH_MAX_EVENTS } from '#core/messaging/messaging.schema.ts';
import type { Platform } from '../platform.ts';
import { requestIp, requestToken } from './request.ts';

/** A full batch with room to spare (LOG_BATCH_MAX_EVENTS events of a few hundred bytes each). */
const LOG_BODY_LIMIT = '64kb';

export function mountSiteRoutes(app: Express, platform: Platform): void {
  const { services } = platform;

  app.get(FEEDBACK_CAPTCHA_PATH, async (req: Request, res: Response) => {
    const q = req.query['token'];
    const token = typeof q === 'string' && q ? q : requestToken(req);
    const viewer = await services.account.authenticate(token).catch(() => null);
    res.set('Cache-Control', 'no-store');
    if (!viewer) {
      res.status(401).type('text/plain').send('sign in first');
      return;
    }
    const svg = await services.messaging.captchaImage(viewer).catch(() => null);
    if (!svg) {
      res.status(403).type('text/plain').send('not allowed');
      return;
    }
    res.type('image/svg+xml').send(svg);
  });

  // `navigator.sendBeacon` sends text/plain (or a form); one event or a batch (ADR 102). 204 stored,
  // 429 dropped past the rate (the body says so), 400 unreadable or not matching the schema, 413 too large.
  app.post('/log', express.text({ type: () => true, limit: LOG_BODY_LIMIT }), async (req: Request, res: Response) => {
    const raw = typeof req.body === 'string' ? req.body : '';
    let parsed: unknown;
    try {
      parsed = raw.trim().startsWith('{') ? JSON.parse(raw) : Object.fromEntries(new URLSearchParams(raw));
    } catch {
      res.status(400).type('text/plain').send('bad body: not JSON or a form');
      return;
    }
    const body = addLogInput.safeParse(parsed);
    if (!body.success) {
      res
        .status(400)
        .type('text/plain')
        .send(`bad body: one event (socketType, roomNumber, message) or a batch (roomNumber, events: 1 to ${LOG_BATCH_MAX_EVENTS})`);
      return;
    }
    const viewer = await services.account.authenticate(requestToken(req)).catch(() => null);
    const answer = await services.site.addLog(viewer, body.data, requestIp(req, platform.config.TRUST_PROXY));
    if (answer.dropped > 0) {
      res.status(429).type('text/plain').send(`dropped ${answer.dropped} events: too many client events this minute`);
      return;
    }
    res.status(204).end();
  });

  // The body parser's refusals (too large, bad charset) are clear 4xx here, not the generic 500.
  app.use('/log', (err: unknown, _req: Request, res: Response, next: (e?: unknown) => void) => {
    const status = typeof err === 'object' && err !== null && 'status' in err && typeof err.status === 'number' ? err.status : 0;
    if (status >= 400 && status < 500 && !res.headersSent) {
      res
        .status(status)
        .type('text/plain')
        .send(
          status === 413 ? `body too large (at most ${LOG_BODY_LIMIT})` : status === 415 ? 'bad body: unsupported charset' : 'bad body',
        );
      return;
    }
    next(err);
  });
}
