/**
 * Revocations held for the token's lifetime on every node (ADR 066): a web role on PostgreSQL with
 * the registry, one real `ROLE=media` process and one recording stand-in node. A kicked student's
 * still-valid media token does not open the room on a node nobody of the room is on yet; the kick
 * reaches every live node, not only the room's; and a web node that starts again sends the kicks
 * of the last token lifetime once more.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { MEDIA_CONTROL_SIGNATURE_HEADER, verifyControl, type MediaControlMessage } from '#core/contracts/media-control.ts';
import { openDatabase } from '#core/platform/db/database.ts';
import { createLogger } from '#core/platform/logger.ts';
import { startBanshu } from '#server/app.ts';
import { call, signIn } from '#tests/support/api.ts';
import { postgresAdminUrl } from '#tests/support/database.ts';
import { MediaTestPeer } from '#tests/support/media-client.ts';
import { until } from '#tests/support/until.ts';
import { ask, connectRoom, type RoomSocket } from '#tests/support/room-client.ts';
import { startTestServer, type TestServer } from '#tests/support/server.ts';

const SECRET = 'k'.repeat(48);
let web: TestServer;
let node: { child: ChildProcess; dir: string; url: string; log: string[] } | null = null;
/** A node in the registry that only records the control calls it gets (never chosen for rooms). */
let standIn: { server: Server; url: string; calls: MediaControlMessage[] } | null = null;
const open: Array<MediaTestPeer | RoomSocket> = [];

