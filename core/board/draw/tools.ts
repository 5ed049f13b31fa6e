/** Tool state of the board (docs/product/03-board-courseware-billing.md §4 whiteboard tools) and a few pure helpers for it. */
import { BACKGROUND_COLOURS, BOARD_LAST_PAGE, ZOOM_STEPS, type BrushColour, type ShapeKind } from '#core/contracts/board.ts';
import { readRoomExtend, writeRoomExtend } from '#core/contracts/room-extend.ts';

/** Exactly one is active; brush by default. Image upload is a one-off action, not a mode. */
export type ToolName = 'choose' | 'brush' | 'eraser' | 'shape' | 'text';

export type ShapePick = { kind: 'shape'; shape: ShapeKind } | { kind: 'stencil'; stencilId: string; url: string; name: string };

export interface ToolState {
  tool: ToolName;
  color: BrushColour;
  width: number;
  pick: ShapePick;
}

export const DEFAULT_TOOLS: ToolState = { tool: 'brush', color: 'red', width: 4, pick: { kind: 'shape', shape: 'line' } };

export const BASIC_SHAPES: readonly ShapeKind[] = [
  'line',
  'arrow',
  'dottedline',
  'triangle',
  'circle',
  'rightTriangle',
  'rectangle',
  'ellipse',
];

/** The btype a shape is recorded with (docs/product/03-board-courseware-billing.md §3). */
export function shapeBtype(shape: ShapeKind): 'line' | 'dottedline' | 'graph' {
  if (shape === 'line' || shape === 'arrow') return 'line';
  if (shape === 'dottedline') return 'dottedline';
  return 'graph';
}

/** The next zoom step up or down from the current zoom (a fraction, 1 = 100 %). */
export function stepZoom(current: number, direction: 1 | -1): number {
  const pct = Math.round(current * 100);
  if (direction > 0) {
    const next = ZOOM_STEPS.find((s) => s > pct);
    return (next ?? ZOOM_STEPS[ZOOM_STEPS.length - 1]!) / 100;
  }
  const lower = [...ZOOM_STEPS].reverse().find((s) => s < pct);
  return (lower ?? ZOOM_STEPS[0]) / 100;
}

/** What roomExtend says about the board: background colour index and page (core/contracts/room-extend.ts). */
export interface BoardExtend {
  color: number;
  pageIndex: number;
}

export function readExtend(roomExtend: string): BoardExtend {
  const { color, pageIndex } = readRoomExtend(roomExtend);
  return { color, pageIndex };
}

/** Does roomExtend say members follow the creator's zoom and pan (`follow: 1`, ADR 034)? */
export function readFollow(roomExtend: string): boolean {
  return readRoomExtend(roomExtend).follow;
}

/** roomExtend with some fields changed, every other field kept. */
export function writeExtend(roomExtend: string, change: Partial<BoardExtend> & { follow?: 0 | 1 }): string {
  return writeRoomExtend(roomExtend, change);
}

export function nextBackground(index: number): number {
  return (index + 1) % BACKGROUND_COLOURS.length;
}

export function wbLayer(page: number): string {
  return `wb:${Math.max(0, Math.min(BOARD_LAST_PAGE, page))}`;
}

/** Who may draw (docs/product/03-board-courseware-billing.md §6): the creator always; members while wbPower is on, never in type 4. */
export function mayDraw(role: string, wbPower: string, roomType: number): boolean {
  if (role === 'creator') return true;
  if (role !== 'member' && role !== 'tourist') return false;
  return wbPower === '1' && roomType !== 4;
}

/** Toolbar width of docs/product/03-board-courseware-billing.md §9, in CSS pixels. */
export function toolbarWidth(isCreator: boolean, phone: boolean): number {
  if (phone) return 318;
  return isCreator ? 575 : 356;
}
