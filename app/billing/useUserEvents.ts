import { useEffect, useLayoutEffect, useRef } from 'react';
import { io } from 'socket.io-client';
import { openChannel, type ChannelProblem, type ChannelSocket } from '#core/channel/open.ts';
import { USER_NAMESPACE, userChannel, type UserServerToClient } from '#core/contracts/user-events.ts';
import { channelLog } from '#app/lib/client-log.ts';

/** What a page hears on the person's own channel; each handler is optional. */
export type UserEventHandlers = {
  paymentSuccess?: UserServerToClient['paymentSuccess'];
  /** The document library follows conversions (core/contracts/courseware.ts user events). */
  addDocumentConvertEvent?: UserServerToClient['addDocumentConvertEvent'];
  documentStatus?: UserServerToClient['documentStatus'];
  /** A cloud recording's MP4 is listed (the recordings library refreshes). */
  roomRecord?: UserServerToClient['roomRecord'];
  /** A studio take's MP4 is made, or could not be (the recordings library refreshes). */
  studioRecord?: UserServerToClient['studioRecord'];
};

/**
 * The user channel's events on `socket`, each parsed by its schema (a message that breaks it is
 * told to `log` and dropped, ADR 108), handed to the handlers `current()` gives at that moment.
 * Returns the unsubscribe.
 */
export function listenUserEvents(
  socket: ChannelSocket,
  current: () => UserEventHandlers,
  log: (problem: ChannelProblem) => void = channelLog(),
): () => void {
  const channel = openChannel(userChannel, socket, { log });
  channel.on('paymentSuccess', (p) => current().paymentSuccess?.(p));
  channel.on('addDocumentConvertEvent', (p) => current().addDocumentConvertEvent?.(p));
  channel.on('documentStatus', (p) => current().documentStatus?.(p));
  channel.on('roomRecord', (p) => current().roomRecord?.(p));
  channel.on('studioRecord', (p) => current().studioRecord?.(p));
  return () => channel.close();
}

/**
 * The person's own channel (/user): the session cookie identifies the page. Handlers are kept in a
 * ref so a re-render does not reconnect.
 */
export function useUserEvents(handlers: UserEventHandlers, enabled = true): void {
  const ref = useRef(handlers);
  // The latest handlers, before any event can arrive.
  useLayoutEffect(() => {
    ref.current = handlers;
  });
  useEffect(() => {
    if (!enabled) return;
    const socket = io(USER_NAMESPACE, { transports: ['websocket'], withCredentials: true });
    const stop = listenUserEvents(socket, () => ref.current);
    return () => {
      stop();
      socket.close();
    };
  }, [enabled]);
}
