import { describe, expect, it } from 'vitest';
import { BoardStore } from './store.ts';

const stroke = (x: number) => ({ kind: 'stroke' as const, points: [x, 0, x + 10, 10], color: 'red' as const, width: 4 });

describe('a local BoardStore (the studio board)', () => {
  it('is live at once and never asks for a token', async () => {
    let asked = 0;
    const store = new BoardStore({
      uid: 'me',
      local: true,
      token: () => {
        asked += 1;
        return Promise.resolve('t');
      },
    });
    const statuses: string[] = [];
    store.on('status', (s) => statuses.push(s));
    await store.connect();
    await store.open('wb:0');
    expect(store.status).toBe('live');
    expect(statuses).toEqual(['live']);
    expect(asked).toBe(0);
    expect(store.layer('wb:0').loaded).toBe(true);
  });

  it('sequences its own operations: shown, confirmed, nothing pending', () => {
    const store = BoardStore.local();
    const changes: string[] = [];
    store.on('change', (page, change) => changes.push(`${page}:${change.kind}`));
    store.create('wb:0', 'brush', stroke(1), 'a');
    store.create('wb:0', 'brush', stroke(2), 'b');
    store.move('wb:0', ['a'], 5, 5);
    const snap = store.snapshot('wb:0');
    expect(snap.items.map((i) => i.id)).toEqual(['a', 'b']);
    expect(snap.items[0]?.data).toMatchObject({ points: [6, 5, 16, 15] });
    expect(snap.pending).toBe(0);
    expect(snap.seq).toBe(3);
    expect(changes[0]).toBe('wb:0:append');
  });

  it('undoes and redoes with the server rules, per page', () => {
    const store = BoardStore.local();
    store.create('wb:0', 'brush', stroke(1), 'a');
    store.create('wb:1', 'brush', stroke(1), 'p1');
    store.create('wb:0', 'brush', stroke(2), 'b');
    expect(store.canUndo('wb:0')).toBe(true);
    store.undo('wb:0');
    expect(store.snapshot('wb:0').items.map((i) => i.id)).toEqual(['a']);
    expect(store.canRedo('wb:0')).toBe(true);
    store.redo('wb:0');
    expect(store.snapshot('wb:0').items.map((i) => i.id)).toEqual(['a', 'b']);
    store.undo('wb:0');
    store.undo('wb:0');
    expect(store.snapshot('wb:0').items).toEqual([]);
    expect(store.canUndo('wb:0')).toBe(false);
    // The other page kept its own ink and history.
    expect(store.snapshot('wb:1').items.map((i) => i.id)).toEqual(['p1']);
    expect(store.canUndo('wb:1')).toBe(true);
  });

  it('clears a page for good and refuses an operation on a missing item without throwing', () => {
    const store = BoardStore.local();
    const refused: string[] = [];
    store.on('refused', (ack, op) => refused.push(`${op.type}:${ack.code}`));
    store.create('wb:0', 'brush', stroke(1), 'a');
    store.clear('wb:0');
    expect(store.snapshot('wb:0').items).toEqual([]);
    expect(store.canUndo('wb:0')).toBe(true); // the counter the toolbar reads; the history refuses it
    store.undo('wb:0');
    expect(refused).toEqual(['undo:32101']);
    expect(store.canUndo('wb:0')).toBe(false);
    store.deleteItems('wb:0', ['zz']);
    expect(refused).toEqual(['undo:32101', 'delete:32101']);
    expect(store.snapshot('wb:0').pending).toBe(0);
  });
});
