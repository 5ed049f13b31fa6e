import { describe, expect, it } from 'vitest';
import type { BoardOp, SequencedOp, StrokeData } from '../contracts/board.ts';
import { LayerHistory, changesOfEffects } from './history.ts';
import {
  BOARD_LIMITS,
  applyEffects,
  applySequencedOp,
  parseOp,
  effectsOf,
  emptyLayer,
  layerFromState,
  layerToState,
  parseLayerKey,
  type Layer,
} from './model.ts';

const stroke = (x0 = 10, y0 = 20): StrokeData => ({ kind: 'stroke', points: [x0, y0, x0 + 5, y0 + 5], color: 'red', width: 4 });

function ok(raw: unknown): BoardOp {
  const c = parseOp(raw);
  if (!c.ok) throw new Error(c.error);
  return c.value;
}

/** Checks, turns into effects, applies and records, like the server does, returning the sequenced op. */
function submit(layer: Layer, history: LayerHistory, raw: unknown, uid: string): SequencedOp {
  const op = ok(raw);
  let effects;
  if (op.type === 'undo' || op.type === 'redo') {
    const plan = op.type === 'undo' ? history.planUndo(layer, uid) : history.planRedo(layer, uid);
    if (!plan.ok) throw new Error(plan.error);
    if (op.type === 'undo') history.undone(uid, plan.target);
    else history.redone(uid, plan.target);
    effects = plan.effects;
  } else {
    const out = effectsOf(layer, op, uid);
    if (!out.ok) throw new Error(out.error);
    if (op.type === 'clear') history.clear();
    else history.record(uid, layer.seq + 1, out.changes);
    effects = out.effects;
  }
  const seqd: SequencedOp = { ...op, seq: layer.seq + 1, uid, at: 0, effects };
  expect(applySequencedOp(layer, seqd)).toBe(true);
  return seqd;
}

const ids = (l: Layer) => [...l.items.keys()];

describe('layer keys', () => {
  it('accepts wb:0..wb:20 and doc:{id}:{slide>=1}, nothing else', () => {
    expect(parseLayerKey('wb:0')).toEqual({ kind: 'wb', page: 0 });
    expect(parseLayerKey('wb:20')).toEqual({ kind: 'wb', page: 20 });
    expect(parseLayerKey('doc:abc-1:3')).toEqual({ kind: 'doc', documentId: 'abc-1', slide: 3 });
    for (const bad of ['wb:21', 'wb:-1', 'wb:01', 'wb:', 'doc:x:0', 'doc::1', 'doc:a b:1', 'WB:1', ' wb:1', 'wb:1 ', 'doc:x:01', 5, null]) {
      expect(parseLayerKey(bad), String(bad)).toBeNull();
    }
  });
});

