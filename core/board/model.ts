/**
 * The pure board model, shared by the server and the browser (no DOM, no Node APIs).
 *
 * A layer keeps its items in a Map: lookup by id is O(1) and the Map's insertion order is the
 * drawing order (a `put` of an existing id keeps its place, a new id goes on top, exactly as the
 * contract's `Effect` says). Every client applies the same sequenced effects in the same order, so
 * every client ends with the same Map.
 *
 * `checkOp` validates an untrusted payload (shapes, sizes, ranges); `effectsOf` turns an authorised
 * operation into the concrete change it makes on the current layer, with the items as they were
 * before, which is what undo needs (see history.ts).
 */
import {
  BOARD_HEIGHT,
  BOARD_LAST_PAGE,
  BOARD_WIDTH,
  BRUSH_COLOURS,
  type BType,
  type BoardItem,
  type BoardOp,
  type Effect,
  type ItemData,
  type LayerKey,
  type LayerState,
  type OpType,
  type SequencedOp,
  type ShapeKind,
  type Viewport,
} from '../contracts/board.ts';

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

export const OP_TYPES: readonly OpType[] = ['create', 'update', 'delete', 'move', 'undo', 'redo', 'move_by_presenter', 'clear'];
export const BTYPES: readonly BType[] = ['brush', 'choose', 'uploadImg', 'kbText', 'graph', 'line', 'dottedline', 'eraser'];
export const SHAPE_KINDS: readonly ShapeKind[] = [
  'line',
  'arrow',
  'dottedline',
  'triangle',
  'circle',
  'rightTriangle',
  'rectangle',
  'ellipse',
];

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

export const isLayerKey = (key: unknown): key is LayerKey => parseLayerKey(key) !== null;

export function isBoardId(v: unknown): v is string {
  return typeof v === 'string' && v.length > 0 && v.length <= BOARD_LIMITS.idLength && ID_RE.test(v);
}

// ---------------------------------------------------------------------------------------------
// Validation of untrusted payloads

export type Checked<T> = { ok: true; value: T } | { ok: false; error: string };

class Bad extends Error {}
const fail = (why: string): never => {
  throw new Bad(why);
};

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
function num(v: unknown, min: number, max: number, what: string): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < min || v > max) fail(`${what} out of range`);
  return v as number;
}
/**
 * Positions are kept to 1/100 of a board unit (a pointer at any zoom gives 15-digit fractions):
 * far below what a screen shows, and it keeps stored and sent boards about a third the size.
 */
export const roundCoord = (v: number): number => Math.round(v * 100) / 100;
const coord = (v: unknown, min: number, max: number, what: string) => roundCoord(num(v, min, max, what));
const x = (v: unknown, what: string) => coord(v, BOARD_LIMITS.minX, BOARD_LIMITS.maxX, what);
const y = (v: unknown, what: string) => coord(v, BOARD_LIMITS.minY, BOARD_LIMITS.maxY, what);
const w = (v: unknown, what: string) => coord(v, 0, BOARD_LIMITS.maxX - BOARD_LIMITS.minX, what);
const h = (v: unknown, what: string) => coord(v, 0, BOARD_LIMITS.maxY - BOARD_LIMITS.minY, what);
const lineWidth = (v: unknown) => num(v, BOARD_LIMITS.minWidth, BOARD_LIMITS.maxWidth, 'width');
function colour(v: unknown) {
  if (!(BRUSH_COLOURS as readonly unknown[]).includes(v)) fail('colour');
  return v as (typeof BRUSH_COLOURS)[number];
}
function id(v: unknown, what: string): string {
  if (!isBoardId(v)) fail(what);
  return v as string;
}
function onlyKeys(o: Record<string, unknown>, keys: readonly string[], what: string) {
  for (const k in o) if (!keys.includes(k)) fail(`${what}: unknown field ${k}`);
}

/** Flat `[x0, y0, x1, y1, ...]`, even length, each pair on the board. Copied (never aliased). */
export function checkPoints(v: unknown, max: number, min = 2): number[] {
  if (!Array.isArray(v) || v.length < min || v.length > max || v.length % 2 !== 0) fail('points');
  const src = v as unknown[];
  const out = new Array<number>(src.length);
  for (let i = 0; i < src.length; i += 2) {
    out[i] = x(src[i], 'point');
    out[i + 1] = y(src[i + 1], 'point');
  }
  return out;
}

