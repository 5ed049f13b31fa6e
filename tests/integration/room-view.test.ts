/**
 * The room view (`/api/getRoomView`, ADR 093) against the real server: who gets one, when it may
 * draw, and that a read-only view's board token is refused every write (sync, clear, delItem,
 * turnPage, and the live `stroke` relay) with nothing stored or relayed, while the same person's
 * seat token and the creator's own view do write. A view hears the room's page turns live.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { call, signIn } from '#tests/support/api.ts';
import { boardRoom, connectBoard, createOp, type BoardSocket, type Person } from '#tests/support/board-client.ts';
import {
  ask,
  connectRoom,
  rawAsk,
  record,
  sendStroke,
  type KnownRequest,
  type RequestPayload,
  type RoomSocket,
} from '#tests/support/room-client.ts';
import { startTestServer, type TestServer } from '#tests/support/server.ts';
import { until } from '#tests/support/until.ts';

let server: TestServer;
const sockets: Array<{ close(): void }> = [];
afterEach(() => {
  for (const s of sockets.splice(0)) s.close();
});
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

async function board(token: string): Promise<BoardSocket> {
  const s = await connectBoard(server.url, token);
  sockets.push(s);
  return s;
}

async function room(imToken: string): Promise<RoomSocket> {
  const s = await connectRoom(server.url, imToken);
  sockets.push(s);
  expect((await ask(s, 'joinRoom')).code).toBe('0');
  return s;
}

const view = (who: { token: string } | null, roomNumber: unknown, uid?: unknown) =>
  call(server.url, 'getRoomView', uid === undefined ? { roomNumber } : { roomNumber, uid }, who ? { token: who.token } : {});

async function opCount(): Promise<number> {
  const r = await server.banshu.platform.database.db
    .selectFrom('board_ops')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/** A round trip (an unknown request, answered '5'): what the server sent before has arrived. */
async function flush(socket: BoardSocket): Promise<void> {
  expect((await rawAsk(socket, 'flush')).code).toBe('5');
}