describe('parseOp', () => {
  it('keeps only the fields a type uses and copies the data', () => {
    const points = [1, 2, 3, 4];
    const op = ok({
      opId: 'o1',
      type: 'create',
      btype: 'brush',
      id: 'i1',
      page: 'wb:0',
      data: { kind: 'stroke', points, color: 'red', width: 4 },
    });
    expect(op).toEqual({
      opId: 'o1',
      type: 'create',
      btype: 'brush',
      id: 'i1',
      page: 'wb:0',
      data: { kind: 'stroke', points: [1, 2, 3, 4], color: 'red', width: 4 },
    });
    points[0] = 999;
    expect((op.data as StrokeData).points[0]).toBe(1);
    expect(ok({ opId: 'u', type: 'undo', page: 'wb:3' })).toEqual({ opId: 'u', type: 'undo', page: 'wb:3' });
  });

  it('keeps positions to 1/100 of a unit', () => {
    const op = ok({
      opId: 'o',
      type: 'create',
      id: 'i',
      page: 'wb:0',
      data: { kind: 'stroke', points: [1.234567, 2.005, -3.3333333, 4], color: 'red', width: 4.5 },
    });
    expect((op.data as StrokeData).points).toEqual([1.23, 2.01, -3.33, 4]);
    expect((op.data as StrokeData).width).toBe(4.5);
    const move = ok({ opId: 'm', type: 'move', ids: ['i'], page: 'wb:0', data: { dx: 0.1 + 0.2, dy: 1 / 3 } });
    expect(move.data).toEqual({ dx: 0.3, dy: 0.33 });
  });

  it('refuses bad shapes, sizes and ranges', () => {
    const base = { opId: 'o1', type: 'create', id: 'i1', page: 'wb:0' };
    const bad: unknown[] = [
      null,
      [],
      { ...base, data: stroke(), extra: 1 },
      { ...base, opId: 'x'.repeat(65), data: stroke() },
      { ...base, opId: '', data: stroke() },
      { ...base, opId: 'a b', data: stroke() },
      { ...base, id: 'i'.repeat(65), data: stroke() },
      { ...base, type: 'explode', data: stroke() },
      { ...base, page: 'wb:21', data: stroke() },
      { ...base, btype: 'laser', data: stroke() },
      { ...base, data: { ...stroke(), points: [1, 2, 3] } },
      { ...base, data: { ...stroke(), points: [] } },
      { ...base, data: { ...stroke(), points: [1, Number.NaN] } },
      { ...base, data: { ...stroke(), points: [1, 1e9] } },
      { ...base, data: { ...stroke(), points: ['1', 2] } },
      { ...base, data: { ...stroke(), points: new Array(BOARD_LIMITS.strokeNumbers + 2).fill(1) } },
      { ...base, data: { ...stroke(), color: 'pink' } },
      { ...base, data: { ...stroke(), width: 0 } },
      { ...base, data: { ...stroke(), width: Infinity } },
      { ...base, data: { ...stroke(), injected: '<script>' } },
      { ...base, data: { kind: 'text', text: '   ', x: 0, y: 0, width: 150, fontSize: 18, color: 'red' } },
      {
        ...base,
        data: { kind: 'text', text: 'a'.repeat(BOARD_LIMITS.textLength + 1), x: 0, y: 0, width: 150, fontSize: 18, color: 'red' },
      },
      { ...base, data: { kind: 'image', src: '../etc/passwd', x: 0, y: 0, w: 10, h: 10 } },
      { ...base, data: { kind: 'shape', shape: 'star', x1: 0, y1: 0, x2: 1, y2: 1, color: 'red', width: 4 } },
      { ...base, data: { kind: 'blob' } },
      { opId: 'd', type: 'delete', page: 'wb:0', ids: [] },
      { opId: 'd', type: 'delete', page: 'wb:0', ids: new Array(BOARD_LIMITS.idsPerOp + 1).fill('a') },
      { opId: 'm', type: 'move', page: 'wb:0', ids: ['a'], data: { dx: 'x', dy: 1 } },
      { opId: 'v', type: 'move_by_presenter', page: 'wb:0', data: { x: 0, y: 0, width: 0, height: 10 } },
    ];
    for (const b of bad) expect(parseOp(b).ok, JSON.stringify(b)?.slice(0, 120)).toBe(false);
  });

  it('accepts every item kind', () => {
    const base = { opId: 'o1', type: 'create', id: 'i1', page: 'doc:d1:2' };
    for (const data of [
      stroke(),
      { kind: 'stroke', points: [0, 0, 1, 1], color: 'black', width: 20, eraser: true },
      { kind: 'shape', shape: 'ellipse', x1: 0, y1: 0, x2: 100, y2: 50, color: 'blue', width: 3 },
      { kind: 'stencil', stencilId: 'physics-battery', x: 1, y: 2, w: 100, h: 80 },
      { kind: 'text', text: '勾股定理 a²+b²=c²', x: 10, y: 10, width: 150, fontSize: 18, color: 'deepgrey' },
      { kind: 'image', src: 'board/123456/abc.png', x: 0, y: 0, w: 640, h: 480 },
    ]) {
      expect(parseOp({ ...base, data }).ok, JSON.stringify(data)).toBe(true);
    }
  });
});

