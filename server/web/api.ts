/**
 * The /api/* adapter: POST, JSON or form-encoded; the answer is always {code, msg, data}.
 * Each handler: who is asking, parse with the zod schema, one service call, map the result.
 * Domain errors are mapped here and only here; anything unexpected is logged and answered '9'.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApiData, ApiInput, ApiName, Envelope } from '#core/contracts/api.ts';
import { apiInputs } from '#core/contracts/api-inputs.ts';
import { REQUEST_ID_PARAM, SESSION_COOKIE } from '#core/contracts/api.ts';
import {
  DomainError,
  illegalParams,
  isDomainError,
  messageFor,
  type ErrorCode,
  type Lang,
  type RefusalReason,
} from '#core/platform/errors.ts';
import { roomPatchSchema } from '#core/contracts/room-events.ts';
import type { Config } from '#core/platform/config.ts';
import type { Logger } from '#core/platform/logger.ts';
import type { Services } from '#core/services.ts';
import { toUserInfo, type Viewer } from '#core/account/account.service.ts';
import { teachingPictureList } from '#core/board/stencils.ts';
import { requestIp, requestLang, requestToken } from './request.ts';

interface CallContext {
  res: ServerResponse;
  lang: Lang;
  ip: string;
  token: string | null;
  requestId: string | undefined;
  /** Resolves the viewer; throws '7', '6' or '21001'. */
  viewer(): Promise<Viewer>;
}

/**
 * Call N's handler: gets the body as its schema parsed it, answers exactly call N's data (a wrong
 * answer shape is a compile error). The schema is looked up by name (core/contracts/api-inputs.ts).
 */
type Handler<N extends ApiName> = (ctx: CallContext, input: ApiInput<N>) => Promise<ApiData<N>>;
export type ApiHandlers = { [N in ApiName]: Handler<N> };

type IsUnion<T, U = T> = T extends unknown ? ([U] extends [T] ? false : true) : never;
/** Field names A has and B has not, at any depth (a structural type would let them through silently). */
type Extra<A, B> = [A] extends [readonly (infer E)[]]
  ? [B] extends [readonly (infer F)[]]
    ? Extra<E, F>
    : never
  : [A] extends [object]
    ? true extends IsUnion<B>
      ? never
      : [B] extends [object]
        ? { [K in keyof A]-?: K extends keyof B ? Extra<A[K], B[K]> : K }[keyof A]
        : never
    : never;
/** Each handler's answer, checked for fields its call does not declare. */
type ExactAnswers<H extends ApiHandlers> = {
  [N in ApiName]: [Extra<Awaited<ReturnType<H[N]>>, ApiData<N>>] extends [never]
    ? H[N]
    : { error: 'answers a field the contract does not declare'; field: Extra<Awaited<ReturnType<H[N]>>, ApiData<N>> };
};
/** Handlers typed by name whose answers are exactly their calls' data: missing, wrong and extra fields do not compile. */
export function exactHandlers<H extends ApiHandlers>(handlers: H & ExactAnswers<H>): ApiHandlers {
  return handlers;
}

function sessionCookie(config: Config, token: string, maxAgeSeconds: number): string {
  const parts = [`${SESSION_COOKIE}=${token}`, 'Path=/', 'HttpOnly', 'SameSite=Lax', `Max-Age=${maxAgeSeconds}`];
  if (config.cookieSecure) parts.push('Secure');
  return parts.join('; ');
}

function appendCookie(res: ServerResponse, cookie: string): void {
  const prior = res.getHeader('Set-Cookie');
  res.setHeader('Set-Cookie', prior === undefined ? [cookie] : [...(Array.isArray(prior) ? prior : [String(prior)]), cookie]);
}

function clearedCookie(config: Config): string {
  return sessionCookie(config, '', 0);
}

