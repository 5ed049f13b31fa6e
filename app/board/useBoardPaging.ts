/**
 * Paging and the room-wide board settings: the page and background colour come from the room's
 * roomExtend, so everyone follows the creator, who changes them through the room channel's patch;
 * a review of a past class pages on its own.
 */
import { useCallback, useState } from 'react';
import type { RoomPatch } from '#core/contracts/room-events.ts';
import { BOARD_LAST_PAGE } from '#core/contracts/board.ts';
import { readExtend, readFollow, wbLayer, writeExtend } from '#core/board/draw/tools.ts';

export function useBoardPaging(options: {
  roomExtend: string;
  readOnly: boolean;
  isCreator: boolean;
  /** A courseware slide's own layer, in place of the board page's. */
  slideLayer: string | null;
  onPatch: ((patch: RoomPatch) => Promise<boolean>) | undefined;
  /** A breakout group's page (ADR 118): shown in place of the room's, and no page turning. */
  fixedPage?: number | null | undefined;
}) {
  const { roomExtend, readOnly, isCreator, slideLayer, onPatch } = options;
  const fixedPage = options.fixedPage ?? null;
  const extend = readExtend(roomExtend);
  const [reviewPage, setReviewPage] = useState(0);
  const pageIndex = readOnly ? reviewPage : (fixedPage ?? extend.pageIndex);
  const page = slideLayer ?? wbLayer(pageIndex);
  // 'Follow me': members see the creator's zoom and pan (move_by_presenter, ADR 034).
  const follow = !readOnly && fixedPage === null && readFollow(roomExtend);

  const patchExtend = useCallback(
    async (change: { color?: number; pageIndex?: number; follow?: 0 | 1 }) => {
      if (!onPatch) return false;
      return onPatch({ roomExtend: writeExtend(roomExtend, change) });
    },
    [onPatch, roomExtend],
  );

  const goPage = (next: number) => {
    const bounded = Math.max(0, Math.min(BOARD_LAST_PAGE, next));
    if (readOnly) setReviewPage(bounded);
    else if (isCreator && fixedPage === null) void patchExtend({ pageIndex: bounded });
  };

  return { background: extend.color, pageIndex, page, follow, patchExtend, goPage };
}