describe('effects and layers', () => {
  it('create, update, move, delete, clear; order kept on update, new items on top', () => {
    const layer = emptyLayer('wb:0');
    const h = new LayerHistory();
    submit(layer, h, { opId: '1', type: 'create', id: 'a', page: 'wb:0', data: stroke() }, 'u1');
    submit(layer, h, { opId: '2', type: 'create', id: 'b', page: 'wb:0', data: stroke(50, 50) }, 'u2');
    expect(ids(layer)).toEqual(['a', 'b']);
    submit(layer, h, { opId: '3', type: 'update', id: 'a', page: 'wb:0', data: { ...stroke(), color: 'blue' } }, 'u2');
    expect(ids(layer)).toEqual(['a', 'b']);
    expect(layer.items.get('a')).toMatchObject({ uid: 'u1', data: { color: 'blue' } });
    submit(layer, h, { opId: '4', type: 'move', ids: ['a', 'zz'], page: 'wb:0', data: { dx: 100, dy: -10 } }, 'u1');
    expect((layer.items.get('a')!.data as StrokeData).points).toEqual([110, 10, 115, 15]);
    submit(layer, h, { opId: '5', type: 'delete', ids: ['b'], page: 'wb:0' }, 'u1');
    expect(ids(layer)).toEqual(['a']);
    expect(layer.seq).toBe(5);
    submit(layer, h, { opId: '6', type: 'clear', page: 'wb:0' }, 'u1');
    expect(layer.items.size).toBe(0);
  });

  it('refuses a duplicate id, a missing item, a kind change', () => {
    const layer = emptyLayer('wb:0');
    const h = new LayerHistory();
    submit(layer, h, { opId: '1', type: 'create', id: 'a', page: 'wb:0', data: stroke() }, 'u1');
    expect(effectsOf(layer, ok({ opId: '2', type: 'create', id: 'a', page: 'wb:0', data: stroke() }), 'u1').ok).toBe(false);
    expect(effectsOf(layer, ok({ opId: '2', type: 'delete', ids: ['nope'], page: 'wb:0' }), 'u1').ok).toBe(false);
    expect(effectsOf(layer, ok({ opId: '2', type: 'move', ids: ['nope'], page: 'wb:0', data: { dx: 1, dy: 1 } }), 'u1').ok).toBe(false);
    const text = { kind: 'text', text: 'x', x: 0, y: 0, width: 150, fontSize: 18, color: 'red' };
    expect(effectsOf(layer, ok({ opId: '2', type: 'update', id: 'a', page: 'wb:0', data: text }), 'u1').ok).toBe(false);
  });

  it('applies a sequenced op once; a replay is skipped', () => {
    const layer = emptyLayer('wb:1');
    const op: SequencedOp = {
      opId: 'x',
      type: 'create',
      id: 'a',
      page: 'wb:1',
      seq: 7,
      uid: 'u',
      at: 0,
      effects: [{ kind: 'put', items: [{ id: 'a', uid: 'u', data: stroke() }] }],
    };
    expect(applySequencedOp(layer, op)).toBe(true);
    expect(applySequencedOp(layer, { ...op, effects: [{ kind: 'clear' }] })).toBe(false);
    expect(layer.items.size).toBe(1);
    expect(layer.seq).toBe(7);
    expect(() => applySequencedOp(layer, { ...op, seq: 8, page: 'wb:2' })).toThrow();
  });

  it('a viewport follows move_by_presenter and survives a state round trip', () => {
    const layer = emptyLayer('wb:0');
    submit(
      layer,
      new LayerHistory(),
      { opId: 'v', type: 'move_by_presenter', page: 'wb:0', data: { x: 0, y: 768, width: 1024, height: 768 } },
      'teacher',
    );
    const copy = layerFromState(JSON.parse(JSON.stringify(layerToState(layer))));
    expect(copy).toEqual(layer);
    expect(copy.viewport).toEqual({ x: 0, y: 768, width: 1024, height: 768 });
  });
});

