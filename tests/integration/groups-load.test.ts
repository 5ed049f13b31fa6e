/**
 * Breakout groups under a class's load (issue 31, ADR 116), with real socket.io clients and no
 * browsers, on one web node, PGlite and PostgreSQL (one server per engine for the whole file):
 * - 60 students, an observer and the teacher; 10 groups: start (random), four moves (one to the
 *   main room and back), a third of the class dropping and coming back at once (each to their
 *   place, nobody placed again), a broadcast, end (now); a second round where everyone chooses their group
 *   (all 60 at once, then six change their minds), end (now). After every step the state is a
 *   partition of the 60 over the groups and the main room, and everyone's own view (the last
 *   `groups` event they heard and their own `groupsState` answer) is that state; the broadcast
 *   reaches each of the 60 exactly once. The time of each step (the teacher's request to the
 *   last student's event) is printed.
 * - A student whose socket drops and who comes back lands in their group (whatever the rule for
 *   late joiners): the same place in the join snapshot, nobody placed again, their group's chat
 *   (the lines said while they were away too), and their next line reaches only their group.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { GROUPS_MAX, placeOf, type GroupsEvent, type GroupsState } from '#core/contracts/groups.ts';
import { ENGINES } from '#tests/support/engines-matrix.ts';
import { postgresAdminUrl } from '#tests/support/database.ts';
import { hear, medianMax, partition, sizes, stateOf, viewsAgree, type Heard } from '#tests/support/groups.ts';
import { ask, type Answer, type RoomSocket } from '#tests/support/room-client.ts';
import { startTestServer, type TestServer } from '#tests/support/server.ts';
import { CLASS_TOOLS_ENV, joinAll, joinAs, seedClass } from '#tests/support/class-tools.ts';
import { until } from '#tests/support/until.ts';

const sockets: RoomSocket[] = [];
afterEach(() => {
  for (const s of sockets.splice(0)) s.close();
});

const ms = (x: number) => `${x.toFixed(0)} ms`;

interface Seat {
  userId: string;
  socket: RoomSocket;
  heard: Heard;
  /** The join snapshot's groups, for a seat that joined again while groups ran. */
  snapshot?: GroupsState;
}