/** An item's data, rebuilt field by field so no extra field reaches the log. */
export function checkItemData(v: unknown): ItemData {
  if (!isObj(v)) return fail('data');
  switch (v.kind) {
    case 'stroke': {
      onlyKeys(v, ['kind', 'points', 'color', 'width', 'eraser'], 'stroke');
      const d: ItemData = {
        kind: 'stroke',
        points: checkPoints(v.points, BOARD_LIMITS.strokeNumbers),
        color: colour(v.color),
        width: lineWidth(v.width),
      };
      if (v.eraser !== undefined) {
        if (typeof v.eraser !== 'boolean') fail('eraser');
        if (v.eraser) d.eraser = true;
      }
      return d;
    }
    case 'shape': {
      onlyKeys(v, ['kind', 'shape', 'x1', 'y1', 'x2', 'y2', 'color', 'width'], 'shape');
      if (!(SHAPE_KINDS as readonly unknown[]).includes(v.shape)) fail('shape');
      return {
        kind: 'shape',
        shape: v.shape as ShapeKind,
        x1: x(v.x1, 'x1'),
        y1: y(v.y1, 'y1'),
        x2: x(v.x2, 'x2'),
        y2: y(v.y2, 'y2'),
        color: colour(v.color),
        width: lineWidth(v.width),
      };
    }
    case 'stencil':
      onlyKeys(v, ['kind', 'stencilId', 'x', 'y', 'w', 'h'], 'stencil');
      return { kind: 'stencil', stencilId: id(v.stencilId, 'stencilId'), x: x(v.x, 'x'), y: y(v.y, 'y'), w: w(v.w, 'w'), h: h(v.h, 'h') };
    case 'text': {
      onlyKeys(v, ['kind', 'text', 'x', 'y', 'width', 'fontSize', 'color'], 'text');
      if (typeof v.text !== 'string' || v.text.length > BOARD_LIMITS.textLength || v.text.trim() === '') fail('text');
      return {
        kind: 'text',
        text: v.text as string,
        x: x(v.x, 'x'),
        y: y(v.y, 'y'),
        width: num(v.width, 10, BOARD_LIMITS.maxX - BOARD_LIMITS.minX, 'width'),
        fontSize: num(v.fontSize, BOARD_LIMITS.minFont, BOARD_LIMITS.maxFont, 'fontSize'),
        color: colour(v.color),
      };
    }
    case 'image': {
      onlyKeys(v, ['kind', 'src', 'x', 'y', 'w', 'h'], 'image');
      const src = v.src;
      if (typeof src !== 'string' || src.length === 0 || src.length > BOARD_LIMITS.srcLength || !SRC_RE.test(src) || src.includes('..'))
        fail('src');
      return { kind: 'image', src: src as string, x: x(v.x, 'x'), y: y(v.y, 'y'), w: w(v.w, 'w'), h: h(v.h, 'h') };
    }
    default:
      return fail('data kind');
  }
}

function checkViewport(v: unknown): Viewport {
  if (!isObj(v)) return fail('viewport');
  onlyKeys(v, ['x', 'y', 'width', 'height'], 'viewport');
  return { x: x(v.x, 'x'), y: y(v.y, 'y'), width: num(v.width, 1, 100_000, 'width'), height: num(v.height, 1, 100_000, 'height') };
}

function checkIds(v: unknown): string[] {
  if (!Array.isArray(v) || v.length === 0 || v.length > BOARD_LIMITS.idsPerOp) fail('ids');
  const ids = (v as unknown[]).map((i) => id(i, 'ids'));
  return [...new Set(ids)];
}

/**
 * Validates a submitted operation (any JSON) and returns a clean copy holding only the fields
 * its type uses. Never throws.
 */
