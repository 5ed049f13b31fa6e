/**
 * A class for the class tools' tests and bench (ADR 113): a teacher's whiteboard room seeded
 * through the services (fast enough for hundreds of students), joined over real room-channel
 * sockets. Students are tourists (role 'tourist', each with their own address so the join limit
 * does not bite); an observer joins by the creator's link, the recorder with its own tokens.
 */
import { OBSERVER_TOKEN_PARAM } from '#core/contracts/api.ts';
import type { Services } from '#core/services.ts';
import type { RoomSnapshot } from '#core/contracts/room-events.ts';
import { ask, connectRoom, type RoomSocket } from './room-client.ts';

export interface Person {
  userId: string;
  name: string;
  imToken: string;
}

export interface SeededClass {
  roomNumber: string;
  teacher: Person;
  students: Person[];
  observer: Person | null;
  recorder: Person | null;
}

let seq = 0;

/** Settings a test server needs for classes this size (see seedClass). */
export const CLASS_TOOLS_ENV: Record<string, string> = {
  WHITEBOARD_CAP: '1000',
  TOURIST_JOINS_PER_MINUTE: '100000',
  SMS_HOURLY_PER_ADDRESS: '100000',
};

export async function seedClass(services: Services, o: { students: number; observer?: boolean; recorder?: boolean }): Promise<SeededClass> {
  seq += 1;
  const { account, rooms } = services;
  const outbox = services.devOutbox;
  if (!outbox) throw new Error('seedClass needs console SMS (the dev outbox)');
  const mobile = `137${String(process.pid % 10_000).padStart(4, '0')}${String(seq).padStart(4, '0')}`;
  const ip = `127.3.${String(seq >> 8)}.${String(seq & 255)}`;
  await account.sendPhoneCode({ mobile, area: '86', ip });
  const code = outbox.list().find((e) => e.mobile === mobile)?.code;
  if (!code) throw new Error(`no code for ${mobile}`);
  const { user } = await account.login({ mobile, code, ip });
  const viewer = { userId: user.id, name: user.name, mobile, type: '1' as const };
  const info = await rooms.createRoom(viewer, { roomType: 2, consumption: 'off' });
  const roomNumber = info.roomNumber;
  const created = await rooms.join(viewer, { roomNumber });
  const teacher = { userId: user.id, name: user.name, imToken: created.imToken };
  const students: Person[] = [];
  for (let k = 0; k < o.students; k++) {
    const name = `s${String(k + 1)}`;
    const joined = await rooms.touristJoin({ roomNumber, userName: name, ip: `127.4.${String(k >> 8)}.${String(k & 255)}` });
    students.push({ userId: joined.userIdForNumber, name, imToken: joined.imToken });
  }
  let observer: Person | null = null;
  if (o.observer) {
    const link = await rooms.createObserverLink(viewer, roomNumber);
    const ot = new URL(link.url, 'http://localhost').searchParams.get(OBSERVER_TOKEN_PARAM) ?? '';
    const { answer } = await rooms.observerJoin(null, { roomNumber, ot, ip: '127.5.0.1' });
    observer = { userId: answer.userIdForNumber, name: 'observer', imToken: answer.imToken };
  }
  let recorder: Person | null = null;
  if (o.recorder) {
    const t = rooms.recorderTokens(roomNumber);
    recorder = { userId: rooms.verifyRoomToken(t.room, 'room')!.uid, name: 'recorder', imToken: t.room };
  }
  return { roomNumber, teacher, students, observer, recorder };
}

export interface Joined {
  socket: RoomSocket;
  snapshot: RoomSnapshot;
}

/** Connects and joins one person; throws unless the join answers '0'. */
export async function joinAs(url: string, p: Person): Promise<Joined> {
  const socket = await connectRoom(url, p.imToken);
  const joined = await ask(socket, 'joinRoom', {}, 20_000);
  if (joined.code !== '0') {
    socket.close();
    throw new Error(`join of ${p.name} answered ${joined.code}`);
  }
  return { socket, snapshot: joined.data };
}

/** Joins everyone, `width` at a time, in order; each socket also goes into `sockets` (the test closes them). */
export async function joinAll(url: string, people: Person[], sockets: RoomSocket[], width = 20): Promise<Joined[]> {
  const out: Joined[] = new Array(people.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < people.length) {
        const i = next++;
        out[i] = await joinAs(url, people[i]!);
        sockets.push(out[i].socket);
      }
    }),
  );
  return out;
}
