/**
 * The /api/* adapter: POST, JSON or form-encoded; the answer is always {code, msg, data}.
 * Each handler: who is asking, parse with the zod schema, one service call, map the result.
 * Domain errors are mapped here and only here; anything unexpected is logged and answered '9'.
 */
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import type { z } from 'zod';
import type { ApiName, Envelope } from '#core/contracts/api.ts';
import { REQUEST_ID_PARAM, SESSION_COOKIE } from '#core/contracts/api.ts';
import { DomainError, isDomainError, messageFor, type ErrorCode, type Lang } from '#core/platform/errors.ts';
import type { Config } from '#core/platform/config.ts';
import type { Logger } from '#core/platform/logger.ts';
import type { Services } from '#core/services.ts';
import type { Viewer } from '#core/account/account.service.ts';
import * as accountSchema from '#core/account/account.schema.ts';
import * as roomSchema from '#core/rooms/room.schema.ts';
import { requestIp, requestLang, requestToken } from './request.ts';

interface CallContext {
  req: Request;
  res: Response;
  lang: Lang;
  ip: string;
  token: string | null;
  requestId: string | undefined;
  /** Resolves the viewer; throws '7', '6' or '21001'. */
  viewer(): Promise<Viewer>;
}

interface Handler<S extends z.ZodType> {
  schema: S;
  run(ctx: CallContext, input: z.infer<S>): Promise<unknown>;
}

const h = <S extends z.ZodType>(schema: S, run: Handler<S>['run']): Handler<S> => ({ schema, run });

const emptyInput = accountSchema.updateUserNameInput.partial().strict().or(
  // Clients send the spec's envelope fields in bodies too; ignore everything for no-input calls.
  accountSchema.updateUserNameInput.partial().passthrough(),
);

function sessionCookie(config: Config, token: string, maxAgeSeconds: number): string {
  const parts = [`${SESSION_COOKIE}=${token}`, 'Path=/', 'HttpOnly', 'SameSite=Lax', `Max-Age=${maxAgeSeconds}`];
  if (config.cookieSecure) parts.push('Secure');
  return parts.join('; ');
}

function clearedCookie(config: Config): string {
  return sessionCookie(config, '', 0);
}

export function buildHandlers(services: Services, config: Config): Record<ApiName, Handler<z.ZodType>> {
  const { account, rooms, billing } = services;
  return {
    sendPhoneCode: h(accountSchema.sendPhoneCodeInput, (ctx, i) => account.sendPhoneCode({ mobile: i.mobile, area: i.area, ip: ctx.ip })),
    loginUser: h(accountSchema.loginInput, async (ctx, i) => {
      const { user, token } = await account.login({ mobile: i.mobile, code: i.code, ip: ctx.ip });
      ctx.res.append('Set-Cookie', sessionCookie(config, token, config.SESSION_DAYS * 86400));
      const { toUserInfo } = await import('#core/account/account.service.ts');
      return { userInfo: toUserInfo(user, token) };
    }),
    logout: h(emptyInput, async (ctx) => {
      await account.logout(ctx.token);
      ctx.res.append('Set-Cookie', clearedCookie(config));
      return null;
    }),
    queryUserInfoByToken: h(emptyInput, async (ctx, i) => {
      const bodyToken = (i as { token?: unknown }).token;
      const viewer = await account.authenticate(typeof bodyToken === 'string' && bodyToken ? bodyToken : ctx.token);
      return { userInfo: await account.getUserInfo(viewer, viewer.userId) };
    }),
    getUserInfoById: h(accountSchema.userIdInput, async (ctx, i) => {
      await ctx.viewer();
      return { userInfo: await account.getPublicUser(i.id) };
    }),
    getUserInfo: h(accountSchema.getUserInfoInput, async (ctx, i) => {
      const viewer = await ctx.viewer();
      const userId = i.userId ?? viewer.userId;
      return { userInfo: userId === viewer.userId ? await account.getUserInfo(viewer, userId) : await account.getPublicUser(userId) };
    }),
    updateUserName: h(accountSchema.updateUserNameInput, async (ctx, i) => ({
      userInfo: await account.updateUserName(await ctx.viewer(), i.userName),
    })),
    createAgoraRoom: h(roomSchema.createAgoraRoomInput, async (ctx, i) => ({
      roomInfo: await rooms.createRoom(await ctx.viewer(), { roomType: 1, consumption: i.consumption ?? 'off', requestId: ctx.requestId }),
    })),
    createRoom: h(roomSchema.createRoomInput, async (ctx, i) => ({
      roomInfo: await rooms.createRoom(await ctx.viewer(), {
        roomType: Number(i.roomType) as 2 | 3 | 4,
        consumption: i.consumption ?? 'off',
        requestId: ctx.requestId,
      }),
    })),
    getRoomInfoByRoomNumber: h(roomSchema.roomNumberInput, async (_ctx, i) => ({ roomInfo: await rooms.getRoomInfo(i.roomNumber) })),
    userJoinAgoraRoom: h(roomSchema.joinInput, async (ctx, i) =>
      rooms.join(await ctx.viewer(), { roomNumber: i.roomNumber, userType: i.userType === undefined ? undefined : (String(i.userType) as '1' | '2') }),
    ),
    touristJoinRoom: h(roomSchema.touristJoinInput, async (ctx, i) => {
      const answer = await rooms.touristJoin({ roomNumber: i.roomNumber, userName: i.userName, ip: ctx.ip });
      // A signed-in teacher who joins as a visitor keeps their own session cookie.
      const hasSession = await ctx.viewer().then((v) => v.type === '1', () => false);
      if (!hasSession && answer.userInfo) {
        ctx.res.append('Set-Cookie', sessionCookie(config, answer.userInfo.userToken, config.TOURIST_SESSION_HOURS * 3600));
      }
      return answer;
    }),
    getConsumptionStatus: h(emptyInput, async (ctx) => billing.getConsumptionStatus(await ctx.viewer())),
    getUserVipInfo: h(emptyInput, async (ctx) => ({ vipUserInfo: await billing.getUserVipInfo(await ctx.viewer()) })),
    getMyRoomList: h(roomSchema.myRoomsInput, async (ctx, i) => rooms.listMyRooms(await ctx.viewer(), i)),
  };
}

