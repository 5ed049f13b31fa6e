/**
 * The board across web nodes (ADR 096). Each web node sends the `sync` of a room's board to its
 * own sockets only, in the room's sequence order, once: the operations it stores itself and the
 * ones other nodes store, which reach it here through Redis (channel `banshu:board-ops`) and are
 * taken by its board log in order (a gap makes it catch up from the database). The socket.io
 * adapter is not used for `sync`: two nodes emitting through it could be heard out of order.
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { sequencedOpSchema } from '#core/contracts/board.ts';
import type { BoardLog, StoredOp } from '#core/board/board-log.ts';
import type { Logger } from '#core/platform/logger.ts';
import { ROOM_NUMBER_RULE } from '#core/rooms/room.schema.ts';
import { openClient, quit, ready } from './redis.ts';

const BOARD_OPS_CHANNEL = 'banshu:board-ops';

const relayed = z.strictObject({
  origin: z.string().min(1).max(64),
  room: z.string().regex(ROOM_NUMBER_RULE),
  roomId: z.string().min(1).max(64),
  op: sequencedOpSchema.extend({ target: z.number().int().optional() }),
});

export async function connectBoardOpRelay(url: string, log: BoardLog, logger: Logger): Promise<{ close(): Promise<void> }> {
  const origin = randomUUID();
  // Publishing fails at once while Redis is down (the other nodes catch up at their next gap,
  // load or write); the subscription waits and is renewed on reconnect.
  // An outage is a warning here: the adapter's clients already report it as an error.
  const pub = openClient(url, logger, 'board-ops-pub', { enableOfflineQueue: false }, 'warn');
  const sub = openClient(url, logger, 'board-ops-sub', { maxRetriesPerRequest: null }, 'warn');
  sub.on('message', (channel: string, text: string) => {
    if (channel !== BOARD_OPS_CHANNEL) return;
    let m: z.infer<typeof relayed>;
    try {
      m = relayed.parse(JSON.parse(text));
    } catch (err) {
      logger.warn({ err }, 'board operation from redis refused');
      return;
    }
    if (m.origin === origin) return;
    log
      .heard(m.room, m.roomId, m.op as StoredOp)
      .catch((err: unknown) => logger.warn({ err, room: m.room }, 'relayed board operation failed'));
  });
  await Promise.all([ready(pub, logger, 'board-ops-pub'), ready(sub, logger, 'board-ops-sub')]);
  void sub.subscribe(BOARD_OPS_CHANNEL);
  const off = log.onOperation((room, _op, told) => {
    if (!told.own || pub.status !== 'ready') return;
    void pub.publish(BOARD_OPS_CHANNEL, JSON.stringify({ origin, room, roomId: told.roomId, op: told.stored }));
  });
  return {
    async close() {
      off();
      await Promise.all([quit(pub), quit(sub)]);
    },
  };
}
