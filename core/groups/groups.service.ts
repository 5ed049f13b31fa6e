/**
 * Breakout groups (issue 31, ADR 116): the teacher splits the students into groups, each a space
 * of its own inside the room (its whiteboard page, its chat, its voice and video), visits them,
 * names leaders, broadcasts, answers help, and brings everyone back.
 *
 * Everything lives in the database per class (groups.repository.ts). A change is one locked
 * transaction that first settles what the stored times say is due (a time limit or a return
 * countdown that passed ends the groups, exactly once by a conditional update), then applies the
 * request, then reads the whole state; after the commit every process hears that the groups
 * changed (the room-change relay: caches drop, each web node schedules its nudge for the next
 * deadline) and the room hears the whole state as one `groups` event. A refused request throws
 * inside the transaction: nothing is written and nobody is told.
 *
 * The chat, the board and the media tokens read the groups through `view` (cached per room until
 * the next change is heard, at most a second), where a passed deadline already counts as ended.
 */
import { randomInt, randomUUID } from 'node:crypto';
import { BOARD_HEIGHT, BOARD_LAST_PAGE, BOARD_WIDTH } from '../contracts/board.ts';
import type { GroupsEvent, GroupsOutcome, GroupsStart, GroupsState } from '../contracts/groups.ts';
import type { Role } from '../contracts/room-events.ts';
import { readRoomExtend } from '../contracts/room-extend.ts';
import type { BoardGroupFacts } from '../board/permissions.ts';
import type { Clock } from '../platform/clock.ts';
import type { Config } from '../platform/config.ts';
import { DomainError, illegalParams, notAllowed, roomNotFound } from '../platform/errors.ts';
import { roomMessage, type EventBus } from '../platform/events.ts';
import type { Logger } from '../platform/logger.ts';
import type { ObjectStore } from '../platform/objects.ts';
import { ROOM_NUMBER_RULE } from '../rooms/room.schema.ts';
import { RoomCache, type RoomChanges } from '../rooms/room-state.ts';
import type { GroupRow, GroupsRepository, GroupsTx, PlaceRow, SessionRow } from './groups.repository.ts';

export interface GroupsActor {
  room: string;
  uid: string;
  role: Role;
}

interface Presence {
  online(roomNumber: string): Promise<Array<{ userId: string }>>;
}
interface After {
  after(ms: number, task: () => Promise<void>): void;
}

/** What the groups need of the board (core/board/board.service.ts), as the teacher. */
export interface GroupsBoardPort {
  usedWhiteboardPages(roomNumber: string): Promise<number[]>;
  storeImage(actor: GroupsActor, bytes: Uint8Array): Promise<{ key: string }>;
  submit(
    actor: GroupsActor,
    op: {
      opId: string;
      type: 'create';
      id: string;
      btype: 'uploadImg';
      data: { kind: 'image'; src: string; x: number; y: number; w: number; h: number };
      page: string;
    },
  ): Promise<{ seq: number }>;
}

/** Who hears that the groups changed (RoomState's relay: every process). */
export interface GroupsChanges extends RoomChanges {
  groupsChanged(roomNumber: string): void;
}

export interface GroupsDeps {
  repo: GroupsRepository;
  bus: EventBus;
  presence: Presence;
  scheduler: After;
  clock: Clock;
  config: Pick<Config, 'GROUP_MAX_MEMBERS'>;
  changes: GroupsChanges;
  board: GroupsBoardPort;
  objects: ObjectStore;
  logger: Logger;
}

type Room = NonNullable<Awaited<ReturnType<GroupsRepository['room']>>>;

interface Change {
  outcome: GroupsOutcome;
  userIds: string[];
}

/** The groups of a room as the hot paths read them. */
export interface GroupsView {
  creator: string;
  status: SessionRow['status'];
  round: number;
  teacherIn: number;
  /** The first stored deadline (ms; 0: none): from then on the groups count as ended. */
  dueAt: number;
  groups: Array<{ no: number; page: number; leader: string | null; members: string[] }>;
  place: Map<string, number>;
}

const isStudent = (role: Role) => role === 'member' || role === 'tourist';

