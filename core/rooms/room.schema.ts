import { z } from 'zod';

/** The join box accepts 6 to 10 letters or digits (docs/product/decisions.md); rooms are 6 digits. */
export const ROOM_NUMBER_RULE = /^[A-Za-z0-9]{6,10}$/;

const roomNumber = z.string().max(64);

export const createAgoraRoomInput = z.object({
  roomType: z.union([z.literal(1), z.literal('1')]).optional(),
  consumption: z.enum(['on', 'off']).optional(),
});

export const createRoomInput = z.object({
  roomType: z.union([z.literal(2), z.literal(3), z.literal(4), z.literal('2'), z.literal('3'), z.literal('4')]),
  consumption: z.enum(['on', 'off']).optional(),
});

export const roomNumberInput = z.object({ roomNumber });

export const joinInput = z.object({
  roomNumber,
  userType: z.union([z.literal('1'), z.literal('2'), z.literal('3'), z.literal(1), z.literal(2), z.literal(3)]).optional(),
  ot: z.string().max(2048).optional(),
});

/** The room-info save of docs/product/02-live-classroom.md §7: form-encoded strings or JSON; the live service checks each field. */
export const updateRoomInfoInput = z.object({
  roomNumber,
  showState: z.string().max(32).optional(),
  pptId: z.string().max(64).optional(),
  pptCurrentPage: z
    .union([
      z.number(),
      z
        .string()
        .regex(/^\d{1,6}$/)
        .transform(Number),
    ])
    .optional(),
  wbPower: z.enum(['0', '1']).optional(),
  roomExtend: z.string().max(4096).optional(),
});

export const touristJoinInput = z.object({ roomNumber, userName: z.string().max(64) });

/** A whole number as JSON number or as the digits of a form field; nothing else. */
const wholeNumber = (min: number, max: number) =>
  z
    .union([z.number(), z.string().regex(/^\d{1,16}$/)])
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));

/** "My classrooms": by page (1-based, with the total) or after `pageTime` (the older cursor); `roomType` filters. */
export const myRoomsInput = z.object({
  pageTime: wholeNumber(0, Date.UTC(9999, 11, 31)).optional(),
  pageSize: wholeNumber(1, 50).optional(),
  page: wholeNumber(1, 10_000).optional(),
  roomType: wholeNumber(1, 4).optional(),
});

/** A room of the list, by its row: a closed room's number may belong to a newer room. */
export const delMyRoomInput = z.object({ roomId: z.string().regex(/^[1-9]\d{0,17}$/) });

export const mediaTokenInput = z.object({
  roomNumber,
  userType: z.union([z.literal('1'), z.literal('2'), z.literal(1), z.literal(2)]).optional(),
  /** The media URL this client lost (ADR 097): the web role checks that node answers before it trusts the placement. */
  failedMediaUrl: z.url().max(500).optional(),
});

/** A demo room (ADR 092): the host's name is optional (a default in the caller's language). */
export const createDemoInput = z.object({ userName: z.string().max(64).optional() });
