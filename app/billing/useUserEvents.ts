import { useEffect, useLayoutEffect, useRef } from 'react';
import { io, type Socket } from 'socket.io-client';
import type { CoursewareUserEvents } from '#core/contracts/courseware.ts';
import { USER_NAMESPACE, type UserClientToServer, type UserServerToClient } from '#core/contracts/user-events.ts';

/**
 * The person's own channel (/user): the session cookie identifies the page. Handlers are kept in a
 * ref so a re-render does not reconnect.
 */
export function useUserEvents(
  handlers: {
    paymentSuccess?: (p: { orderId: string }) => void;
    addDocumentConvertEvent?: CoursewareUserEvents['addDocumentConvertEvent'];
    documentStatus?: CoursewareUserEvents['documentStatus'];
    /** A cloud recording's MP4 is listed (the recordings library refreshes). */
    roomRecord?: UserServerToClient['roomRecord'];
    /** A studio take's MP4 is made, or could not be (the recordings library refreshes). */
    studioRecord?: UserServerToClient['studioRecord'];
  },
  enabled = true,
): void {
  const ref = useRef(handlers);
  // The latest handlers, before any event can arrive.
  useLayoutEffect(() => {
    ref.current = handlers;
  });
  useEffect(() => {
    if (!enabled) return;
    const socket: Socket<UserServerToClient, UserClientToServer> = io(USER_NAMESPACE, { transports: ['websocket'], withCredentials: true });
    socket.on('paymentSuccess', (p) => ref.current.paymentSuccess?.(p));
    // The document library follows conversions (core/contracts/courseware.ts user events).
    const loose = socket as unknown as {
      on(event: string, handler: (p: Parameters<CoursewareUserEvents['documentStatus']>[0]) => void): void;
    };
    loose.on('addDocumentConvertEvent', (p) => ref.current.addDocumentConvertEvent?.(p));
    loose.on('documentStatus', (p) => ref.current.documentStatus?.(p));
    socket.on('roomRecord', (p) => ref.current.roomRecord?.(p));
    socket.on('studioRecord', (p) => ref.current.studioRecord?.(p));
    return () => {
      socket.close();
    };
  }, [enabled]);
}
