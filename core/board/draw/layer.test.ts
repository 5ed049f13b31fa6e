import { describe, expect, it } from 'vitest';
import type { BoardItem, Effect, SequencedOp } from '#core/contracts/board.ts';
import { applyEffects, LayerView } from './layer.ts';

const data = (x: number) => ({ kind: 'stroke' as const, points: [x, 0, x + 1, 1], color: 'red' as const, width: 4 });
const it1 = (id: string, x = 0, uid = 'me'): BoardItem => ({ id, uid, data: data(x) });
let seq = 0;
function sequenced(opId: string, effects: Effect[], uid = 'other', type: SequencedOp['type'] = 'create'): SequencedOp {
  seq += 1;
  return { opId, type, page: 'wb:0', seq, uid, at: 0, effects };
}

describe('applyEffects', () => {
  it('appends new items on top and asks only for them to be painted', () => {
    const m = new Map<string, BoardItem>();
    expect(applyEffects(m, [{ kind: 'put', items: [it1('a'), it1('b')] }])).toEqual({ kind: 'append', items: [it1('a'), it1('b')] });
    expect([...m.keys()]).toEqual(['a', 'b']);
  });
  it('keeps a replaced item in its place and asks for a full repaint; same for remove and clear', () => {
    const m = new Map<string, BoardItem>([
      ['a', it1('a')],
      ['b', it1('b')],
    ]);
    expect(applyEffects(m, [{ kind: 'put', items: [it1('a', 50)] }]).kind).toBe('full');
    expect([...m.keys()]).toEqual(['a', 'b']);
    expect(m.get('a')?.data).toEqual(data(50));
    expect(applyEffects(m, [{ kind: 'remove', ids: ['zz'] }]).kind).toBe('none');
    expect(applyEffects(m, [{ kind: 'remove', ids: ['a'] }]).kind).toBe('full');
    expect(applyEffects(m, [{ kind: 'clear' }]).kind).toBe('full');
    expect(m.size).toBe(0);
  });
});

describe('LayerView', () => {
  it('shows our own operation at once and does not repaint when the server confirms it', () => {
    const layer = new LayerView('wb:0');
    const local = layer.applyLocal({ opId: 'o1', type: 'create', id: 'a', data: data(1), page: 'wb:0' }, 'me');
    expect(local.kind).toBe('append');
    expect(layer.pendingCount).toBe(1);
    const confirmed = layer.applySequenced(sequenced('o1', [{ kind: 'put', items: [it1('a', 1)] }], 'me'));
    expect(confirmed.kind).toBe('none');
    expect(layer.pendingCount).toBe(0);
    expect(layer.items().map((i) => i.id)).toEqual(['a']);
  });

  it('ends in the server order when another op lands before ours is confirmed', () => {
    const layer = new LayerView('wb:0');
    layer.applyLocal({ opId: 'o1', type: 'create', id: 'mine', data: data(1), page: 'wb:0' }, 'me');
    // The server sequenced someone else's first: shown now, ours stays on top.
    layer.applySequenced(sequenced('x', [{ kind: 'put', items: [it1('theirs', 2, 'other')] }]));
    expect(layer.items().map((i) => i.id)).toEqual(['mine', 'theirs']);
    const change = layer.applySequenced(sequenced('o1', [{ kind: 'put', items: [it1('mine', 1)] }], 'me'));
    expect(change.kind).toBe('full');
    expect(layer.items().map((i) => i.id)).toEqual(['theirs', 'mine']);
    expect(layer.items()).toEqual([...layer.confirmed.items.values()]);
  });

  it('takes a refused operation back', () => {
    const layer = new LayerView('wb:0');
    layer.applyLocal({ opId: 'o1', type: 'create', id: 'a', data: data(1), page: 'wb:0' }, 'me');
    expect(layer.reject('o1').kind).toBe('full');
    expect(layer.items()).toEqual([]);
  });

  it('predicts moves and deletes with the shared model, and waits for the server on undo', () => {
    const layer = new LayerView('wb:0');
    layer.applySequenced(sequenced('c', [{ kind: 'put', items: [it1('a', 0)] }], 'me'));
    layer.applyLocal({ opId: 'm', type: 'move', ids: ['a'], data: { dx: 10, dy: 0 }, page: 'wb:0' }, 'me');
    expect(layer.get('a')?.data).toMatchObject({ points: [10, 0, 11, 1] });
    expect(layer.applyLocal({ opId: 'u', type: 'undo', page: 'wb:0' }, 'me').kind).toBe('none');
    layer.applyLocal({ opId: 'd', type: 'delete', ids: ['a'], page: 'wb:0' }, 'me');
    expect(layer.items()).toEqual([]);
  });

  it('ignores repeated and older sequence numbers and operations of other layers', () => {
    const layer = new LayerView('wb:0');
    const op = sequenced('c', [{ kind: 'put', items: [it1('a')] }]);
    layer.applySequenced(op);
    expect(layer.applySequenced(op).kind).toBe('none');
    expect(layer.applySequenced({ ...op, seq: op.seq + 1, page: 'wb:1' }).kind).toBe('none');
    expect(layer.items()).toHaveLength(1);
  });

  it('loads a state under pending echoes', () => {
    const layer = new LayerView('wb:0');
    layer.applyLocal({ opId: 'o1', type: 'create', id: 'mine', data: data(1), page: 'wb:0' }, 'me');
    expect(layer.loadState({ page: 'wb:0', seq: 40, items: [it1('x', 5, 'other')] }).kind).toBe('full');
    expect(layer.items().map((i) => i.id)).toEqual(['x', 'mine']);
    expect(layer.seq).toBe(40);
  });
});
