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
import type { Platform } from '../platform.ts';
import { requestLang } from './request.ts';

const STENCIL_DIR = path.resolve(import.meta.dirname, '../static/stencils');

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
    return board.verifyToken(typeof auth === 'string' && auth.startsWith('Bearer ') ? auth.slice(7) : undefined);
  };

  const fail = (res: Response, lang: Lang, err: unknown) => {
    if (!isDomainError(err)) logger.error({ err }, 'board image request failed');
    send(res, lang, isDomainError(err) ? err.code : '9');
  };

  /** Reads a raw upload of at most BOARD_IMAGE_MAX_BYTES, then hands it to `store`. */
  const receive = (req: Request, res: Response, store: (bytes: Buffer) => Promise<unknown>) => {
    const lang = requestLang(req);
    const limit = config.BOARD_IMAGE_MAX_BYTES;
    if (Number(req.headers['content-length'] ?? 0) > limit) {
      req.resume();
      return send(res, lang, '32103', null, 413);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > limit) over = true;
      else chunks.push(c);
    });
    req.on('end', () => {
      if (over) return send(res, lang, '32103', null, 413);
      store(Buffer.concat(chunks)).then(
        (data) => send(res, lang, '0', data),
        (err: unknown) => fail(res, lang, err),
      );
    });
    req.on('error', () => res.destroy());
  };

  router.post('/board-images', (req, res) => {
    const actor = actorOf(req);
    if (!actor) {
      req.resume();
      return send(res, requestLang(req), '21001', null, 401);
    }
    receive(req, res, (bytes) => board.storeImage(actor, bytes));
  });

  // The phone page of the QR link: the link's token in `t`, the photo's pixel size in `w` and `h`.
  router.post('/board-images/phone', (req, res) => {
    const q = req.query;
    const n = (v: unknown) => (typeof v === 'string' && /^\d{1,6}$/.test(v) ? Number(v) : 0);
    receive(req, res, (bytes) => board.phoneUpload(q['t'], bytes, { width: n(q['w']), height: n(q['h']) }));
  });

  router.post('/board-images/urls', express.json({ limit: '64kb' }), (req, res) => {
    const lang = requestLang(req);
    const actor = actorOf(req);
    if (!actor) return send(res, lang, '21001', null, 401);
    const keys = (req.body as { keys?: unknown } | undefined)?.keys;
    board.imageUrls(actor, keys).then(
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
