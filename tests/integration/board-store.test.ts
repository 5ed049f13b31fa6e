/**
 * The browser's board store (app/board/store.ts) against the real server: live operations,
 * the optimistic echo, a dropped connection with operations on both sides, and the resync from
 * the last sequence number seen.
 */
import { afterEach, expect, it } from 'vitest';
import { io } from 'socket.io-client';
import { BoardStore, type BoardSocket } from '#app/board/store.ts';
import { boardRoom } from '#tests/support/board-client.ts';
import { eachEngine } from '#tests/support/engines-matrix.ts';
import { ask, connectRoom } from '#tests/support/room-client.ts';
import type { TestServer } from '#tests/support/server.ts';
import { until } from '#tests/support/until.ts';

const closers: Array<{ close(): void }> = [];
afterEach(() => {
  for (const c of closers.splice(0)) c.close();
});

const stroke = (x: number) => ({ kind: 'stroke' as const, points: [x, 10, x + 5, 20, x + 9, 12], color: 'blue' as const, width: 4 });

/** A store whose getBoard requests are recorded. */
function store(server: TestServer, uid: string, token: string, loads: unknown[] = []): BoardStore {
  const s = new BoardStore({
    uid,
    token: async () => token,
    socket: (t) => {
      const socket: BoardSocket = io(`${server.url}/board`, {
        auth: { token: t },
        transports: ['websocket'],
        forceNew: true,
        reconnectionDelay: 100,
        reconnectionDelayMax: 200,
      });
      const emit = socket.emit.bind(socket) as (...a: unknown[]) => BoardSocket;
      (socket as unknown as { emit: (...a: unknown[]) => BoardSocket }).emit = (...args: unknown[]) => {
        if (args[0] === 'getBoard') loads.push(args[1]);
        return emit(...args);
      };
      return socket;
    },
  });
  closers.push(s);
  return s;
}

const ids = (s: BoardStore) => s.snapshot('wb:0').items.map((i) => i.id);

eachEngine('board store', (server) => {
  it("shows own operations at once, applies everyone's in order, and resyncs from the last sequence number after a drop", async () => {
    const { teacher, students } = await boardRoom(server(), 2, 1);
    const student = students[0]!;
    const room = await connectRoom(server().url, teacher.imToken);
    closers.push(room);
    expect((await ask(room, 'joinRoom')).code).toBe('0');
    expect((await ask(room, 'customRoomEvent', { wbPower: '1' })).code).toBe('0');

    const t = store(server(), teacher.userId, teacher.wbToken);
    const loads: unknown[] = [];
    const s = store(server(), student.userId, student.wbToken, loads);
    await Promise.all([t.connect(), s.connect()]);
    await until('both stores live', () => t.status === 'live' && s.status === 'live');
    await Promise.all([t.open('wb:0'), s.open('wb:0')]);

    // The echo: in the author's view before any answer, pending until its sequenced copy comes.
    t.create('wb:0', 'brush', stroke(0), 'a');
    expect(t.snapshot('wb:0')).toMatchObject({ pending: 1, items: [{ id: 'a' }] });
    t.create('wb:0', 'brush', stroke(20), 'b');
    s.create('wb:0', 'brush', stroke(40), 'c');
    await until(
      'three items in both stores, nothing pending',
      () => ids(s).length === 3 && ids(t).length === 3 && t.snapshot('wb:0').pending === 0 && s.snapshot('wb:0').pending === 0,
    );
    expect(ids(s)).toEqual(ids(t));
    const seqBefore = s.snapshot('wb:0').seq;
    expect(seqBefore).toBe(3);

    // The student drops off; both sides keep working.
    s.dropConnection();
    await until('the student store offline', () => s.status === 'offline');
    t.create('wb:0', 'brush', stroke(60), 'd');
    t.deleteItems('wb:0', ['b']);
    s.create('wb:0', 'brush', stroke(80), 'e'); // shown now, sent when the connection is back
    expect(ids(s)).toContain('e');
    await until('the student store live', () => s.status === 'live');
    await until(
      'the resync: four items in both stores',
      () => ids(t).includes('e') && ids(s).length === 4 && s.snapshot('wb:0').pending === 0 && t.snapshot('wb:0').pending === 0,
    );
    expect(s.snapshot('wb:0').items).toEqual(t.snapshot('wb:0').items);
    expect(ids(t)).toEqual(['a', 'c', 'd', 'e']);
    // The resync asked only for what came after the last number it had seen.
    expect(loads).toContainEqual({ page: 'wb:0', since: seqBefore });

    // Undo is per person: the student's undo takes back the student's last stroke only.
    s.undo('wb:0');
    await until('three items in both stores', () => ids(t).length === 3 && ids(s).length === 3);
    expect(ids(t)).toEqual(['a', 'c', 'd']);
    expect(s.snapshot('wb:0').items).toEqual(t.snapshot('wb:0').items);
  });

  it('takes back an operation the server refuses', async () => {
    const { students } = await boardRoom(server(), 2, 1);
    const student = students[0]!;
    const s = store(server(), student.userId, student.wbToken);
    const refused: string[] = [];
    s.on('refused', (ack) => refused.push(ack.code));
    await s.connect();
    await until('the student store live', () => s.status === 'live');
    await s.open('wb:0');
    s.create('wb:0', 'brush', stroke(0), 'x'); // wbPower is off
    expect(ids(s)).toEqual(['x']);
    await until('the refusal', () => refused.length === 1);
    expect(refused).toEqual(['31004']);
    expect(s.snapshot('wb:0')).toMatchObject({ pending: 0, items: [] });
  });
});