beforeAll(async () => {
  web = await startTestServer({
    engine: 'postgres',
    postgresAdminUrl: postgresAdminUrl(),
    env: { ROLE: 'web', SESSION_SECRET: SECRET, MEDIA_PLACEMENT: 'registry', MEDIA_REPORT_SECONDS: '1' },
  });
  const db = web.banshu.platform.database.db;
  const dir = await mkdtemp(path.join(tmpdir(), 'banshu-media-'));
  const child = spawn(process.execPath, ['server/main.ts'], {
    env: {
      ...process.env,
      NODE_ENV: 'test',
      ROLE: 'media',
      DATABASE_URL: web.banshu.platform.database.url!,
      SESSION_SECRET: SECRET,
      DATA_DIR: dir,
      LOG_LEVEL: 'info',
      MEDIA_PORT: '0',
      MEDIA_PLACEMENT: 'registry',
      MEDIA_REPORT_SECONDS: '1',
      MEDIA_NODE_ID: 'node-real',
      MEDIA_RTC_MIN_PORT: '42500',
      MEDIA_RTC_MAX_PORT: '42999',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const log: string[] = [];
  let partial = '';
  child.stdout.on('data', (c: Buffer) => {
    const lines = (partial + c.toString('utf8')).split('\n');
    partial = lines.pop() ?? '';
    log.push(...lines);
  });
  node = { child, dir, url: '', log };

  const calls: MediaControlMessage[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const msg = verifyControl(SECRET, body, req.headers[MEDIA_CONTROL_SIGNATURE_HEADER], Date.now());
      if (!msg) return res.writeHead(401).end();
      calls.push(msg);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"applied":false}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${String((server.address() as { port: number }).port)}`;
  standIn = { server, url, calls };
  // Alive for the test's length, and full: rooms always go to the real node.
  await db
    .insertInto('media_nodes')
    .values({ id: 'node-stand-in', url, peers: 1000, rooms: 0, capacity: 1, seen_at: new Date(Date.now() + 3600_000) })
    .execute();

  const row = await until(
    'the media node to report',
    () => db.selectFrom('media_nodes').select('url').where('id', '=', 'node-real').executeTakeFirst(),
    (r) => r !== undefined,
    { timeoutMs: 30_000, everyMs: 100 },
  );
  node.url = row!.url;
});

afterEach(() => {
  for (const p of open.splice(0)) p.close();
});

afterAll(async () => {
  if (node) {
    node.child.kill('SIGTERM');
    if (node.child.exitCode === null) await new Promise((r) => node!.child.once('exit', r));
    await rm(node.dir, { recursive: true, force: true });
  }
  if (standIn) await new Promise((r) => standIn!.server.close(r));
  await web?.close();
});

/** A class with its teacher and one student in the room channel, neither on the media node. */
async function classWithStudent() {
  const teacher = await signIn(web);
  const student = await signIn(web);
  const created = await call(web.url, 'createRoom', { roomType: 2 }, { token: teacher.token });
  expect(created.code).toBe('0');
  const roomNumber = created.data.roomInfo.roomNumber;
  const joined = [];
  for (const who of [teacher, student]) {
    const answer = await call(web.url, 'userJoinAgoraRoom', { roomNumber }, { token: who.token });
    expect(answer.code).toBe('0');
    expect(answer.data.mediaUrl).toBe(node!.url);
    const sock = await connectRoom(web.url, answer.data.imToken);
    open.push(sock);
    expect((await ask(sock, 'joinRoom')).code).toBe('0');
    joined.push({ ...who, sock, mediaToken: answer.data.mediaToken as string });
  }
  return { roomNumber, teacher: joined[0]!, student: joined[1]! };
}

const kickFor = (roomNumber: string, userId: string) => (c: MediaControlMessage) =>
  c.op === 'removeUser' && c.room === roomNumber && c.userId === userId;

it('a kicked student’s token does not open the room on a node that does not hold it yet', async () => {
  const { roomNumber, teacher, student } = await classWithStudent();
  // Nobody of this class is on the node: it holds no such room.
  expect(node!.log.some((l) => l.includes(roomNumber))).toBe(false);
  expect((await ask(teacher.sock, 'kickout', { userId: student.userId })).code).toBe('0');
  // The node took the revocation (its log says so), though the room is not on it.
  await until(
    'the kick at the node',
    () => node!.log.some((l) => l.includes('"media control"') && l.includes(roomNumber) && l.includes('removeUser')),
    10_000,
  );
  const peer = await MediaTestPeer.connect(node!.url);
  open.push(peer);
  expect((await peer.req('join', { token: student.mediaToken })).code).toBe('33001');
  // The teacher's own token still opens the room.
  const teacherPeer = await MediaTestPeer.connect(node!.url);
  open.push(teacherPeer);
  expect((await teacherPeer.req('join', { token: teacher.mediaToken })).code).toBe('0');
});

it('a kick reaches every live node, not only the one the room is on', async () => {
  const { roomNumber, teacher, student } = await classWithStudent();
  expect((await ask(teacher.sock, 'kickout', { userId: student.userId })).code).toBe('0');
  // A token is good on any node: the stand-in, which does not hold the room, is told as well.
  await until('the kick at the stand-in node', () => standIn!.calls.some(kickFor(roomNumber, student.userId)), 10_000);
});

it('a web node that starts again sends the kicks of the last token lifetime once more', async () => {
  const { roomNumber, teacher, student } = await classWithStudent();
  const kicksAtNode = () =>
    node!.log.filter((l) => l.includes('"media control"') && l.includes(roomNumber) && l.includes('removeUser')).length;
  expect((await ask(teacher.sock, 'kickout', { userId: student.userId })).code).toBe('0');
  await until('the first kick', () => kicksAtNode() === 1, 10_000);
  // A second web process on the same database, as after a restart (its retries in flight were lost).
  const url = web.banshu.platform.database.url!;
  const again = await startBanshu(
    {
      NODE_ENV: 'test',
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      ROLE: 'web',
      SESSION_SECRET: SECRET,
      DATABASE_URL: url,
      DATA_DIR: path.join(tmpdir(), 'banshu-revocations-restart'),
      MEDIA_PLACEMENT: 'registry',
      MEDIA_REPORT_SECONDS: '1',
    },
    { database: await openDatabase({ url, dataDir: null }), logger: createLogger('silent'), web: { mode: 'none' }, jobs: false },
  );
  try {
    await until('the kick sent again', () => kicksAtNode() === 2, 10_000);
  } finally {
    await again.close();
  }
});
