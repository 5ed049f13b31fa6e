/**
 * Breakout groups held by the server (issue 31, ADR 116), over real room-channel and board-channel
 * sockets on both database engines: the start methods, moving, choosing, leaders, help, visits,
 * broadcasts; chat by place (a group's line never reaches another group's socket); the board's
 * page rules, fresh after every move; late joiners and reconnects; the time limit and the return
 * countdown ending exactly once, by a read or by the nudge; the boards kept as pages; the
 * courseware background; media tokens' place; and a table of forged and out-of-order commands that
 * are refused with a code, change nothing and tell nobody.
 */
import { afterEach, expect, it } from 'vitest';
import type { GroupsEvent, GroupsState } from '#core/contracts/groups.ts';
import type { MediaTokenPayload } from '#core/contracts/media-signaling.ts';
import { DocumentRepository } from '#core/courseware/document.repository.ts';
import { SampleDeck } from '#core/courseware/sample-deck.ts';
import { TokenSigner } from '#core/platform/secrets.ts';
import { connectBoard, createOp, stateOf, type BoardSocket } from '#tests/support/board-client.ts';
import { CLASS_TOOLS_ENV, joinAs, seedClass, type Joined, type Person, type SeededClass } from '#tests/support/class-tools.ts';
import { call, signIn } from '#tests/support/api.ts';
import { eachEngine } from '#tests/support/engines-matrix.ts';
import { ask, connectRoom, rawAsk, record, sendStroke, waitFor, type RequestPayload, type RoomSocket } from '#tests/support/room-client.ts';
import type { TestServer } from '#tests/support/server.ts';
import { until } from '#tests/support/until.ts';

const sockets: Array<{ close(): void }> = [];
afterEach(() => {
  for (const s of sockets.splice(0)) s.close();
});

async function join(server: TestServer, p: Person): Promise<Joined> {
  const j = await joinAs(server.url, p);
  sockets.push(j.socket);
  return j;
}

type Start = RequestPayload<'groupsStart'>;
const START = { count: 2, method: 'even', minutes: 0, allowChoose: false, lateJoiners: 'auto', board: 'blank' } as const;

/** A whiteboard class with a teacher and `n` students joined (in user-id order of seeding). */
async function classOf(srv: TestServer, n: number, o: { observer?: boolean; extra?: number } = {}) {
  const c = await seedClass(srv.banshu.platform.services, { students: n + (o.extra ?? 0), observer: !!o.observer });
  const t = await join(srv, c.teacher);
  const s: Joined[] = [];
  for (const p of c.students.slice(0, n)) s.push(await join(srv, p));
  const obs = o.observer ? await join(srv, c.observer!) : null;
  return { c, t, s, obs, ids: c.students.map((p) => p.userId) };
}

/** Starts groups; answers the state once everyone heard it. */
async function start(t: Joined, everyone: Joined[], p: Start = START): Promise<GroupsState> {
  const heard = everyone.map((j) => waitFor(j.socket, 'groups', (e) => e.outcome === 'started'));
  const a = await ask(t.socket, 'groupsStart', p);
  expect(a.code).toBe('0');
  await Promise.all(heard);
  return a.data;
}

const placeIn = (g: Pick<GroupsState, 'groups'>, uid: string) => g.groups.find((x) => x.members.includes(uid))?.no ?? 0;
/** The state without the server's clock (which moves between two reads). */
const still = ({ serverTime: _t, ...rest }: GroupsState) => rest;

async function boardOf(srv: TestServer, c: SeededClass, p: Person): Promise<BoardSocket> {
  const { token } = await srv.banshu.platform.services.board.createToken(
    { userId: p.userId },
    { userId: p.userId, channelId: c.roomNumber },
  );
  const b = await connectBoard(srv.url, token);
  sockets.push(b);
  return b;
}

let opSeq = 0;
const draw = (b: BoardSocket, page: string) =>
  ask(b, 'sync', createOp(`g-op-${String(++opSeq)}`, `g-item-${String(opSeq)}`, page)).then((a) => a.code);
const clear = (b: BoardSocket, page: string) => ask(b, 'clear', { opId: `g-op-${String(++opSeq)}`, page }).then((a) => a.code);

