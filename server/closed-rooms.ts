/**
 * A room closed anywhere, in any process (a web node's end of class, the worker's housekeeping,
 * a demo's end), closes its sockets on this web node (ADR 096): every process tells every other of
 * a change of a room's state (ADR 062); a node that hears one reads the room and, when it is
 * closed, disconnects its own room and board sockets of it a moment later (after the `roomClosed`
 * event, which reaches them through Redis).
 */
import type { Server } from 'socket.io';
import { BOARD_NAMESPACE } from '#core/contracts/board.ts';
import { roomKey } from './web/bus-routes.ts';
import type { Platform } from './platform.ts';

/** The pause before the disconnect, as after an end of class on the room channel. */
const CLOSE_AFTER_MS = 1000;

export function attachClosedRooms(io: Server, platform: Platform): { close(): void } {
  const { services, logger } = platform;
  const timers = new Set<NodeJS.Timeout>();
  const off = services.roomState.onChange((change) => {
    if (!change.fields.includes('state')) return;
    const room = change.roomNumber;
    services.board
      .roomRow(room)
      .then((row) => {
        if (row.state !== 'closed') return;
        const timer = setTimeout(() => {
          timers.delete(timer);
          io.of('/room').local.in(roomKey(room)).disconnectSockets(true);
          io.of(BOARD_NAMESPACE).local.in(`board:${room}`).disconnectSockets(true);
        }, CLOSE_AFTER_MS);
        timer.unref();
        timers.add(timer);
      })
      .catch((err: unknown) => logger.warn({ err, room }, 'closed room check failed'));
  });
  return {
    close() {
      off();
      for (const t of timers) clearTimeout(t);
      timers.clear();
    },
  };
}
