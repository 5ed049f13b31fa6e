import { afterEach, expect, it } from 'vitest';
import type { BoardUpload } from '#core/contracts/board.ts';
import { BoardRepository } from '#core/board/board.repository.ts';
import { BoardService } from '#core/board/board.service.ts';
import { JsonText } from '#core/board/json-text.ts';
import { TokenSigner } from '#core/platform/secrets.ts';
import { call, signIn } from '#tests/support/api.ts';
import { seedBoard } from '#tests/support/board-seed.ts';
import { LayerMirror, boardRoom, connectBoard, createOp, stateOf, strokeData, type BoardSocket } from '#tests/support/board-client.ts';
import { eachEngine } from '#tests/support/engines-matrix.ts';
import { ask, connectRoom, rawAsk, rawEmit, record, sendStroke, waitFor } from '#tests/support/room-client.ts';
import type { TestServer } from '#tests/support/server.ts';
import { until } from '#tests/support/until.ts';

const sockets: Array<{ close(): void }> = [];
afterEach(() => {
  for (const s of sockets.splice(0)) s.close();
});

async function board(server: TestServer, token: string): Promise<BoardSocket> {
  const s = await connectBoard(server.url, token);
  sockets.push(s);
  return s;
}

/**
 * A round trip on `socket` (an unknown request, answered '5'): whatever the server sent this
 * socket before it read the request has arrived once the answer is here.
 */
async function flush(socket: BoardSocket): Promise<void> {
  expect((await rawAsk(socket, 'flush')).code).toBe('5');
}

async function counts(server: TestServer) {
  const db = server.banshu.platform.database.db;
  const [ops, snaps] = await Promise.all([
    db
      .selectFrom('board_ops')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('board_snapshots')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .executeTakeFirstOrThrow(),
  ]);
  return { ops: Number(ops.n), snapshots: Number(snaps.n) };
}

/** The creator sets wbPower through the room channel, as the permission dialog does. */
async function setPower(server: TestServer, imToken: string, wbPower: '0' | '1') {
  const room = await connectRoom(server.url, imToken);
  sockets.push(room);
  expect((await ask(room, 'joinRoom')).code).toBe('0');
  expect((await ask(room, 'customRoomEvent', { wbPower })).code).toBe('0');
}