eachEngine(
  'breakout groups',
  (server) => {
    it('starts by the four methods; moves keep every student in exactly one place; the end brings everyone back with the boards as pages', async () => {
      const srv = server();
      const { t, s, ids } = await classOf(srv, 5);
      const everyone = [t, ...s];
      expect(t.snapshot.groups).toMatchObject({ status: 'off', round: 0, groups: [], teacher: t.snapshot.you.userId, lastBoards: [] });

      // 'even': dealt in the members list's order; names given; pages after page 0.
      const even = await start(t, everyone, { ...START, groups: [{ userIds: [], name: 'Red' }, { userIds: [] }] });
      expect(even).toMatchObject({ status: 'running', round: 1, teacherIn: 0, allowChoose: false, lateJoiners: 'auto', endsAt: 0 });
      expect(even.groups.map((g) => [g.no, g.name, g.page, g.members])).toEqual([
        [1, 'Red', 1, [ids[0], ids[2], ids[4]]],
        [2, '2', 2, [ids[1], ids[3]]],
      ]);
      // The teacher moves one; then back to the main room; every student is in one place at each step.
      const moved = waitFor(s[4]!.socket, 'groups', (e) => e.outcome === 'moved');
      const m1 = await ask(t.socket, 'groupsMove', { userId: ids[0]!, group: 2 });
      expect(m1.data.groups.map((g) => g.members)).toEqual([
        [ids[2], ids[4]],
        [ids[1], ids[3], ids[0]],
      ]);
      expect((await moved).userIds).toEqual([ids[0]]);
      const m2 = await ask(t.socket, 'groupsMove', { userId: ids[3]!, group: 0 });
      for (const uid of ids) expect(m2.data.groups.filter((g) => g.members.includes(uid)).length).toBeLessThanOrEqual(1);
      expect(placeIn(m2.data, ids[3]!)).toBe(0);
      // Ended now: everyone in the main room, the teacher too; the pages stay as lastBoards.
      const ended = everyone.map((j) => waitFor(j.socket, 'groups', (e) => e.outcome === 'ended'));
      expect((await ask(t.socket, 'groupsEnd', { afterSeconds: 0 })).code).toBe('0');
      for (const e of await Promise.all(ended)) {
        expect(e).toMatchObject({ status: 'off', groups: [], teacherIn: 0, allowChoose: false, endsAt: 0, closingAt: 0 });
        expect(e.lastBoards).toEqual([
          { no: 1, name: 'Red', page: 1 },
          { no: 2, name: '2', page: 2 },
        ]);
      }

      // 'random': every student present is dealt, sizes differ by one at most; round 2.
      const random = await start(t, everyone, { ...START, count: 3, method: 'random' });
      expect(random.round).toBe(2);
      expect(random.groups.flatMap((g) => g.members).sort()).toEqual([...ids].sort());
      expect(random.groups.map((g) => g.members.length).sort()).toEqual([1, 2, 2]);
      expect((await ask(t.socket, 'groupsEnd', { afterSeconds: 0 })).code).toBe('0');

      // 'manual': the teacher's lists, names and leaders; the rest wait in the main room.
      const manual = await start(t, everyone, {
        ...START,
        method: 'manual',
        groups: [
          { userIds: [ids[4]!, ids[0]!], name: 'A', leader: ids[0]! },
          { userIds: [ids[1]!], name: 'B', leader: null },
        ],
      });
      expect(manual.groups.map((g) => [g.name, g.members, g.leader])).toEqual([
        ['A', [ids[4], ids[0]], ids[0]],
        ['B', [ids[1]], null],
      ]);
      expect(placeIn(manual, ids[2]!)).toBe(0);
      expect((await ask(t.socket, 'groupsEnd', { afterSeconds: 0 })).code).toBe('0');

      // 'choose': everyone starts in the main room; students pick (and change) their group.
      const choose = await start(t, everyone, { ...START, method: 'choose' });
      expect(choose.allowChoose).toBe(true);
      expect(choose.groups.every((g) => g.members.length === 0)).toBe(true);
      const chose = waitFor(t.socket, 'groups', (e) => e.outcome === 'chose');
      expect((await ask(s[2]!.socket, 'groupsChoose', { group: 2 })).code).toBe('0');
      expect((await chose).userIds).toEqual([ids[2]]);
      const again = await ask(s[2]!.socket, 'groupsChoose', { group: 1 });
      expect(again.data.groups.map((g) => g.members)).toEqual([[ids[2]], []]);
    });

    it('leaders, help, visits and broadcasts', async () => {
      const srv = server();
      const { t, s, ids } = await classOf(srv, 4);
      const everyone = [t, ...s];
      await start(t, everyone);
      // A leader is a member; moved out of the group, they stop leading.
      const led = waitFor(s[1]!.socket, 'groups', (e) => e.outcome === 'leader');
      expect((await ask(t.socket, 'groupsLeader', { group: 1, userId: ids[0]! })).data.groups[0]!.leader).toBe(ids[0]);
      expect((await led).userIds).toEqual([ids[0]]);
      expect((await ask(t.socket, 'groupsMove', { userId: ids[0]!, group: 2 })).data.groups[0]!.leader).toBeNull();
      expect((await ask(t.socket, 'groupsMove', { userId: ids[0]!, group: 1 })).code).toBe('0');

      // Help: asked from a group with the server's time; asking again keeps it; a visit answers it.
      srv.clock.advance(5000);
      const asked = waitFor(t.socket, 'groups', (e) => e.outcome === 'help');
      const h1 = await ask(s[2]!.socket, 'groupsHelp', {});
      expect(h1.data.groups[0]!.helpAt).toBe(srv.clock.now().getTime());
      expect((await asked).userIds).toEqual([ids[2]]);
      srv.clock.advance(1000);
      expect((await ask(s[0]!.socket, 'groupsHelp', {})).data.groups[0]!.helpAt).toBe(h1.data.groups[0]!.helpAt);
      const joined = waitFor(s[0]!.socket, 'groups', (e) => e.outcome === 'joined');
      const v = await ask(t.socket, 'groupsVisit', { group: 1 });
      expect(v.data).toMatchObject({ teacherIn: 1 });
      expect(v.data.groups[0]!.helpAt).toBe(0);
      expect((await joined).userIds).toEqual([t.snapshot.you.userId]);
      // Asked and taken back by the asker.
      expect((await ask(s[1]!.socket, 'groupsHelp', {})).data.groups[1]!.helpAt).toBeGreaterThan(0);
      expect((await ask(s[1]!.socket, 'groupsHelp', { cancel: true })).data.groups[1]!.helpAt).toBe(0);
      const left = waitFor(s[1]!.socket, 'groups', (e) => e.outcome === 'left');
      expect((await ask(t.socket, 'groupsVisit', { group: 0 })).data.teacherIn).toBe(0);
      await left;

      // A broadcast reaches every group and the main room.
      const heard = everyone.map((j) => waitFor(j.socket, 'groupsBroadcast', (b) => b.text === 'Five minutes left'));
      const b = await ask(t.socket, 'groupsBroadcast', { text: '  Five minutes left ' });
      expect(b.data.at).toBe(srv.clock.now().getTime());
      for (const m of await Promise.all(heard)) expect(m).toEqual({ text: 'Five minutes left', at: b.data.at, by: t.snapshot.you.userId });
    });

    it('chat by place: a group line reaches its members and the teacher only; snapshots hold the main room and one’s own group', async () => {
      const srv = server();
      const { c, t, s, ids } = await classOf(srv, 5);
      const everyone = [t, ...s];
      const before = waitFor(s[4]!.socket, 'messageevent', (m) => m.text === 'before');
      expect((await ask(t.socket, 'chat', { text: 'before' })).code).toBe('0');
      await before;
      // g1: s0 s2; g2: s1 s3; s4 in the main room.
      await start(t, everyone, {
        ...START,
        method: 'manual',
        groups: [{ userIds: [ids[0]!, ids[2]!] }, { userIds: [ids[1]!, ids[3]!] }],
      });
      const lines = everyone.map((j) => record(j.socket, 'messageevent'));
      const g1 = await ask(s[0]!.socket, 'chat', { text: 'g1 line' });
      expect(g1.data.group).toBe(1);
      const g2 = await ask(s[3]!.socket, 'chat', { text: 'g2 line' });
      expect(g2.data.group).toBe(2);
      const main = await ask(s[4]!.socket, 'chat', { text: 'main line' });
      expect(main.data.group).toBeUndefined();
      // The teacher visiting group 2 speaks there.
      expect((await ask(t.socket, 'groupsVisit', { group: 2 })).code).toBe('0');
      expect((await ask(t.socket, 'chat', { text: 'teacher in g2' })).data.group).toBe(2);
      expect((await ask(t.socket, 'groupsVisit', { group: 0 })).code).toBe('0');
      // A main-room line last: once everyone has it, everything sent before it has arrived.
      expect((await ask(t.socket, 'chat', { text: 'sentinel' })).code).toBe('0');
      await until('everyone heard the sentinel', () => lines.every((l) => l.some((m) => m.text === 'sentinel')), 5000);
      const texts = lines.map((l) => l.map((m) => m.text));
      expect(texts[0]).toEqual(['g1 line', 'g2 line', 'main line', 'teacher in g2', 'sentinel']); // the teacher hears every group
      expect(texts[1]).toEqual(['g1 line', 'main line', 'sentinel']); // s0, group 1
      expect(texts[3]).toEqual(['g1 line', 'main line', 'sentinel']); // s2, group 1
      expect(texts[2]).toEqual(['g2 line', 'main line', 'teacher in g2', 'sentinel']); // s1, group 2
      expect(texts[4]).toEqual(['g2 line', 'main line', 'teacher in g2', 'sentinel']); // s3, group 2
      expect(texts[5]).toEqual(['main line', 'sentinel']); // s4, main room

      // A reload's snapshot: the main room's lines and one's own group's of this round.
      const snapOf = async (p: Person) => (await join(srv, p)).snapshot.messages.map((m) => [m.text, m.group ?? 0]);
      expect(await snapOf(c.students[0]!)).toEqual([
        ['before', 0],
        ['g1 line', 1],
        ['main line', 0],
        ['sentinel', 0],
      ]);
      expect(await snapOf(c.students[4]!)).toEqual([
        ['before', 0],
        ['main line', 0],
        ['sentinel', 0],
      ]);
      expect((await snapOf(c.teacher)).map(([text]) => text)).toEqual([
        'before',
        'g1 line',
        'g2 line',
        'main line',
        'teacher in g2',
        'sentinel',
      ]);
      // After the groups, their lines are no longer in anyone's snapshot.
      expect((await ask(t.socket, 'groupsEnd', { afterSeconds: 0 })).code).toBe('0');
      expect((await snapOf(c.students[1]!)).map(([text]) => text)).toEqual(['before', 'main line', 'sentinel']);
      expect((await snapOf(c.teacher)).map(([text]) => text)).toEqual(['before', 'main line', 'sentinel']);
    });

    it('the board: a student in a group draws on the group’s page only (whatever wbPower), its leader or the teacher clears it; fresh after a move', async () => {
      const srv = server();
      const { c, t, s, ids } = await classOf(srv, 4);
      const [b0, b1, b2, b3] = [
        await boardOf(srv, c, c.students[0]!),
        await boardOf(srv, c, c.students[1]!),
        await boardOf(srv, c, c.students[2]!),
        await boardOf(srv, c, c.students[3]!),
      ];
      const bt = await boardOf(srv, c, c.teacher);
      // Students may not draw before (wbPower '0').
      expect((await ask(t.socket, 'customRoomEvent', { wbPower: '0' })).code).toBe('0');
      expect(await draw(b0, 'wb:0')).toBe('31004');
      expect(await draw(bt, 'wb:0')).toBe('0');
      // g1 (page 1): s0 (leader), s2; g2 (page 2): s1; s3 in the main room.
      const g = await start(t, [t, ...s], {
        ...START,
        method: 'manual',
        groups: [{ userIds: [ids[0]!, ids[2]!], leader: ids[0]! }, { userIds: [ids[1]!] }],
      });
      expect(g.groups.map((x) => x.page)).toEqual([1, 2]);
      expect(await draw(b0, 'wb:1')).toBe('0');
      expect(await draw(b2, 'wb:1')).toBe('0');
      expect(await draw(b0, 'wb:2')).toBe('31004'); // another group's page
      expect(await draw(b0, 'wb:0')).toBe('31004'); // the main room's page
      expect(await draw(b1, 'wb:2')).toBe('0');
      // Live strokes too: one on another group's page is never relayed.
      const strokes = record(b1, 'stroke');
      const progress = { points: [1, 2, 3, 4], color: 'red' as const, width: 4, start: true };
      sendStroke(b0, { ...progress, strokeId: 'forbidden', page: 'wb:2' });
      sendStroke(b0, { ...progress, strokeId: 'allowed', page: 'wb:1' });
      await until('the allowed stroke arrived', () => strokes.some((x) => x.strokeId === 'allowed'), 5000);
      expect(strokes.map((x) => [x.strokeId, x.page])).toEqual([['allowed', 'wb:1']]);
      expect(await draw(b3, 'wb:1')).toBe('31004'); // the main room: the usual rules (wbPower '0')
      // Clearing: the leader and the teacher; not a member who does not lead.
      expect(await clear(b2, 'wb:1')).toBe('31004');
      expect(await clear(b0, 'wb:1')).toBe('0');
      expect(await clear(bt, 'wb:2')).toBe('0');
      expect(await draw(bt, 'wb:1')).toBe('0');
      // wbPower '1': main-room students draw as usual, but not on a group's page; group members still only on theirs.
      expect((await ask(t.socket, 'customRoomEvent', { wbPower: '1' })).code).toBe('0');
      expect(await draw(b3, 'wb:0')).toBe('0');
      expect(await draw(b3, 'wb:2')).toBe('31004');
      expect(await draw(b1, 'wb:0')).toBe('31004');
      // A move counts from the next operation.
      expect((await ask(t.socket, 'groupsMove', { userId: ids[2]!, group: 2 })).code).toBe('0');
      expect(await draw(b2, 'wb:1')).toBe('31004');
      expect(await draw(b2, 'wb:2')).toBe('0');
      expect((await ask(t.socket, 'groupsMove', { userId: ids[2]!, group: 0 })).code).toBe('0');
      expect((await ask(t.socket, 'customRoomEvent', { wbPower: '0' })).code).toBe('0');
      expect(await draw(b2, 'wb:2')).toBe('31004');
      // After the groups: the usual rules again.
      expect((await ask(t.socket, 'groupsEnd', { afterSeconds: 0 })).code).toBe('0');
      expect(await draw(b0, 'wb:1')).toBe('31004');
      // The next groups take pages after the last one drawn on (page 2 holds s2's line).
      const next = await start(t, [t, ...s]);
      expect(next.groups.map((x) => x.page)).toEqual([3, 4]);
    });

    it('the courseware background: each group page starts with the shown slide, as an image under the drawing', async () => {
      const srv = server();
      const { c, t, s } = await classOf(srv, 2);
      const { services, database, objects } = srv.banshu.platform;
      const deck = new SampleDeck(objects, new DocumentRepository(database.db), srv.clock);
      await deck.ensureStored();
      const doc = await deck.register(c.teacher.userId);
      const room = await database.db.selectFrom('rooms').select('id').where('room_number', '=', c.roomNumber).executeTakeFirstOrThrow();
      await services.roomState.setCourseware(room.id, { document_id: doc.id, ppt_current_page: 2, show_state: 'ppt' });
      const g = await start(t, [t, ...s], { ...START, board: 'courseware' });
      expect(g.background).toEqual({ documentId: doc.id, slide: 2 });
      const teacher = { room: c.roomNumber, uid: c.teacher.userId, role: 'creator' as const };
      for (const page of g.groups.map((x) => x.page)) {
        const key = `wb:${String(page)}`;
        const layer = await until(
          `the slide on ${key}`,
          async () => stateOf(key, await services.board.load(teacher, key)),
          (l) => l.items.length > 0,
        );
        expect(layer.items).toHaveLength(1);
        expect(layer.items[0]).toMatchObject({
          uid: c.teacher.userId,
          data: { kind: 'image', x: 0, y: 96, w: 1024, h: 576 },
        });
        const src = (layer.items[0]!.data as { src: string }).src;
        expect(src.startsWith(`board/${room.id}/`)).toBe(true);
        expect(await objects.head(src)).not.toBeNull();
      }
      // A blank start while no document is shown has no background.
      expect((await ask(t.socket, 'groupsEnd', { afterSeconds: 0 })).code).toBe('0');
      await services.roomState.setCourseware(room.id, { document_id: null, show_state: 'wb' });
      expect((await start(t, [t, ...s], { ...START, board: 'courseware' })).background).toBeNull();
    });

    it('late joiners by the teacher’s rule; a reconnect lands in its group; a kicked student leaves it; media tokens name the place', async () => {
      const srv = server();
      const { c, t, s, ids } = await classOf(srv, 3, { extra: 3 });
      await start(t, [t, ...s]); // g1: s0 s2; g2: s1
      // A new student: 'auto' into the smallest group (g2), told as 'placed'.
      const placed = waitFor(t.socket, 'groups', (e) => e.outcome === 'placed');
      const late = await join(srv, c.students[3]!);
      expect(placeIn(late.snapshot.groups, ids[3]!)).toBe(2);
      expect((await placed).userIds).toEqual([ids[3]]);
      // A tie goes to the lowest number.
      expect(placeIn((await join(srv, c.students[4]!)).snapshot.groups, ids[4]!)).toBe(1);
      // A reconnect lands in the group it left, even after others were placed.
      const gone = waitFor(t.socket, 'members', (m) => !m.members.some((x) => x.userId === ids[1]));
      s[1]!.socket.close();
      await gone;
      const back = await join(srv, c.students[1]!);
      expect(placeIn(back.snapshot.groups, ids[1]!)).toBe(2);
      expect(back.snapshot.groups.groups[1]!.members).toEqual([ids[1], ids[3]]);

      // Media tokens: a student in a group is signed as on stage, with the group; the teacher where they are.
      const { services, secret } = srv.banshu.platform;
      const signer = new TokenSigner(secret);
      const claim = async (uid: string) =>
        signer.verify<MediaTokenPayload>(
          (await services.media!.renew({ userId: uid }, c.roomNumber)).mediaToken,
          srv.clock.now().getTime(),
        )!;
      expect(await claim(ids[1]!)).toMatchObject({ grp: 2, mic: true });
      expect((await ask(t.socket, 'groupsMove', { userId: ids[0]!, group: 0 })).code).toBe('0');
      expect(await claim(ids[0]!)).toMatchObject({ grp: 0, mic: false });
      expect((await ask(t.socket, 'groupsVisit', { group: 2 })).code).toBe('0');
      expect(await claim(c.teacher.userId)).toMatchObject({ grp: 2 });

      // A kicked student leaves their group.
      const out = waitFor(t.socket, 'groups', (e) => e.outcome === 'moved' && e.userIds.includes(ids[3]!));
      expect((await ask(t.socket, 'kickout', { userId: ids[3]! })).code).toBe('0');
      expect(placeIn(await out, ids[3]!)).toBe(0);
      expect((await ask(t.socket, 'groupsState')).data.groups[1]!.members).toEqual([ids[1]]);

      // 'teacher': a new student waits in the main room, and nothing is told.
      expect((await ask(t.socket, 'groupsEnd', { afterSeconds: 0 })).code).toBe('0');
      await start(t, [t, back, s[0]!, s[2]!], { ...START, lateJoiners: 'teacher' });
      const told = record(t.socket, 'groups');
      const waiting = await join(srv, c.students[5]!);
      expect(placeIn(waiting.snapshot.groups, ids[5]!)).toBe(0);
      expect((await ask(t.socket, 'groupsMove', { userId: ids[5]!, group: 1 })).code).toBe('0');
      await until('the move was heard', () => told.length > 0, 5000);
      expect(told.map((e) => e.outcome)).toEqual(['moved']);
    });

    it('a large class: a student in a group is signed to send camera and microphone there, and loses them back in the main room', async () => {
      const srv = server();
      const teacher = await signIn(srv);
      await srv.banshu.platform.services.billingRepo.grant(teacher.userId, {
        vip_big_room_people_number: 20,
        vip_big_room_time: new Date(srv.clock.now().getTime() + 3600_000),
      });
      const created = await call(srv.url, 'createRoom', { roomType: 4 }, { token: teacher.token });
      expect(created.code).toBe('0');
      const roomNumber = created.data.roomInfo.roomNumber;
      const people: Array<{ userId: string; token: string; socket: RoomSocket; mediaToken: string }> = [];
      for (const who of [teacher, await signIn(srv), await signIn(srv)]) {
        const joined = await call(srv.url, 'userJoinAgoraRoom', { roomNumber }, { token: who.token });
        expect(joined.code).toBe('0');
        const socket = await connectRoom(srv.url, joined.data.imToken);
        sockets.push(socket);
        expect((await ask(socket, 'joinRoom', {})).code).toBe('0');
        people.push({ ...who, socket, mediaToken: joined.data.mediaToken ?? '' });
      }
      const [t, a, b] = people as [(typeof people)[0], (typeof people)[0], (typeof people)[0]];
      const signer = new TokenSigner(srv.banshu.platform.secret);
      const claimOf = (token: string) => signer.verify<MediaTokenPayload>(token, srv.clock.now().getTime())!;
      expect(claimOf(a.mediaToken)).toMatchObject({ pub: [], mic: false, grp: 0 });
      const g = await ask(t.socket, 'groupsStart', { ...START, method: 'manual', groups: [{ userIds: [a.userId] }, { userIds: [] }] });
      expect(g.code).toBe('0');
      const renewed = async (who: { token: string }) => {
        const r = await call(srv.url, 'createAgoraToken', { roomNumber }, { token: who.token });
        expect(r.code).toBe('0');
        return claimOf(r.data.mediaToken);
      };
      expect(await renewed(a)).toMatchObject({ pub: ['mic', 'camera'], mic: true, grp: 1 });
      expect(await renewed(b)).toMatchObject({ pub: [], mic: false, grp: 0 });
      // A fresh join while in the group is signed the same.
      const rejoined = await call(srv.url, 'userJoinAgoraRoom', { roomNumber }, { token: a.token });
      expect(claimOf(rejoined.data.mediaToken ?? '')).toMatchObject({ pub: ['mic', 'camera'], grp: 1 });
      expect((await ask(t.socket, 'groupsMove', { userId: a.userId, group: 0 })).code).toBe('0');
      expect(await renewed(a)).toMatchObject({ pub: [], mic: false, grp: 0 });
    });

    it('a time limit ends the groups when read after it, exactly once however many read at once', async () => {
      const srv = server();
      const { t, s } = await classOf(srv, 4);
      const everyone = [t, ...s];
      const g = await start(t, everyone, { ...START, minutes: 1 });
      expect(g.endsAt).toBe(srv.clock.now().getTime() + 60_000);
      const heard = everyone.map((j) => record(j.socket, 'groups'));
      srv.clock.advance(59_000);
      expect((await ask(s[0]!.socket, 'groupsState')).data.status).toBe('running');
      srv.clock.advance(1_001);
      const answers = await Promise.all(everyone.map((j) => ask(j.socket, 'groupsState')));
      for (const a of answers) expect(a.data).toMatchObject({ status: 'off', groups: [], lastBoards: [{ no: 1 }, { no: 2 }] });
      // A change after it: once everyone has it, every event before it has arrived.
      expect((await ask(t.socket, 'groupsStart', START)).code).toBe('0');
      await until('everyone heard the next start', () => heard.every((h) => h.some((e) => e.outcome === 'started')), 5000);
      for (const h of heard) expect(h.map((e) => e.outcome)).toEqual(['ended', 'started']);
    });

    it('"return all" with a countdown: the nudge ends the groups at closingAt without any request, exactly once', async () => {
      const srv = server();
      const { t, s } = await classOf(srv, 2);
      const everyone = [t, ...s];
      await start(t, everyone);
      const heard = everyone.map((j) => record(j.socket, 'groups'));
      const ending = everyone.map((j) => waitFor(j.socket, 'groups', (e) => e.outcome === 'ended', 10_000));
      const closing = await ask(t.socket, 'groupsEnd', { afterSeconds: 1 });
      expect(closing.data).toMatchObject({ status: 'closing', closingAt: srv.clock.now().getTime() + 1000 });
      // Still running during the countdown: moves work.
      expect((await ask(s[0]!.socket, 'groupsState')).data.status).toBe('closing');
      srv.clock.advance(1001);
      const ended: GroupsEvent[] = await Promise.all(ending);
      for (const e of ended) expect(e).toMatchObject({ status: 'off', groups: [], teacherIn: 0 });
      expect((await ask(t.socket, 'groupsStart', START)).code).toBe('0');
      await until('everyone heard the next start', () => heard.every((h) => h.some((e) => e.outcome === 'started')), 5000);
      for (const h of heard) expect(h.map((e) => e.outcome)).toEqual(['closing', 'ended', 'started']);
      // "Return all" again with 0 ends a countdown at once.
      expect((await ask(t.socket, 'groupsEnd', { afterSeconds: 60 })).data.status).toBe('closing');
      expect((await ask(t.socket, 'groupsEnd', { afterSeconds: 0 })).data.status).toBe('off');
    });

    it('full groups: a move, a choice and a manual list past GROUP_MAX_MEMBERS are 31043; with every group full a late joiner waits in the main room', async () => {
      const srv = server();
      const { c, t, s, ids } = await classOf(srv, 6, { extra: 1 });
      await start(t, [t, ...s], {
        ...START,
        method: 'manual',
        allowChoose: true,
        groups: [{ userIds: [ids[0]!, ids[1]!, ids[2]!] }, { userIds: [ids[3]!, ids[4]!] }],
      });
      expect((await ask(t.socket, 'groupsMove', { userId: ids[5]!, group: 1 })).code).toBe('31043');
      expect((await ask(s[5]!.socket, 'groupsChoose', { group: 1 })).code).toBe('31043');
      expect((await ask(s[5]!.socket, 'groupsChoose', { group: 2 })).code).toBe('0');
      // Moving within the cap still works: out of a full group, into the room it left.
      expect((await ask(s[0]!.socket, 'groupsChoose', { group: 1 })).code).toBe('0');
      expect(placeIn((await join(srv, c.students[6]!)).snapshot.groups, ids[6]!)).toBe(0);
      expect((await ask(t.socket, 'groupsEnd', { afterSeconds: 0 })).code).toBe('0');
      const refused = await ask(t.socket, 'groupsStart', {
        ...START,
        method: 'manual',
        groups: [{ userIds: [ids[0]!, ids[1]!, ids[2]!, ids[3]!] }, { userIds: [] }],
      });
      expect(refused.code).toBe('31043');
    });

    it('forged and out-of-order commands are refused with a code, change nothing and tell nobody', async () => {
      const srv = server();
      const { t, s, obs, ids } = await classOf(srv, 3, { observer: true });
      const everyone = [t, ...s, obs!];
      const other = await seedClass(srv.banshu.platform.services, { students: 0 });
      const stranger = other.teacher.userId;
      type Case = [what: string, who: Joined, request: string, payload: unknown, code: string];
      const run = async (cases: Case[]) => {
        const codes: Array<[string, string]> = [];
        for (const [what, who, request, payload] of cases) {
          srv.clock.advance(1001); // the channel's flood limit counts requests per second of the server's clock
          codes.push([what, (await rawAsk(who.socket, request, payload)).code]);
        }
        expect(codes).toEqual(cases.map(([what, , , , code]) => [what, code]));
      };
      const [a, , m] = s as [Joined, Joined, Joined];

      // No groups: 31041 for every command that needs them.
      const offBefore = still((await ask(t.socket, 'groupsState')).data);
      const heardOff = everyone.map((j) => [record(j.socket, 'groups'), record(j.socket, 'groupsBroadcast')] as const);
      await run([
        ['teacher moves, no groups', t, 'groupsMove', { userId: ids[0], group: 1 }, '31041'],
        ['teacher visits, no groups', t, 'groupsVisit', { group: 1 }, '31041'],
        ['teacher names a leader, no groups', t, 'groupsLeader', { group: 1, userId: null }, '31041'],
        ['teacher broadcasts, no groups', t, 'groupsBroadcast', { text: 'hi' }, '31041'],
        ['teacher ends, no groups', t, 'groupsEnd', { afterSeconds: 0 }, '31041'],
        ['student chooses, no groups', a, 'groupsChoose', { group: 1 }, '31041'],
        ['student asks for help, no groups', a, 'groupsHelp', {}, '31041'],
        ['student starts', a, 'groupsStart', START, '31004'],
        ['observer starts', obs!, 'groupsStart', START, '31004'],
        ['one group', t, 'groupsStart', { ...START, count: 1 }, '5'],
        ['thirteen groups', t, 'groupsStart', { ...START, count: 13 }, '5'],
        ['manual without lists', t, 'groupsStart', { ...START, method: 'manual' }, '5'],
        ['manual, a list short', t, 'groupsStart', { ...START, method: 'manual', groups: [{ userIds: [ids[0]] }] }, '5'],
        ['manual, a stranger', t, 'groupsStart', { ...START, method: 'manual', groups: [{ userIds: [stranger] }, { userIds: [] }] }, '5'],
        [
          'manual, the observer',
          t,
          'groupsStart',
          { ...START, method: 'manual', groups: [{ userIds: [obs!.snapshot.you.userId] }, { userIds: [] }] },
          '5',
        ],
        ['manual, twice', t, 'groupsStart', { ...START, method: 'manual', groups: [{ userIds: [ids[0]] }, { userIds: [ids[0]] }] }, '5'],
        [
          'manual, a leader outside',
          t,
          'groupsStart',
          { ...START, method: 'manual', groups: [{ userIds: [ids[0]], leader: ids[1] }, { userIds: [ids[1]] }] },
          '5',
        ],
        ['lists for random', t, 'groupsStart', { ...START, method: 'random', groups: [{ userIds: [ids[0]] }, { userIds: [] }] }, '5'],
        ['a long time limit', t, 'groupsStart', { ...START, minutes: 241 }, '5'],
        ['an unknown board', t, 'groupsStart', { ...START, board: 'photo' }, '5'],
        ['an unknown field', t, 'groupsStart', { ...START, extra: 1 }, '5'],
      ]);
      expect(still((await ask(t.socket, 'groupsState')).data)).toEqual(offBefore);

      // Groups running: g1 a, g2 b, m in the main room; choosing off.
      await start(t, everyone, { ...START, method: 'manual', groups: [{ userIds: [ids[0]!] }, { userIds: [ids[1]!] }] });
      const before = still((await ask(t.socket, 'groupsState')).data);
      const heard = everyone.map((j) => [record(j.socket, 'groups'), record(j.socket, 'groupsBroadcast')] as const);
      await run([
        ['a student moves another', a, 'groupsMove', { userId: ids[1], group: 1 }, '31004'],
        ['a student moves themself', a, 'groupsMove', { userId: ids[0], group: 2 }, '31004'],
        ['a student joins another group, choosing off', a, 'groupsChoose', { group: 2 }, '31044'],
        ['a main-room student picks a group, choosing off', m, 'groupsChoose', { group: 1 }, '31044'],
        ['a student ends the groups', a, 'groupsEnd', { afterSeconds: 0 }, '31004'],
        ['a student visits', a, 'groupsVisit', { group: 2 }, '31004'],
        ['a student broadcasts', a, 'groupsBroadcast', { text: 'hi all' }, '31004'],
        ['a student names a leader', a, 'groupsLeader', { group: 1, userId: ids[0] }, '31004'],
        ['a student starts again', a, 'groupsStart', START, '31004'],
        ['the observer chooses', obs!, 'groupsChoose', { group: 1 }, '31004'],
        ['the observer asks for help', obs!, 'groupsHelp', {}, '31004'],
        ['the observer moves', obs!, 'groupsMove', { userId: ids[2], group: 1 }, '31004'],
        ['the teacher asks for help', t, 'groupsHelp', {}, '31004'],
        ['the teacher chooses', t, 'groupsChoose', { group: 1 }, '31004'],
        ['a main-room student asks for help', m, 'groupsHelp', {}, '31004'],
        ['a second start', t, 'groupsStart', START, '31040'],
        ['a move to group 3 of 2', t, 'groupsMove', { userId: ids[2], group: 3 }, '5'],
        ['a move of a stranger', t, 'groupsMove', { userId: stranger, group: 1 }, '5'],
        ['a move of the observer', t, 'groupsMove', { userId: obs!.snapshot.you.userId, group: 1 }, '5'],
        ['a move of the teacher', t, 'groupsMove', { userId: t.snapshot.you.userId, group: 1 }, '5'],
        ['a move to group 13', t, 'groupsMove', { userId: ids[2], group: 13 }, '5'],
        ['a visit to group 3 of 2', t, 'groupsVisit', { group: 3 }, '5'],
        ['a leader outside the group', t, 'groupsLeader', { group: 1, userId: ids[1] }, '5'],
        ['a leader of group 3 of 2', t, 'groupsLeader', { group: 3, userId: null }, '5'],
        ['a malformed user id', t, 'groupsMove', { userId: 'x', group: 1 }, '5'],
        ['an empty broadcast', t, 'groupsBroadcast', { text: '   ' }, '5'],
        ['a long broadcast', t, 'groupsBroadcast', { text: 'x'.repeat(201) }, '5'],
        ['a long countdown', t, 'groupsEnd', { afterSeconds: 301 }, '5'],
        ['a fractional countdown', t, 'groupsEnd', { afterSeconds: 1.5 }, '5'],
        ['a choice of group 0', a, 'groupsChoose', { group: 0 }, '5'],
        ['an unknown field', a, 'groupsHelp', { cancel: true, more: 1 }, '5'],
      ]);
      // Nothing changed...
      expect(still((await ask(t.socket, 'groupsState')).data)).toEqual(before);
      // ... and nothing was told: the next real change is the first event anyone hears.
      const sentinel = everyone.map((j) => waitFor(j.socket, 'groups', (e) => e.outcome === 'moved'));
      expect((await ask(t.socket, 'groupsMove', { userId: ids[2]!, group: 1 })).code).toBe('0');
      await Promise.all(sentinel);
      for (const [g, bc] of heardOff) {
        expect(g.map((e) => e.outcome)).toEqual(['started', 'moved']);
        expect(bc).toEqual([]);
      }
      for (const [g, bc] of heard) {
        expect(g.map((e) => e.outcome)).toEqual(['moved']);
        expect(bc).toEqual([]);
      }
    });

    it('too few free whiteboard pages for the groups: 31042, nothing started', async () => {
      const srv = server();
      const { c, t, s } = await classOf(srv, 2);
      const bt = await boardOf(srv, c, c.teacher);
      expect(await draw(bt, 'wb:10')).toBe('0');
      expect((await ask(t.socket, 'groupsStart', { ...START, count: 11 })).code).toBe('31042');
      expect((await ask(s[0]!.socket, 'groupsState')).data.status).toBe('off');
      const ok = await start(t, [t, ...s], { ...START, count: 10 });
      expect(ok.groups.map((g) => g.page)).toEqual([11, 12, 13, 14, 15, 16, 17, 18, 19, 20]);
    });
  },
  { env: { ...CLASS_TOOLS_ENV, GROUP_MAX_MEMBERS: '3' } },
);
