/**
 * Writes many operations of one author into a room's board log at once (benchmarks and paint
 * tests build a board of 100,000 operations this way): the same checks, effects, history and
 * snapshot rule as `BoardService.submit`, stored in batches of `batch` rows per statement, not
 * broadcast. Returns the last seq. Kept out of the product: only tests and benchmarks seed boards.
 */
import type { BoardRoomRow } from '#core/board/board.repository.ts';
import type { BoardLog, LoadedLayer, RoomBoard } from '#core/board/board-log.ts';
import { type BoardActor, type BoardService, checkSlideLayer, facts } from '#core/board/board.service.ts';
import { parseOp } from '#core/board/model.ts';
import { mayOperate } from '#core/board/permissions.ts';
import type { BoardOp } from '#core/contracts/board.ts';
import { DomainError, illegalParams, notAllowed } from '#core/platform/errors.ts';

export async function seedBoard(service: BoardService, actor: BoardActor, ops: readonly BoardOp[], batch = 1000): Promise<number> {
  const log = service.log;
  const row = await service.roomRow(actor.room);
  const board = await log.board(row);
  return log.serial(board, async () => {
    try {
      return await seedAll(log, actor, row, board, ops, batch);
    } catch (err) {
      // Memory may be ahead of the log now: start this room again from the database.
      log.forget(row.room_number);
      throw err;
    }
  });
}

async function seedAll(
  log: BoardLog,
  actor: BoardActor,
  row: BoardRoomRow,
  board: RoomBoard,
  ops: readonly BoardOp[],
  batch: number,
): Promise<number> {
  {
    let pending: Array<{ page: string; opId: string; uid: string; body: string }> = [];
    const touched = new Set<LoadedLayer>();
    const flush = async () => {
      if (!pending.length) return;
      await log.repo.insertMany(board.roomId, board.seq - pending.length, pending);
      pending = [];
      for (const l of touched) {
        if (log.snapshotDue(l)) await log.snapshot(board, l);
      }
      touched.clear();
    };
    for (const raw of ops) {
      const checked = parseOp(raw);
      if (!checked.ok) throw illegalParams(checked.error);
      const op = checked.value;
      if (!mayOperate(actor, facts(row), op.type)) throw notAllowed(`board ${op.type}`);
      checkSlideLayer(row, op.page);
      const l = await log.layer(board, op.page);
      const stored = log.plan(l, op, actor.uid, board.seq + 1);
      if ('error' in stored) throw new DomainError('32101', stored.error);
      pending.push({ page: op.page, opId: op.opId, uid: actor.uid, body: JSON.stringify(stored) });
      log.rememberOpId(board, op.opId, stored.seq);
      log.replay(l, stored);
      board.seq = stored.seq;
      l.tail++;
      touched.add(l);
      if (pending.length >= batch || op.type === 'clear') await flush();
    }
    await flush();
    return board.seq;
  }
}