export function buildHandlers(services: Services, config: Config): ApiHandlers {
  const { account, rooms, billing } = services;
  /** Joining a room: a member (or the creator, or a screen-share publisher), or an observer by the creator's link. */
  const userJoin: Handler<'userJoinAgoraRoom'> = async (ctx, i) => {
    const userType = i.userType === undefined ? undefined : (String(i.userType) as '1' | '2' | '3');
    if (userType === '3') {
      const viewer = await ctx.viewer().catch(() => null);
      const { answer, newToken } = await rooms.observerJoin(viewer, { roomNumber: i.roomNumber, ot: i.ot ?? '', ip: ctx.ip });
      if (newToken) appendCookie(ctx.res, sessionCookie(config, newToken, config.TOURIST_SESSION_HOURS * 3600));
      return {
        ...answer,
        userRecordInfo: await services.recording.joinRecordInfo(i.roomNumber, answer.userRecordInfo),
        courseware: await services.courseware.roomCourseware(i.roomNumber),
      };
    }
    const answer = await rooms.join(await ctx.viewer(), { roomNumber: i.roomNumber, userType });
    return {
      ...answer,
      userRecordInfo: await services.recording.joinRecordInfo(i.roomNumber, answer.userRecordInfo),
      courseware: await services.courseware.roomCourseware(i.roomNumber),
    };
  };
  return exactHandlers({
    sendPhoneCode: (ctx, i) => account.sendPhoneCode({ mobile: i.mobile, area: i.area, ip: ctx.ip }),
    loginUser: async (ctx, i) => {
      const { user, token } = await account.login({ mobile: i.mobile, code: i.code, ip: ctx.ip });
      appendCookie(ctx.res, sessionCookie(config, token, config.SESSION_DAYS * 86400));
      return { userInfo: toUserInfo(user, token) };
    },
    logout: async (ctx) => {
      await account.logout(ctx.token);
      appendCookie(ctx.res, clearedCookie(config));
      return null;
    },
    queryUserInfoByToken: async (ctx, i) => {
      const viewer = await account.authenticate(i.token || ctx.token);
      return { userInfo: await account.getUserInfo(viewer, viewer.userId) };
    },
    getUserInfoById: async (ctx, i) => {
      await ctx.viewer();
      return { userInfo: await account.getPublicUser(i.id) };
    },
    getUserInfo: async (ctx, i) => {
      const viewer = await ctx.viewer();
      const userId = i.userId ?? viewer.userId;
      return { userInfo: userId === viewer.userId ? await account.getUserInfo(viewer, userId) : await account.getPublicUser(userId) };
    },
    updateUserName: async (ctx, i) => ({
      userInfo: await account.updateUserName(await ctx.viewer(), i.userName),
    }),
    createAgoraRoom: async (ctx, i) => ({
      roomInfo: await rooms.createRoom(await ctx.viewer(), { roomType: 1, consumption: i.consumption ?? 'off', requestId: ctx.requestId }),
    }),
    createRoom: async (ctx, i) => ({
      roomInfo: await rooms.createRoom(await ctx.viewer(), {
        roomType: Number(i.roomType) as 2 | 3 | 4,
        consumption: i.consumption ?? 'off',
        requestId: ctx.requestId,
      }),
    }),
    getRoomInfoByRoomNumber: async (ctx, i) => ({
      roomInfo: await services.roomLookups.roomInfo(await ctx.viewer().catch(() => null), ctx.ip, i.roomNumber),
    }),
    userJoinAgoraRoom: userJoin,
    // The older name of the same call (docs/product/01 §7, ADR 098).
    joinRoom: (ctx, i) => userJoin(ctx, i),
    updateRoomInfoByRoomNumber: async (ctx, i) => {
      const { roomNumber, ...fields } = i;
      const viewer = await ctx.viewer();
      // The room channel's patch schema holds the value rules (views, JSON extension, ranges).
      const patch = roomPatchSchema.safeParse(fields);
      if (!patch.success) throw illegalParams('room patch');
      await services.live.patch(await services.live.actorFor(viewer, roomNumber), patch.data);
      return { roomInfo: await rooms.getRoomInfo(roomNumber) };
    },
    createObserverLink: async (ctx, i) => rooms.createObserverLink(await ctx.viewer(), i.roomNumber),
    touristJoinRoom: async (ctx, i) => {
      await services.roomLookups.count(null, ctx.ip);
      const answer = await rooms.touristJoin({ roomNumber: i.roomNumber, userName: i.userName, ip: ctx.ip });
      // A signed-in teacher who joins as a visitor keeps their own session cookie.
      const hasSession = await ctx.viewer().then(
        (v) => v.type === '1',
        () => false,
      );
      if (!hasSession && answer.userInfo) {
        appendCookie(ctx.res, sessionCookie(config, answer.userInfo.userToken, config.TOURIST_SESSION_HOURS * 3600));
      }
      return {
        ...answer,
        userRecordInfo: await services.recording.joinRecordInfo(i.roomNumber, answer.userRecordInfo),
        courseware: await services.courseware.roomCourseware(i.roomNumber),
      };
    },
    // No account needed (ADR 092): counted per address; a visitor's demo identity gets its session.
    createDemo: async (ctx, i) => {
      const viewer = await ctx.viewer().catch(() => null);
      const { token, ...made } = await services.demo.create(viewer, { userName: i.userName, ip: ctx.ip, lang: ctx.lang });
      if (token) appendCookie(ctx.res, sessionCookie(config, token, config.TOURIST_SESSION_HOURS * 3600));
      return made;
    },
    getConsumptionStatus: async (ctx) => billing.getConsumptionStatus(await ctx.viewer()),
    getUserVipInfo: async (ctx) => ({ vipUserInfo: await billing.getUserVipInfo(await ctx.viewer()) }),
    createAgoraToken: async (ctx, i) => {
      if (!services.media) throw new DomainError('33005');
      return services.media.renew(await ctx.viewer(), i.roomNumber, String(i.userType) === '2', i.failedMediaUrl);
    },
    getMyRoomList: async (ctx, i) => {
      const list = await rooms.listMyRooms(await ctx.viewer(), i);
      return { ...list, roomList: await services.live.markLive(list.roomList) };
    },
    endMyRoom: async (ctx, i) => services.live.endFromList(await ctx.viewer(), i.roomNumber),
    delMyRoom: async (ctx, i) => services.rooms.deleteMyRoom(await ctx.viewer(), i.roomId),
    getGoodsList: async (ctx, i) => {
      await ctx.viewer();
      return services.orders.getGoodsList(i, ctx.lang);
    },
    getOrderList: async (ctx, i) => services.orders.getOrderList(await ctx.viewer(), i),
    createOrder: async (ctx, i) => ({
      orderInfo: await services.orders.createOrder(await ctx.viewer(), { goodsId: i.goodsId, requestId: ctx.requestId }, ctx.lang),
    }),
    getOrderInfo: async (ctx, i) => ({
      orderInfo: await services.orders.getOrderInfo(await ctx.viewer(), i.orderId),
    }),
    paymentOrder: async (ctx, i) => services.orders.paymentOrder(await ctx.viewer(), i),
    exchangePromoPoints: async (ctx, i) =>
      services.orders.exchangePoints(await ctx.viewer(), { goodsId: i.goodsId, requestId: ctx.requestId }, ctx.lang),
    getAdminMessageList: async (ctx, i) => {
      await ctx.viewer();
      return services.messaging.list(i);
    },
    createFeedbackCaptcha: async (ctx, i) => {
      await services.messaging.submitFeedback(await ctx.viewer(), i);
      return null;
    },
    addLog: async (ctx, i) => {
      const viewer = await ctx.viewer().catch(() => null);
      return services.site.addLog(viewer, i, ctx.ip);
    },
    createWbToken: async (ctx, i) => services.board.createToken(await ctx.viewer(), i),
    getWbReview: async (ctx, i) => services.board.review(await ctx.viewer(), i.roomNumber, i.page ?? 'wb:0'),
    createPhoneUploadLink: async (ctx, i) => services.board.phoneUploadLink(await ctx.viewer(), i.roomNumber),
    getTeachingPictureList: () => Promise.resolve({ teachingPictureList: JSON.stringify(teachingPictureList()) }),
    getRoomView: async (ctx, i) => services.roomView.view(await ctx.viewer(), i, ctx.ip),
    getResourceType: async (ctx) => {
      await ctx.viewer();
      return { resourceType: services.courseware.resourceType };
    },
    checkFileHash: async (ctx, i) => services.courseware.checkFileHash(await ctx.viewer(), i.fileHash),
    createUpyunSign: async (ctx, i) => services.courseware.signUpload(await ctx.viewer(), i),
    addRoomDocument: async (ctx, i) => services.courseware.register(await ctx.viewer(), i),
    updateDocumentNotice: async (ctx, i) => services.courseware.cancelUpload(await ctx.viewer(), i),
    closeRoomDocument: async (ctx, i) => services.courseware.closeRoom(await ctx.viewer(), i.roomNumber),
    getMyDocumentList: async (ctx, i) => services.courseware.list(await ctx.viewer(), i),
    delUserDocument: async (ctx, i) => services.courseware.delete(await ctx.viewer(), i),
    analysisDocumentExisting: async (ctx, i) => services.courseware.openExisting(await ctx.viewer(), i.documentId, i.roomNumber),
    getDocumentDownloadUrl: async (ctx, i) => services.courseware.downloadUrl(await ctx.viewer(), i.documentId),
    getRoomCourseware: async (ctx, i) => services.courseware.getRoomCourseware(await ctx.viewer(), i.roomNumber),
    startTask: async (ctx, i) => services.recording.startTask(await ctx.viewer(), i.roomNumber),
    stopTask: async (ctx, i) => services.recording.stopTask(await ctx.viewer(), i.roomNumber, i.taskId),
    startLive: async (ctx, i) => services.streaming.startLive(await ctx.viewer(), i.roomNumber, i.pushPlatform, i.pushStreamUrl),
    endLive: async (ctx, i) => services.streaming.endLive(await ctx.viewer(), i.roomNumber),
    getLiveState: async (ctx, i) => services.streaming.getLiveState(await ctx.viewer(), i.roomNumber),
    getLivePlatforms: async (ctx, i) => services.streaming.getLivePlatforms(await ctx.viewer(), i.roomNumber),
    createUploadToken: async (ctx, i) => services.studio.createUploadToken(await ctx.viewer(), i.mediaType),
    signUploadParts: async (ctx, i) => services.studio.signUploadParts(await ctx.viewer(), i),
    addlocalRecordFile: async (ctx, i) => services.studio.addlocalRecordFile(await ctx.viewer(), i),
    abortUpload: async (ctx, i) => services.studio.abortUpload(await ctx.viewer(), i.uploadToken),
    getRoomMemberRecordState: async (ctx, i) => services.recording.getRoomMemberRecordState(await ctx.viewer(), i.roomNumber),
    getRecordList: async (ctx, i) => services.recording.getRecordList(await ctx.viewer(), i),
    getRecordFileUrl: async (ctx, i) => services.recording.getRecordFileUrl(await ctx.viewer(), i),
    delRecord: async (ctx, i) => services.recording.delRecord(await ctx.viewer(), i.fileId),
    createRecordShareLink: async (ctx, i) => services.recording.createRecordShareLink(await ctx.viewer(), i.fileId),
    // No session: the watch page of a share link (ADR 073); counted per address.
    getSharedRecord: async (ctx, i) => services.recording.getSharedRecord(ctx.ip, i.token),
  });
}

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\b/i;
const FORM_TYPE = /^application\/x-www-form-urlencoded\b/i;
const MAX_FORM_FIELDS = 100;

