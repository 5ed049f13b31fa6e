/**
 * The user channel adapter: socket.io namespace `/user`. A page connects with its session cookie
 * (or `auth.token`); the socket joins the person's own socket.io room, and the event bus delivers
 * messages addressed to that person (`{ target: { user } }`) to every page they have open. Clients
 * ask nothing here: the dispatcher answers any request '5'.
 */
import type { Server } from 'socket.io';
import { USER_NAMESPACE, userKey, userRequests } from '#core/contracts/user-events.ts';
import { admitConnections, Dispatcher } from '#core/channel/dispatch.ts';
import { socketRouteOf } from './bus-routes.ts';
import type { Platform } from '../platform.ts';
import { requestLang, requestToken } from './request.ts';

export function attachUserChannel(io: Server, platform: Platform): { close(): void } {
  const { services, events, clock, logger } = platform;
  const nsp = io.of(USER_NAMESPACE);

  admitConnections(
    nsp,
    (socket) => requestLang(socket.request),
    async (socket, lang) => {
      const auth = (socket.handshake.auth as { token?: unknown } | undefined)?.token;
      const token = typeof auth === 'string' && auth ? auth : requestToken(socket.request);
      const viewer = await services.account.authenticate(token);
      await socket.join(userKey(viewer.userId));
      return { lang };
    },
  );

  nsp.on('connection', (socket) => {
    const lang = (socket.data as { lang: 'zh' | 'en' }).lang;
    new Dispatcher(userRequests, {}, { channel: 'user channel', clock, logger, lang, perSecond: 20, floodCode: '8' }).bind(socket);
  });

  const unsubscribe = events.subscribe((m) => {
    const r = socketRouteOf(m);
    if (r.nsp !== USER_NAMESPACE) return;
    nsp.to(r.room).emit(r.event, r.payload);
  });

  return { close: unsubscribe };
}
