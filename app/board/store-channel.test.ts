/**
 * The board store's half of the board channel (ADR 108): an answer or an event from the server
 * that breaks its schema is logged and dropped; the store stays live and goes on with good ones.
 */
import { describe, expect, it } from 'vitest';
import type { ChannelProblem } from '#core/channel/open.ts';
import type { SequencedOp } from '#core/contracts/board.ts';
import { FakeSocket } from '#tests/support/fake-socket.ts';
import { BoardStore } from './store.ts';

const stroke = { kind: 'stroke' as const, points: [1, 2, 30, 40], color: 'red' as const, width: 4 };
const op = (seq: number, id: string): SequencedOp => ({
  opId: `o${seq}`,
  type: 'create',
  btype: 'brush',
  id,
  data: stroke,
  page: 'wb:0',
  seq,
  uid: 'u2',
  at: seq,
  effects: [{ kind: 'put', items: [{ id, uid: 'u2', data: stroke }] }],
});

async function setup() {
  const socket = new FakeSocket();
  const problems: ChannelProblem[] = [];
  const refused: string[] = [];
  const store = new BoardStore({ uid: 'u1', token: async () => 'token', socket: () => socket as never, log: (p) => problems.push(p) });
  store.on('refused', (ack) => refused.push(ack.code));
  await store.connect();
  socket.up();
  return { socket, store, problems, refused };
}

describe('the board channel, client half', () => {
  it('drops an operation or a stroke that breaks its schema, logs it, and applies the good ones after it', async () => {
    const { socket, store, problems } = await setup();
    const opened = store.open('wb:0');
    socket.last('getBoard').answer(null, { code: '0', msg: '', data: { state: { page: 'wb:0', seq: 0, items: [] }, ops: [] } });
    await opened;
    socket.fire('sync', { ...op(1, 'bad'), effects: [{ kind: 'put', items: [{ id: 'bad' }] }] });
    socket.fire('sync', { ...op(2, 'worse'), seq: 'two' });
    socket.fire('stroke', { strokeId: 's1', page: 'wb:0', points: [1], color: 'red', width: 4, uid: 'u2' });
    expect(problems.map((p) => [p.channel, p.kind, p.name])).toEqual([
      ['board', 'event', 'sync'],
      ['board', 'event', 'sync'],
      ['board', 'event', 'stroke'],
    ]);
    expect(store.snapshot('wb:0').items).toEqual([]);
    expect(store.liveStrokes('wb:0')).toEqual([]);
    socket.fire('sync', op(1, 'good'));
    socket.fire('stroke', { strokeId: 's2', page: 'wb:0', points: [1, 2], color: 'red', width: 4, uid: 'u2' });
    expect(store.snapshot('wb:0').items.map((i) => i.id)).toEqual(['good']);
    expect(store.liveStrokes('wb:0')).toHaveLength(1);
    expect(store.status).toBe('live');
  });

  it('refuses a load whose answer breaks its schema (logged), and loads again on the next good answer', async () => {
    const { socket, store, problems, refused } = await setup();
    const first = store.open('wb:0');
    socket.last('getBoard').answer(null, { code: '0', msg: '', data: { state: { page: 'wb:0', items: 'none' }, ops: [] } });
    await first;
    expect(refused).toEqual(['9']);
    expect(problems).toMatchObject([{ channel: 'board', kind: 'answer', name: 'getBoard' }]);
    expect(store.layer('wb:0').loaded).toBe(false);
    const second = store.open('wb:0');
    socket.last('getBoard').answer(null, { code: '0', msg: '', data: { ops: [op(1, 'a')] } });
    await second;
    expect(store.snapshot('wb:0').items.map((i) => i.id)).toEqual(['a']);
    expect(store.status).toBe('live');
  });
});
