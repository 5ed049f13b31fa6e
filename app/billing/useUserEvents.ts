import { useEffect, useRef } from 'react';
import { io, type Socket } from 'socket.io-client';
import { USER_NAMESPACE, type UserClientToServer, type UserServerToClient } from '#core/contracts/user-events.ts';

/**
 * The person's own channel (/user): the session cookie identifies the page. Handlers are kept in a
 * ref so a re-render does not reconnect.
 */
export function useUserEvents(handlers: { paymentSuccess?: (p: { orderId: string }) => void }, enabled = true): void {
  const ref = useRef(handlers);
  ref.current = handlers;
  useEffect(() => {
    if (!enabled) return;
    const socket: Socket<UserServerToClient, UserClientToServer> = io(USER_NAMESPACE, { transports: ['websocket'], withCredentials: true });
    socket.on('paymentSuccess', (p) => ref.current.paymentSuccess?.(p));
    return () => {
      socket.close();
    };
  }, [enabled]);
}