/** A converted three-page document of the teacher's, shown in the room (as the recent-documents picker opens it). */
async function showDeck(teacher: Person, roomNumber: string): Promise<string> {
  const doc = await server.banshu.platform.database.db
    .insertInto('documents')
    .values({
      user_id: teacher.userId,
      name: 'deck.pdf',
      source_key: `documentConvert/2026/01/01/${roomNumber}/deck.pdf`,
      pages_prefix: `documentConvert/2026/01/01/${roomNumber}`,
      file_hash: 'b'.repeat(32),
      task_id: randomUUID(),
      document_type: 1,
      status: 3,
      size: 10,
      page_count: 3,
      page_sizes: '[[1280,720],[1280,720],[1280,720]]',
      created_at: new Date(),
      updated_at: new Date(),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const opened = await call(server.url, 'analysisDocumentExisting', { documentId: doc.id, roomNumber }, { token: teacher.token });
  expect(opened.code).toBe('0');
  return doc.id;
}

describe('room view', () => {
  it('is for anyone with a session who was not removed from the open room; only the creator draws', async () => {
    const { roomNumber, teacher, students } = await boardRoom(server, 2, 2);
    const stranger = await signIn(server);

    const own = await view(teacher, roomNumber);
    expect(own.code).toBe('0');
    expect(own.data).toMatchObject({ roomNumber, roomType: 2, createUser: teacher.userId, state: 'open', canDraw: true });
    expect(own.data.viewerId).toBe(teacher.userId);
    expect(own.data.courseware).toMatchObject({ documentType: 0 });
    expect((await view(teacher, roomNumber, teacher.userId)).data.canDraw).toBe(true);
    // The creator looking at the room as someone else sees it read-only.
    expect((await view(teacher, roomNumber, students[0]!.userId)).data.canDraw).toBe(false);

    for (const who of [students[0]!, stranger]) {
      const v = await view(who, roomNumber);
      expect(v.code).toBe('0');
      // The creator is named to the room's members only (ADR 066: look-ups from outside do not name them).
      expect(v.data).toMatchObject({ canDraw: false, viewerId: who.userId, createUser: who === stranger ? '' : teacher.userId });
      // A forged uid (the creator's) gives neither power nor another identity.
      const forged = await view(who, roomNumber, teacher.userId);
      expect(forged.code).toBe('0');
      expect(forged.data).toMatchObject({ canDraw: false, viewerId: who.userId });
    }

    // No session: the spec's "not logged in"; bad input: '5'-style refusals, never a view.
    const anonymous = await view(null, roomNumber);
    expect(anonymous.code).toBe('7');
    expect(anonymous.data).toBeNull();
    for (const [roomNo, uid] of [
      [{ $ne: 1 }, undefined],
      [roomNumber, 'abc'],
      [roomNumber, { $gt: '' }],
      ['x'.repeat(65), undefined],
    ] as const) {
      const bad = await view(stranger, roomNo, uid);
      expect(bad.code, JSON.stringify([roomNo, uid])).not.toBe('0');
      expect(bad.data).toBeNull();
    }
    expect((await view(stranger, '999999')).code).toBe('31002');
  });

  it('is refused to a removed member, and a removed viewer loses the board', async () => {
    const { roomNumber, teacher, students } = await boardRoom(server, 2, 1);
    const kicked = students[0]!;
    const t = await room(teacher.imToken);
    await room(kicked.imToken);
    const v = await view(kicked, roomNumber);
    expect(v.data.canDraw).toBe(false);
    const viewSocket = await board(v.data.wbtoken);
    const gone = new Promise<void>((resolve) => viewSocket.once('disconnect', () => resolve()));
    expect((await ask(t, 'kickout', { userId: kicked.userId })).code).toBe('0');
    await gone;
    const again = await view(kicked, roomNumber);
    expect(again.code).toBe('31004');
    expect(again.reason).toBe('removed');
    await expect(connectBoard(server.url, v.data.wbtoken)).rejects.toMatchObject({ code: '31004' });
  });

  it('refuses every write of a read-only view token, storing and relaying nothing', async () => {
    const { roomNumber, teacher, students } = await boardRoom(server, 2, 1);
    const member = students[0]!;
    const t = await room(teacher.imToken);
    // wbPower on: the member's own seat token may draw, so the refusals below are the view's.
    expect((await ask(t, 'customRoomEvent', { wbPower: '1' })).code).toBe('0');
    const docId = await showDeck(teacher, roomNumber);
    const teacherBoard = await board(teacher.wbToken);
    const seatBoard = await board(member.wbToken);
    const v = await view(member, roomNumber);
    expect(v.data.canDraw).toBe(false);
    const ro = await board(v.data.wbtoken);
    const synced = record(teacherBoard, 'sync');
    const strokes = record(teacherBoard, 'stroke');
    const before = await opCount();

    const slide = `doc:${docId}:1`;
    const writes: Array<{ [K in KnownRequest]: [K, RequestPayload<K>] }[KnownRequest]> = [
      ['sync', createOp('ro-1', 'ro-item-1')],
      ['sync', createOp('ro-2', 'ro-item-2', slide)],
      ['clear', { opId: 'ro-3', page: 'wb:0' }],
      ['delItem', { opId: 'ro-4', page: 'wb:0', ids: ['x'] }],
      ['turnPage', { page: 2 }],
    ];
    for (const [event, payload] of writes) {
      const r = await ask(ro, event, payload);
      expect(r.code, event).toBe('31004');
    }
    sendStroke(ro, { strokeId: 'ro-s', page: 'wb:0', points: [1, 2, 3, 4], color: 'red', width: 4, start: true });
    // A board picture: refused to the view, stored for the same person's seat token.
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(50, 2)]);
    const upload = (token: string) =>
      fetch(`${server.url}/board-images`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' },
        body: new Uint8Array(png),
      }).then((r) => r.json() as Promise<{ code: string }>);
    expect((await upload(v.data.wbtoken)).code).toBe('31004');
    expect((await upload(member.wbToken)).code).toBe('0');
    // Reading is allowed.
    expect((await ask(ro, 'getBoard', { page: 'wb:0' })).code).toBe('0');
    await flush(ro);
    await flush(teacherBoard);
    expect(await opCount()).toBe(before);
    expect(synced).toEqual([]);
    expect(strokes).toEqual([]);

    // The same person's seat token does write and relay: the refusal was the view's alone.
    expect((await ask(seatBoard, 'sync', createOp('seat-1', 'seat-item-1'))).code).toBe('0');
    sendStroke(seatBoard, { strokeId: 'seat-s', page: 'wb:0', points: [1, 2, 3, 4], color: 'red', width: 4, start: true });
    await until('the seat stroke relayed', () => strokes.some((p: { strokeId: string }) => p.strokeId === 'seat-s'));
    expect(await opCount()).toBe(before + 1);
    // The view hears accepted operations like everyone on the board.
    const heard = record(ro, 'sync');
    expect((await ask(teacherBoard, 'sync', createOp('t-1', 't-item-1'))).code).toBe('0');
    await until('the teacher op in the view', () => heard.some((o: { opId: string }) => o.opId === 't-1'));
  });

  it('a token naming another user or altered to draw is refused at the door', async () => {
    const { roomNumber, students } = await boardRoom(server, 2, 2);
    const v = await view(students[0]!, roomNumber);
    const token = v.data.wbtoken;
    // Flip the signed payload's view from 'read' to 'draw' and its uid to another student's.
    const [body, sig] = token.split('.') as [string, string];
    const claims = JSON.parse(Buffer.from(body, 'base64url').toString()) as Record<string, unknown>;
    expect(claims).toMatchObject({ view: 'read', role: 'observer', uid: students[0]!.userId });
    for (const change of [{ view: 'draw', role: 'creator' }, { uid: students[1]!.userId }]) {
      const forged = `${Buffer.from(JSON.stringify({ ...claims, ...change })).toString('base64url')}.${sig}`;
      await expect(connectBoard(server.url, forged)).rejects.toMatchObject({ code: '21001' });
    }
    // Another user's room view: asking with someone else's session is that someone's, never more.
    const other = await view(students[1]!, roomNumber, students[0]!.userId);
    expect(other.data).toMatchObject({ viewerId: students[1]!.userId, canDraw: false });
  });

  it("follows the room live, and the creator's own view draws and turns pages", async () => {
    const { roomNumber, teacher, students } = await boardRoom(server, 2, 1);
    const t = await room(teacher.imToken);
    const docId = await showDeck(teacher, roomNumber);
    const v = await view(students[0]!, roomNumber);
    expect(v.data.courseware).toMatchObject({ documentId: docId, pptCurrentPage: 1, pptTotalPage: 3 });
    expect(v.data.showState).toBe('ppt');
    const ro = await board(v.data.wbtoken);
    const events = record(ro, 'roomView');
    const viewSyncs = record(ro, 'sync');
    const page = (n: number) => () => events.some((e) => e.courseware?.pptCurrentPage === n);

    // The classroom turns the page: the view hears the new courseware block.
    expect((await ask(t, 'setCoursewarePage', { page: 2 })).code).toBe('0');
    await until('page 2', page(2));
    expect((await ask(t, 'customRoomEvent', { showState: 'wb', roomExtend: '{"pageIndex":3}' })).code).toBe('0');
    await until('showState wb', () => events.some((e) => e.showState === 'wb' && e.roomExtend === '{"pageIndex":3}'));

    // The creator's own view: a drawing token that turns the page for everyone.
    const own = await view(teacher, roomNumber, teacher.userId);
    const drawer = await board(own.data.wbtoken);
    const classroomHears = record(t, 'courseware');
    const turned = await ask(drawer, 'turnPage', { page: 3 });
    expect(turned.code).toBe('0');
    expect(turned.data).toMatchObject({ pptCurrentPage: 3 });
    await until('page 3 in the view', page(3));
    await until('page 3 in the classroom', () => classroomHears.some((e) => e.courseware.pptCurrentPage === 3));
    expect((await ask(drawer, 'turnPage', { page: 4 })).code).toBe('34010');
    const drawn = await ask(drawer, 'sync', createOp('own-1', 'own-item-1', `doc:${docId}:3`));
    expect(drawn.code).toBe('0');
    await until("the creator's op in the view", () => viewSyncs.some((op) => op.opId === 'own-1'));

    // The class ends: the view hears it.
    expect((await ask(t, 'endRoom')).code).toBe('0');
    await until('closed', () => events.some((e) => e.closed === true));
    expect((await view(students[0]!, roomNumber)).code).not.toBe('0');
  });
});
