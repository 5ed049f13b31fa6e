/**
 * The whiteboard channel (socket.io namespace `/board`), shared by the server and the browser.
 *
 * A connection proves who it is with the board token from `/api/createWbToken`
 * (handshake `auth.token`; the token names room, user and role and expires). Every request is
 * acknowledged with `{code, msg, data?}` like the room channel. The server authorises each
 * operation (creator always; members only while `wbPower` is '1' and the room type is not 4;
 * observers and tourists in type 4 never), gives it the room's next sequence number, stores it,
 * then broadcasts it to everyone on the board (the author included, so every client applies the
 * same ordered log). A repeated `opId` is answered with the sequence number it already got and is
 * not applied twice.
 *
 * Coordinates are board units on the base canvas of 1024 x 768 (docs/product/03-board-courseware-billing.md §9); slides use the
 * same units scaled from their 800 x 600 canvas, so a drawing keeps its place at any zoom.
 */
import { z } from 'zod';
import { bounded, call, channelContract, whole, type Events, type Requests } from './channel.ts';
import { roomCoursewareSchema } from './courseware.ts';

export const BOARD_NAMESPACE = '/board';
/** A connection whose handshake `auth.version` is older is refused with '10' (reload the page). */
export const BOARD_PROTOCOL_VERSION = 1;
export const BOARD_WIDTH = 1024;
export const BOARD_HEIGHT = 768;
/** Whiteboard pages 0..20. */
export const BOARD_LAST_PAGE = 20;

/**
 * A board layer. Whiteboard pages are `wb:0` .. `wb:20`; a courseware slide has its own layer
 * `doc:{documentId}:{slide}` (slide from 1). Operations, sequence numbers and clears are per room;
 * an operation touches exactly one layer.
 */
export type LayerKey = string;

export const BRUSH_COLOURS = ['red', 'orange', 'yellow', 'purple', 'blue', 'green', 'black', 'deepgrey'] as const;
export type BrushColour = (typeof BRUSH_COLOURS)[number];
export const BRUSH_WIDTHS = [3, 4, 5, 6] as const;
export const DEFAULT_BRUSH_WIDTH = 4;
export const ERASER_WIDTH = 20;
export const TEXT_BOX_WIDTH = 150;
export const TEXT_FONT_SIZE = 18;
export const BACKGROUND_COLOURS = ['#F2F2F2', '#CCE8D1', '#DCE2F1', '#487CFF', '#FDE6E0'] as const;
export const ZOOM_STEPS = [10, 15, 20, 33, 50, 75, 100, 125, 150] as const;

export const OP_TYPES = ['create', 'update', 'delete', 'move', 'undo', 'redo', 'move_by_presenter', 'clear'] as const;
export type OpType = (typeof OP_TYPES)[number];
export const BTYPES = ['brush', 'choose', 'uploadImg', 'kbText', 'graph', 'line', 'dottedline', 'eraser'] as const;
export type BType = (typeof BTYPES)[number];

export const SHAPE_KINDS = [
  'line',
  'arrow',
  'dottedline',
  'triangle', // equilateral, inside the dragged box
  'circle', // inside the dragged box, diameter = the shorter side
  'rightTriangle',
  'rectangle',
  'ellipse',
] as const;
export type ShapeKind = (typeof SHAPE_KINDS)[number];

/** Bounds of what one operation may carry. */
export const BOARD_LIMITS = {
  /** Longest id, opId, stencil id. */
  idLength: 64,
  /** Longest image object key. */
  srcLength: 256,
  /** Numbers in a stroke's flat point list (x and y each count): 10,000 points. */
  strokeNumbers: 20_000,
  /** Numbers in one live stroke batch. */
  progressNumbers: 2_000,
  textLength: 2_000,
  /** Ids one delete or move may name. */
  idsPerOp: 2_000,
  /** Coordinates may leave the canvas a little (drawing past the edge) and go far down
   * (a board scrolls down 20 pages); anything further is a bad payload. */
  minX: -BOARD_WIDTH,
  maxX: BOARD_WIDTH * 2,
  minY: -BOARD_HEIGHT,
  maxY: BOARD_HEIGHT * 22,
  minWidth: 1,
  maxWidth: 64,
  minFont: 8,
  maxFont: 96,
  /** Largest id number in a `doc:` layer key (document id and slide). */
  maxDocNumber: 1_000_000_000,
} as const;

const ID_RE = /^[A-Za-z0-9_.:-]+$/;
/** Object keys of board images: letters, digits and `/_.-`, no `..`. */
const SRC_RE = /^[A-Za-z0-9_/.-]+$/;
const WB_RE = /^wb:(\d{1,2})$/;
const DOC_RE = /^doc:([A-Za-z0-9_-]{1,64}):(\d{1,10})$/;

