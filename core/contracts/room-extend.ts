/**
 * The room's free-form extension, `roomExtend`: a JSON object as text, at most 4 KiB. The room keeps
 * it whole; the board reads three of its fields (ADR 034): the background colour (an index of
 * BACKGROUND_COLOURS), the whiteboard page (0-based) and whether members follow the creator's zoom
 * and pan (`follow: 1`). Every reader goes through `readRoomExtend` (issue 29: it was parsed by hand
 * in five places), so a missing, odd or out-of-range field reads the same everywhere: colour 0, page 0, no follow.
 */
import { z } from 'zod';
import { BACKGROUND_COLOURS, BOARD_LAST_PAGE } from './board.ts';

export const ROOM_EXTEND_MAX_CHARS = 4096;

/** The text as the room channel takes it in a patch: a JSON object, at most 4 KiB. */
export const roomExtendTextSchema = z
  .string()
  .max(ROOM_EXTEND_MAX_CHARS)
  .refine((t) => extendFields(t) !== null, 'a JSON object');

/** A whole number in [0, max], from what the old clients wrote (numbers, sometimes as strings); 0 otherwise. */
const index = (max: number) => z.coerce.number().int().min(0).max(max).catch(0);

/** The board's fields of the object; any other field is kept but not read. */
const boardFieldsSchema = z.object({
  color: index(BACKGROUND_COLOURS.length - 1),
  pageIndex: index(BOARD_LAST_PAGE),
  follow: z
    .unknown()
    .optional()
    .transform((v) => v === 1),
});

export interface RoomExtend {
  /** Background colour: an index of BACKGROUND_COLOURS. */
  color: number;
  /** The whiteboard page, 0-based, at most BOARD_LAST_PAGE. */
  pageIndex: number;
  /** Members follow the creator's zoom and pan. */
  follow: boolean;
  /** Every field of the object as it was (none when the text was not a JSON object). */
  fields: Record<string, unknown>;
}

/** The JSON object the text holds, or null when it holds something else (or nothing). */
function extendFields(text: string): Record<string, unknown> | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
}

/** What a room's roomExtend says; empty or broken text reads as `{}`. */
export function readRoomExtend(text: string): RoomExtend {
  const fields = extendFields(text || '{}') ?? {};
  return { ...boardFieldsSchema.parse(fields), fields };
}

/** roomExtend with some fields changed, every other field kept. */
export function writeRoomExtend(text: string, change: Record<string, unknown>): string {
  return JSON.stringify({ ...readRoomExtend(text).fields, ...change });
}