export function checkOp(raw: unknown): Checked<BoardOp> {
  try {
    if (!isObj(raw)) return fail('operation');
    onlyKeys(raw, ['opId', 'type', 'btype', 'id', 'ids', 'data', 'page'], 'operation');
    const opId = id(raw.opId, 'opId');
    if (!(OP_TYPES as readonly unknown[]).includes(raw.type)) fail('type');
    const type = raw.type as OpType;
    if (!isLayerKey(raw.page)) fail('page');
    const op: BoardOp = { opId, type, page: raw.page as string };
    if (raw.btype !== undefined) {
      if (!(BTYPES as readonly unknown[]).includes(raw.btype)) fail('btype');
      op.btype = raw.btype as BType;
    }
    switch (type) {
      case 'create':
        op.id = id(raw.id, 'id');
        op.data = checkItemData(raw.data);
        break;
      case 'update':
        op.id = id(raw.id, 'id');
        op.data = checkItemData(raw.data);
        break;
      case 'delete':
        op.ids = checkIds(raw.ids);
        break;
      case 'move': {
        op.ids = checkIds(raw.ids);
        const d = raw.data;
        if (!isObj(d)) return fail('move data');
        onlyKeys(d, ['dx', 'dy'], 'move');
        const span = BOARD_LIMITS.maxY - BOARD_LIMITS.minY;
        op.data = { dx: coord(d.dx, -span, span, 'dx'), dy: coord(d.dy, -span, span, 'dy') };
        break;
      }
      case 'move_by_presenter':
        op.data = checkViewport(raw.data);
        break;
      case 'undo':
      case 'redo':
      case 'clear':
        break;
    }
    return { ok: true, value: op };
  } catch (e) {
    if (e instanceof Bad) return { ok: false, error: e.message };
    throw e;
  }
}

/** Validates a live stroke batch's drawing fields (not its relay rights). */
export function checkProgressPoints(v: unknown): Checked<number[]> {
  try {
    return { ok: true, value: checkPoints(v, BOARD_LIMITS.progressNumbers, 0) };
  } catch (e) {
    if (e instanceof Bad) return { ok: false, error: e.message };
    throw e;
  }
}

// ---------------------------------------------------------------------------------------------
// Layers

export interface Layer {
  page: LayerKey;
  /** Sequence number of the last operation applied to this layer (0: none). */
  seq: number;
  /** Drawing order = insertion order. */
  items: Map<string, BoardItem>;
  viewport?: Viewport;
}

export function emptyLayer(page: LayerKey): Layer {
  return { page, seq: 0, items: new Map() };
}

export function layerFromState(state: LayerState): Layer {
  const layer: Layer = { page: state.page, seq: state.seq, items: new Map(state.items.map((i) => [i.id, i])) };
  if (state.viewport) layer.viewport = state.viewport;
  return layer;
}

export function layerToState(layer: Layer): LayerState {
  const s: LayerState = { page: layer.page, seq: layer.seq, items: [...layer.items.values()] };
  if (layer.viewport) s.viewport = layer.viewport;
  return s;
}

export function applyEffects(layer: Layer, effects: readonly Effect[]): void {
  for (const e of effects) {
    switch (e.kind) {
      case 'put':
        for (const item of e.items) layer.items.set(item.id, item);
        break;
      case 'remove':
        for (const i of e.ids) layer.items.delete(i);
        break;
      case 'clear':
        layer.items.clear();
        break;
    }
  }
}

/**
 * Applies an accepted operation to its layer. An operation at or below the layer's sequence
 * number was applied already and is skipped (returns false), so replays and duplicates are safe.
 */
export function applySequencedOp(layer: Layer, op: SequencedOp): boolean {
  if (op.page !== layer.page) throw new Error(`operation for ${op.page} applied to ${layer.page}`);
  if (op.seq <= layer.seq) return false;
  applyEffects(layer, op.effects);
  if (op.type === 'move_by_presenter' && op.data && !('kind' in op.data) && 'width' in op.data) layer.viewport = op.data;
  layer.seq = op.seq;
  return true;
}

// ---------------------------------------------------------------------------------------------
// Operations -> effects

/** One item an operation touched: as it was before (null: absent) and after (null: gone). */
export interface Change {
  id: string;
  before: BoardItem | null;
  after: BoardItem | null;
}