export type ParsedLayer = { kind: 'wb'; page: number } | { kind: 'doc'; documentId: string; slide: number };

/** `wb:0`..`wb:20` or `doc:{documentId}:{slide}` (slide from 1); anything else is null. */
export function parseLayerKey(key: unknown): ParsedLayer | null {
  if (typeof key !== 'string' || key.length > 80) return null;
  const wb = WB_RE.exec(key);
  if (wb) {
    const page = Number(wb[1]);
    if (String(page) !== wb[1] || page > BOARD_LAST_PAGE) return null;
    return { kind: 'wb', page };
  }
  const doc = DOC_RE.exec(key);
  if (doc) {
    const slide = Number(doc[2]);
    if (String(slide) !== doc[2] || slide < 1 || slide > BOARD_LIMITS.maxDocNumber) return null;
    return { kind: 'doc', documentId: doc[1]!, slide };
  }
  return null;
}

export function isBoardId(v: unknown): v is string {
  return typeof v === 'string' && v.length > 0 && v.length <= BOARD_LIMITS.idLength && ID_RE.test(v);
}

/**
 * Positions are kept to 1/100 of a board unit (a pointer at any zoom gives 15-digit fractions):
 * far below what a screen shows, and it keeps stored and sent boards about a third the size.
 */
export const roundCoord = (v: number): number => Math.round(v * 100) / 100;

/**
 * A board layer. Whiteboard pages are `wb:0` .. `wb:20`; a courseware slide has its own layer
 * `doc:{documentId}:{slide}` (slide from 1). Operations, sequence numbers and clears are per room;
 * an operation touches exactly one layer.
 */
export const layerKeySchema = z
  .string()
  .max(80)
  .refine((k) => parseLayerKey(k) !== null, 'page');

export const boardIdSchema = z.string().min(1).max(BOARD_LIMITS.idLength).regex(ID_RE);
export const brushColourSchema = z.enum(BRUSH_COLOURS);

const coord = (min: number, max: number) => bounded(min, max).transform(roundCoord);
const xCoord = coord(BOARD_LIMITS.minX, BOARD_LIMITS.maxX);
const yCoord = coord(BOARD_LIMITS.minY, BOARD_LIMITS.maxY);
const wSize = coord(0, BOARD_LIMITS.maxX - BOARD_LIMITS.minX);
const hSize = coord(0, BOARD_LIMITS.maxY - BOARD_LIMITS.minY);
const lineWidth = bounded(BOARD_LIMITS.minWidth, BOARD_LIMITS.maxWidth);

/** Flat `[x0, y0, x1, y1, ...]`, even length, each pair on the board; rounded to 1/100. */
export const pointsSchema = (max: number, min = 2) =>
  z
    .array(z.number())
    .min(min)
    .max(max)
    .superRefine((v, ctx) => {
      if (v.length % 2 !== 0) ctx.addIssue({ code: 'custom', message: 'points' });
      for (let i = 0; i < v.length; i += 2) {
        const x = v[i]!;
        const y = v[i + 1]!;
        if (!(x >= BOARD_LIMITS.minX && x <= BOARD_LIMITS.maxX && y >= BOARD_LIMITS.minY && y <= BOARD_LIMITS.maxY)) {
          ctx.addIssue({ code: 'custom', message: 'point out of range' });
          return;
        }
      }
    })
    .transform((v) => v.map(roundCoord));

/** A freehand line; `points` is flat `[x0, y0, x1, y1, ...]`. An eraser stroke clears what it covers. */
export const strokeDataSchema = z.strictObject({
  kind: z.literal('stroke'),
  points: pointsSchema(BOARD_LIMITS.strokeNumbers),
  color: brushColourSchema,
  width: lineWidth,
  eraser: z.boolean().optional(),
});
export type StrokeData = z.infer<typeof strokeDataSchema>;

/** A shape between two corners (for lines and arrows: from (x1,y1) to (x2,y2)). */
export const shapeDataSchema = z.strictObject({
  kind: z.literal('shape'),
  shape: z.enum(SHAPE_KINDS),
  x1: xCoord,
  y1: yCoord,
  x2: xCoord,
  y2: yCoord,
  color: brushColourSchema,
  width: lineWidth,
});
export type ShapeData = z.infer<typeof shapeDataSchema>;

