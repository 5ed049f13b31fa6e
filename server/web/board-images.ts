/**
 * Board files over HTTP: our stencil SVGs (`/stencils/*.svg`), image upload (`POST /board-images`,
 * the raw jpg/png body, the board token as `Authorization: Bearer ...`), a photo from the phone
 * link (`POST /board-images/phone?t=<link token>&w=&h=`, announced to the user's board as
 * `upFile`) and signed links to a room's images (`POST /board-images/urls` with `{keys}`).
 * Answers use the /api envelope.
 */
import path from 'node:path';
import express, { type Request, type Response, type Router } from 'express';
import { isDomainError, messageFor, type ErrorCode, type Lang } from '#core/platform/errors.ts';
import { STENCIL_PATH } from '#core/board/stencils.ts';
import { imageUrlsInput } from '#core/board/board.schema.ts';
import type { Platform } from '../platform.ts';
import { requestLang } from './request.ts';

const STENCIL_DIR = path.resolve(import.meta.dirname, '../static/stencils');

/** Phone-link uploads being received now, per platform (read by tests through phoneUploadsInFlight). */
const slotsByPlatform = new WeakMap<Platform, { busy: number }>();
function phoneSlots(platform: Platform): { busy: number } {
  let slots = slotsByPlatform.get(platform);
  if (!slots) slotsByPlatform.set(platform, (slots = { busy: 0 }));
  return slots;
}
export const phoneUploadsInFlight = (platform: Platform): number => phoneSlots(platform).busy;

export function boardImageRoutes(platform: Platform): Router {
  const { board } = platform.services;
  const { config, logger } = platform;
  const router = express.Router();

  router.use(STENCIL_PATH, express.static(STENCIL_DIR, { maxAge: '1d', index: false, extensions: false }));

  const send = (res: Response, lang: Lang, code: ErrorCode | '0', data: unknown = null, status = 200) =>
    res
      .status(status)
      .set('Cache-Control', 'no-store')
      .json({
        code,
        msg: code === '0' ? (lang === 'en' ? 'success' : '成功') : messageFor(code, lang),
        data: code === '0' ? data : null,
      });

  const actorOf = (req: Request) => {
    const auth = req.headers.authorization;
    return typeof auth === 'string' && auth.startsWith('Bearer ') ? board.verifyToken(auth.slice(7)) : null;
  };

  const fail = (res: Response, lang: Lang, err: unknown) => {
    if (!isDomainError(err)) logger.error({ err }, 'board image request failed');
    send(res, lang, isDomainError(err) ? err.code : '9');
  };

  /**
   * Reads a raw upload of at most BOARD_IMAGE_MAX_BYTES, then hands it to `store`. Called only once
   * the sender is known (ADR 061): an over-long body is answered 413 as soon as it passes the limit.
   */
  const receive = (req: Request, res: Response, store: (bytes: Buffer) => Promise<unknown>) => {
    const lang = requestLang(req);
    const limit = config.BOARD_IMAGE_MAX_BYTES;
    if (Number(req.headers['content-length'] ?? 0) > limit) return refuse(req, res, lang, '32103', 413);
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (c: Buffer) => {
      if (over) return;
      size += c.length;
      if (size <= limit) return void chunks.push(c);
      over = true;
      chunks.length = 0;
      refuse(req, res, lang, '32103', 413);
    });
    req.on('end', () => {
      if (over) return;
      store(Buffer.concat(chunks)).then(
        (data) => send(res, lang, '0', data),
        (err: unknown) => fail(res, lang, err),
      );
    });
    req.on('error', () => res.destroy());
  };

  /** Answers at once and closes the connection; what the client still sends is discarded unread. */
  const refuse = (req: Request, res: Response, lang: Lang, code: ErrorCode, status: number, headers: Record<string, string> = {}) => {
    req.resume();
    res.set({ Connection: 'close', ...headers });
    send(res, lang, code, null, status);
  };

  router.post('/board-images', (req, res) => {
    const actor = actorOf(req);
    if (!actor) return refuse(req, res, requestLang(req), '21001', 401);
    receive(req, res, (bytes) => board.storeImage(actor, bytes));
  });

  // The phone page of the QR link: the link's token in `t`, the photo's pixel size in `w` and `h`.
  // No session stands behind it: the link is checked before the body is read, and only
  // BOARD_PHONE_UPLOADS_AT_ONCE are received at a time (each may hold BOARD_IMAGE_MAX_BYTES).
  router.post('/board-images/phone', (req, res) => {
    const q = req.query;
    const lang = requestLang(req);
    const token = typeof q['t'] === 'string' ? q['t'] : '';
    if (!board.phoneActor(token)) return refuse(req, res, lang, '21001', 401);
    const slots = phoneSlots(platform);
    if (slots.busy >= config.BOARD_PHONE_UPLOADS_AT_ONCE) return refuse(req, res, lang, '34011', 503, { 'Retry-After': '5' });
    slots.busy += 1;
    res.once('close', () => (slots.busy -= 1));
    const n = (v: unknown) => (typeof v === 'string' && /^\d{1,6}$/.test(v) ? Number(v) : 0);
    receive(req, res, (bytes) => board.phoneUpload(token, bytes, { width: n(q['w']), height: n(q['h']) }));
  });

  // The board token is checked before the JSON body is read.
  const signedIn = (req: Request, res: Response, next: express.NextFunction) => {
    if (!actorOf(req)) return refuse(req, res, requestLang(req), '21001', 401);
    next();
  };
  router.post('/board-images/urls', signedIn, express.json({ limit: '64kb' }), (req, res) => {
    const lang = requestLang(req);
    const actor = actorOf(req);
    if (!actor) return send(res, lang, '21001', null, 401);
    const input = imageUrlsInput.safeParse(req.body);
    if (!input.success) return send(res, lang, '5', null, 400);
    board.imageUrls(actor, input.data.keys).then(
      (urls) => send(res, lang, '0', { urls }),
      (err: unknown) => fail(res, lang, err),
    );
  });

  // A body that is not JSON (or too large) is bad input, not a server error.
  router.use('/board-images', (err: unknown, req: Request, res: Response, next: express.NextFunction) => {
    if (res.headersSent) return next(err);
    const status = typeof err === 'object' && err !== null && (err as { status?: unknown }).status === 413 ? 413 : 400;
    send(res, requestLang(req), '5', null, status);
  });

  return router;
}