export type Outcome = { ok: true; effects: Effect[]; changes: Change[] } | { ok: false; error: string };

/** The effects that turn each change's `before` into its `after`. */
export function effectsOfChanges(changes: readonly Change[]): Effect[] {
  const put: BoardItem[] = [];
  const remove: string[] = [];
  for (const c of changes) {
    if (c.after) put.push(c.after);
    else if (c.before) remove.push(c.id);
  }
  const effects: Effect[] = [];
  if (remove.length) effects.push({ kind: 'remove', ids: remove });
  if (put.length) effects.push({ kind: 'put', items: put });
  return effects;
}

export function moveData(d: ItemData, dx: number, dy: number): ItemData {
  switch (d.kind) {
    case 'stroke':
      return { ...d, points: d.points.map((v, i) => roundCoord(i % 2 === 0 ? v + dx : v + dy)) };
    case 'shape':
      return { ...d, x1: roundCoord(d.x1 + dx), y1: roundCoord(d.y1 + dy), x2: roundCoord(d.x2 + dx), y2: roundCoord(d.y2 + dy) };
    case 'stencil':
    case 'text':
    case 'image':
      return { ...d, x: roundCoord(d.x + dx), y: roundCoord(d.y + dy) };
  }
}

/**
 * What an authorised, checked operation of `uid` does to `layer`: create, update, delete, move,
 * clear and move_by_presenter. Undo and redo need the author's history (history.ts). Refuses an
 * operation that would change nothing or names an item that is not there.
 */
export function effectsOf(layer: Layer, op: BoardOp, uid: string): Outcome {
  switch (op.type) {
    case 'create': {
      if (!op.id || !op.data || !('kind' in op.data)) return { ok: false, error: 'create needs id and data' };
      if (layer.items.has(op.id)) return { ok: false, error: 'item exists' };
      const changes = [{ id: op.id, before: null, after: { id: op.id, uid, data: op.data } }];
      return { ok: true, changes, effects: effectsOfChanges(changes) };
    }
    case 'update': {
      if (!op.id || !op.data || !('kind' in op.data)) return { ok: false, error: 'update needs id and data' };
      const before = layer.items.get(op.id);
      if (!before) return { ok: false, error: 'no such item' };
      if (before.data.kind !== op.data.kind) return { ok: false, error: 'update changes the kind' };
      const changes = [{ id: op.id, before, after: { id: op.id, uid: before.uid, data: op.data } }];
      return { ok: true, changes, effects: effectsOfChanges(changes) };
    }
    case 'delete': {
      const changes: Change[] = [];
      for (const i of op.ids ?? []) {
        const before = layer.items.get(i);
        if (before) changes.push({ id: i, before, after: null });
      }
      if (!changes.length) return { ok: false, error: 'no such item' };
      return { ok: true, changes, effects: effectsOfChanges(changes) };
    }
    case 'move': {
      const d = op.data;
      if (!d || !('dx' in d)) return { ok: false, error: 'move needs dx, dy' };
      const changes: Change[] = [];
      for (const i of op.ids ?? []) {
        const before = layer.items.get(i);
        if (before) changes.push({ id: i, before, after: { ...before, data: moveData(before.data, d.dx, d.dy) } });
      }
      if (!changes.length) return { ok: false, error: 'no such item' };
      return { ok: true, changes, effects: effectsOfChanges(changes) };
    }
    case 'clear':
      return { ok: true, changes: [], effects: [{ kind: 'clear' }] };
    case 'move_by_presenter':
      if (!op.data || !('width' in op.data)) return { ok: false, error: 'viewport' };
      return { ok: true, changes: [], effects: [] };
    case 'undo':
    case 'redo':
      return { ok: false, error: 'undo and redo need the history' };
  }
}

/** Structural equality of two items (the same author, id and data). */
export function sameItem(a: BoardItem | null | undefined, b: BoardItem | null | undefined): boolean {
  if (!a || !b) return !a && !b;
  if (a === b) return true;
  return a.id === b.id && a.uid === b.uid && JSON.stringify(a.data) === JSON.stringify(b.data);
}
