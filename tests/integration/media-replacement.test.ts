/**
 * A media node that dies mid-class (ADR 097): two media processes (`ROLE=media`, separate Node
 * processes on one PostgreSQL) and a web role in the test. The room's node is SIGKILLed; the
 * people's next fresh grant names the node they lost, the web role finds nothing listening there
 * and places the room on the other node at once (not after three missed reports: the report
 * period here is 5 s, so the registry alone would keep the dead node for 15 s), and media flows
 * again there. A claim about a node that still answers, or about another URL, moves nothing; a
 * node that only stalls keeps its rooms while it still reports.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MediaNodeRepository } from '#core/rooms/media-node.repository.ts';
import { MediaRegistry } from '#core/rooms/media-registry.ts';
import { call, signIn } from '#tests/support/api.ts';
import { postgresAdminUrl } from '#tests/support/database.ts';
import { MediaTestPeer } from '#tests/support/media-client.ts';
import { until } from '#tests/support/until.ts';
import { startTestServer, type TestServer } from '#tests/support/server.ts';

const SECRET = 'r'.repeat(48);
const REPORT_SECONDS = 5;
let web: TestServer;
const nodes: Array<{ id: string; child: ChildProcess; dir: string }> = [];
const peers: MediaTestPeer[] = [];

async function startNode(id: string, dbUrl: string, ports: string): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), 'banshu-media-'));
  const [min, max] = ports.split('-');
  const child = spawn(process.execPath, ['server/main.ts'], {
    env: {
      ...process.env,
      NODE_ENV: 'test',
      ROLE: 'media',
      DATABASE_URL: dbUrl,
      SESSION_SECRET: SECRET,
      DATA_DIR: dir,
      LOG_LEVEL: 'silent',
      MEDIA_PORT: '0',
      MEDIA_PLACEMENT: 'registry',
      MEDIA_REPORT_SECONDS: String(REPORT_SECONDS),
      MEDIA_NODE_ID: id,
      MEDIA_RTC_MIN_PORT: min,
      MEDIA_RTC_MAX_PORT: max,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  nodes.push({ id, child, dir });
}

async function nodeRows() {
  return web.banshu.platform.database.db.selectFrom('media_nodes').selectAll().orderBy('id').execute();
}

async function grant(token: string, roomNumber: string, failedMediaUrl?: string) {
  const r = await call(web.url, 'createAgoraToken', { roomNumber, ...(failedMediaUrl ? { failedMediaUrl } : {}) }, { token });
  expect(r.code).toBe('0');
  return r.data;
}

/** Joins with the grant, publishes a microphone and returns the peer and its track. */
async function onNode(g: { mediaUrl: string; mediaToken: string }) {
  const peer = await MediaTestPeer.connect(g.mediaUrl);
  peers.push(peer);
  await peer.ok('join', { token: g.mediaToken });
  return peer;
}

beforeAll(async () => {
  web = await startTestServer({
    engine: 'postgres',
    postgresAdminUrl: postgresAdminUrl(),
    realTime: true,
    env: { ROLE: 'web', SESSION_SECRET: SECRET, MEDIA_PLACEMENT: 'registry', MEDIA_REPORT_SECONDS: String(REPORT_SECONDS) },
  });
  const dbUrl = web.banshu.platform.database.url!;
  await startNode('node-x', dbUrl, '42000-42499');
  await startNode('node-y', dbUrl, '42500-42999');
  const end = Date.now() + 30_000;
  while ((await nodeRows()).length < 2) {
    if (Date.now() > end) throw new Error('the media nodes did not report');
    await new Promise((r) => setTimeout(r, 100));
  }
}, 60_000);

afterAll(async () => {
  for (const p of peers) p.close();
  for (const n of nodes) if (n.child.exitCode === null && n.child.signalCode === null) n.child.kill('SIGTERM');
  await Promise.all(
    nodes.map((n) => new Promise((r) => (n.child.exitCode !== null || n.child.signalCode ? r(null) : n.child.once('exit', r)))),
  );
  for (const n of nodes) await rm(n.dir, { recursive: true, force: true });
  await web?.close();
});

