/**
 * Breakout groups on the media (issue 31, ADR 117), with werift peers standing in for browsers:
 * real ICE, DTLS and SRTP through the product's SFU. Each publisher's audio is made of its own
 * byte, so a subscriber can tell whose packets reached it: each group hears only its own members,
 * a move changes what flows, the teacher visiting group 2 is heard there only, and the teacher
 * hears who speaks in every group. The groups reach the node as the room's `groups` event on the
 * bus (server/media-control.ts translates it), the way the server's groups service tells them;
 * the tokens carry the `grp` claim the web side signs (signed here by the server's own key).
 */
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import type { GroupsEvent } from '#core/contracts/groups.ts';
import type { MediaNote, MediaTokenPayload } from '#core/contracts/media-signaling.ts';
import { roomMessage } from '#core/platform/events.ts';
import { TokenSigner } from '#core/platform/secrets.ts';
import { call, signIn } from '#tests/support/api.ts';
import { MediaTestPeer, type ReceivedTrack, type SentTrack } from '#tests/support/media-client.ts';
import { ask, connectRoom, type RoomSocket } from '#tests/support/room-client.ts';
import { startTestServer, type TestServer } from '#tests/support/server.ts';
import { until } from '#tests/support/until.ts';

let server: TestServer;
const open: MediaTestPeer[] = [];
const sockets: RoomSocket[] = [];

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});
afterEach(() => {
  for (const p of open.splice(0)) p.close();
  for (const s of sockets.splice(0)) s.close();
});

let roomSeq = 0;
const TEACHER = '900';

/** A media token as the web side signs it, with the person's group. */
function token(room: string, uid: string, over: Partial<MediaTokenPayload>): string {
  const payload: MediaTokenPayload = { scope: 'media', room, uid, role: 'member', rt: 1, pub: ['mic', 'camera'], mode: 'discuss', ...over };
  return new TokenSigner(server.banshu.platform.secret).sign(payload, 120, server.clock.now().getTime());
}

/** The groups service's room event (the whole state) on the bus, as the server tells it. */
function tellGroups(room: string, groups: Record<number, string[]>, teacherIn = 0): void {
  const payload: GroupsEvent = {
    status: Object.keys(groups).length ? 'running' : 'off',
    round: 1,
    groups: Object.entries(groups).map(([no, members]) => ({ no: Number(no), name: no, leader: null, page: 3, members, helpAt: 0 })),
    teacherIn,
    teacher: TEACHER,
    allowChoose: false,
    lateJoiners: 'auto',
    startedAt: Date.now(),
    endsAt: 0,
    closingAt: 0,
    background: null,
    lastBoards: [],
    serverTime: Date.now(),
    outcome: 'moved',
    userIds: [],
  };
  server.banshu.platform.events.publish(roomMessage(room, 'groups', payload));
}

interface Person {
  uid: string;
  peer: MediaTestPeer;
  mic?: SentTrack;
  /** trackId -> what arrived on it. */
  heard: Map<string, ReceivedTrack>;
}

async function joinAs(room: string, uid: string, over: Partial<MediaTokenPayload>): Promise<Person & { tracks: string[] }> {
  const peer = await MediaTestPeer.connect(server.url);
  open.push(peer);
  const joined = await peer.ok('join', { token: token(room, uid, over) });
  return { uid, peer, heard: new Map(), tracks: joined.tracks.map((t) => t.trackId) };
}

/** The tracks a peer was told of and not told gone since, in the order of its notes. */
function visible(p: Pick<Person, 'peer'>, initial: string[] = []): Set<string> {
  const seen = new Set(initial);
  for (const n of p.peer.notes) {
    if (n.type === 'trackAdded') seen.add(n.track.trackId);
    if (n.type === 'trackRemoved') seen.delete(n.trackId);
  }
  return seen;
}

const fillOf = (uid: string) => Number(uid) % 250;