/** A stencil from `/api/getTeachingPictureList`, drawn from its SVG in the box. */
export const stencilDataSchema = z.strictObject({
  kind: z.literal('stencil'),
  stencilId: boardIdSchema,
  x: xCoord,
  y: yCoord,
  w: wSize,
  h: hSize,
});
export type StencilData = z.infer<typeof stencilDataSchema>;

/** Text at (x, y) top-left, wrapped in a box `width` wide. Never empty. */
export const textDataSchema = z.strictObject({
  kind: z.literal('text'),
  text: z
    .string()
    .max(BOARD_LIMITS.textLength)
    .refine((t) => t.trim() !== '', 'text'),
  x: xCoord,
  y: yCoord,
  width: bounded(10, BOARD_LIMITS.maxX - BOARD_LIMITS.minX),
  fontSize: bounded(BOARD_LIMITS.minFont, BOARD_LIMITS.maxFont),
  color: brushColourSchema,
});
export type TextData = z.infer<typeof textDataSchema>;

/** An image held in the object store; `src` is the object key (the client asks for a signed URL). */
export const imageDataSchema = z.strictObject({
  kind: z.literal('image'),
  src: z
    .string()
    .min(1)
    .max(BOARD_LIMITS.srcLength)
    .regex(SRC_RE)
    .refine((s) => !s.includes('..'), 'src'),
  x: xCoord,
  y: yCoord,
  w: wSize,
  h: hSize,
});
export type ImageData = z.infer<typeof imageDataSchema>;

export const itemDataSchema = z.discriminatedUnion('kind', [
  strokeDataSchema,
  shapeDataSchema,
  stencilDataSchema,
  textDataSchema,
  imageDataSchema,
]);
export type ItemData = z.infer<typeof itemDataSchema>;

/** An item as it stands on a layer. `uid` is its author. */
export const boardItemSchema = z.strictObject({ id: z.string(), uid: z.string(), data: itemDataSchema });
export type BoardItem = z.infer<typeof boardItemSchema>;

/** The presenter's viewport, for `move_by_presenter`. */
export const viewportSchema = z.strictObject({
  x: xCoord,
  y: yCoord,
  width: bounded(1, 100_000),
  height: bounded(1, 100_000),
});
export type Viewport = z.infer<typeof viewportSchema>;

const moveSpan = BOARD_LIMITS.maxY - BOARD_LIMITS.minY;
export const moveSchema = z.strictObject({ dx: coord(-moveSpan, moveSpan), dy: coord(-moveSpan, moveSpan) });

/**
 * What a client submits. `opId` is made by the client (unique, at most 64 characters) and makes
 * the submission idempotent. Shapes per type (the model's `checkOp` holds these rules):
 * - create: `id` (new item id, made by the client), `btype`, `data: ItemData`
 * - update: `id`, `data: ItemData` (the whole new data of the item)
 * - delete: `ids`
 * - move: `ids`, `data: {dx, dy}`
 * - undo / redo: nothing else; the server undoes or redoes the author's own latest operation on
 *   that layer and sends what that means as `effects`
 * - move_by_presenter: `data: Viewport` (creator only; followed by everyone)
 * - clear: nothing else (empties the layer)
 */
export const boardOpSchema = z.strictObject({
  opId: boardIdSchema,
  type: z.enum(OP_TYPES),
  btype: z.enum(BTYPES).optional(),
  id: boardIdSchema.optional(),
  ids: z.array(boardIdSchema).min(1).max(BOARD_LIMITS.idsPerOp).optional(),
  data: z.union([itemDataSchema, moveSchema, viewportSchema]).optional(),
  page: layerKeySchema,
});
export type BoardOp = z.infer<typeof boardOpSchema>;

/**
 * The concrete change an operation made, which every client applies the same way:
 * `put` adds or replaces items (keeping an existing item's place in the drawing order, new ones on
 * top), `remove` takes items away, `clear` empties the layer.
 */
export const effectSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('put'), items: z.array(boardItemSchema) }),
  z.strictObject({ kind: z.literal('remove'), ids: z.array(z.string()) }),
  z.strictObject({ kind: z.literal('clear') }),
]);
export type Effect = z.infer<typeof effectSchema>;

/** An operation as the server accepted it. */
export const sequencedOpSchema = boardOpSchema.extend({ seq: z.number(), uid: z.string(), at: z.number(), effects: z.array(effectSchema) });
export type SequencedOp = z.infer<typeof sequencedOpSchema>;

/** A layer as it stands after operation `seq`: items in drawing order. */
export const layerStateSchema = z.strictObject({
  page: z.string(),
  seq: z.number(),
  items: z.array(boardItemSchema),
  viewport: viewportSchema.optional(),
});
export type LayerState = z.infer<typeof layerStateSchema>;

