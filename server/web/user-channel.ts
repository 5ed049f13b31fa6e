/**
 * The user channel adapter: socket.io namespace `/user`. A page connects with its session cookie
 * (or `auth.token`); the socket joins the person's own socket.io room, and the event bus delivers
 * messages addressed to that person (`{ target: { user } }`) to every page they have open.
 */
import type { Server } from 'socket.io';
import { messageFor, isDomainError, type ErrorCode } from '#core/platform/errors.ts';
import { USER_NAMESPACE, userKey } from '#core/contracts/user-events.ts';
import { socketRouteOf } from './bus-routes.ts';
import type { Platform } from '../platform.ts';
import { requestLang, requestToken } from './request.ts';

export function attachUserChannel(io: Server, platform: Platform): { close(): void } {
  const { services, events } = platform;
  const nsp = io.of(USER_NAMESPACE);

  nsp.use((socket, next) => {
    const auth = (socket.handshake.auth as { token?: unknown } | undefined)?.token;
    const token = typeof auth === 'string' && auth ? auth : requestToken(socket.request);
    services.account.authenticate(token).then(
      (viewer) => {
        void socket.join(userKey(viewer.userId));
        next();
      },
      (err: unknown) => {
        const code: ErrorCode = isDomainError(err) ? err.code : '9';
        next(Object.assign(new Error(code), { data: { code, msg: messageFor(code, requestLang(socket.request)) } }));
      },
    );
  });

  const unsubscribe = events.subscribe((m) => {
    const r = socketRouteOf(m);
    if (r.nsp !== USER_NAMESPACE) return;
    nsp.to(r.room).emit(r.event, r.payload);
  });

  return { close: unsubscribe };
}