it('each group hears only its own members; a move changes what flows; the teacher visiting group 2 is heard there only and hears every group speak', async () => {
  const room = `GRP${String(++roomSeq).padStart(4, '0')}`;
  const node = server.banshu.media!.server;
  // Until the web side tells the groups, the tokens' grp claims place their holders.
  const teacher = await joinAs(room, TEACHER, { role: 'creator', pub: ['mic', 'camera', 'screen'] });
  const [a1, a2, b1] = await Promise.all([
    joinAs(room, '101', { grp: 1, mic: true }),
    joinAs(room, '102', { grp: 1, mic: true }),
    joinAs(room, '201', { grp: 2, mic: true }),
  ]);
  const observer = await joinAs(room, '300', { role: 'observer', pub: [] });
  expect([...node.rooms.get(room)!.spaces].sort()).toEqual([
    ['101', 1],
    ['102', 1],
    ['201', 2],
  ]);
  // The web side's word (the same map): from now on the node follows the groups service.
  tellGroups(room, { 1: ['101', '102'], 2: ['201'] });

  const people = [teacher, a1, a2, b1];
  for (const p of people) p.mic = await p.peer.publish('mic', { fill: fillOf(p.uid) });
  const micOf = (p: Person) => p.mic!.trackId;

  // Each sees the microphones of its own space only.
  await until(
    'every peer told of its space’s tracks',
    () => visible(a1).has(micOf(a2)) && visible(a2).has(micOf(a1)) && visible(observer).has(micOf(teacher)),
    5000,
  );
  expect(visible(a1)).toEqual(new Set([micOf(a2)]));
  expect(visible(a2)).toEqual(new Set([micOf(a1)]));
  expect(visible(b1)).toEqual(new Set());
  expect(visible(teacher)).toEqual(new Set());
  expect(visible(observer)).toEqual(new Set([micOf(teacher)]));
  // A track of another space is as good as absent.
  for (const [who, other] of [
    [a1, b1],
    [b1, a1],
    [b1, teacher],
    [teacher, a1],
  ] as const)
    expect((await who.peer.req('subscribe', { trackId: micOf(other) })).code).toBe('33003');

  const listen = async (who: Person, to: Person) => who.heard.set(micOf(to), await who.peer.subscribe(micOf(to)));
  await listen(a1, a2);
  await listen(a2, a1);
  await listen(observer, teacher);
  await until(
    'group 1 and the main room hear each other',
    () => [...a1.heard.values(), ...a2.heard.values(), ...observer.heard.values()].every((r) => r.packets > 20),
    15_000,
  );
  // Whose packets arrived: only the group's own.
  const fills = (p: Person) => new Set([...p.heard.values()].flatMap((r) => [...r.fills]));
  expect(fills(a1)).toEqual(new Set([fillOf('102')]));
  expect(fills(a2)).toEqual(new Set([fillOf('101')]));
  expect(fills(observer)).toEqual(new Set([fillOf(TEACHER)]));

  // 102 moves to group 2: the subscriptions across the groups close, the new group's tracks are told.
  const removedAt = a1.peer.waitNote('trackRemoved', (n) => n.trackId === micOf(a2));
  tellGroups(room, { 1: ['101'], 2: ['201', '102'] });
  await removedAt;
  await a2.peer.waitNote('trackRemoved', (n) => n.trackId === micOf(a1));
  await a2.peer.waitNote('trackAdded', (n) => n.track.trackId === micOf(b1));
  await b1.peer.waitNote('trackAdded', (n) => n.track.trackId === micOf(a2));
  expect(visible(a1)).toEqual(new Set());
  expect(visible(a2)).toEqual(new Set([micOf(b1)]));
  expect(visible(b1)).toEqual(new Set([micOf(a2)]));
  expect(node.load().subscriptions).toBe(1);
  const cut = { a1: a1.heard.get(micOf(a2))!.packets, a2: a2.heard.get(micOf(a1))!.packets };
  await listen(a2, b1);
  await listen(b1, a2);
  await until('group 2 hears its new member', () => b1.heard.get(micOf(a2))!.packets > 30 && a2.heard.get(micOf(b1))!.packets > 30, 15_000);
  // Nothing more crossed from the old group (a packet already on its way may have landed).
  expect(a1.heard.get(micOf(a2))!.packets).toBeLessThanOrEqual(cut.a1 + 3);
  expect(a2.heard.get(micOf(a1))!.packets).toBeLessThanOrEqual(cut.a2 + 3);
  expect(fills(b1)).toEqual(new Set([fillOf('102')]));

  // The teacher visits group 2: heard there, no longer in the main room, never in group 1.
  const observerNotesBefore = observer.peer.notes.length;
  tellGroups(room, { 1: ['101'], 2: ['201', '102'] }, 2);
  await observer.peer.waitNote('trackRemoved', (n) => n.trackId === micOf(teacher));
  for (const p of [a2, b1]) await p.peer.waitNote('trackAdded', (n) => n.track.trackId === micOf(teacher));
  await until('the teacher told of group 2', () => visible(teacher).size === 2);
  expect(visible(teacher)).toEqual(new Set([micOf(a2), micOf(b1)]));
  expect(visible(a1)).toEqual(new Set());
  expect((await a1.peer.req('subscribe', { trackId: micOf(teacher) })).code).toBe('33003');
  expect((await observer.peer.req('subscribe', { trackId: micOf(teacher) })).code).toBe('33003');
  const observerCut = observer.heard.get(micOf(teacher))!.packets;
  const b1Before = b1.heard.get(micOf(a2))!.packets;
  await listen(b1, teacher);
  await listen(teacher, b1);
  await until(
    'group 2 hears the teacher',
    () => b1.heard.get(micOf(teacher))!.packets > 30 && teacher.heard.get(micOf(b1))!.packets > 30,
    15_000,
  );
  expect(b1.heard.get(micOf(a2))!.packets).toBeGreaterThan(b1Before);
  expect(observer.heard.get(micOf(teacher))!.packets).toBeLessThanOrEqual(observerCut + 3);
  expect(fills(b1)).toEqual(new Set([fillOf('102'), fillOf(TEACHER)]));
  expect(fills(teacher)).toEqual(new Set([fillOf('201')]));
  expect(fills(observer)).toEqual(new Set([fillOf(TEACHER)]));
  // On the node: every subscription stays within one space.
  const r = node.rooms.get(room)!;
  for (const p of r.peers.values()) for (const s of p.subscriptions.values()) expect(r.sees(p, s.publication)).toBe(true);

  // Who speaks: the teacher hears every group; a group hears its own; the main room nobody now.
  const levels = (p: Person, since = 0) =>
    p.peer.notes.slice(since).filter((n): n is Extract<MediaNote, { type: 'audioLevels' }> => n.type === 'audioLevels');
  await teacher.peer.waitNote('audioLevels', (n) => ['101', '102', '201', TEACHER].every((u) => (n.levels[u] ?? 0) > 0), 5000);
  const a1Since = a1.peer.notes.length;
  const b1Since = b1.peer.notes.length;
  await until('two more level notes in each group', () => levels(a1, a1Since).length >= 2 && levels(b1, b1Since).length >= 2, 5000);
  for (const n of levels(a1, a1Since)) expect(Object.keys(n.levels)).toEqual(['101']);
  for (const n of levels(b1, b1Since)) expect(Object.keys(n.levels).sort()).toEqual(['102', '201', TEACHER].sort());
  const teacherGone = observer.peer.notes.findIndex((n, i) => i >= observerNotesBefore && n.type === 'trackRemoved');
  for (const n of levels(observer, teacherGone + 1)) expect(n.levels).toEqual({});
});