class BodyError extends Error {
  readonly status: number;
  constructor(status: number) {
    super(`body error ${status}`);
    this.status = status;
  }
}

/** Reads the body up to `limit` bytes; invalid UTF-8 becomes U+FFFD and fails validation later. */
function readBody(req: IncomingMessage, limit: number): Promise<string> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > limit) {
    req.resume();
    return Promise.reject(new BodyError(413));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > limit) {
        reject(new BodyError(413));
        req.resume();
        req.removeAllListeners('data');
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(new TextDecoder('utf-8', { fatal: false }).decode(Buffer.concat(chunks))));
    req.on('error', () => reject(new BodyError(400)));
  });
}

function parseBody(text: string, contentType: string): unknown {
  if (text.trim() === '') return {};
  if (JSON_TYPE.test(contentType)) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new BodyError(400);
    }
  }
  if (FORM_TYPE.test(contentType) || contentType === '') {
    const params = new URLSearchParams(text);
    const out: Record<string, string> = Object.create(null) as Record<string, string>;
    let n = 0;
    for (const [k, v] of params) {
      if (++n > MAX_FORM_FIELDS) throw new BodyError(413);
      out[k] = v;
    }
    return out;
  }
  throw new BodyError(415);
}

function send(
  res: ServerResponse,
  lang: Lang,
  code: ErrorCode | '0',
  data: unknown,
  status = 200,
  msg?: string,
  reason?: RefusalReason,
): void {
  const body: Envelope<unknown> = {
    code,
    msg: msg ?? (code === '0' ? (lang === 'en' ? 'success' : '成功') : messageFor(code, lang)),
    data: code === '0' ? (data ?? null) : null,
    ...(reason ? { reason } : {}),
  };
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
  });
  res.end(text);
}

