/**
 * Two media processes on one machine (`ROLE=media`, separate Node processes on one PostgreSQL)
 * and a web role in the test: nodes report their load, a room goes to the least loaded node and
 * stays there, media flows through whichever node a room is on, and a node that leaves gives its
 * rooms to the other.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { call, signIn } from '#tests/support/api.ts';
import { postgresAdminUrl } from '#tests/support/database.ts';
import { MediaTestPeer } from '#tests/support/media-client.ts';
import { until } from '#tests/support/until.ts';
import { startTestServer, type TestServer } from '#tests/support/server.ts';

const SECRET = 's'.repeat(48);
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
      MEDIA_REPORT_SECONDS: '1',
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

async function joinAs(token: string, roomNumber: string) {
  const joined = await call(web.url, 'userJoinAgoraRoom', { roomNumber }, { token });
  expect(joined.code).toBe('0');
  return joined.data as { mediaUrl: string; mediaToken: string };
}

beforeAll(async () => {
  web = await startTestServer({
    engine: 'postgres',
    postgresAdminUrl: postgresAdminUrl(),
    env: { ROLE: 'web', SESSION_SECRET: SECRET, MEDIA_PLACEMENT: 'registry', MEDIA_REPORT_SECONDS: '1' },
  });
  const dbUrl = web.banshu.platform.database.url!;
  await startNode('node-a', dbUrl, '41000-41499');
  await startNode('node-b', dbUrl, '41500-41999');
  await until('both media nodes to report', nodeRows, (rows) => rows.length >= 2, { timeoutMs: 30_000, everyMs: 100 });
});

afterAll(async () => {
  for (const p of peers) p.close();
  for (const n of nodes) n.child.kill('SIGTERM');
  await Promise.all(nodes.map((n) => new Promise((r) => (n.child.exitCode !== null ? r(null) : n.child.once('exit', r)))));
  for (const n of nodes) await rm(n.dir, { recursive: true, force: true });
  await web?.close();
});

it('places rooms on the least loaded node, keeps them there, and moves them when a node leaves', async () => {
  const rows = await nodeRows();
  expect(rows.map((r) => r.id)).toEqual(['node-a', 'node-b']);
  const urlOf = new Map(rows.map((r) => [r.url, r.id]));
  expect(urlOf.size).toBe(2);

  // Room A: the first placement, then two people on that node.
  const t1 = await signIn(web);
  const s1 = await signIn(web);
  const roomA = (await call(web.url, 'createRoom', { roomType: 2 }, { token: t1.token })).data.roomInfo.roomNumber;
  const a1 = await joinAs(t1.token, roomA);
  const a2 = await joinAs(s1.token, roomA);
  expect(a2.mediaUrl).toBe(a1.mediaUrl);
  const nodeA = urlOf.get(a1.mediaUrl)!;
  const pa = await MediaTestPeer.connect(a1.mediaUrl);
  const ps = await MediaTestPeer.connect(a2.mediaUrl);
  peers.push(pa, ps);
  await pa.ok('join', { token: a1.mediaToken });
  await ps.ok('join', { token: a2.mediaToken });
  const mic = await pa.publish('mic');
  const heard = await ps.subscribe(mic.trackId);
  await until('audio through the first node', () => heard.packets > 10, 10_000);
  // The node reports its two peers.
  await until('a load report of two peers', nodeRows, (rows) => rows.some((r) => r.id === nodeA && r.peers === 2), {
    timeoutMs: 10_000,
    everyMs: 100,
  });

  // Room B goes to the other, idle node, and media flows there too.
  const t2 = await signIn(web);
  const s2 = await signIn(web);
  const roomB = (await call(web.url, 'createRoom', { roomType: 2 }, { token: t2.token })).data.roomInfo.roomNumber;
  const b1 = await joinAs(t2.token, roomB);
  expect(urlOf.get(b1.mediaUrl)).not.toBe(nodeA);
  const b2 = await joinAs(s2.token, roomB);
  const pb = await MediaTestPeer.connect(b1.mediaUrl);
  const pbs = await MediaTestPeer.connect(b2.mediaUrl);
  peers.push(pb, pbs);
  await pb.ok('join', { token: b1.mediaToken });
  await pbs.ok('join', { token: b2.mediaToken });
  const cam = await pb.publish('mic');
  const got = await pbs.subscribe(cam.trackId);
  await until('audio through the second node', () => got.packets > 10, 10_000);
  // A node's tokens are the web role's: a track of room A is not reachable from room B's node.
  expect((await pbs.req('subscribe', { trackId: mic.trackId })).code).toBe('33003');

  // Room A stays where it is.
  expect((await joinAs(s1.token, roomA)).mediaUrl).toBe(a1.mediaUrl);

  // Node A leaves (it removes itself from the registry): room A moves to node B.
  const leaving = nodes.find((n) => n.id === nodeA)!;
  leaving.child.kill('SIGTERM');
  await new Promise((r) => leaving.child.once('exit', r));
  expect((await nodeRows()).map((r) => r.id)).toEqual([urlOf.get(b1.mediaUrl)]);
  expect((await joinAs(s1.token, roomA)).mediaUrl).toBe(b1.mediaUrl);
});