eachEngine(
  'board channel',
  (server) => {
    it('sequences operations, broadcasts them to everyone in order and loads the same board', async () => {
      const { teacher, students } = await boardRoom(server(), 2, 1);
      const t = await board(server(), teacher.wbToken);
      const s = await board(server(), students[0]!.wbToken);
      const seenByStudent = record(s, 'sync');
      const seenByTeacher = record(t, 'sync');
      const seqs = [];
      for (let i = 0; i < 5; i++) {
        const r = await ask(t, 'sync', createOp(`op-${i}`, `item-${i}`, 'wb:0', strokeData(i * 10, i * 10)));
        expect(r.code).toBe('0');
        seqs.push(r.data.seq);
      }
      expect(seqs).toEqual([1, 2, 3, 4, 5]);
      const moved = await ask(t, 'sync', { opId: 'mv', type: 'move', ids: ['item-0'], page: 'wb:0', data: { dx: 5, dy: 5 } });
      expect(moved.data.seq).toBe(6);
      expect((await ask(t, 'delItem', { opId: 'del', page: 'wb:0', ids: ['item-1'] })).data.seq).toBe(7);
      // Another page has its own layer but the room's one counter.
      expect((await ask(t, 'sync', createOp('p2', 'x', 'wb:2'))).data.seq).toBe(8);
      await waitFor(s, 'sync', (op) => op.seq === 8);
      expect(seenByStudent.map((o) => o.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      expect(seenByTeacher.map((o) => o.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      expect(seenByStudent[0]).toMatchObject({
        opId: 'op-0',
        uid: teacher.userId,
        effects: [{ kind: 'put', items: [{ id: 'item-0', uid: teacher.userId }] }],
      });

      const live = new LayerMirror('wb:0');
      for (const op of seenByStudent) live.apply(op);
      const loaded = new LayerMirror('wb:0');
      const answer = await ask(s, 'getBoard', { page: 'wb:0' });
      expect(answer.code).toBe('0');
      loaded.load(answer.data);
      expect(loaded.items()).toEqual(live.items());
      expect(loaded.items().map((i) => i.id)).toEqual(['item-0', 'item-2', 'item-3', 'item-4']);
      expect(loaded.layer.seq).toBe(7);
      // Since a known number: only what came after it.
      const since = await ask(s, 'getBoard', { page: 'wb:0', since: 5 });
      expect(since.data.state).toBeUndefined();
      expect(since.data.ops.map((o) => o.seq)).toEqual([6, 7]);
      expect((await ask(s, 'getBoard', { page: 'wb:2', since: 8 })).data.ops).toEqual([]);
    });

    it('a repeated opId gets the seq it already had and is applied once', async () => {
      const { teacher } = await boardRoom(server(), 2, 0);
      const t = await board(server(), teacher.wbToken);
      const seen = record(t, 'sync');
      const op = createOp('same', 'a');
      const [a, b] = await Promise.all([ask(t, 'sync', op), ask(t, 'sync', op)]);
      expect(a.data.seq).toBe(1);
      expect(b.data.seq).toBe(1);
      // Even after the cache is gone, the database answers it.
      server().banshu.platform.services.board.forget(
        (await call(server().url, 'getMyRoomList', {}, { token: teacher.token })).data.roomList[0]!.roomNumber,
      );
      expect((await ask(t, 'sync', op)).data.seq).toBe(1);
      const second = waitFor(t, 'sync', (o) => o.seq === 2);
      expect((await ask(t, 'sync', createOp('next', 'b'))).data.seq).toBe(2);
      await second;
      expect(seen.map((o) => o.opId)).toEqual(['same', 'next']);
      expect((await counts(server())).ops).toBe(2);
    });

    it("members draw only while wbPower is on; never in a large class; observers never; viewport is the creator's", async () => {
      const { teacher, students, roomNumber } = await boardRoom(server(), 2, 1);
      const t = await board(server(), teacher.wbToken);
      const s = await board(server(), students[0]!.wbToken);
      const seen = record(t, 'sync');
      expect((await ask(s, 'sync', createOp('s1', 'si'))).code).toBe('31004');
      expect((await ask(s, 'clear', { opId: 's2', page: 'wb:0' })).code).toBe('31004');
      expect((await ask(t, 'sync', createOp('t1', 'ti'))).code).toBe('0');
      expect((await ask(s, 'delItem', { opId: 's3', page: 'wb:0', ids: ['ti'] })).code).toBe('31004');
      await setPower(server(), teacher.imToken, '1');
      expect((await ask(s, 'sync', createOp('s4', 'si'))).code).toBe('0');
      expect(
        (await ask(s, 'sync', { opId: 's5', type: 'move_by_presenter', page: 'wb:0', data: { x: 0, y: 0, width: 1024, height: 768 } }))
          .code,
      ).toBe('31004');
      expect(
        (await ask(t, 'sync', { opId: 't2', type: 'move_by_presenter', page: 'wb:0', data: { x: 0, y: 768, width: 1024, height: 768 } }))
          .code,
      ).toBe('0');
      await setPower(server(), teacher.imToken, '0');
      expect((await ask(s, 'sync', createOp('s6', 'sj'))).code).toBe('31004');
      await flush(t);
      expect(seen.map((o) => o.opId)).toEqual(['t1', 's4', 't2']);
      expect((await counts(server())).ops).toBe(3);

      // An observer by the creator's link reads the board and cannot write.
      const link = await call(server().url, 'createObserverLink', { roomNumber }, { token: teacher.token });
      const ot = new URL(link.data.url).searchParams.get('ot');
      const joined = await call(server().url, 'userJoinAgoraRoom', { roomNumber, userType: '3', ot });
      const o = await board(server(), joined.data.wbtoken);
      const state = await ask(o, 'getBoard', { page: 'wb:0' });
      expect(state.data.state?.items.map((i) => i.id)).toEqual(['ti', 'si']);
      expect(state.data.state?.viewport).toEqual({ x: 0, y: 768, width: 1024, height: 768 });
      await setPower(server(), teacher.imToken, '1');
      expect((await ask(o, 'sync', createOp('o1', 'oi'))).code).toBe('31004');

      // Room type 4: a member may not draw even with wbPower on.
      const live = await boardRoom(server(), 4, 1);
      await setPower(server(), live.teacher.imToken, '1');
      const m = await board(server(), live.students[0]!.wbToken);
      expect((await ask(m, 'sync', createOp('m1', 'mi'))).code).toBe('31004');
      const lt = await board(server(), live.teacher.wbToken);
      expect((await ask(lt, 'sync', createOp('m1', 'mi'))).code).toBe('0');
      expect((await counts(server())).ops).toBe(4);
    });

    it('undo and redo per user, carried as concrete effects', async () => {
      const { teacher, students } = await boardRoom(server(), 2, 1);
      await setPower(server(), teacher.imToken, '1');
      const t = await board(server(), teacher.wbToken);
      const s = await board(server(), students[0]!.wbToken);
      await ask(t, 'sync', createOp('t1', 'a'));
      await ask(s, 'sync', createOp('s1', 'b'));
      expect((await ask(s, 'sync', { opId: 'u0', type: 'redo', page: 'wb:0' })).code).toBe('32101');
      const undone = waitFor(s, 'sync', (o) => o.opId === 'u1');
      expect((await ask(t, 'sync', { opId: 'u1', type: 'undo', page: 'wb:0' })).code).toBe('0');
      expect((await undone).effects).toEqual([{ kind: 'remove', ids: ['a'] }]);
      expect((await ask(t, 'sync', { opId: 'u2', type: 'undo', page: 'wb:0' })).code).toBe('32101');
      const mirror = new LayerMirror('wb:0');
      mirror.load((await ask(s, 'getBoard', { page: 'wb:0' })).data);
      expect(mirror.items().map((i) => i.id)).toEqual(['b']);
      expect((await ask(t, 'sync', { opId: 'r1', type: 'redo', page: 'wb:0' })).code).toBe('0');
      // The history survives the cache: a cold load rebuilds it from the log.
      const room = (await call(server().url, 'getMyRoomList', {}, { token: teacher.token })).data.roomList[0]!.roomNumber;
      server().banshu.platform.services.board.forget(room);
      expect((await ask(s, 'sync', { opId: 'u3', type: 'undo', page: 'wb:0' })).code).toBe('0');
      expect((await ask(t, 'sync', { opId: 'u4', type: 'undo', page: 'wb:0' })).code).toBe('0');
      mirror.load((await ask(s, 'getBoard', { page: 'wb:0' })).data);
      expect(mirror.items()).toEqual([]);
    });

    it('snapshots keep a long, cleared history cheap: few rows, same board after a cold load', async () => {
      const { teacher, roomNumber } = await boardRoom(server(), 2, 0);
      const t = await board(server(), teacher.wbToken);
      for (let round = 0; round < 3; round++) {
        for (let i = 0; i < 30; i++) expect((await ask(t, 'sync', createOp(`r${round}-${i}`, `r${round}-${i}`))).code).toBe('0');
        expect((await ask(t, 'clear', { opId: `clear-${round}`, page: 'wb:0' })).code).toBe('0');
      }
      for (let i = 0; i < 3; i++) await ask(t, 'sync', createOp(`last-${i}`, `last-${i}`));
      // The snapshot after the clear is written behind the answer.
      await until('one snapshot stored', async () => (await counts(server())).snapshots === 1);
      const c = await counts(server());
      expect(c.snapshots).toBe(1);
      expect(c.ops).toBeLessThanOrEqual(12);
      const warm = (await ask(t, 'getBoard', { page: 'wb:0' })).data;
      server().banshu.platform.services.board.forget(roomNumber);
      // Cold, the answer is the snapshot (written at the last clear) and the operations after it.
      const cold = (await ask(t, 'getBoard', { page: 'wb:0' })).data;
      expect(cold.state).toEqual({ page: 'wb:0', seq: 93, items: [] });
      expect(cold.ops.map((o) => o.seq)).toEqual([94, 95, 96]);
      expect(stateOf('wb:0', cold)).toEqual(warm.state);
      expect(warm.state?.items.map((i) => i.id)).toEqual(['last-0', 'last-1', 'last-2']);
      expect(warm.state?.seq).toBe(96);
      // A client that saw seq 40 (before the compaction) gets the whole state; one that saw 94 the rest.
      const old = (await ask(t, 'getBoard', { page: 'wb:0', since: 40 })).data;
      expect(old.state).toBeDefined();
      expect(stateOf('wb:0', old)).toEqual(warm.state);
      expect((await ask(t, 'getBoard', { page: 'wb:0', since: 94 })).data).toEqual({ ops: cold.ops.slice(1) });
    });

    it('a cold load (as after a restart) answers the stored snapshot and the operations after it: the same layer as warm', async () => {
      const { teacher, roomNumber } = await boardRoom(server(), 2, 0);
      const p = server().banshu.platform;
      const service = p.services.board;
      const actor = { room: roomNumber, uid: teacher.userId, role: 'creator' as const };
      await seedBoard(
        service,
        actor,
        Array.from({ length: 300 }, (_, i) => createOp(`s${i}`, `s${i}`, 'wb:1', strokeData(i, i))),
      );
      const t = await board(server(), teacher.wbToken);
      for (let i = 0; i < 3; i++) expect((await ask(t, 'sync', createOp(`l${i}`, `l${i}`, 'wb:1'))).code).toBe('0');
      expect((await ask(t, 'sync', { opId: 'u1', type: 'undo', page: 'wb:1' })).code).toBe('0');
      const warm = (await ask(t, 'getBoard', { page: 'wb:1' })).data;
      expect(warm.state?.seq).toBe(304);
      expect(warm.state?.items).toHaveLength(302);
      expect(await counts(server())).toEqual({ ops: 4, snapshots: 1 });

      service.forget(roomNumber);
      const cold = (await ask(t, 'getBoard', { page: 'wb:1' })).data;
      expect(cold.state?.seq).toBe(300);
      expect(cold.ops.map((o) => o.seq)).toEqual([301, 302, 303, 304]);
      // What the undo reversed stays on the server, as in the live broadcast.
      expect(cold.ops.some((o) => 'target' in o)).toBe(false);
      expect(stateOf('wb:1', cold)).toEqual(warm.state);
      // Loaded again before anything is built: the same answer; with `since`, the operations after it.
      expect((await ask(t, 'getBoard', { page: 'wb:1' })).data).toEqual(cold);
      expect((await ask(t, 'getBoard', { page: 'wb:1', since: 302 })).data).toEqual({ ops: cold.ops.slice(2) });

      // Another process on the same database (a restarted server).
      const restarted = new BoardService(
        new BoardRepository(p.database.db),
        p.services.live,
        new TokenSigner(p.secret),
        p.objects,
        p.services.roomState,
        p.services.board['clock' as never],
        p.config,
      );
      const first = await restarted.load(actor, 'wb:1');
      expect(first.state).toBeInstanceOf(JsonText);
      expect(stateOf('wb:1', first)).toEqual(warm.state);
      // Operations that come while the layer is held as read are applied in order on the built
      // layer, undo included (it undoes the teacher's own latest operation: n1).
      const [created, since, undone] = await Promise.all([
        restarted.submit(actor, createOp('n1', 'n1', 'wb:1')),
        restarted.load(actor, 'wb:1', 304),
        restarted.submit(actor, { opId: 'u2', type: 'undo', page: 'wb:1' }),
      ]);
      expect([created.seq, undone.seq]).toEqual([305, 306]);
      expect(since).toEqual({ ops: [] });
      const after = stateOf('wb:1', await restarted.load(actor, 'wb:1'));
      expect(after.seq).toBe(306);
      expect(after.items).toEqual(warm.state?.items);
      expect(stateOf('wb:1', (await ask(t, 'getBoard', { page: 'wb:1' })).data)).toEqual(after);
      restarted.close();
    });

    it("seeding (the benchmarks' hook) writes the same log as live operations", async () => {
      const { teacher, roomNumber } = await boardRoom(server(), 2, 0);
      const { board: service } = server().banshu.platform.services;
      const actor = { room: roomNumber, uid: teacher.userId, role: 'creator' as const };
      const ops = [
        ...Array.from({ length: 250 }, (_, i) => createOp(`s${i}`, `s${i}`, 'wb:3', strokeData(i, i))),
        { opId: 'mv', type: 'move' as const, ids: ['s1', 's2'], page: 'wb:3', data: { dx: 1, dy: 1 } },
        { opId: 'un', type: 'undo' as const, page: 'wb:3' },
        { opId: 'del', type: 'delete' as const, ids: ['s0'], page: 'wb:3' },
      ];
      expect(await seedBoard(service, actor, ops, 100)).toBe(253);
      const t = await board(server(), teacher.wbToken);
      const warm = (await ask(t, 'getBoard', { page: 'wb:3' })).data;
      expect(warm.state?.items).toHaveLength(249);
      expect(warm.state?.items.find((i) => i.id === 's1')?.data).toEqual(strokeData(1, 1));
      service.forget(roomNumber);
      expect(stateOf('wb:3', (await ask(t, 'getBoard', { page: 'wb:3' })).data)).toEqual(warm.state);
      // Live operations continue the same sequence; a repeat of a seeded opId is known.
      expect((await ask(t, 'sync', createOp('live', 'live', 'wb:3'))).data.seq).toBe(254);
      expect((await ask(t, 'sync', { opId: 'del', type: 'delete', ids: ['s0'], page: 'wb:3' })).data.seq).toBe(253);
      // One compacted into the snapshot is no longer known by its opId, but is still not applied twice.
      expect((await ask(t, 'sync', createOp('s5', 's5', 'wb:3'))).code).toBe('32101');
      // A refused seed leaves nothing behind.
      await expect(seedBoard(service, actor, [createOp('x1', 'x1', 'wb:3'), createOp('x2', 's3', 'wb:3')])).rejects.toMatchObject({
        code: '32101',
      });
      expect(stateOf('wb:3', (await ask(t, 'getBoard', { page: 'wb:3' })).data).items).toHaveLength(250);
    });

    it('two writers on one database never share a number and each catches up with the other', async () => {
      const { teacher, roomNumber } = await boardRoom(server(), 2, 0);
      const p = server().banshu.platform;
      const other = new BoardService(
        new BoardRepository(p.database.db),
        p.services.live,
        new TokenSigner(p.secret),
        p.objects,
        p.services.roomState,
        p.services.board['clock' as never],
        p.config,
      );
      const actor = { room: roomNumber, uid: teacher.userId, role: 'creator' as const };
      const first = p.services.board;
      const results = await Promise.all(
        Array.from({ length: 40 }, (_, i) => (i % 2 ? first : other).submit(actor, createOp(`w-${i}`, `w-${i}`))),
      );
      expect(results.map((r) => r.seq).sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
      // A load on either node sees every operation, whoever wrote it.
      const load = async (node: BoardService) => stateOf('wb:0', await node.load(actor, 'wb:0'));
      const [a, b] = await Promise.all([load(first), load(other)]);
      expect(a.items).toHaveLength(40);
      expect(b).toEqual(a);
      await first.submit(actor, createOp('w-last', 'w-last'));
      await other.submit(actor, { opId: 'w-undo', type: 'undo', page: 'wb:0' });
      expect((await load(other)).seq).toBe(42);
      first.forget(roomNumber);
      const fresh = await load(first);
      expect(await load(other)).toEqual(fresh);
      // The undo on the other node undid the latest operation of that user, written by the first node.
      expect(fresh.items).toHaveLength(40);
      expect(fresh.items.map((i) => i.id)).not.toContain('w-last');
      // A clear on the other node is compacted into its snapshot at once: this node, whose layer
      // cannot be brought forward op by op any more, reads it again.
      await other.submit(actor, { opId: 'w-clear', type: 'clear', page: 'wb:0' });
      await other.submit(actor, createOp('after', 'after'));
      expect((await load(first)).items.map((i) => i.id)).toEqual(['after']);
      other.close();
    });

    it('refuses forged tokens, strangers, bad pages and oversize payloads, and stores nothing', async () => {
      const { teacher, students, roomNumber } = await boardRoom(server(), 2, 1);
      await expect(connectBoard(server().url, 'nope')).rejects.toMatchObject({ code: '21001' });
      await expect(connectBoard(server().url, `${teacher.wbToken.slice(0, -3)}abc`)).rejects.toMatchObject({ code: '21001' });
      // The room channel's token is not a board token.
      await expect(connectBoard(server().url, teacher.imToken)).rejects.toMatchObject({ code: '21001' });
      const stranger = await signIn(server());
      expect(
        (await call(server().url, 'createWbToken', { userId: stranger.userId, channelId: roomNumber }, { token: stranger.token })).code,
      ).toBe('31004');
      expect(
        (await call(server().url, 'createWbToken', { userId: teacher.userId, channelId: roomNumber }, { token: stranger.token })).code,
      ).toBe('31004');
      expect((await call(server().url, 'createWbToken', { userId: teacher.userId, channelId: roomNumber })).code).not.toBe('0');
      // A board token of another room reads and writes that room only.
      const elsewhere = await boardRoom(server(), 2, 0);
      const t = await board(server(), teacher.wbToken);
      const e = await board(server(), elsewhere.teacher.wbToken);
      const leak = record(e, 'sync');
      expect((await ask(t, 'sync', createOp('mine', 'mine'))).code).toBe('0');
      expect((await ask(e, 'getBoard', { page: 'wb:0' })).data.state?.items).toEqual([]);
      await flush(e);
      expect(leak).toEqual([]);
      const before = await counts(server());

      await setPower(server(), teacher.imToken, '1');
      const s = await board(server(), students[0]!.wbToken);
      const bad: unknown[] = [
        createOp('p1', 'x', 'wb:21'),
        createOp('p2', 'x', 'doc::1'),
        createOp('p3', 'x', '../wb:0'),
        createOp('p4', 'x', 'wb:0', { ...strokeData(), points: new Array(20_002).fill(1) }),
        createOp('p5', 'x', 'wb:0', { ...strokeData(), points: [1, Number.MAX_VALUE] }),
        createOp('p6', 'x', 'wb:0', { kind: 'text', text: 'a'.repeat(2001), x: 0, y: 0, width: 150, fontSize: 18, color: 'red' }),
        createOp('p7', 'x', 'wb:0', { kind: 'stencil', stencilId: 'not-ours', x: 0, y: 0, w: 10, h: 10 }),
        createOp('p8', 'x', 'wb:0', { kind: 'image', src: 'board/999999/x.png', x: 0, y: 0, w: 10, h: 10 }),
        createOp('x'.repeat(65), 'x'),
        { ...createOp('p9', 'x'), extra: true },
        'not an object',
        null,
      ];
      for (const b of bad) expect((await rawAsk(s, 'sync', b)).code, JSON.stringify(b)?.slice(0, 80)).toBe('5');
      expect((await rawAsk(s, 'delItem', { opId: 'd', page: 'wb:0', ids: 'mine' })).code).toBe('5');
      expect((await ask(s, 'getBoard', { page: 'page 0' })).code).toBe('5');
      expect((await ask(s, 'getBoard', { page: 'wb:0', since: -1 })).code).toBe('5');
      expect((await ask(s, 'sync', createOp('dup-id', 'mine'))).code).toBe('32101');
      // Over the transport limit the socket is dropped, nothing half-written.
      const dropped = new Promise((r) => s.once('disconnect', r));
      rawEmit(s, 'sync', createOp('huge', 'huge', 'wb:0', { ...strokeData(), points: new Array(600_000).fill(1) }));
      await dropped;
      expect(await counts(server())).toEqual(before);
      expect(await ask(t, 'getBoard', { page: 'wb:0' }).then((r) => r.data.state?.items.map((i) => i.id))).toEqual(['mine']);
    });

    it('relays live strokes to the others, only from someone who may draw', async () => {
      const { teacher, students } = await boardRoom(server(), 2, 2);
      const t = await board(server(), teacher.wbToken);
      const s1 = await board(server(), students[0]!.wbToken);
      const s2 = await board(server(), students[1]!.wbToken);
      const toTeacher = record(t, 'stroke');
      const got = waitFor(s1, 'stroke', (p) => p.strokeId === 'st1' && p.points.length === 4);
      sendStroke(t, { strokeId: 'st1', page: 'wb:0', points: [1, 2, 3, 4], color: 'blue', width: 4, start: true });
      expect(await got).toEqual({
        strokeId: 'st1',
        page: 'wb:0',
        points: [1, 2, 3, 4],
        color: 'blue',
        width: 4,
        start: true,
        uid: teacher.userId,
      });
      // A student without permission, and junk, are not relayed.
      const heardByS1 = record(s1, 'stroke');
      sendStroke(s2, { strokeId: 'no', page: 'wb:0', points: [1, 2], color: 'red', width: 4 });
      rawEmit(t, 'stroke', { strokeId: 'bad', page: 'wb:99', points: [1, 2], color: 'red', width: 4 });
      rawEmit(t, 'stroke', { strokeId: 'bad2', page: 'wb:0', points: new Array(2002).fill(1), color: 'red', width: 4 });
      const cleaned = waitFor(s1, 'stroke', (p) => p.strokeId === 'bad3');
      rawEmit(t, 'stroke', {
        strokeId: 'bad3',
        page: 'wb:0',
        points: [1, 2],
        color: 'red',
        width: 4,
        uid: 'forged',
        extra: 'x'.repeat(10),
      });
      await cleaned;
      // Volatile: a batch sent while the previous one is still being written may be dropped, so one at a time here.
      const last = waitFor(s1, 'stroke', (p) => p.strokeId === 'end');
      sendStroke(t, { strokeId: 'end', page: 'wb:0', points: [5, 6], color: 'red', width: 4 });
      await last;
      expect(heardByS1.map((p) => p.strokeId)).toEqual(['bad3', 'end']);
      expect(heardByS1[0]).toEqual({ strokeId: 'bad3', page: 'wb:0', points: [1, 2], color: 'red', width: 4, uid: teacher.userId });
      expect(toTeacher).toEqual([]);
    });

    it('a kicked member is dropped from the board and cannot come back', async () => {
      const { teacher, students, roomNumber } = await boardRoom(server(), 2, 1);
      const s = await board(server(), students[0]!.wbToken);
      const room = await connectRoom(server().url, teacher.imToken);
      sockets.push(room);
      await ask(room, 'joinRoom');
      const gone = new Promise((r) => s.once('disconnect', r));
      expect((await ask(room, 'kickout', { userId: students[0]!.userId })).code).toBe('0');
      await gone;
      await expect(connectBoard(server().url, students[0]!.wbToken)).rejects.toMatchObject({ code: '31004' });
      expect(
        (await call(server().url, 'createWbToken', { userId: students[0]!.userId, channelId: roomNumber }, { token: students[0]!.token }))
          .code,
      ).toBe('31004');
    });

    it('the creator reviews the board of a closed class, page by page; nobody else can', async () => {
      const { teacher, students, roomNumber } = await boardRoom(server(), 2, 1);
      const t = await board(server(), teacher.wbToken);
      await ask(t, 'sync', createOp('a', 'a', 'wb:0'));
      await ask(t, 'sync', createOp('b', 'b', 'wb:12'));
      // Page 5 was drawn on and cleared: nothing to review there.
      await ask(t, 'sync', createOp('gone', 'gone', 'wb:5'));
      expect((await ask(t, 'clear', { opId: 'clear-5', page: 'wb:5' })).code).toBe('0');
      // A slide's layer: the room shows a document (ADR 043).
      const db = server().banshu.platform.database.db;
      const doc = await db
        .insertInto('documents')
        .values({
          user_id: teacher.userId,
          name: 'd.pdf',
          source_key: 'documentConvert/2026/11/23/d1/d.pdf',
          pages_prefix: 'documentConvert/2026/11/23/d1',
          file_hash: 'd'.repeat(32),
          task_id: '44444444-4444-4444-8444-444444444444',
          document_type: 1,
          status: 3,
          size: 1,
          page_count: 2,
          created_at: new Date(),
          updated_at: new Date(),
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      expect(
        (await call(server().url, 'analysisDocumentExisting', { documentId: doc.id, roomNumber }, { token: teacher.token })).code,
      ).toBe('0');
      await ask(t, 'sync', createOp('c', 'c', `doc:${doc.id}:2`));
      // An image on page 12: the review has no board token, so its answer carries the signed link.
      const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(50, 2)]);
      const stored = (await fetch(`${server().url}/board-images`, {
        method: 'POST',
        headers: { authorization: `Bearer ${teacher.wbToken}`, 'content-type': 'application/octet-stream' },
        body: new Uint8Array(png),
      }).then((r) => r.json())) as { code: string; data: { key: string } };
      expect(stored.code).toBe('0');
      expect(
        (await ask(t, 'sync', createOp('pic', 'pic', 'wb:12', { kind: 'image', src: stored.data.key, x: 0, y: 0, w: 64, h: 48 }))).code,
      ).toBe('0');
      const room = await connectRoom(server().url, teacher.imToken);
      sockets.push(room);
      await ask(room, 'joinRoom');
      expect((await ask(room, 'endRoom')).code).toBe('0');
      await expect(connectBoard(server().url, teacher.wbToken)).rejects.toMatchObject({ code: '31009' });
      const review = await call(server().url, 'getWbReview', { roomNumber, page: 'wb:12' }, { token: teacher.token });
      expect(review.code).toBe('0');
      expect(review.data.pages).toEqual(['wb:0', 'wb:12', `doc:${doc.id}:2`]);
      expect(review.data.state.items.map((i: { id: string }) => i.id)).toEqual(['b', 'pic']);
      expect(Object.keys(review.data.images)).toEqual([stored.data.key]);
      const picture = await fetch(review.data.images[stored.data.key]!);
      expect(picture.status).toBe(200);
      expect(Buffer.from(await picture.arrayBuffer())).toEqual(png);
      const first = await call(server().url, 'getWbReview', { roomNumber }, { token: teacher.token });
      expect(first.data.state.items.map((i: { id: string }) => i.id)).toEqual(['a']);
      expect(first.data.images).toEqual({});
      // The page's loader finds the closed room and tells who created it.
      expect(await server().banshu.platform.services.board.reviewRoom({ userId: teacher.userId }, roomNumber)).toMatchObject({
        roomNumber,
        state: 'closed',
        allowed: true,
      });
      expect(await server().banshu.platform.services.board.reviewRoom({ userId: students[0]!.userId }, roomNumber)).toMatchObject({
        state: 'closed',
        allowed: false,
      });
      expect((await call(server().url, 'getWbReview', { roomNumber }, { token: students[0]!.token })).code).toBe('31004');
      const stranger = await boardRoom(server(), 2, 0);
      expect((await call(server().url, 'getWbReview', { roomNumber }, { token: stranger.teacher.token })).code).toBe('31004');
      expect((await call(server().url, 'getWbReview', { roomNumber, page: 'wb:99' }, { token: teacher.token })).code).toBe('5');
    });

    it("a photo sent from the phone link reaches that user's board, and only theirs", async () => {
      const { teacher, students, roomNumber } = await boardRoom(server(), 2, 1);
      const t = await board(server(), teacher.wbToken);
      const s = await board(server(), students[0]!.wbToken);
      const toStudent = record(s, 'upFile');
      const link = await call(server().url, 'createPhoneUploadLink', { roomNumber }, { token: teacher.token });
      expect(link.code).toBe('0');
      const url = new URL(link.data.url);
      expect(url.pathname).toBe(`/upload/${teacher.userId}/${roomNumber}`);
      const token = url.searchParams.get('t')!;
      const jpg = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(200, 7)]);
      const send = (t2: string, bytes: Buffer, q = '&w=2048&h=1536') =>
        fetch(`${server().url}/board-images/phone?t=${encodeURIComponent(t2)}${q}`, {
          method: 'POST',
          headers: { 'content-type': 'image/jpeg' },
          body: new Uint8Array(bytes),
        }).then((r) => r.json() as Promise<{ code: string; data: BoardUpload }>);
      const announced = waitFor(t, 'upFile');
      const sent = await send(token, jpg);
      expect(sent.code).toBe('0');
      const file = await announced;
      expect(file).toEqual({ key: sent.data.key, url: sent.data.url, width: 2048, height: 1536, page: 0 });
      expect(file.key).toMatch(/\.jpg$/);
      expect(
        (await ask(t, 'sync', createOp('photo', 'photo', 'wb:0', { kind: 'image', src: file.key, x: 0, y: 0, w: 512, h: 384 }))).code,
      ).toBe('0');
      expect((await send(token, Buffer.from('not an image'))).code).toBe('32102');
      expect((await send(`${token}x`, jpg)).code).toBe('21001');
      expect((await send(teacher.wbToken, jpg)).code).toBe('21001');
      await flush(s);
      expect(toStudent).toEqual([]);
      // Only someone who may draw gets a link.
      expect((await call(server().url, 'createPhoneUploadLink', { roomNumber }, { token: students[0]!.token })).code).toBe('31004');
      const stranger = await signIn(server());
      expect((await call(server().url, 'createPhoneUploadLink', { roomNumber }, { token: stranger.token })).code).toBe('31004');
    });

    it('lists our stencils and serves each SVG', async () => {
      const r = await call(server().url, 'getTeachingPictureList', {});
      expect(r.code).toBe('0');
      const list = JSON.parse(r.data.teachingPictureList) as Array<{
        subjectId: number;
        stname: string;
        name: string;
        imageUrl: string;
      }>;
      expect(new Set(list.map((s) => s.subjectId))).toEqual(new Set([2, 3, 4]));
      for (const s of list) {
        expect(s.stname && s.name).toBeTruthy();
        const res = await fetch(`${server().url}${s.imageUrl}`);
        expect(res.status, s.imageUrl).toBe(200);
        expect(res.headers.get('content-type')).toMatch(/svg/);
        expect(await res.text()).toMatch(/^<svg [^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
      }
      expect((await fetch(`${server().url}/stencils/../../package.json`)).status).not.toBe(200);
    });

    it('stores jpg and png board images by their bytes, within the size limit, for those who may draw', async () => {
      const { teacher, students } = await boardRoom(server(), 2, 1);
      const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(100, 1)]);
      const upload = (token: string, bytes: Buffer) =>
        fetch(`${server().url}/board-images`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' },
          body: new Uint8Array(bytes),
        }).then(async (res) => ({ status: res.status, ...((await res.json()) as { code: string; data: BoardUpload }) }));
      const ok = await upload(teacher.wbToken, png);
      expect(ok.code).toBe('0');
      expect(ok.data.key).toMatch(/^board\/\d+\/[0-9a-f-]+\.png$/);
      // The answer names the page the room is on as the image arrives (roomExtend pageIndex, ADR 034):
      // a phone photo lands there even if the QR code was made on another page.
      expect(ok.data.page).toBe(0);
      const roomChannel = await connectRoom(server().url, teacher.imToken);
      sockets.push(roomChannel);
      expect((await ask(roomChannel, 'joinRoom')).code).toBe('0');
      expect((await ask(roomChannel, 'customRoomEvent', { roomExtend: JSON.stringify({ color: 1, pageIndex: 3 }) })).code).toBe('0');
      expect((await upload(teacher.wbToken, png)).data.page).toBe(3);
      const img = await fetch(ok.data.url);
      expect(img.status).toBe(200);
      expect(Buffer.from(await img.arrayBuffer())).toEqual(png);
      expect((await upload(teacher.wbToken, Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2]))).code).toBe('0');
      expect((await upload(teacher.wbToken, Buffer.from('GIF89a....'))).code).toBe('32102');
      expect((await upload(teacher.wbToken, Buffer.from('<svg/>'))).code).toBe('32102');
      const big = await upload(teacher.wbToken, Buffer.concat([png, Buffer.alloc(3000)]));
      expect(big.code).toBe('32103');
      expect((await upload(students[0]!.wbToken, png)).code).toBe('31004');
      expect((await upload('forged', png)).code).toBe('21001');

      // The uploaded key makes an image item; links to it are signed for the room's people.
      const t = await board(server(), teacher.wbToken);
      const item = { kind: 'image', src: ok.data.key, x: 0, y: 0, w: 640, h: 480 } as const;
      expect((await ask(t, 'sync', createOp('img', 'img', 'wb:0', item))).code).toBe('0');
      const urls = await fetch(`${server().url}/board-images/urls`, {
        method: 'POST',
        headers: { authorization: `Bearer ${students[0]!.wbToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ keys: [ok.data.key] }),
      }).then((r) => r.json() as Promise<{ code: string; data: { urls: Record<string, string> } }>);
      expect(urls.code).toBe('0');
      expect((await fetch(urls.data.urls[ok.data.key]!)).status).toBe(200);
      const other = await boardRoom(server(), 2, 0);
      const foreign = await fetch(`${server().url}/board-images/urls`, {
        method: 'POST',
        headers: { authorization: `Bearer ${other.teacher.wbToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ keys: [ok.data.key] }),
      }).then((r) => r.json() as Promise<{ code: string }>);
      expect(foreign.code).toBe('5');
      const broken = await fetch(`${server().url}/board-images/urls`, {
        method: 'POST',
        headers: { authorization: `Bearer ${teacher.wbToken}`, 'content-type': 'application/json' },
        body: '{"keys": [',
      });
      expect(broken.status).toBe(400);
      expect(((await broken.json()) as { code: string }).code).toBe('5');
      const ot = await board(server(), other.teacher.wbToken);
      expect((await ask(ot, 'sync', createOp('steal', 'steal', 'wb:0', item))).code).toBe('5');
    });
  },
  { env: { BOARD_IMAGE_MAX_BYTES: '2000', BOARD_OPS_PER_SECOND: '1000' } },
);

