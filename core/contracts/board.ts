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
 * Coordinates are board units on the base canvas of 1024 x 768 (spec 03 §9); slides use the
 * same units scaled from their 800 x 600 canvas, so a drawing keeps its place at any zoom.
 */
import type { Ack } from './room-events.ts';

export const BOARD_NAMESPACE = '/board';
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

export type OpType = 'create' | 'update' | 'delete' | 'move' | 'undo' | 'redo' | 'move_by_presenter' | 'clear';
export type BType = 'brush' | 'choose' | 'uploadImg' | 'kbText' | 'graph' | 'line' | 'dottedline' | 'eraser';

export type ShapeKind =
  | 'line'
  | 'arrow'
  | 'dottedline'
  | 'triangle' // equilateral, inside the dragged box
  | 'circle' // inside the dragged box, diameter = the shorter side
  | 'rightTriangle'
  | 'rectangle'
  | 'ellipse';

/** A freehand line; `points` is flat `[x0, y0, x1, y1, ...]`. An eraser stroke clears what it covers. */
export interface StrokeData {
  kind: 'stroke';
  points: number[];
  color: BrushColour;
  width: number;
  eraser?: boolean;
}

/** A shape between two corners (for lines and arrows: from (x1,y1) to (x2,y2)). */
export interface ShapeData {
  kind: 'shape';
  shape: ShapeKind;
  x1: number;
  y1: number;
  x2: number;
  y2: number;
  color: BrushColour;
  width: number;
}

/** A stencil from `/api/getTeachingPictureList`, drawn from its SVG in the box. */
export interface StencilData {
  kind: 'stencil';
  stencilId: string;
  x: number;
  y: number;
  w: number;
  h: number;
}

/** Text at (x, y) top-left, wrapped in a box `width` wide. Never empty. */
export interface TextData {
  kind: 'text';
  text: string;
  x: number;
  y: number;
  width: number;
  fontSize: number;
  color: BrushColour;
}

/** An image held in the object store; `src` is the object key (the client asks for a signed URL). */
export interface ImageData {
  kind: 'image';
  src: string;
  x: number;
  y: number;
  w: number;
  h: number;
}

export type ItemData = StrokeData | ShapeData | StencilData | TextData | ImageData;

/** An item as it stands on a layer. `uid` is its author. */
export interface BoardItem {
  id: string;
  uid: string;
  data: ItemData;
}

/** The presenter's viewport, for `move_by_presenter`. */
export interface Viewport {
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * What a client submits. `opId` is made by the client (unique, at most 64 characters) and makes
 * the submission idempotent. Shapes per type:
 * - create: `id` (new item id, made by the client), `btype`, `data: ItemData`
 * - update: `id`, `data: ItemData` (the whole new data of the item)
 * - delete: `ids`
 * - move: `ids`, `data: {dx, dy}`
 * - undo / redo: nothing else; the server undoes or redoes the author's own latest operation on
 *   that layer and sends what that means as `effects`
 * - move_by_presenter: `data: Viewport` (creator only; followed by everyone)
 * - clear: nothing else (empties the layer)
 */
export interface BoardOp {
  opId: string;
  type: OpType;
  btype?: BType;
  id?: string;
  ids?: string[];
  data?: ItemData | { dx: number; dy: number } | Viewport;
  page: LayerKey;
}

/**
 * The concrete change an operation made, which every client applies the same way:
 * `put` adds or replaces items (keeping an existing item's place in the drawing order, new ones on
 * top), `remove` takes items away, `clear` empties the layer.
 */
export type Effect = { kind: 'put'; items: BoardItem[] } | { kind: 'remove'; ids: string[] } | { kind: 'clear' };

/** An operation as the server accepted it. */
export interface SequencedOp extends BoardOp {
  seq: number;
  uid: string;
  at: number;
  effects: Effect[];
}

/** A layer as it stands after operation `seq`: items in drawing order. */
export interface LayerState {
  page: LayerKey;
  seq: number;
  items: BoardItem[];
  viewport?: Viewport;
}

/** A stroke being drawn, streamed every 30-50 ms; not stored. `points` are the new points only. */
export interface StrokeProgress {
  strokeId: string;
  page: LayerKey;
  points: number[];
  color: BrushColour;
  width: number;
  eraser?: boolean;
  /** First batch of the stroke (drop what you had for this strokeId). */
  start?: boolean;
}

type Req<P, R = null> = (payload: P, ack: (answer: Ack<R>) => void) => void;

/** Browser -> server. */
export interface BoardClientToServer {
  /**
   * Load a layer. With `since` (the last sequence number this client applied to the layer) the
   * answer is the operations after it when the server still has them; otherwise, or without
   * `since`, it is the layer's state plus any operations after that state.
   */
  getBoard: Req<{ page: LayerKey; since?: number }, { state?: LayerState; ops: SequencedOp[] }>;
  sync: Req<BoardOp, { seq: number }>;
  /** Same as `sync` with type 'clear'. */
  clear: Req<{ opId: string; page: LayerKey }, { seq: number }>;
  /** Same as `sync` with type 'delete'. */
  delItem: Req<{ opId: string; page: LayerKey; ids: string[] }, { seq: number }>;
  stroke: (progress: StrokeProgress) => void;
}

/** Server -> browser. */
export interface BoardServerToClient {
  sync: (op: SequencedOp) => void;
  stroke: (progress: StrokeProgress & { uid: string }) => void;
  /**
   * A photo this user sent from their phone (the QR link of `/api/createPhoneUploadLink`) is
   * stored: `key` is its object key for an `image` item (the browser places it with `sync`), `url`
   * a signed link to show it. Sent only to that user's own board connections.
   */
  upFile: (file: BoardUpload) => void;
}

export interface BoardUpload {
  key: string;
  url: string;
  /** Pixel size if the phone told it (for the item's box); 0 when unknown. */
  width: number;
  height: number;
  /** The whiteboard page the room was on as it arrived (roomExtend pageIndex; ADR 034). */
  page: number;
}