it('a large class’s student leaving a group stops sending at once, and the token from the group cannot bring the microphone back', async () => {
  const room = `GRP${String(++roomSeq).padStart(4, '0')}`;
  const teacher = await joinAs(room, TEACHER, { role: 'creator', rt: 4, pub: ['mic', 'camera', 'screen'] });
  const groupToken = token(room, '401', { rt: 4, grp: 1, mic: true });
  const student = await MediaTestPeer.connect(server.url);
  open.push(student);
  expect((await student.ok('join', { token: groupToken })).rights).toEqual(['mic', 'camera']);
  tellGroups(room, { 1: ['401'] }, 1);
  const mic = await student.publish('mic', { fill: 7 });
  await teacher.peer.waitNote('trackAdded', (n) => n.track.trackId === mic.trackId);
  const heard = await teacher.peer.subscribe(mic.trackId);
  await until('the teacher hears the group', () => heard.packets > 20, 15_000);

  // The groups end a while later: back in the main room, not on the stage.
  server.clock.advance(2000);
  tellGroups(room, {});
  await student.waitNote('rightsChanged', (n) => n.rights.length === 0);
  await teacher.peer.waitNote('trackRemoved', (n) => n.trackId === mic.trackId);
  expect(server.banshu.media!.server.rooms.get(room)!.publications.size).toBe(0);
  expect((await student.req('publish', { source: 'mic', sdp: 'v=0\r\no=- 0 0 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\n' })).code).toBe('33002');
  // The token signed in the group is still within its lifetime: it gives nothing now.
  expect((await student.ok('refresh', { token: groupToken })).rights).toEqual([]);
});