/** When the stored times end the groups (ms epoch), 0 when nothing is due ever. */
function dueOf(s: Pick<SessionRow, 'status' | 'ends_at' | 'closing_at'>): number {
  if (s.status === 'off') return 0;
  const times = [s.ends_at, s.status === 'closing' ? s.closing_at : null].filter((d): d is Date => !!d).map((d) => d.getTime());
  return times.length ? Math.min(...times) : 0;
}

function lastBoardsOf(groups: GroupRow[]) {
  return groups.map((g) => ({ no: g.no, name: g.name, page: g.page }));
}

function stateOf(room: Room, s: SessionRow, groups: GroupRow[], places: PlaceRow[], now: number): GroupsState {
  const bg = s.background as { documentId?: unknown; slide?: unknown } | null;
  const last = Array.isArray(s.last_boards) ? (s.last_boards as GroupsState['lastBoards']) : [];
  return {
    status: s.status,
    round: s.round,
    groups: groups.map((g) => ({
      no: g.no,
      name: g.name,
      leader: g.leader,
      page: g.page,
      members: places.filter((p) => p.group_no === g.no).map((p) => p.user_id),
      helpAt: g.help_at?.getTime() ?? 0,
    })),
    teacherIn: s.status === 'off' ? 0 : s.teacher_in,
    teacher: room.create_user,
    allowChoose: s.status !== 'off' && s.allow_choose,
    lateJoiners: s.late_joiners,
    startedAt: s.started_at?.getTime() ?? 0,
    endsAt: s.status !== 'off' ? (s.ends_at?.getTime() ?? 0) : 0,
    closingAt: s.status === 'closing' ? (s.closing_at?.getTime() ?? 0) : 0,
    background:
      bg && typeof bg.documentId === 'string' && typeof bg.slide === 'number' ? { documentId: bg.documentId, slide: bg.slide } : null,
    lastBoards: last.map((b) => ({ no: b.no, name: b.name, page: b.page })),
    serverTime: now,
  };
}

/** A slide of `size` fitted into the board's page, centred. */
function fitted(size: { width: number; height: number } | undefined) {
  if (!size || size.width <= 0 || size.height <= 0) return { x: 0, y: 0, w: BOARD_WIDTH, h: BOARD_HEIGHT };
  const k = Math.min(BOARD_WIDTH / size.width, BOARD_HEIGHT / size.height);
  const w = Math.round(size.width * k);
  const h = Math.round(size.height * k);
  return { x: Math.round((BOARD_WIDTH - w) / 2), y: Math.round((BOARD_HEIGHT - h) / 2), w, h };
}

function slideSize(pageSizes: string, slide: number): { width: number; height: number } | undefined {
  try {
    const v = JSON.parse(pageSizes) as unknown;
    const p = Array.isArray(v) ? (v[slide - 1] as unknown) : undefined;
    return Array.isArray(p) ? { width: Number(p[0]) || 0, height: Number(p[1]) || 0 } : undefined;
  } catch {
    return undefined;
  }
}

async function readAll(stream: NodeJS.ReadableStream): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(typeof c === 'string' ? Buffer.from(c) : c);
  return new Uint8Array(Buffer.concat(chunks));
}

export class GroupsService {
  readonly #d: GroupsDeps;
  readonly #views: RoomCache<GroupsView | null>;
  /** Nudges this process has set, by room and deadline. */
  readonly #nudges = new Set<string>();

  constructor(d: GroupsDeps) {
    this.#d = d;
    this.#views = new RoomCache(d.changes, 1000, 10_000, () => d.clock.now().getTime());
  }

  close(): void {
    this.#views.close();
  }

  // --- rooms and roles ---