it('limits requests per socket per second', async () => {
  const { startTestServer } = await import('#tests/support/server.ts');
  const server = await startTestServer({ env: { BOARD_OPS_PER_SECOND: '5', BOARD_MAX_ITEMS_PER_LAYER: '100' } });
  try {
    const { teacher } = await boardRoom(server, 2, 0);
    const t = await connectBoard(server.url, teacher.wbToken);
    sockets.push(t);
    const codes = await Promise.all(Array.from({ length: 8 }, (_, i) => ask(t, 'sync', createOp(`r${i}`, `r${i}`)).then((r) => r.code)));
    expect(codes.filter((c) => c === '0')).toHaveLength(5);
    expect(codes.filter((c) => c === '32104')).toHaveLength(3);
    server.clock.advance(1100); // the next one-second window of the socket's limits
    const loads = await Promise.all(Array.from({ length: 6 }, () => ask(t, 'getBoard', { page: 'wb:0' }).then((r) => r.code)));
    expect(loads.filter((c) => c === '32104')).toHaveLength(1);
    // A page holds at most BOARD_MAX_ITEMS_PER_LAYER items.
    const roomNumber = (await call(server.url, 'getMyRoomList', {}, { token: teacher.token })).data.roomList[0]!.roomNumber;
    const actor = { room: roomNumber, uid: teacher.userId, role: 'creator' as const };
    await seedBoard(
      server.banshu.platform.services.board,
      actor,
      Array.from({ length: 95 }, (_, i) => createOp(`f${i}`, `f${i}`)),
    );
    server.clock.advance(1100); // the next one-second window of the socket's limits
    expect((await ask(t, 'sync', createOp('full', 'full'))).code).toBe('32101');
    expect((await ask(t, 'sync', { opId: 'del', type: 'delete', ids: ['f0'], page: 'wb:0' })).code).toBe('0');
    expect((await ask(t, 'sync', createOp('fits', 'fits'))).code).toBe('0');
  } finally {
    for (const s of sockets.splice(0)) s.close();
    await server.close();
  }
});
