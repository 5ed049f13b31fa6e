/** Cloud-recording helpers for integration tests: a class whose teacher may record, and the rows to look at. */
import type { BusMessage } from '#core/platform/events.ts';
import { call, signIn } from './api.ts';
import type { TestServer } from './server.ts';

export interface Person {
  token: string;
  userId: string;
}

/** A teacher with a monthly membership (ADR 072: a paid entitlement may record) and a whiteboard class. */
export async function recordingClass(
  server: TestServer,
  students = 1,
): Promise<{ roomNumber: string; teacher: Person; students: Person[] }> {
  const teacher = await signIn(server);
  await grantMembership(server, teacher.userId, 30 * 86_400_000);
  const created = await call(server.url, 'createRoom', { roomType: 2 }, { token: teacher.token });
  if (created.code !== '0') throw new Error(`createRoom: ${created.code}`);
  const roomNumber = created.data.roomInfo.roomNumber;
  const people: Person[] = [];
  for (let i = 0; i < students; i++) {
    const s = await signIn(server);
    const joined = await call(server.url, 'userJoinAgoraRoom', { roomNumber }, { token: s.token });
    if (joined.code !== '0') throw new Error(`join: ${joined.code}`);
    people.push(s);
  }
  return { roomNumber, teacher, students: people };
}

/** The monthly membership for `ms` from the server's now. */
export async function grantMembership(server: TestServer, userId: string, ms: number): Promise<void> {
  await server.banshu.platform.services.billingRepo.grant(userId, { vip_room_time: new Date(server.clock.now().getTime() + ms) });
}

export async function taskRow(server: TestServer, taskId: string) {
  return server.banshu.platform.database.db.selectFrom('record_tasks').selectAll().where('id', '=', taskId).executeTakeFirstOrThrow();
}

export async function count(server: TestServer, table: 'record_tasks' | 'records' | 'record_segments'): Promise<number> {
  const r = await server.banshu.platform.database.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/** The room's recordState as the rooms row holds it. */
export async function roomRecordState(server: TestServer, roomNumber: string): Promise<string> {
  const r = await server.banshu.platform.database.db
    .selectFrom('rooms')
    .select('record_state')
    .where('room_number', '=', roomNumber)
    .orderBy('created_at', 'desc')
    .executeTakeFirstOrThrow();
  return r.record_state;
}

/** Every bus message published from now on (the real in-process bus the channels listen to). */
export function busLog(server: TestServer): BusMessage[] {
  const seen: BusMessage[] = [];
  server.banshu.platform.events.subscribe((m) => seen.push(m));
  return seen;
}
