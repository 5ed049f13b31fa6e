/**
 * Builds whiteboards of N operations straight into a room's log (seedBoard in tests/support: the same
 * checks, effects and snapshot rule as live operations, written in batches). The hook for the
 * browser side's paint benchmark as well as bench/board:
 *
 *   const last = await buildBoard(services.board, { room, uid: creatorId, role: 'creator' }, 'wb:0', 100_000);
 *
 * `shape: 'fresh'` is N strokes; `shape: 'cleared'` is N strokes, a clear, then `after` strokes
 * (a long day of drawing and wiping, ending with a small board).
 */
import type { BoardActor, BoardService } from '../../core/board/board.service.ts';
import { seedBoard } from '../../tests/support/board-seed.ts';
import type { BoardOp, StrokeData } from '../../core/contracts/board.ts';
import { BRUSH_COLOURS } from '../../core/contracts/board.ts';

/** A plausible hand-drawn stroke: `points` points in a wiggle around (x, y). */
export function strokeAt(i: number, points = 12): StrokeData {
  const x = (i * 37) % 980;
  const y = (i * 53) % 720;
  const flat: number[] = [];
  for (let k = 0; k < points; k++) flat.push(x + k * 3, y + Math.round(Math.sin(k + i) * 6));
  return { kind: 'stroke', points: flat, color: BRUSH_COLOURS[i % BRUSH_COLOURS.length]!, width: 3 + (i % 4) };
}

export function strokeOps(page: string, from: number, n: number, tag = 's'): BoardOp[] {
  return Array.from({ length: n }, (_, k) => ({
    opId: `${tag}${from + k}`,
    type: 'create',
    btype: 'brush',
    id: `${tag}${from + k}`,
    page,
    data: strokeAt(from + k),
  }));
}

export async function buildBoard(
  board: BoardService,
  actor: BoardActor,
  page: string,
  n: number,
  opts: { shape?: 'fresh' | 'cleared'; after?: number } = {},
): Promise<number> {
  const chunk = 10_000;
  let seq = 0;
  for (let from = 0; from < n; from += chunk) seq = await seedBoard(board, actor, strokeOps(page, from, Math.min(chunk, n - from)));
  if (opts.shape === 'cleared') {
    await seedBoard(board, actor, [{ opId: `clear-${page}`, type: 'clear', page }]);
    seq = await seedBoard(board, actor, strokeOps(page, n, opts.after ?? 1000, 'a'));
  }
  return seq;
}