describe('undo and redo', () => {
  it("undoes the author's own latest operation, redoes it, and a new op drops the redo stack", () => {
    const layer = emptyLayer('wb:0');
    const h = new LayerHistory();
    submit(layer, h, { opId: '1', type: 'create', id: 'a', page: 'wb:0', data: stroke() }, 'u1');
    submit(layer, h, { opId: '2', type: 'create', id: 'b', page: 'wb:0', data: stroke() }, 'u2');
    submit(layer, h, { opId: '3', type: 'move', ids: ['a'], page: 'wb:0', data: { dx: 1, dy: 1 } }, 'u1');
    const undo = submit(layer, h, { opId: '4', type: 'undo', page: 'wb:0' }, 'u1');
    expect(undo.effects).toEqual([{ kind: 'put', items: [{ id: 'a', uid: 'u1', data: stroke() }] }]);
    submit(layer, h, { opId: '5', type: 'undo', page: 'wb:0' }, 'u1');
    expect(ids(layer)).toEqual(['b']);
    expect(h.planUndo(layer, 'u1').ok).toBe(false);
    submit(layer, h, { opId: '6', type: 'redo', page: 'wb:0' }, 'u1');
    expect(ids(layer)).toEqual(['b', 'a']);
    expect(h.sizes('u1')).toEqual({ undo: 1, redo: 1 });
    submit(layer, h, { opId: '7', type: 'create', id: 'c', page: 'wb:0', data: stroke() }, 'u1');
    expect(h.sizes('u1')).toEqual({ undo: 2, redo: 0 });
    expect(h.planRedo(layer, 'u1').ok).toBe(false);
    expect(h.sizes('u2')).toEqual({ undo: 1, redo: 0 });
  });

  it('leaves items another user changed or removed since', () => {
    const layer = emptyLayer('wb:0');
    const h = new LayerHistory();
    submit(layer, h, { opId: '1', type: 'create', id: 'a', page: 'wb:0', data: stroke() }, 'u1');
    submit(layer, h, { opId: '2', type: 'create', id: 'b', page: 'wb:0', data: stroke() }, 'u1');
    submit(layer, h, { opId: '3', type: 'delete', ids: ['a', 'b'], page: 'wb:0' }, 'u1');
    submit(layer, h, { opId: '4', type: 'undo', page: 'wb:0' }, 'u1');
    expect(ids(layer).sort()).toEqual(['a', 'b']);
    submit(layer, h, { opId: '5', type: 'move', ids: ['a'], page: 'wb:0', data: { dx: 5, dy: 5 } }, 'u2');
    submit(layer, h, { opId: '6', type: 'delete', ids: ['b'], page: 'wb:0' }, 'u2');
    // u1 redoes the delete of a and b: a was moved by u2 and b is gone, so nothing changes.
    const redo = submit(layer, h, { opId: '7', type: 'redo', page: 'wb:0' }, 'u1');
    expect(redo.effects).toEqual([]);
    expect(ids(layer)).toEqual(['a']);
  });

  it('a clear is final: no one can undo across it', () => {
    const layer = emptyLayer('wb:0');
    const h = new LayerHistory();
    submit(layer, h, { opId: '1', type: 'create', id: 'a', page: 'wb:0', data: stroke() }, 'u1');
    submit(layer, h, { opId: '2', type: 'clear', page: 'wb:0' }, 'teacher');
    expect(h.planUndo(layer, 'u1').ok).toBe(false);
  });

  it('keeps at most `depth` entries', () => {
    const layer = emptyLayer('wb:0');
    const h = new LayerHistory(3);
    for (let i = 0; i < 5; i++) submit(layer, h, { opId: `c${i}`, type: 'create', id: `i${i}`, page: 'wb:0', data: stroke() }, 'u1');
    expect(h.sizes('u1').undo).toBe(3);
  });

  it('changesOfEffects recovers before and after from stored effects', () => {
    const layer = emptyLayer('wb:0');
    applyEffects(layer, [{ kind: 'put', items: [{ id: 'a', uid: 'u', data: stroke() }] }]);
    const moved = { id: 'a', uid: 'u', data: stroke(1, 1) };
    const changes = changesOfEffects(layer, [
      { kind: 'put', items: [moved, { id: 'n', uid: 'u', data: stroke() }] },
      { kind: 'remove', ids: ['n'] },
    ]);
    expect(changes).toEqual([
      { id: 'a', before: { id: 'a', uid: 'u', data: stroke() }, after: moved },
      { id: 'n', before: null, after: null },
    ]);
  });
});