it('places a killed node’s room on the other node at the first fresh grant, and media flows there', async () => {
  const rows = await nodeRows();
  const idOf = new Map(rows.map((r) => [r.url, r.id]));
  const teacher = await signIn(web);
  const student = await signIn(web);
  const roomNumber = (await call(web.url, 'createRoom', { roomType: 2 }, { token: teacher.token })).data.roomInfo.roomNumber;
  const tj = (await call(web.url, 'userJoinAgoraRoom', { roomNumber }, { token: teacher.token })).data as {
    mediaUrl: string;
    mediaToken: string;
  };
  const sj = (await call(web.url, 'userJoinAgoraRoom', { roomNumber }, { token: student.token })).data as {
    mediaUrl: string;
    mediaToken: string;
  };
  expect(sj.mediaUrl).toBe(tj.mediaUrl);
  const first = tj.mediaUrl;
  const dying = nodes.find((n) => n.id === idOf.get(first))!;
  const other = rows.find((r) => r.url !== first)!;

  const tp = await onNode(tj);
  const sp = await onNode(sj);
  const heard = await sp.subscribe((await tp.publish('mic')).trackId);
  await until('audio through the first node', () => heard.packets > 10, 10_000);

  // A client that says it lost a node that answers moves nothing, nor does a claim about another URL.
  expect((await grant(student.token, roomNumber, first)).mediaUrl).toBe(first);
  expect((await grant(student.token, roomNumber, other.url)).mediaUrl).toBe(first);
  expect((await grant(student.token, roomNumber, 'http://127.0.0.1:9')).mediaUrl).toBe(first);
  expect((await nodeRows()).map((r) => r.id).sort()).toEqual(['node-x', 'node-y']);
  // Bad input: not a URL.
  const bad = await call(web.url, 'createAgoraToken', { roomNumber, failedMediaUrl: 'not a url' }, { token: student.token });
  expect(bad.code).not.toBe('0');

  // SIGKILL: no goodbye, its row stays in the registry as if it were alive.
  const killedAt = Date.now();
  dying.child.kill('SIGKILL');
  await new Promise((r) => dying.child.once('exit', r));
  await until('the student sees the node gone', () => !sp.socket.connected, 5000);
  expect((await nodeRows()).some((r) => r.id === dying.id)).toBe(true);

  // Without naming the lost node a grant still points at the dead one (the report window is 15 s).
  expect((await grant(teacher.token, roomNumber)).mediaUrl).toBe(first);
  // The student names it: nothing listens there, the room goes to the other node.
  const sg = await grant(student.token, roomNumber, first);
  const movedMs = Date.now() - killedAt;
  expect(sg.mediaUrl).toBe(other.url);
  expect((await nodeRows()).map((r) => r.id)).toEqual([other.id]);
  // Everyone's next grant is for the new node, with or without a claim.
  const tg = await grant(teacher.token, roomNumber, first);
  expect(tg.mediaUrl).toBe(other.url);
  expect((await grant(teacher.token, roomNumber)).mediaUrl).toBe(other.url);

  const tp2 = await onNode(tg);
  const sp2 = await onNode(sg);
  const heard2 = await sp2.subscribe((await tp2.publish('mic')).trackId);
  const cam = await sp2.publish('mic');
  const seen = await tp2.subscribe(cam.trackId);
  await until('media both ways through the new node', () => heard2.packets > 10 && seen.packets > 10, 10_000);
  const flowingMs = Date.now() - killedAt;
  console.log(`[media-replacement] room placed again ${movedMs} ms after the kill; media both ways ${flowingMs} ms after it`);
  expect(flowingMs).toBeLessThan(10_000);
});

it('gives the recorder, asking again after it lost the node, the node the room is placed on now', async () => {
  // A fresh, idle node gets the next room.
  await startNode('node-z', web.banshu.platform.database.url!, '43000-43499');
  const end = Date.now() + 30_000;
  while (!(await nodeRows()).some((r) => r.id === 'node-z')) {
    if (Date.now() > end) throw new Error('node-z did not report');
    await new Promise((r) => setTimeout(r, 100));
  }
  const teacher = await signIn(web);
  const roomNumber = (await call(web.url, 'createRoom', { roomType: 2 }, { token: teacher.token })).data.roomInfo.roomNumber;
  const joined = (await call(web.url, 'userJoinAgoraRoom', { roomNumber }, { token: teacher.token })).data as { mediaUrl: string };
  const z = (await nodeRows()).find((r) => r.id === 'node-z')!;
  expect(joined.mediaUrl).toBe(z.url);
  const media = web.banshu.platform.services.media!;
  // While node-z answers, the recorder is sent there.
  expect((await media.forRecorder(roomNumber)).mediaUrl).toBe(z.url);
  const zNode = nodes.find((n) => n.id === 'node-z')!;
  zNode.child.kill('SIGKILL');
  await new Promise((r) => zNode.child.once('exit', r));
  // The recorder's session broke; its next start asks for access: the placed node is checked first.
  const again = await media.forRecorder(roomNumber);
  expect(again.mediaUrl).not.toBe(z.url);
  expect((await nodeRows()).map((r) => r.id)).not.toContain('node-z');
});

it('keeps the room on a node that does not answer in time but still reports', async () => {
  const db = web.banshu.platform.database.db;
  const repo = new MediaNodeRepository(db);
  const [node] = await nodeRows();
  const roomNumber = '99887766';
  await db.deleteFrom('media_placements').where('room_number', '=', roomNumber).execute();
  let checks = 0;
  const silent = new MediaRegistry(repo, web.clock, REPORT_SECONDS, async () => {
    checks += 1;
    return 'silent';
  });
  const placed = await silent.place(roomNumber);
  expect(placed.nodeId).toBe(node!.id);
  // Its last report is recent: a stall, not a death.
  expect((await silent.place(roomNumber, placed.url)).nodeId).toBe(node!.id);
  expect(checks).toBe(1);
  expect((await nodeRows()).map((r) => r.id)).toContain(node!.id);
  // Silent and no report for longer than a period and the check's time: gone.
  await db
    .updateTable('media_nodes')
    .set({ seen_at: new Date(web.clock.now().getTime() - (REPORT_SECONDS + 2) * 1000) })
    .where('id', '=', node!.id)
    .execute();
  await expect(silent.place(roomNumber, placed.url)).rejects.toMatchObject({ code: '33005' });
  expect(checks).toBe(2);
  expect((await nodeRows()).map((r) => r.id)).not.toContain(node!.id);
});
