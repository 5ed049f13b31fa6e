/**
 * One board layer as a browser holds it: the server's state (`confirmed`, built only from
 * sequenced operations in order) and what is shown (`view` = confirmed + own operations not yet
 * sequenced, the optimistic echo). Items live in a Map, whose insertion order is the drawing
 * order: replacing an item keeps its place, a new one goes on top, exactly the Effect rules of
 * core/contracts/board.ts.
 *
 * Every change says what the renderer must do: nothing, paint the new items on top (cheap), or
 * repaint the layer (an item changed or went away under others).
 */
import type { BoardItem, BoardOp, Effect, ItemData, LayerState, SequencedOp, Viewport } from '#core/contracts/board.ts';
import { applySequencedOp, effectsOf, emptyLayer, type Layer } from '#core/board/model.ts';

export type Change = { kind: 'none' } | { kind: 'append'; items: BoardItem[] } | { kind: 'full' };

export const NO_CHANGE: Change = { kind: 'none' };
export const FULL: Change = { kind: 'full' };

/** Applies effects to a map of items; the change is what a renderer of that map must do. */
export function applyEffects(items: Map<string, BoardItem>, effects: readonly Effect[]): Change {
  let full = false;
  let appended: BoardItem[] = [];
  for (const effect of effects) {
    switch (effect.kind) {
      case 'put':
        for (const item of effect.items) {
          if (items.has(item.id)) {
            full = true;
            // An item put earlier in this same change may be replaced again: still on top.
            appended = appended.filter((a) => a.id !== item.id);
          } else appended.push(item);
          items.set(item.id, item);
        }
        break;
      case 'remove':
        for (const id of effect.ids) {
          if (items.delete(id)) {
            full = true;
          }
        }
        break;
      case 'clear':
        if (items.size > 0) full = true;
        items.clear();
        appended = [];
        break;
    }
  }
  if (full) return FULL;
  return appended.length ? { kind: 'append', items: appended } : NO_CHANGE;
}

/** Merges two changes of one layer into what a renderer must do for both. */
export function mergeChanges(a: Change, b: Change): Change {
  if (a.kind === 'full' || b.kind === 'full') return FULL;
  if (a.kind === 'none') return b;
  if (b.kind === 'none') return a;
  return { kind: 'append', items: [...a.items, ...b.items] };
}

/**
 * The effects the server will give one of our own operations, predicted from the shown state with
 * the shared model (core/board/model.ts) so the author sees it at once. Undo, redo and the
 * presenter's viewport wait for the server.
 */
export function predictEffects(op: BoardOp, uid: string, items: Map<string, BoardItem>, page: string): Effect[] | null {
  if (op.type === 'undo' || op.type === 'redo' || op.type === 'move_by_presenter') return null;
  const outcome = effectsOf({ page, seq: 0, items }, op, uid);
  return outcome.ok ? outcome.effects : null;
}

interface Pending {
  opId: string;
  effects: Effect[] | null;
}

export class LayerView {
  readonly page: string;
  /** The server's state, kept with the shared model. */
  readonly confirmed: Layer;
  view = new Map<string, BoardItem>();
  /** Loaded from the server at least once. */
  loaded = false;
  #pending: Pending[] = [];
  /** The view no longer equals confirmed + pending in order: rebuild once nothing is pending. */
  #diverged = false;

  constructor(page: string) {
    this.page = page;
    this.confirmed = emptyLayer(page);
  }

  /** Sequence number of the last operation applied to the server's state. */
  get seq(): number {
    return this.confirmed.seq;
  }

  get viewport(): Viewport | undefined {
    return this.confirmed.viewport;
  }

  get pendingCount(): number {
    return this.#pending.length;
  }

  pendingOpIds(): string[] {
    return this.#pending.map((p) => p.opId);
  }

  /** Replaces everything with a state from the server (pending own operations stay on top). */
  loadState(state: LayerState): Change {
    this.confirmed.items = new Map(state.items.map((i) => [i.id, i]));
    this.confirmed.seq = state.seq;
    if (state.viewport) this.confirmed.viewport = state.viewport;
    else delete this.confirmed.viewport;
    this.loaded = true;
    return this.#rebuild();
  }

  /** Our own operation, shown at once. */
  applyLocal(op: BoardOp, uid: string): Change {
    const effects = predictEffects(op, uid, this.view, this.page);
    this.#pending.push({ opId: op.opId, effects });
    return effects ? applyEffects(this.view, effects) : NO_CHANGE;
  }

  /** The server refused our operation: take its echo back. */
  reject(opId: string): Change {
    const index = this.#pending.findIndex((p) => p.opId === opId);
    if (index < 0) return NO_CHANGE;
    const [gone] = this.#pending.splice(index, 1);
    if (gone?.effects) this.#diverged = true;
    return this.#settle(NO_CHANGE);
  }

  /** An operation in the room's order. Older or repeated sequence numbers are ignored. */
  applySequenced(op: SequencedOp): Change {
    if (op.page !== this.page || !applySequencedOp(this.confirmed, op)) return NO_CHANGE;
    this.loaded = true;
    const index = this.#pending.findIndex((p) => p.opId === op.opId);
    if (index >= 0) {
      const [mine] = this.#pending.splice(index, 1);
      if (index > 0 || !mine?.effects) {
        // Our operation without a prediction (or out of order): show what the server did.
        if (!mine?.effects && this.#pending.length === 0 && !this.#diverged) return applyEffects(this.view, op.effects);
        this.#diverged = true;
        return this.#settle(applyEffects(this.view, op.effects));
      }
      if (JSON.stringify(mine.effects) !== JSON.stringify(op.effects)) this.#diverged = true;
      return this.#settle(NO_CHANGE);
    }
    // Someone else's operation (or our own from another tab).
    const change = applyEffects(this.view, op.effects);
    if (this.#pending.length > 0) this.#diverged = true; // it belongs under our pending ones
    return this.#settle(change);
  }

  #settle(change: Change): Change {
    if (this.#pending.length === 0 && this.#diverged) return this.#rebuild();
    return change;
  }

  #rebuild(): Change {
    this.view = new Map(this.confirmed.items);
    for (const p of this.#pending) if (p.effects) applyEffects(this.view, p.effects);
    // Pending echoes re-applied over the server's state: right until a later foreign operation.
    this.#diverged = false;
    return FULL;
  }

  items(): BoardItem[] {
    return [...this.view.values()];
  }

  get(id: string): BoardItem | undefined {
    return this.view.get(id);
  }
}

/** Only the item data kinds the contract knows, for data read off the wire. */
export function isItemData(data: unknown): data is ItemData {
  if (typeof data !== 'object' || data === null) return false;
  const kind = (data as { kind?: unknown }).kind;
  return kind === 'stroke' || kind === 'shape' || kind === 'stencil' || kind === 'text' || kind === 'image';
}