function send(res: Response, lang: Lang, code: ErrorCode | '0', data: unknown, status = 200, msg?: string): void {
  const body: Envelope<unknown> = {
    code,
    msg: msg ?? (code === '0' ? (lang === 'en' ? 'success' : '成功') : messageFor(code, lang)),
    data: code === '0' ? (data ?? null) : null,
  };
  res.status(status).type('application/json; charset=utf-8').set('Cache-Control', 'no-store').send(JSON.stringify(body));
}

export function apiRouter(services: Services, config: Config, logger: Logger): Router {
  const handlers = buildHandlers(services, config);
  const router = express.Router();
  const limit = config.API_BODY_LIMIT_BYTES;

  router.use(express.json({ limit, strict: true, type: ['application/json', 'application/*+json'] }));
  router.use(express.urlencoded({ limit, extended: false, parameterLimit: 100 }));

  router.all('/:name', async (req, res) => {
    const lang = requestLang(req);
    const name = req.params['name'] ?? '';
    if (!Object.hasOwn(handlers, name)) return send(res, lang, '21', null, 404);
    if (req.method !== 'POST') return send(res, lang, '8', null, 405);
    const handler = handlers[name as ApiName];
    const body: unknown = req.body ?? {};
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return send(res, lang, '5', null, 400);
    const parsed = handler.schema.safeParse(body);
    if (!parsed.success) return send(res, lang, '5', null);
    const token = requestToken(req);
    const rawRequestId = req.query[REQUEST_ID_PARAM] ?? (body as Record<string, unknown>)[REQUEST_ID_PARAM];
    let viewerPromise: Promise<Viewer> | null = null;
    const ctx: CallContext = {
      req,
      res,
      lang,
      ip: requestIp(req),
      token,
      requestId: typeof rawRequestId === 'string' ? rawRequestId : undefined,
      viewer: () => (viewerPromise ??= services.account.authenticate(token)),
    };
    try {
      const data = await handler.run(ctx, parsed.data);
      send(res, lang, '0', data);
    } catch (err) {
      if (isDomainError(err)) {
        if (err.code === '9' || err.code === '20') logger.error({ err, api: name }, 'api service exception');
        return send(res, lang, err.code, null);
      }
      logger.error({ err, api: name }, 'api call failed unexpectedly');
      send(res, lang, '9', null);
    }
  });

  // Body parser failures (too large, malformed JSON, bad charset) end here, as envelopes.
  router.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    const lang = requestLang(req);
    const e = err as { type?: string; status?: number };
    if (e.type === 'entity.too.large') {
      const msg = lang === 'en' ? `Request body too large (at most ${limit} bytes)` : `请求内容过大（最多 ${limit} 字节）`;
      return send(res, lang, '5', null, 413, msg);
    }
    if (e.status && e.status >= 400 && e.status < 500) return send(res, lang, '5', null, 400);
    logger.error({ err }, 'api middleware failed');
    send(res, lang, '9', null, 500);
  });

  return router;
}

export { DomainError };