/**
 * A stroke being drawn, streamed every 30-50 ms; not stored. `points` are the new points only.
 * Volatile and unanswered, so there is nobody to tell about an extra key: extra keys (a forged
 * `uid`) are dropped, never relayed; a bad field drops the whole batch.
 */
export const strokeProgressSchema = z.object({
  strokeId: boardIdSchema,
  page: layerKeySchema,
  points: pointsSchema(BOARD_LIMITS.progressNumbers, 0),
  color: brushColourSchema,
  width: lineWidth,
  eraser: z.boolean().optional(),
  /** First batch of the stroke (drop what you had for this strokeId). */
  start: z.boolean().optional(),
});
export type StrokeProgress = z.infer<typeof strokeProgressSchema>;

export const boardUploadSchema = z.strictObject({
  key: z.string(),
  url: z.string(),
  /** Pixel size if the phone told it (for the item's box); 0 when unknown. */
  width: z.number(),
  height: z.number(),
  /** The whiteboard page the room was on as it arrived (roomExtend pageIndex; ADR 034). */
  page: z.number(),
});
export type BoardUpload = z.infer<typeof boardUploadSchema>;

const seqAnswer = z.strictObject({ seq: z.number() });

/** Browser -> server: payload and answer of each acknowledged request. */
export const boardRequests = {
  /**
   * Load a layer. With `since` (the last sequence number this client applied to the layer) the
   * answer is the operations after it when the server still has them; otherwise, or without
   * `since`, it is the layer's state plus any operations after that state.
   */
  getBoard: call(
    z.strictObject({ page: layerKeySchema, since: whole(0, Number.MAX_SAFE_INTEGER).nullable().optional() }),
    z.strictObject({ state: layerStateSchema.optional(), ops: z.array(sequencedOpSchema) }),
  ),
  sync: call(boardOpSchema, seqAnswer),
  /** Same as `sync` with type 'clear'. */
  clear: call(z.strictObject({ opId: boardIdSchema, page: layerKeySchema }), seqAnswer),
  /** Same as `sync` with type 'delete'. */
  delItem: call(
    boardOpSchema.pick({ opId: true, page: true }).extend({ ids: z.array(boardIdSchema).min(1).max(BOARD_LIMITS.idsPerOp) }),
    seqAnswer,
  ),
  /**
   * The creator's slide view (`/ppt/{id}/{uid}`, ADR 093) turns the room's courseware page
   * (1..pages) without a seat on the room channel: the same rule and broadcast as the room
   * channel's `setCoursewarePage`. Anyone else is refused ('31004').
   */
  turnPage: call(z.strictObject({ page: whole(1, 1_000_000) }), roomCoursewareSchema),
};

/**
 * What a room view (`/api/getRoomView`, ADR 093) hears of the room besides the board: the
 * courseware block when it changes (page turned, document opened or closed), the creator's
 * showState, roomExtend (whiteboard page, background) and wbPower, and that the room closed.
 */
export const roomViewEventSchema = z.strictObject({
  courseware: roomCoursewareSchema.optional(),
  showState: z.string().optional(),
  roomExtend: z.string().optional(),
  wbPower: z.enum(['0', '1']).optional(),
  closed: z.literal(true).optional(),
});
export type RoomViewEvent = z.infer<typeof roomViewEventSchema>;

/** Server -> browser. */
export const boardEvents = {
  sync: sequencedOpSchema,
  stroke: strokeProgressSchema.extend({ uid: z.string() }),
  /**
   * A photo this user sent from their phone (the QR link of `/api/createPhoneUploadLink`) is
   * stored: `key` is its object key for an `image` item (the browser places it with `sync`), `url`
   * a signed link to show it. Sent only to that user's own board connections.
   */
  upFile: boardUploadSchema,
  /** Only to connections of a room view token (ADR 093): the room changed (see roomViewEventSchema). */
  roomView: roomViewEventSchema,
};

/** Browser -> server; `stroke` is a volatile message with no answer (parsed all the same). */
export type BoardClientToServer = Requests<typeof boardRequests> & { stroke: (progress: z.input<typeof strokeProgressSchema>) => void };
/** Server -> browser. */
export type BoardServerToClient = Events<typeof boardEvents>;

/** Handshake `auth` of a board connection. */
export const boardAuthSchema = z.strictObject({ token: z.string().max(4096), version: whole(0, 1_000_000).optional() });

/** Both halves of the board channel (the server's dispatcher, the browser's openChannel). */
export const boardChannel = channelContract({ name: 'board', requests: boardRequests, events: boardEvents });
