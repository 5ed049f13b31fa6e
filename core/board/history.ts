/**
 * Undo and redo per user per layer (pure; the server holds one per layer).
 *
 * Each accepted create/update/delete/move of a user is an entry holding the items it touched as
 * they were before and after. Undo takes the user's latest not-undone entry and puts every item it
 * touched back to `before`, but only where the item is still as that entry left it: an item someone
 * else changed or removed since is left alone (undo never resurrects or overwrites another user's
 * later work). Redo does the reverse with the same guard. A new operation of the user empties their
 * redo stack; a clear empties every stack of the layer (a clear is final and is not undone).
 */
import type { BoardItem, Effect } from '../contracts/board.ts';
import { type Change, type Layer, effectsOfChanges, sameItem } from './model.ts';

export interface HistoryEntry {
  seq: number;
  changes: Change[];
}

export type Reversal = { ok: true; target: number; changes: Change[]; effects: Effect[] } | { ok: false; error: string };

interface Stacks {
  undo: HistoryEntry[];
  redo: HistoryEntry[];
}

/** The changes that `effects` make on `layer` as it stands now (call before applying them). */
export function changesOfEffects(layer: Layer, effects: readonly Effect[]): Change[] {
  const touched = new Map<string, Change>();
  const current = (id: string): BoardItem | null => {
    const seen = touched.get(id);
    return seen ? seen.after : (layer.items.get(id) ?? null);
  };
  for (const e of effects) {
    switch (e.kind) {
      case 'put':
        for (const item of e.items) {
          const prev = touched.get(item.id);
          touched.set(item.id, { id: item.id, before: prev ? prev.before : current(item.id), after: item });
        }
        break;
      case 'remove':
        for (const id of e.ids) {
          const prev = touched.get(id);
          touched.set(id, { id, before: prev ? prev.before : current(id), after: null });
        }
        break;
      case 'clear':
        // A clear is never an undo entry; its changes are not needed.
        return [];
    }
  }
  return [...touched.values()];
}

export class LayerHistory {
  readonly depth: number;
  #users = new Map<string, Stacks>();

  constructor(depth = 100) {
    this.depth = depth;
  }

  #stacks(uid: string): Stacks {
    let s = this.#users.get(uid);
    if (!s) this.#users.set(uid, (s = { undo: [], redo: [] }));
    return s;
  }

  /** An accepted operation of `uid` (not undo, redo or clear). */
  record(uid: string, seq: number, changes: Change[]): void {
    const s = this.#stacks(uid);
    s.redo.length = 0;
    if (!changes.length) return;
    s.undo.push({ seq, changes });
    if (s.undo.length > this.depth) s.undo.splice(0, s.undo.length - this.depth);
  }

  /** A clear: nothing before it can be undone or redone by anyone. */
  clear(): void {
    this.#users.clear();
  }

  /** What undo would do now (does not change the history; call `undone` once it is accepted). */
  planUndo(layer: Layer, uid: string): Reversal {
    const entry = this.#users.get(uid)?.undo.at(-1);
    if (!entry) return { ok: false, error: 'nothing to undo' };
    const changes: Change[] = [];
    for (let i = entry.changes.length - 1; i >= 0; i--) {
      const c = entry.changes[i]!;
      if (sameItem(layer.items.get(c.id), c.after)) changes.push({ id: c.id, before: c.after, after: c.before });
    }
    return { ok: true, target: entry.seq, changes, effects: effectsOfChanges(changes) };
  }

  planRedo(layer: Layer, uid: string): Reversal {
    const entry = this.#users.get(uid)?.redo.at(-1);
    if (!entry) return { ok: false, error: 'nothing to redo' };
    const changes: Change[] = [];
    for (const c of entry.changes) {
      if (sameItem(layer.items.get(c.id), c.before)) changes.push({ id: c.id, before: c.before, after: c.after });
    }
    return { ok: true, target: entry.seq, changes, effects: effectsOfChanges(changes) };
  }

  /** The entry `target` of `uid` was undone: it moves to the redo stack. Unknown targets are ignored. */
  undone(uid: string, target: number): void {
    const s = this.#users.get(uid);
    const i = s ? s.undo.findLastIndex((e) => e.seq === target) : -1;
    if (!s || i < 0) return;
    s.redo.push(...s.undo.splice(i, 1));
  }

  redone(uid: string, target: number): void {
    const s = this.#users.get(uid);
    const i = s ? s.redo.findLastIndex((e) => e.seq === target) : -1;
    if (!s || i < 0) return;
    s.undo.push(...s.redo.splice(i, 1));
  }

  /** For tests and diagnostics. */
  sizes(uid: string): { undo: number; redo: number } {
    const s = this.#users.get(uid);
    return { undo: s?.undo.length ?? 0, redo: s?.redo.length ?? 0 };
  }
}
