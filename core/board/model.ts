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
  BOARD_LIMITS,
  BTYPES,
  OP_TYPES,
  SHAPE_KINDS,
  boardOpSchema,
  isBoardId,
  itemDataSchema,
  parseLayerKey,
  roundCoord,
  type BoardItem,
  type BoardOp,
  type Effect,
  type ItemData,
  type LayerKey,
  type LayerState,
  type SequencedOp,
  type Viewport,
} from '../contracts/board.ts';

export { BOARD_LIMITS, BTYPES, OP_TYPES, SHAPE_KINDS, isBoardId, parseLayerKey, roundCoord };
export type { ParsedLayer } from '../contracts/board.ts';

export const isLayerKey = (key: unknown): key is LayerKey => parseLayerKey(key) !== null;

// ---------------------------------------------------------------------------------------------
// Operation rules (the fields themselves are the contract's schemas)

export type Checked<T> = { ok: true; value: T } | { ok: false; error: string };

const firstIssue = (e: { issues: ReadonlyArray<{ path: PropertyKey[]; message: string }> }) => {
  const i = e.issues[0];
  return i ? `${i.path.map(String).join('.') || 'operation'}: ${i.message}` : 'operation';
};

/** An item's data, rebuilt by its schema so no extra field reaches the log; throws on a bad one. */
export function checkItemData(v: unknown): ItemData {
  const r = itemDataSchema.safeParse(v);
  if (!r.success) throw new Error(firstIssue(r.error));
  return withoutFalseEraser(r.data);
}

const withoutFalseEraser = (d: ItemData): ItemData => {
  if (d.kind !== 'stroke' || d.eraser !== false) return d;
  const { eraser: _e, ...rest } = d;
  return rest;
};

/**
 * The rules of an operation whose fields are parsed already (boardOpSchema): what its type needs,
 * and a clean copy holding only the fields its type uses (ids once each). Never throws.
 */
export function checkOp(op: BoardOp): Checked<BoardOp> {
  const out: BoardOp = { opId: op.opId, type: op.type, page: op.page };
  if (op.btype !== undefined) out.btype = op.btype;
  const d = op.data;
  switch (op.type) {
    case 'create':
    case 'update':
      if (op.id === undefined) return { ok: false, error: 'id' };
      if (!d || !('kind' in d)) return { ok: false, error: 'data' };
      out.id = op.id;
      out.data = withoutFalseEraser(d);
      break;
    case 'delete':
      if (!op.ids) return { ok: false, error: 'ids' };
      out.ids = [...new Set(op.ids)];
      break;
    case 'move':
      if (!op.ids) return { ok: false, error: 'ids' };
      if (!d || !('dx' in d)) return { ok: false, error: 'move data' };
      out.ids = [...new Set(op.ids)];
      out.data = { dx: d.dx, dy: d.dy };
      break;
    case 'move_by_presenter':
      if (!d || 'kind' in d || !('width' in d)) return { ok: false, error: 'viewport' };
      out.data = d;
      break;
    case 'undo':
    case 'redo':
    case 'clear':
      break;
  }
  return { ok: true, value: out };
}

/** Parses an untrusted operation (any JSON) with the contract's schema, then its rules. Never throws. */
export function parseOp(raw: unknown): Checked<BoardOp> {
  const r = boardOpSchema.safeParse(raw);
  if (!r.success) return { ok: false, error: firstIssue(r.error) };
  return checkOp(r.data);
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
