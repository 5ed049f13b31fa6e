/**
 * Small HTTP endpoints outside /api: the feedback captcha image (GET) and `/log`, the spec's
 * second address for client events (it also takes `navigator.sendBeacon` bodies).
 */
import express, { type Express, type Request, type Response } from 'express';
import { FEEDBACK_CAPTCHA_PATH } from '#core/contracts/api.ts';
import { addLogInput } from '#core/messaging/messaging.schema.ts';
import type { Platform } from '../platform.ts';
import { requestToken } from './request.ts';

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

  app.post('/log', express.text({ type: () => true, limit: '32kb' }), async (req: Request, res: Response) => {
    const raw = typeof req.body === 'string' ? req.body : '';
    let parsed: unknown;
    try {
      parsed = raw.trim().startsWith('{') ? JSON.parse(raw) : Object.fromEntries(new URLSearchParams(raw));
    } catch {
      res.status(400).type('text/plain').send('bad body');
      return;
    }
    const body = addLogInput.safeParse(parsed);
    if (!body.success) {
      res.status(400).type('text/plain').send('bad body: socketType, roomNumber and message are short strings');
      return;
    }
    const viewer = await services.account.authenticate(requestToken(req)).catch(() => null);
    await services.site.addLog(viewer, body.data, req.ip ?? 'unknown');
    res.status(204).end();
  });
}