describe.each(ENGINES)('breakout groups under load [%s]', (engine) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      engine,
      postgresAdminUrl: engine === 'postgres' ? postgresAdminUrl() : undefined,
      realTime: true,
      env: CLASS_TOOLS_ENV,
    });
  }, 60_000);
  afterAll(async () => {
    await server?.close();
  });

  it('60 students in 10 groups: start, move, a third reconnecting, broadcast, end, choose, end; each student in exactly one place at every step; the step times', async () => {
    const N = 60;
    const G = 10;
    const c = await seedClass(server.banshu.platform.services, { students: N, observer: true });
    const ids = c.students.map((p) => p.userId);
    const teacherJoined = await joinAs(server.url, c.teacher);
    sockets.push(teacherJoined.socket);
    const observerJoined = await joinAs(server.url, c.observer!);
    sockets.push(observerJoined.socket);
    const joinStart = performance.now();
    const joined = await joinAll(server.url, c.students, sockets);
    const joinMs = performance.now() - joinStart;
    for (const j of [teacherJoined, observerJoined, ...joined]) expect(j.snapshot.groups.status).toBe('off');
    const students: Seat[] = joined.map((j, i) => ({ userId: ids[i]!, socket: j.socket, heard: hear(j.socket) }));
    const teacher: Seat = { userId: c.teacher.userId, socket: teacherJoined.socket, heard: hear(teacherJoined.socket) };
    const observer: Seat = { userId: c.observer!.userId, socket: observerJoined.socket, heard: hear(observerJoined.socket) };
    const everyone = () => [teacher, observer, ...students];

    const times: Array<{ step: string; ms: number }> = [];
    /**
     * Sends the teacher's request, then waits until every student heard a `groups` event `match`
     * accepts; the step's time is from the request to the last student's such event.
     */
    async function step(name: string, send: () => Promise<Answer<GroupsState>>, match: (e: GroupsEvent) => boolean): Promise<GroupsState> {
      const from = students.map((s) => s.heard.groups.length);
      const t0 = performance.now();
      const answer = await send();
      expect(answer.code, name).toBe('0');
      const first = (s: Seat, i: number) => s.heard.groups.slice(from[i]).find((x) => match(x.event));
      await until(`every student to hear ${name}`, () => students.every((s, i) => first(s, i) !== undefined), 20_000);
      times.push({ step: name, ms: Math.max(...students.map((s, i) => first(s, i)!.at)) - t0 });
      return answer.data;
    }
    /** After a step: a partition, and everyone's view is `state`; answers the places. */
    async function check(state: GroupsState, count: number): Promise<Map<string, number>> {
      const places = partition(state, ids, count);
      // The teacher and the observer are never in a group.
      expect(placeOf(state, observer.userId, false)).toBe(0);
      for (const g of state.groups) expect(g.members).not.toContain(teacher.userId);
      await viewsAgree(state, everyone());
      return places;
    }

    // --- Round 1: random groups ---
    let state = await step(
      'start (random, 10 groups)',
      () =>
        ask(teacher.socket, 'groupsStart', {
          count: G,
          method: 'random',
          minutes: 0,
          allowChoose: false,
          lateJoiners: 'auto',
          board: 'blank',
        }),
      (e) => e.outcome === 'started',
    );
    expect(state).toMatchObject({ status: 'running', teacherIn: 0, teacher: teacher.userId, allowChoose: false, endsAt: 0 });
    const round1 = state.round;
    expect(round1).toBeGreaterThanOrEqual(1);
    let places = await check(state, G);
    // Every student online is dealt: nobody in the main room, 6 in each group.
    expect(sizes(places, G)).toEqual([0, ...new Array<number>(G).fill(N / G)]);
    // Each group its own page.
    expect(new Set(state.groups.map((g) => g.page)).size).toBe(G);
    const pages1 = state.groups.map((g) => ({ no: g.no, page: g.page }));

    // Moves: group 1 -> 2, group 3 -> 4, group 5 -> the main room, and that student on to group 1.
    const moves: Array<{ userId: string; to: number }> = [];
    const firstOf = (no: number) => state.groups.find((g) => g.no === no)!.members[0]!;
    moves.push({ userId: firstOf(1), to: 2 }, { userId: firstOf(3), to: 4 });
    const wanderer = firstOf(5);
    moves.push({ userId: wanderer, to: 0 }, { userId: wanderer, to: 1 });
    for (const [k, m] of moves.entries()) {
      state = await step(
        `move ${k + 1} (to ${m.to === 0 ? 'the main room' : `group ${m.to}`})`,
        () => ask(teacher.socket, 'groupsMove', { userId: m.userId, group: m.to }),
        (e) => e.outcome === 'moved' && e.userIds.includes(m.userId),
      );
      const after = await check(state, G);
      expect(after.get(m.userId)).toBe(m.to);
      // Nobody else moved.
      for (const uid of ids) if (uid !== m.userId) expect(after.get(uid), uid).toBe(places.get(uid));
      places = after;
    }
    expect(sizes(places, G)).toEqual([0, 6, 7, 5, 7, 5, 6, 6, 6, 6, 6]);

    // A third of the class loses its connection at once (a flaky network, a node restarting) and
    // comes back at once: each lands where they were, nobody is placed again (late joiners 'auto'
    // would put a newcomer into group 3 or 5), and the state is unchanged.
    const dropping = students.slice(0, N / 3);
    const gone = dropping.map((s) => new Promise((r) => s.socket.once('disconnect', r)));
    for (const s of dropping) s.socket.io.engine.close();
    await Promise.all(gone);
    await until(
      'the server to see them gone',
      async () => {
        const online = new Set((await server.banshu.platform.presence.online(c.roomNumber)).map((o) => o.userId));
        return dropping.every((s) => !online.has(s.userId));
      },
      10_000,
    );
    const teacherHeardBefore = teacher.heard.groups.length;
    const r0 = performance.now();
    const back = await Promise.all(dropping.map((_, i) => joinAs(server.url, c.students[i]!)));
    times.push({ step: `${N / 3} students come back at once (to the last join answer)`, ms: performance.now() - r0 });
    back.forEach((j, i) => {
      sockets.push(j.socket);
      expect(placeOf(j.snapshot.groups, ids[i]!, false), `${ids[i]} back`).toBe(places.get(ids[i]!));
      students[i] = { userId: ids[i]!, socket: j.socket, heard: hear(j.socket), snapshot: j.snapshot.groups };
    });
    await check(state, G);
    expect(teacher.heard.groups.slice(teacherHeardBefore), 'no groups event for the returns').toEqual([]);

    // Broadcast: every student hears it once (counted after the next step, a fence).
    const text = `Five minutes left, ${engine}`;
    const b0 = performance.now();
    const sent = await ask(teacher.socket, 'groupsBroadcast', { text });
    expect(sent.code).toBe('0');
    const heardBroadcast = (s: Seat) => s.heard.broadcasts.find((b) => b.text === text);
    await until('every student to hear the broadcast', () => students.every((s) => heardBroadcast(s) !== undefined), 20_000);
    times.push({ step: 'broadcast', ms: Math.max(...students.map((s) => heardBroadcast(s)!.at)) - b0 });

    state = await step(
      'end (now)',
      () => ask(teacher.socket, 'groupsEnd', { afterSeconds: 0 }),
      (e) => e.outcome === 'ended',
    );
    expect(state).toMatchObject({ status: 'off', round: round1, teacherIn: 0, groups: [], closingAt: 0 });
    places = await check(state, 0);
    expect(sizes(places, 0)).toEqual([N]);
    // The groups' boards stay as pages.
    expect(state.lastBoards.map((b) => ({ no: b.no, page: b.page }))).toEqual(pages1);
    for (const s of students) {
      const copies = s.heard.broadcasts.filter((b) => b.text === text);
      expect(copies, `${s.userId} heard the broadcast`).toHaveLength(1);
      expect(copies[0]!.by).toBe(teacher.userId);
    }

    // --- Round 2: everyone chooses ---
    state = await step(
      'start (choose, 10 groups)',
      () =>
        ask(teacher.socket, 'groupsStart', {
          count: G,
          method: 'choose',
          minutes: 0,
          allowChoose: true,
          lateJoiners: 'teacher',
          board: 'blank',
        }),
      (e) => e.outcome === 'started' && e.round === round1 + 1,
    );
    expect(state).toMatchObject({ status: 'running', round: round1 + 1, allowChoose: true });
    places = await check(state, G);
    expect(sizes(places, G)).toEqual([N, ...new Array<number>(G).fill(0)]);

    // All 60 choose at once: student i group (i mod 10) + 1.
    const choice = new Map(ids.map((uid, i) => [uid, (i % G) + 1]));
    const chooseAll = async (name: string, who: Seat[], want: Map<string, number>) => {
      const from = students.map((s) => s.heard.groups.length);
      const t0 = performance.now();
      const answers = await Promise.all(who.map((s) => ask(s.socket, 'groupsChoose', { group: want.get(s.userId)! }, 20_000)));
      for (const [i, a] of answers.entries()) expect(a.code, `${who[i]!.userId} chooses`).toBe('0');
      const done = (e: GroupsEvent) =>
        e.groups.every((g) => g.members.every((uid) => want.get(uid) === g.no)) && e.groups.reduce((n, g) => n + g.members.length, 0) === N;
      const first = (s: Seat, i: number) => s.heard.groups.slice(from[i]).find((x) => done(x.event));
      await until(`every student to hear ${name}`, () => students.every((s, i) => first(s, i) !== undefined), 20_000);
      times.push({ step: name, ms: Math.max(...students.map((s, i) => first(s, i)!.at)) - t0 });
      const events = students.map((s, i) => s.heard.groups.length - from[i]!);
      return { events: medianMax(events) };
    };
    const chose = await chooseAll(`${N} students choose at once`, students, choice);
    state = (await ask(teacher.socket, 'groupsState')).data;
    places = await check(state, G);
    for (const uid of ids) expect(places.get(uid), uid).toBe(choice.get(uid));
    expect(sizes(places, G)).toEqual([0, ...new Array<number>(G).fill(N / G)]);

    // Six change their minds at once: each to the next group.
    const changers = students.slice(0, 6);
    for (const s of changers) choice.set(s.userId, (choice.get(s.userId)! % G) + 1);
    await chooseAll('6 students change group at once', changers, choice);
    state = (await ask(teacher.socket, 'groupsState')).data;
    places = await check(state, G);
    for (const uid of ids) expect(places.get(uid), uid).toBe(choice.get(uid));

    state = await step(
      'end (now), round 2',
      () => ask(teacher.socket, 'groupsEnd', { afterSeconds: 0 }),
      (e) => e.outcome === 'ended' && e.round === round1 + 1,
    );
    expect(state).toMatchObject({ status: 'off', groups: [] });
    places = await check(state, 0);
    expect(sizes(places, 0)).toEqual([N]);
    expect(state.lastBoards).toHaveLength(G);
    expect(G).toBeLessThanOrEqual(GROUPS_MAX);

    console.log(
      [
        `breakout groups, ${N} students, ${G} groups [${engine}] (ms from the request to the last student's event):`,
        `  join ${N} students: ${ms(joinMs)}`,
        ...times.map((t) => `  ${t.step}: ${ms(t.ms)}`),
        `  while ${N} chose at once each student heard ${chose.events.median} groups events (median), at most ${chose.events.max}`,
      ].join('\n'),
    );
  }, 120_000);

  it.each(['auto', 'teacher'] as const)(
    'a student whose socket drops comes back into their group (late joiners: %s): same place, their group chat, their next line to their group only',
    async (lateJoiners) => {
      const c = await seedClass(server.banshu.platform.services, { students: 7 });
      const ids = c.students.map((p) => p.userId);
      const t = await joinAs(server.url, c.teacher);
      sockets.push(t.socket);
      const joined = await joinAll(server.url, c.students, sockets, 7);
      const teacherHeard = hear(t.socket);
      const heard = joined.map((j) => hear(j.socket));
      // Group 1 is the larger (4 and 3): 'auto' would put a newcomer into group 2.
      const started = await ask(t.socket, 'groupsStart', {
        count: 2,
        method: 'manual',
        groups: [{ userIds: ids.slice(0, 4) }, { userIds: ids.slice(4) }],
        minutes: 0,
        allowChoose: false,
        lateJoiners,
        board: 'blank',
      });
      expect(started.code).toBe('0');
      await until('everyone to hear the start', () => heard.every((h) => h.groups.some((x) => x.event.outcome === 'started')));
      const before = started.data;
      const x = 0;
      const mate = 1;
      const other = 4;
      expect(placeOf(before, ids[x]!, false)).toBe(1);

      const said = async (socket: RoomSocket, text: string) => {
        const a = await ask(socket, 'chat', { text });
        expect(a.code, text).toBe('0');
        return a.data;
      };
      expect((await said(joined[mate]!.socket, 'before the drop')).group).toBe(1);

      // The drop: the connection goes (as a network does), no leaveRoom.
      const gone = new Promise((r) => joined[x]!.socket.once('disconnect', r));
      joined[x]!.socket.io.engine.close();
      await gone;
      await until('the server to see the student gone', async () => {
        const online = await server.banshu.platform.presence.online(c.roomNumber);
        return !online.some((o) => o.userId === ids[x]);
      });
      expect((await said(joined[mate]!.socket, 'while away')).group).toBe(1);
      expect((await said(joined[other]!.socket, 'in group two')).group).toBe(2);

      // Back: the same place, the same state; nobody placed or moved.
      const back = await joinAs(server.url, c.students[x]!);
      sockets.push(back.socket);
      const backHeard = hear(back.socket);
      expect(placeOf(back.snapshot.groups, ids[x]!, false)).toBe(1);
      const now = (await ask(t.socket, 'groupsState')).data;
      expect(stateOf(back.snapshot.groups)).toEqual(stateOf(now));
      expect(stateOf(now)).toEqual(stateOf(before));
      partition(now, ids, 2);
      expect(teacherHeard.groups.filter((g) => g.event.outcome !== 'started')).toEqual([]);
      // Their group's chat, what was said while away too; nothing of group 2's.
      const lines = back.snapshot.messages.map((m) => ({ text: m.text, group: m.group }));
      expect(lines).toContainEqual({ text: 'before the drop', group: 1 });
      expect(lines).toContainEqual({ text: 'while away', group: 1 });
      expect(lines.map((l) => l.text)).not.toContain('in group two');

      // Their next line is a group line: their group and the teacher hear it, group 2 does not.
      expect((await said(back.socket, 'back again')).group).toBe(1);
      await until('group 1 and the teacher to hear it', () =>
        [heard[mate]!, teacherHeard].every((h) => h.lines.some((l) => l.line.text === 'back again' && l.line.group === 1)),
      );
      const fence = await ask(t.socket, 'chat', { text: `fence ${lateJoiners}` });
      expect(fence.code).toBe('0');
      await until('the teacher main line to reach group 2', () => heard[other]!.lines.some((l) => l.line.text === `fence ${lateJoiners}`));
      expect(heard[other]!.lines.map((l) => l.line.text)).not.toContain('back again');
      expect(heard[other]!.lines.map((l) => l.line.text)).not.toContain('while away');
      expect(backHeard.lines.map((l) => l.line.text)).toContain(`fence ${lateJoiners}`);
    },
    60_000,
  );
});