it('the groups service’s start, move and end reach the node: its map follows them, and a token signed in a group names it', async () => {
  // A real whiteboard class (everyone may speak): the teacher and two students seated on the room channel.
  const node = server.banshu.media!.server;
  const teacher = await signIn(server);
  const created = await call(server.url, 'createRoom', { roomType: 2 }, { token: teacher.token });
  expect(created.code).toBe('0');
  const roomNumber = created.data.roomInfo.roomNumber;
  const people = [];
  for (const who of [teacher, await signIn(server), await signIn(server)]) {
    const joined = await call(server.url, 'userJoinAgoraRoom', { roomNumber }, { token: who.token });
    expect(joined.code).toBe('0');
    const sock = await connectRoom(server.url, joined.data.imToken);
    sockets.push(sock);
    expect((await ask(sock, 'joinRoom')).code).toBe('0');
    const peer = await MediaTestPeer.connect(joined.data.mediaUrl!);
    open.push(peer);
    await peer.ok('join', { token: joined.data.mediaToken! });
    people.push({ ...who, sock, peer });
  }
  const [t, s1, s2] = people as [(typeof people)[0], (typeof people)[0], (typeof people)[0]];
  const spaces = () => [...node.rooms.get(roomNumber)!.spaces].sort();
  expect(spaces()).toEqual([]);
  const m1 = await s1.peer.publish('mic', { silent: true });
  await s2.peer.waitNote('trackAdded', (n) => n.track.trackId === m1.trackId);

  const start = await ask(t.sock, 'groupsStart', {
    count: 2,
    method: 'even',
    minutes: 0,
    allowChoose: false,
    lateJoiners: 'auto',
    board: 'blank',
  });
  expect(start.code).toBe('0');
  const placed = new Map(start.data.groups.flatMap((g) => g.members.map((u) => [u, g.no] as const)));
  expect(placed.get(s1.userId)).not.toBe(placed.get(s2.userId));
  await until('the node’s map from the groups event', () => spaces().length === 2);
  expect(spaces()).toEqual([...placed].sort());
  // The other group's microphone is gone from s2's view, and cannot be subscribed to.
  await s2.peer.waitNote('trackRemoved', (n) => n.trackId === m1.trackId);
  expect((await s2.peer.req('subscribe', { trackId: m1.trackId })).code).toBe('33003');
  // A token signed now names the student's group.
  const fresh = await call(server.url, 'createAgoraToken', { roomNumber }, { token: s2.token });
  expect(fresh.code).toBe('0');
  expect(node.verify(fresh.data.mediaToken).grp).toBe(placed.get(s2.userId));

  // The teacher moves s1 into s2's group: s2 sees s1's microphone again.
  expect((await ask(t.sock, 'groupsMove', { userId: s1.userId, group: placed.get(s2.userId)! })).code).toBe('0');
  await until('the node’s map after the move', () => node.rooms.get(roomNumber)!.spaces.get(s1.userId) === placed.get(s2.userId));
  await until('s2 sees s1’s microphone again', () => visible(s2).has(m1.trackId));
  expect((await ask(t.sock, 'groupsEnd', { afterSeconds: 0 })).code).toBe('0');
  await until('the node’s map empty once the groups end', () => spaces().length === 0);
});
