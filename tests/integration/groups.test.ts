/**
 * Breakout groups held by the server (issue 31, ADR 116), over real room-channel sockets on both
 * database engines.
 */
import { afterEach, expect, it } from 'vitest';
import { eachEngine } from '#tests/support/engines-matrix.ts';
import { ask, waitFor, type RoomSocket } from '#tests/support/room-client.ts';
import { CLASS_TOOLS_ENV, joinAs, seedClass, type Joined, type Person } from '#tests/support/class-tools.ts';
import type { TestServer } from '#tests/support/server.ts';

const sockets: RoomSocket[] = [];
afterEach(() => {
  for (const s of sockets.splice(0)) s.close();
});

async function join(server: TestServer, p: Person): Promise<Joined> {
  const j = await joinAs(server.url, p);
  sockets.push(j.socket);
  return j;
}

const START = { count: 2, method: 'even', minutes: 0, allowChoose: false, lateJoiners: 'auto', board: 'blank' } as const;

eachEngine(
  'breakout groups',
  (server) => {
    it('start, move, end: the whole state in every answer and event', async () => {
      const srv = server();
      const c = await seedClass(srv.banshu.platform.services, { students: 4 });
      const t = await join(srv, c.teacher);
      const s = [];
      for (const p of c.students) s.push(await join(srv, p));
      expect(t.snapshot.groups).toMatchObject({ status: 'off', round: 0, groups: [], teacher: c.teacher.userId });
      const heard = waitFor(s[0]!.socket, 'groups', (e) => e.outcome === 'started');
      const started = await ask(t.socket, 'groupsStart', START);
      expect(started.code).toBe('0');
      const ids = c.students.map((p) => p.userId);
      expect(started.data.groups.map((g) => g.members)).toEqual([
        [ids[0], ids[2]],
        [ids[1], ids[3]],
      ]);
      expect((await heard).round).toBe(1);
      const moved = await ask(t.socket, 'groupsMove', { userId: ids[0]!, group: 2 });
      expect(moved.data.groups[1]!.members).toEqual([ids[1], ids[3], ids[0]]);
      const ended = waitFor(s[1]!.socket, 'groups', (e) => e.outcome === 'ended');
      expect((await ask(t.socket, 'groupsEnd', { afterSeconds: 0 })).code).toBe('0');
      const e = await ended;
      expect(e).toMatchObject({ status: 'off', groups: [], teacherIn: 0 });
      expect(e.lastBoards.map((b) => b.no)).toEqual([1, 2]);
      expect((await ask(s[2]!.socket, 'groupsState')).data.status).toBe('off');
    });
  },
  { env: CLASS_TOOLS_ENV },
);