/**
 * Runs call N with the body its own schema parsed. `apiInputs[call].safeParse` yields the union of
 * every call's input; the name ties that input to its handler, which TypeScript cannot follow
 * through a union, hence the one widening here (the parse just above is what makes it true).
 */
function dispatch<N extends ApiName>(handlers: ApiHandlers, name: N, ctx: CallContext, input: unknown): Promise<ApiData<N>> {
  return (handlers[name] as (ctx: CallContext, input: unknown) => Promise<ApiData<N>>)(ctx, input);
}

/**
 * The /api handler on bare node:http (no framework on this hot path: it is most of the traffic).
 * `path` is the request path after `/api/`.
 */
export function createApiHandler(services: Services, config: Config, logger: Logger) {
  const handlers = buildHandlers(services, config);
  const limit = config.API_BODY_LIMIT_BYTES;

  return async (req: IncomingMessage, res: ServerResponse, name: string, query: URLSearchParams): Promise<void> => {
    const lang = requestLang(req);
    if (!Object.hasOwn(handlers, name)) {
      req.resume();
      return send(res, lang, '21', null, 404);
    }
    if (req.method !== 'POST') {
      req.resume();
      return send(res, lang, '8', null, 405);
    }
    let body: unknown;
    try {
      body = parseBody(await readBody(req, limit), String(req.headers['content-type'] ?? ''));
    } catch (err) {
      const status = err instanceof BodyError ? err.status : 400;
      if (status === 413) {
        const msg = lang === 'en' ? `Request body too large (at most ${limit} bytes)` : `请求内容过大（最多 ${limit} 字节）`;
        return send(res, lang, '5', null, 413, msg);
      }
      return send(res, lang, '5', null, status);
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return send(res, lang, '5', null, 400);
    const call = name as ApiName;
    const parsed = apiInputs[call].safeParse(body);
    if (!parsed.success) return send(res, lang, '5', null);
    const token = requestToken(req);
    const rawRequestId = query.get(REQUEST_ID_PARAM) ?? (body as Record<string, unknown>)[REQUEST_ID_PARAM];
    let viewerPromise: Promise<Viewer> | null = null;
    const ctx: CallContext = {
      res,
      lang,
      ip: requestIp(req, config.TRUST_PROXY),
      token,
      requestId: typeof rawRequestId === 'string' ? rawRequestId : undefined,
      viewer: () => (viewerPromise ??= services.account.authenticate(token)),
    };
    try {
      const data = await dispatch(handlers, call, ctx, parsed.data);
      send(res, lang, '0', data);
    } catch (err) {
      if (isDomainError(err)) {
        if (err.code === '9' || err.code === '20') logger.error({ err, api: name }, 'api service exception');
        return send(res, lang, err.code, null, 200, undefined, err.reason);
      }
      logger.error({ err, api: name }, 'api call failed unexpectedly');
      if (!res.headersSent) send(res, lang, '9', null);
    }
  };
}
