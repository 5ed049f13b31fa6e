/** Pure rules of the courseware view (docs/product/03-board-courseware-billing.md §4 paging): bounds, portrait pages, scroll steps. */
import { SLIDE_SCROLL_MAX, SLIDE_SCROLL_STEP, type RoomCourseware } from '#core/contracts/courseware.ts';

export const NO_COURSEWARE: RoomCourseware = {
  documentId: '',
  documentName: '',
  documentType: 0,
  resourceType: 1,
  images: [],
  videoUrl: '',
  sizes: [],
  pptCurrentPage: 0,
  pptTotalPage: 0,
  status: 3,
};

/** The page bounded to 1..total (0 when there are no pages). */
export function boundPage(page: number, total: number): number {
  if (total <= 0) return 0;
  if (!Number.isFinite(page)) return 1;
  return Math.max(1, Math.min(total, Math.round(page)));
}

/** A tall page (width / height < 1) scrolls instead of shrinking. */
export function isPortrait(size: { width: number; height: number } | undefined): boolean {
  return !!size && size.width > 0 && size.height > 0 && size.width / size.height < 1;
}

/** One step up (-1) or down (+1), 0..1.8 in tenths, without float drift. */
export function stepScroll(scroll: number, direction: 1 | -1): number {
  const tenths = Math.round(scroll / SLIDE_SCROLL_STEP) + direction;
  const max = Math.round(SLIDE_SCROLL_MAX / SLIDE_SCROLL_STEP);
  return Math.max(0, Math.min(max, tenths)) / 10;
}

/** The scroll the room block carries (the contract sends it as `scroll` beside the page when set). */
export function scrollOf(cw: RoomCourseware): number {
  const raw = (cw as RoomCourseware & { scroll?: unknown }).scroll;
  const n = typeof raw === 'number' ? raw : Number(raw);
  return Number.isFinite(n) ? Math.max(0, Math.min(SLIDE_SCROLL_MAX, Math.round(n * 10) / 10)) : 0;
}

export type CoursewareView = 'default' | 'uploading' | 'holdon' | 'loaded' | 'video';

/** Which view of docs/product/03-board-courseware-billing.md §2.1 the panel shows. */
export function coursewareView(cw: RoomCourseware, isCreator: boolean, uploading: boolean): CoursewareView {
  if (cw.documentId && cw.documentType === 3 && cw.videoUrl) return 'video';
  if (cw.documentId && cw.images.length > 0) return 'loaded';
  if (isCreator) return uploading || (cw.documentId && cw.status !== 2 && cw.status !== 4) ? 'uploading' : 'default';
  return 'holdon';
}

/**
 * Where a portrait page's image sits under the board window (1024 x 768 board units): drawn the
 * board's width wide, moved up by `scroll` board heights, never past its bottom edge.
 */
export function slideOffset(size: { width: number; height: number }, scroll: number, boardW: number, boardH: number): number {
  if (!isPortrait(size)) return 0;
  const drawnH = (boardW * size.height) / size.width;
  return Math.max(0, Math.min(drawnH - boardH, scroll * boardH));
}