  async #open(roomNumber: string): Promise<Room> {
    if (!ROOM_NUMBER_RULE.test(roomNumber)) throw roomNotFound();
    const room = await this.#d.repo.room(roomNumber);
    if (!room) throw roomNotFound();
    if (room.state !== 'open') throw new DomainError('31009');
    return room;
  }

  #requireTeacher(actor: GroupsActor, room: Room): void {
    if (actor.role !== 'creator' || actor.uid !== room.create_user) throw notAllowed('groups: the teacher only');
  }

  #requireStudent(actor: GroupsActor, room: Room): void {
    if (!isStudent(actor.role) || actor.uid === room.create_user) throw notAllowed('groups: students only');
  }

  // --- the state and its changes ---

  async #read(room: Room, tx: GroupsTx, now: number): Promise<GroupsState> {
    const [s, groups, places] = await Promise.all([tx.session(), tx.groups(), tx.places()]);
    return stateOf(room, s, groups, places, now);
  }

  /** Ends the groups if the stored times say so. */
  async #settle(tx: GroupsTx, now: number): Promise<Change | null> {
    const s = await tx.session();
    const due = dueOf(s);
    if (!due || due > now) return null;
    return (await tx.endRound(s.round, lastBoardsOf(await tx.groups()))) ? { outcome: 'ended', userIds: [] } : null;
  }

  /**
   * One locked step: settle what is due, run `step` (it throws to refuse: nothing written, nobody
   * told), read the state; after the commit tell every process and the room.
   */
  async #change(room: Room, step: ((tx: GroupsTx, now: number, s: SessionRow) => Promise<Change | null>) | null): Promise<GroupsState> {
    const { state, changes } = await this.#d.repo.locked(room.id, async (tx) => {
      const now = this.#d.clock.now().getTime();
      const changes: Change[] = [];
      const ended = await this.#settle(tx, now);
      if (ended) changes.push(ended);
      const made = step ? await step(tx, now, await tx.session()) : null;
      if (made) changes.push(made);
      return { state: await this.#read(room, tx, now), changes };
    });
    if (changes.length) {
      this.#d.changes.groupsChanged(room.room_number);
      for (const c of changes) {
        const event: GroupsEvent = { ...state, ...c };
        this.#d.bus.publish(roomMessage(room.room_number, 'groups', event));
      }
    }
    return state;
  }

  /** The groups now: read without the lock unless a deadline is due, which is then settled. */
  async #current(room: Room): Promise<GroupsState> {
    const now = this.#d.clock.now().getTime();
    const plain = this.#d.repo.unlocked(room.id);
    const due = dueOf(await plain.session());
    if (due && due <= now) return this.#change(room, null);
    // A deadline read here (a join, a state request) gets this node's nudge too: after a rolling
    // restart no live node may have heard the change that set it.
    if (due && !this.#nudges.has(`${room.room_number}:${due}`)) void this.#schedule(room.room_number);
    return this.#read(room, plain, now);
  }

  // --- the view of the hot paths (chat, board, media) ---

  /** The groups of the room as the hot paths see them; null when there is no such room. */
  view(roomNumber: string): Promise<GroupsView | null> {
    if (!ROOM_NUMBER_RULE.test(roomNumber)) return Promise.resolve(null);
    return this.#views.get(roomNumber, async () => {
      const room = await this.#d.repo.room(roomNumber);
      if (!room || room.state !== 'open') return null;
      const plain = this.#d.repo.unlocked(room.id);
      const [s, groups, places] = await Promise.all([plain.session(), plain.groups(), plain.places()]);
      return {
        creator: room.create_user,
        status: s.status,
        round: s.round,
        teacherIn: s.teacher_in,
        dueAt: dueOf(s),
        groups: groups.map((g) => ({
          no: g.no,
          page: g.page,
          leader: g.leader,
          members: places.filter((p) => p.group_no === g.no).map((p) => p.user_id),
        })),
        place: new Map(places.map((p) => [p.user_id, p.group_no])),
      };
    });
  }

  /** The groups run now (not off, no deadline passed). */
  #running(v: GroupsView | null): v is GroupsView {
    if (!v || v.status === 'off') return false;
    return !v.dueAt || v.dueAt > this.#d.clock.now().getTime();
  }

  /** Where a person is now: their group, or 0 (the main room). */
  async placeNow(roomNumber: string, uid: string): Promise<number> {
    const v = await this.view(roomNumber);
    if (!this.#running(v)) return 0;
    return uid === v.creator ? v.teacherIn : (v.place.get(uid) ?? 0);
  }

  /** The board's rules for this person (core/board/permissions.ts): null when no groups run. */
  async boardFacts(roomNumber: string, uid: string): Promise<BoardGroupFacts | null> {
    const v = await this.view(roomNumber);
    if (!this.#running(v)) return null;
    const g = v.groups.find((x) => x.no === (v.place.get(uid) ?? 0));
    return { page: g?.page ?? null, leader: !!g && g.leader === uid, groupPages: v.groups.map((x) => x.page) };
  }

  /** Where a chat line of this person goes: their group's seats (and the teacher), or null for the main room. */
  async chatRoute(roomNumber: string, uid: string): Promise<{ group: number; round: number; seats: string[] } | null> {
    const v = await this.view(roomNumber);
    if (!this.#running(v)) return null;
    const place = uid === v.creator ? v.teacherIn : (v.place.get(uid) ?? 0);
    const g = v.groups.find((x) => x.no === place);
    if (!g) return null;
    return { group: g.no, round: v.round, seats: [...new Set([...g.members, v.creator])] };
  }

  /** Which group lines this person's join snapshot holds besides the main room's: their group's of the running round (the teacher: every group's). */
  async chatSeen(roomNumber: string, uid: string): Promise<{ round: number; groups: number[] }> {
    const v = await this.view(roomNumber);
    if (!this.#running(v)) return { round: 0, groups: [] };
    if (uid === v.creator) return { round: v.round, groups: v.groups.map((g) => g.no) };
    const place = v.place.get(uid) ?? 0;
    return { round: v.round, groups: place > 0 ? [place] : [] };
  }

  // --- the nudges ---

  /**
   * Hears every change of groups, from this process or another, and sets a nudge for the next
   * deadline (one per room and time in this process). The nudge only settles what is due: any
   * request does the same, so a process that dies with its timers loses nothing.
   */
  watch(): () => void {
    return this.#d.changes.onChange((c) => {
      if (c.fields.includes('groups')) void this.#schedule(c.roomNumber);
    });
  }

  async #schedule(roomNumber: string): Promise<void> {
    try {
      const room = await this.#d.repo.room(roomNumber);
      if (!room || room.state !== 'open') return;
      const due = dueOf(await this.#d.repo.unlocked(room.id).session());
      if (!due) return;
      const key = `${roomNumber}:${due}`;
      if (this.#nudges.has(key)) return;
      this.#nudges.add(key);
      const wait = Math.max(0, due - this.#d.clock.now().getTime());
      this.#d.scheduler.after(wait + 20, async () => {
        this.#nudges.delete(key);
        try {
          const fresh = await this.#d.repo.room(roomNumber);
          if (!fresh || fresh.state !== 'open') return;
          await this.#current(fresh);
          // Not due yet by this process's clock: look again then.
          if (dueOf(await this.#d.repo.unlocked(fresh.id).session()) === due) await this.#schedule(roomNumber);
        } catch (err) {
          this.#d.logger.debug({ err, room: roomNumber }, 'groups nudge failed (the next read settles)');
        }
      });
    } catch (err) {
      this.#d.logger.debug({ err, room: roomNumber }, 'groups nudge not set (the next read settles)');
    }
  }

  // --- the requests ---

  /** Anyone in the room: the groups now. */
  async state(actor: GroupsActor): Promise<GroupsState> {
    return this.#current(await this.#open(actor.room));
  }

  /** The join snapshot's part. */
  async snapshot(actor: GroupsActor): Promise<{ groups: GroupsState }> {
    return { groups: await this.#current(await this.#open(actor.room)) };
  }

  /**
   * A student joins (or comes back) while groups run: a stored place is kept (a reconnect lands in
   * its group); someone new to the round is placed by `lateJoiners`: 'auto' into the smallest
   * group with room (the lowest number on a tie), 'teacher' in the main room.
   */
  async arrive(actor: GroupsActor): Promise<void> {
    if (!isStudent(actor.role)) return;
    const room = await this.#open(actor.room);
    if (actor.uid === room.create_user) return;
    const plain = this.#d.repo.unlocked(room.id);
    const s = await plain.session();
    if (s.status !== 'running') return;
    if ((await plain.places()).some((p) => p.user_id === actor.uid)) return;
    await this.#change(room, async (tx, _now, s) => {
      if (s.status !== 'running') return null;
      const places = await tx.places();
      if (places.some((p) => p.user_id === actor.uid)) return null;
      if (s.late_joiners === 'teacher') {
        await tx.place(actor.uid, 0);
        return null;
      }
      const sizes = (await tx.groups()).map((g) => ({ no: g.no, n: places.filter((p) => p.group_no === g.no).length }));
      const open = sizes.filter((g) => g.n < this.#d.config.GROUP_MAX_MEMBERS).sort((a, b) => a.n - b.n || a.no - b.no);
      const target = open[0]?.no ?? 0;
      await tx.place(actor.uid, target);
      return target ? { outcome: 'placed', userIds: [actor.uid] } : null;
    });
  }

  /** A kicked student leaves their group (and its leadership). */
  async release(roomNumber: string, uid: string): Promise<void> {
    const room = await this.#d.repo.room(roomNumber);
    if (!room || room.state !== 'open') return;
    await this.#change(room, async (tx) => {
      const was = await tx.unplace(uid);
      if (!was) return null;
      await this.#dropLeader(tx, was, uid);
      return { outcome: 'moved', userIds: [uid] };
    });
  }

  async #dropLeader(tx: GroupsTx, groupNo: number, uid: string): Promise<void> {
    const g = (await tx.groups()).find((x) => x.no === groupNo);
    if (g?.leader === uid) await tx.setGroup(groupNo, { leader: null });
  }

  /** Groups run now (else 31041); answers the groups. */
  async #running31041(tx: GroupsTx, s: SessionRow): Promise<GroupRow[]> {
    if (s.status === 'off') throw new DomainError('31041');
    return tx.groups();
  }

  /** The teacher starts the groups. */
  async start(actor: GroupsActor, p: GroupsStart): Promise<GroupsState> {
    const room = await this.#open(actor.room);
    this.#requireTeacher(actor, room);
    const cap = this.#d.config.GROUP_MAX_MEMBERS;
    const given = p.groups;
    if (p.method === 'manual' && !given) throw illegalParams('manual groups need their lists');
    if (given && given.length !== p.count) throw illegalParams('one list per group');
    if (p.method !== 'manual' && given?.some((g) => g.userIds.length > 0 || (g.leader ?? null) !== null))
      throw illegalParams('lists and leaders are for manual groups');
    // Refused early when groups run already (checked again under the lock).
    const before = await this.#d.repo.unlocked(room.id).session();
    if (before.status !== 'off' && !(dueOf(before) && dueOf(before) <= this.#d.clock.now().getTime())) throw new DomainError('31040');

    const [students, online, used] = await Promise.all([
      this.#d.repo.students(room.id, room.create_user),
      this.#d.presence.online(room.room_number),
      this.#d.board.usedWhiteboardPages(room.room_number),
    ]);
    const here = new Set(online.map((o) => o.userId));
    const present = students.filter((s) => !s.left_at && here.has(s.user_id)).map((s) => s.user_id);
    const known = new Set(students.map((s) => s.user_id));

    // Pages after the highest one with anything on it and the page everyone is on (never page 0).
    const first = Math.max(0, readRoomExtend(room.room_extend).pageIndex, ...used) + 1;
    const pages = Array.from({ length: p.count }, (_, i) => first + i);
    if (pages.at(-1)! > BOARD_LAST_PAGE) throw new DomainError('31042');

    const lists: string[][] = Array.from({ length: p.count }, () => []);
    if (p.method === 'manual') {
      const seen = new Set<string>();
      given!.forEach((g, i) => {
        for (const u of g.userIds) {
          if (!known.has(u) || seen.has(u)) throw illegalParams('not a student of the room, or twice');
          seen.add(u);
          lists[i]!.push(u);
        }
        if (g.leader && !g.userIds.includes(g.leader)) throw illegalParams('a leader is a member of the group');
        if (g.userIds.length > cap) throw new DomainError('31043');
      });
    } else if (p.method === 'random' || p.method === 'even') {
      const pool = [...present];
      if (p.method === 'random')
        for (let i = pool.length - 1; i > 0; i--) {
          const j = randomInt(i + 1);
          [pool[i], pool[j]] = [pool[j]!, pool[i]!];
        }
      pool.forEach((u, i) => {
        if (i < p.count * cap) lists[i % p.count]!.push(u);
      });
    }
    const dealt = new Set(lists.flat());
    const places: PlaceRow[] = [
      ...lists.flatMap((l, i) => l.map((u) => ({ user_id: u, group_no: i + 1 }))),
      ...present.filter((u) => !dealt.has(u)).map((u) => ({ user_id: u, group_no: 0 })),
    ];
    const background =
      p.board === 'courseware' && room.show_state === 'ppt' && room.document_id
        ? { documentId: room.document_id, slide: Math.max(1, room.ppt_current_page) }
        : null;

    const state = await this.#change(room, async (tx, now, s) => {
      if (s.status !== 'off') throw new DomainError('31040');
      await tx.putGroups(
        pages.map((page, i) => ({
          no: i + 1,
          name: given?.[i]?.name ?? String(i + 1),
          leader: given?.[i]?.leader ?? null,
          page,
          help_at: null,
        })),
      );
      await tx.placeAll(places);
      await tx.setSession({
        status: 'running',
        round: s.round + 1,
        teacher_in: 0,
        allow_choose: p.method === 'choose' || p.allowChoose,
        late_joiners: p.lateJoiners,
        started_at: new Date(now),
        ends_at: p.minutes > 0 ? new Date(now + p.minutes * 60_000) : null,
        closing_at: null,
        background,
      });
      return { outcome: 'started', userIds: [...dealt] };
    });
    if (background) await this.#placeBackground(room, background, pages);
    return state;
  }

  /** Each group's page starts with the slide the room showed, as an image under the drawing (written as the teacher). */
  async #placeBackground(room: Room, bg: { documentId: string; slide: number }, pages: number[]): Promise<void> {
    try {
      const doc = await this.#d.repo.document(bg.documentId);
      if (!doc || bg.slide > doc.page_count) return;
      const got = await this.#d.objects.get(`${doc.pages_prefix}/pages/${bg.slide}.jpg`);
      if (!got) return;
      const teacher: GroupsActor = { room: room.room_number, uid: room.create_user, role: 'creator' };
      const { key } = await this.#d.board.storeImage(teacher, await readAll(got.stream));
      const box = fitted(slideSize(doc.page_sizes, bg.slide));
      for (const page of pages) {
        await this.#d.board.submit(teacher, {
          opId: `groups-bg-${randomUUID()}`,
          type: 'create',
          id: `groups-bg-${randomUUID()}`,
          btype: 'uploadImg',
          data: { kind: 'image', src: key, ...box },
          page: `wb:${page}`,
        });
      }
    } catch (err) {
      this.#d.logger.warn({ err, room: room.room_number }, 'groups: the courseware background was not placed');
    }
  }

  /** The teacher moves a student to a group or to the main room (0). */
  async move(actor: GroupsActor, p: { userId: string; group: number }): Promise<GroupsState> {
    const room = await this.#open(actor.room);
    this.#requireTeacher(actor, room);
    const students = await this.#d.repo.students(room.id, room.create_user);
    if (!students.some((s) => s.user_id === p.userId)) throw illegalParams('not a student of the room');
    return this.#change(room, async (tx, _now, s) => {
      const groups = await this.#running31041(tx, s);
      return this.#put(tx, groups, p.userId, p.group, 'moved');
    });
  }

  /** Puts `uid` in `group` (0: main) within the cap; a leader moved out stops leading. */
  async #put(tx: GroupsTx, groups: GroupRow[], uid: string, group: number, outcome: GroupsOutcome): Promise<Change | null> {
    if (group > groups.length) throw illegalParams('no such group');
    const places = await tx.places();
    const was = places.find((x) => x.user_id === uid)?.group_no ?? 0;
    if (was === group && places.some((x) => x.user_id === uid)) return null;
    if (group > 0 && places.filter((x) => x.group_no === group).length >= this.#d.config.GROUP_MAX_MEMBERS) throw new DomainError('31043');
    await tx.place(uid, group);
    if (was > 0) await this.#dropLeader(tx, was, uid);
    return { outcome, userIds: [uid] };
  }

  /** A student picks their group while the teacher allows it. */
  async choose(actor: GroupsActor, p: { group: number }): Promise<GroupsState> {
    const room = await this.#open(actor.room);
    this.#requireStudent(actor, room);
    return this.#change(room, async (tx, _now, s) => {
      const groups = await this.#running31041(tx, s);
      if (!s.allow_choose) throw new DomainError('31044');
      return this.#put(tx, groups, actor.uid, p.group, 'chose');
    });
  }

  /** The teacher goes into a group (its help request is answered) or back to the main room. */
  async visit(actor: GroupsActor, p: { group: number }): Promise<GroupsState> {
    const room = await this.#open(actor.room);
    this.#requireTeacher(actor, room);
    return this.#change(room, async (tx, _now, s) => {
      const groups = await this.#running31041(tx, s);
      if (p.group > groups.length) throw illegalParams('no such group');
      const helped = p.group > 0 && !!groups.find((g) => g.no === p.group)?.help_at;
      if (s.teacher_in === p.group && !helped) return null;
      await tx.setSession({ teacher_in: p.group });
      if (helped) await tx.setGroup(p.group, { help_at: null });
      return { outcome: p.group > 0 ? 'joined' : 'left', userIds: [actor.uid] };
    });
  }

  /** The teacher names a group's leader (one of its members) or none. */
  async leader(actor: GroupsActor, p: { group: number; userId: string | null }): Promise<GroupsState> {
    const room = await this.#open(actor.room);
    this.#requireTeacher(actor, room);
    return this.#change(room, async (tx, _now, s) => {
      const groups = await this.#running31041(tx, s);
      const g = groups.find((x) => x.no === p.group);
      if (!g) throw illegalParams('no such group');
      if (p.userId && !(await tx.places()).some((x) => x.user_id === p.userId && x.group_no === p.group))
        throw illegalParams('a leader is a member of the group');
      if (g.leader === p.userId) return null;
      await tx.setGroup(p.group, { leader: p.userId });
      return { outcome: 'leader', userIds: p.userId ? [p.userId] : [] };
    });
  }

  /** The teacher's message to every group. */
  async broadcast(actor: GroupsActor, p: { text: string }): Promise<{ at: number }> {
    const room = await this.#open(actor.room);
    this.#requireTeacher(actor, room);
    await this.#change(room, async (tx, _now, s) => {
      await this.#running31041(tx, s);
      return null;
    });
    const at = this.#d.clock.now().getTime();
    this.#d.bus.publish(roomMessage(room.room_number, 'groupsBroadcast', { text: p.text, at, by: actor.uid }));
    return { at };
  }

  /** A student in a group asks the teacher for help (again: still asking), or takes it back. */
  async help(actor: GroupsActor, p: { cancel?: boolean }): Promise<GroupsState> {
    const room = await this.#open(actor.room);
    this.#requireStudent(actor, room);
    return this.#change(room, async (tx, now, s) => {
      const groups = await this.#running31041(tx, s);
      const place = (await tx.places()).find((x) => x.user_id === actor.uid)?.group_no ?? 0;
      const g = groups.find((x) => x.no === place);
      if (!g) throw notAllowed('groups: help is asked from a group');
      if (p.cancel) {
        if (!g.help_at) return null;
        await tx.setGroup(g.no, { help_at: null });
      } else {
        if (g.help_at) return null;
        await tx.setGroup(g.no, { help_at: new Date(now) });
      }
      return { outcome: 'help', userIds: [actor.uid] };
    });
  }

  /** The teacher ends the groups: now, or after a countdown (again with 0: now). */
  async end(actor: GroupsActor, p: { afterSeconds: number }): Promise<GroupsState> {
    const room = await this.#open(actor.room);
    this.#requireTeacher(actor, room);
    return this.#change(room, async (tx, now, s) => {
      const groups = await this.#running31041(tx, s);
      if (p.afterSeconds === 0) {
        return (await tx.endRound(s.round, lastBoardsOf(groups))) ? { outcome: 'ended', userIds: [] } : null;
      }
      await tx.setSession({ status: 'closing', closing_at: new Date(now + p.afterSeconds * 1000) });
      return { outcome: 'closing', userIds: [] };
    });
  }
}
