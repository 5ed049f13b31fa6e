/**
 * A recording is whole when its encoder runs behind real time (issue 28, ADR 104): the class's end
 * is a media instant, so the MP4 lasts as long as the class was recorded and its last seconds show
 * what the class showed then, however late the encoder closes them.
 *
 * `ROLE=recorder` processes beside a `ROLE=web,media` process (PostgreSQL, s3rver, Redis), as
 * operators run them. Each room has the teacher's camera (real VP8 over RTP) and the board, whose
 * background colour the teacher changes at known moments: the colour in a frame of the MP4 says
 * which moment of the class it shows.
 * - a 60 s class recorded by an encoder forced behind real time (x264 'veryslow', and no
 *   CPU at all from 51 s to 57 s): the MP4 is 60 s +- 1, its last 5 s show the colours of the
 *   class's last 5 s, listed within 15 s;
 * - two 60 s classes recorded at once on this machine while the test keeps both cores busy (and
 *   each encoder starved the same way): both whole. Two recorder processes run: a recorder weighs
 *   its measured headroom before it takes a second class (ADR 105), and on a machine this busy it
 *   leaves the second to the other.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { BACKGROUND_COLOURS } from '#core/contracts/board.ts';
import { call, signIn } from '#tests/support/api.ts';
import { ask, connectRoom, type RoomSocket } from '#tests/support/room-client.ts';
import { postgresAdminUrl } from '#tests/support/database.ts';
import { MediaTestPeer } from '#tests/support/media-client.ts';
import { until } from '#tests/support/until.ts';
import { killProcess, startRecorderProcess, type RecorderProcess } from '#tests/support/recorder-process.ts';
import { publishRtp, type RtpPublication } from '#tests/support/rtp-file-publisher.ts';
import { startRedis, type TestRedis } from '#tests/support/redis.ts';
import { startS3, type TestS3 } from '#tests/support/s3.ts';
import { startTestServer, type TestServer } from '#tests/support/server.ts';
import { frameAt } from '#tests/support/av-analysis.ts';
import { probeMedia } from '../../workers/record/join.ts';

const run = promisify(execFile);
const SECRET = 's'.repeat(64);
const CLASS_SEC = 60;

let web: TestServer;
let s3: TestS3;
let redis: TestRedis;
let dataDir: string;
const children: ChildProcess[] = [];
const peers: MediaTestPeer[] = [];
const pubs: RtpPublication[] = [];
const sockets: RoomSocket[] = [];

interface Room {
  number: string;
  teacher: { token: string; userId: string };
  socket: RoomSocket;
}
const rooms: Room[] = [];

/** A recorder process with its own settings; resolves once it runs. Its log is kept (`log()`). */
async function startRecorder(env: Record<string, string>): Promise<RecorderProcess> {
  const r = await startRecorderProcess({ web, redis, s3, dataDir, sessionSecret: SECRET, name: 'recording-whole' }, env);
  children.push(r.child);
  return r;
}

/** Processes spinning on every core for as long as they run: a machine kept busy. */
function spinners(n: number): ChildProcess[] {
  return Array.from({ length: n }, () => {
    const c = spawn(process.execPath, ['-e', 'for (;;) Math.sqrt(Math.random());'], { stdio: 'ignore' });
    children.push(c);
    return c;
  });
}

const db = () => web.banshu.platform.database.db;
const task = (taskId: string) => db().selectFrom('record_tasks').selectAll().where('id', '=', taskId).executeTakeFirstOrThrow();
const sleepUntil = (t: number) => new Promise((r) => setTimeout(r, Math.max(0, t - Date.now())));

/** A room with its teacher's camera and room channel, the board shown in colour 0. */
async function openRoom(): Promise<Room> {
  const teacher = await signIn(web);
  await web.banshu.platform.services.billingRepo.grant(teacher.userId, { vip_room_time: new Date(Date.now() + 86400_000) });
  const created = await call(web.url, 'createAgoraRoom', { roomType: 1, consumption: 'on' }, { token: teacher.token });
  const number = created.data.roomInfo.roomNumber;
  const joined = await call(web.url, 'userJoinAgoraRoom', { roomNumber: number }, { token: teacher.token });
  const peer = await MediaTestPeer.connect(joined.data.mediaUrl!);
  peers.push(peer);
  await peer.ok('join', { token: joined.data.mediaToken! });
  const socket = await connectRoom(web.url, joined.data.imToken);
  sockets.push(socket);
  expect((await ask(socket, 'joinRoom')).code).toBe('0');
  const pub = await publishRtp(peer, { video: 'testsrc2=s=320x240:r=15', audio: 'sine=f=440:r=48000,volume=0.1' });
  pubs.push(pub);
  await until('publisher sending', () => pub.sent.video > 10 && pub.sent.audio > 10, 20_000);
  const room = { number, teacher, socket };
  await showBoard(room, 0);
  return room;
}

/** The board as students see it, with background colour `color` (an index of BACKGROUND_COLOURS). */
async function showBoard(room: Room, color: number): Promise<void> {
  const a = await ask(room.socket, 'customRoomEvent', { showState: 'wb', roomExtend: JSON.stringify({ color, pageIndex: 0 }) });
  expect(a.code).toBe('0');
}

/** The palette index nearest to the main area's mean colour in the MP4's frame at `t`. */
async function boardColourAt(file: string, t: number): Promise<number> {
  // The middle of the main area (960x720 at the left of the frame), clear of the camera column.
  const { data } = await sharp(await frameAt(file, t))
    .extract({ left: 280, top: 260, width: 400, height: 200 })
    .raw()
    .toBuffer({ resolveWithObject: true });
  const rgb = [0, 1, 2].map((c) => {
    let sum = 0;
    for (let i = c; i < data.length; i += 3) sum += data[i]!;
    return sum / (data.length / 3);
  });
  let best = -1;
  let bestDistance = Infinity;
  BACKGROUND_COLOURS.forEach((hex, index) => {
    const ref = [1, 3, 5].map((o) => parseInt(hex.slice(o, o + 2), 16));
    const distance = ref.reduce((d, v, c) => d + (v - rgb[c]!) ** 2, 0);
    if (distance < bestDistance) [best, bestDistance] = [index, distance];
  });
  return best;
}

/**
 * The task's encoder (the recorder's ffmpeg child running x264 into the task's directory) gets no
 * CPU at all for a while: SIGSTOP now, SIGCONT from the function returned. A starved process at
 * its extreme, at a moment the test chooses.
 */
async function starveEncoder(recorderPids: number[], taskId: string): Promise<() => void> {
  const pids: number[] = [];
  for (const recorderPid of recorderPids) {
    const { stdout } = await run('pgrep', ['-P', String(recorderPid), '-f', `libx264.*/recordings/${taskId}/`]).catch(() => ({
      stdout: '',
    }));
    pids.push(...stdout.split('\n').filter(Boolean).map(Number));
  }
  expect(pids, `the encoder of task ${taskId}`).toHaveLength(1);
  for (const pid of pids) process.kill(pid, 'SIGSTOP');
  let resumed = false;
  const resume = () => {
    if (resumed) return;
    resumed = true;
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGCONT');
      } catch {
        // gone
      }
    }
  };
  resumes.add(resume);
  return resume;
}
const resumes = new Set<() => void>();

/**
 * One class: recorded from the recorder's first frame for CLASS_SEC, the board in colour 0, then
 * 1 from 50 s, then 3 from 56 s to the stop. From 51 s to 57 s the recording's encoder gets no CPU
 * (`starve`), so at the stop it is several seconds behind real time whatever the machine's speed.
 * Returns the task and the stop's moment.
 */
async function recordClass(room: Room, recorderPids: number[]): Promise<{ taskId: string; startedAt: number; stoppedAt: number }> {
  await showBoard(room, 0);
  const started = await call(web.url, 'startTask', { roomNumber: room.number }, { token: room.teacher.token });
  expect(started.code).toBe('0');
  const taskId = started.data.taskId;
  const t = await until(
    'the recording started',
    () => task(taskId),
    (r) => r.state === 'recording',
    { timeoutMs: 20_000, everyMs: 100 },
  );
  // The file's media second 0 is the recorder's first frame (started_at, once 'recording': the claim sets it before).
  const startedAt = t.started_at!.getTime();
  await sleepUntil(startedAt + 50_000);
  await showBoard(room, 1);
  await sleepUntil(startedAt + 51_000);
  const resume = await starveEncoder(recorderPids, taskId);
  await sleepUntil(startedAt + 56_000);
  await showBoard(room, 3);
  await sleepUntil(startedAt + 57_000);
  resume();
  await sleepUntil(startedAt + CLASS_SEC * 1000);
  const stopped = await call(web.url, 'stopTask', { roomNumber: room.number, taskId }, { token: room.teacher.token });
  expect(stopped.code).toBe('0');
  const stoppedAt = (await task(taskId)).stop_requested_at!.getTime();
  return { taskId, startedAt, stoppedAt };
}

/** Waits for the listed MP4 and downloads it; the seconds from the stop to listed. */
async function listed(room: Room, taskId: string, stoppedAt: number, name: string): Promise<{ file: string; listedAfter: number }> {
  const row = await until(
    'the listed MP4',
    async () => {
      const list = (await call(web.url, 'getRecordList', { recordType: 2, pageSize: 10 }, { token: room.teacher.token })).data as {
        recordList: Array<{ taskId: string; fileSize: string; fileId: string }>;
      };
      return list.recordList.find((r) => r.taskId === taskId && r.fileSize !== '') ?? null;
    },
    (r) => r !== null,
    { timeoutMs: 90_000, everyMs: 100 },
  );
  const listedAfter = (Date.now() - stoppedAt) / 1000;
  const rec = await db().selectFrom('records').selectAll().where('id', '=', row!.fileId).executeTakeFirstOrThrow();
  const file = path.join(dataDir, `${name}.mp4`);
  await web.banshu.platform.objects.download(rec.object_key!, file);
  return { file, listedAfter };
}

/**
 * The class's whole length and its last 5 s: the MP4 lasts the class (stop - first frame) +- 1 s,
 * and its frames from 55 s on show the board's colours of those moments (1 until 56 s, then 3).
 * Checked 1 s or more from each change: an encoder behind shows a new picture once a second.
 */
async function expectWhole(file: string, classSec: number, what: string): Promise<void> {
  const p = await probeMedia(file);
  console.info(`${what}: MP4 ${p.durationSec.toFixed(2)} s for a ${classSec.toFixed(2)} s class`);
  expect(p).toMatchObject({ videoCodec: 'h264', audioCodec: 'aac', moovFirst: true });
  expect(Math.abs(p.durationSec - classSec)).toBeLessThanOrEqual(1);
  // Colour 1 from 50 s, 3 from 56 s (the scene follows within ~0.3 s; a starved encoder's picture is at most 1 s old).
  const checks: Array<[number, number]> = [
    [52.5, 1],
    [Math.min(55.3, classSec - 5), 1],
    [57.5, 3],
    [58.5, 3],
    [Math.min(classSec, p.durationSec) - 0.3, 3],
  ];
  const seen = await Promise.all(checks.map(async ([t]) => boardColourAt(file, t)));
  console.info(`${what}: board colours at ${checks.map(([t]) => t.toFixed(1)).join(', ')} s: ${seen.join(', ')}`);
  expect(seen).toEqual(checks.map(([, c]) => c));
}

/** The recorder's 'recording listed' line of a task, parsed. */
function listedLine(log: string, taskId: string): Record<string, unknown> {
  const line = log.split('\n').find((l) => l.includes('"recording listed') && l.includes(`"taskId":"${taskId}"`));
  expect(line, `no 'recording listed' line for ${taskId}`).toBeDefined();
  return JSON.parse(line!) as Record<string, unknown>;
}

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'banshu-recording-whole-'));
  [s3, redis] = await Promise.all([startS3(), startRedis()]);
  web = await startTestServer({
    engine: 'postgres',
    postgresAdminUrl: postgresAdminUrl(),
    env: { ROLE: 'web,media', SESSION_SECRET: SECRET, REDIS_URL: redis.url, ...s3.env },
    realTime: true,
  });
  rooms.push(await openRoom(), await openRoom());
}, 120_000);

afterAll(async () => {
  for (const resume of resumes) resume();
  for (const p of pubs) p.stop();
  for (const p of peers) p.close();
  for (const s of sockets) s.close();
  for (const c of children) await killProcess(c);
  await web?.close();
  await Promise.all([s3?.close(), redis?.close()]);
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe('a recording is whole when its encoder runs behind real time (ADR 104)', () => {
  it('x264 veryslow, starved for 6 s, for a 60 s class: 60 s +- 1, its last 5 s as the class showed them, listed within 15 s', async () => {
    const recorder = await startRecorder({ RECORDER_SLOTS: '1', RECORDING_X264_PRESET: 'veryslow' });
    try {
      const room = rooms[0]!;
      const { taskId, startedAt, stoppedAt } = await recordClass(room, [recorder.child.pid!]);
      const { file, listedAfter } = await listed(room, taskId, stoppedAt, 'slow');
      console.info(`stop -> listed: ${listedAfter.toFixed(1)} s`);
      const line = listedLine(recorder.log(), taskId);
      console.info(`recording listed: ${JSON.stringify(line)}`);
      await expectWhole(file, (stoppedAt - startedAt) / 1000, 'veryslow');
      expect(listedAfter).toBeLessThan(15);
      // The encoder was behind real time at the stop, and the recording says so.
      expect(line['behindAtStopSec']).toBeGreaterThan(1);
      expect(line['repeatedFrames']).toBeGreaterThan(0);
      expect(line).toHaveProperty('stopWaitMs');
      expect(line).toHaveProperty('maxLagSec');
    } finally {
      await killProcess(recorder.child);
    }
  }, 240_000);

  it('two 60 s classes recorded at once on a machine kept busy: both whole', async () => {
    const recorders = [await startRecorder({ RECORDER_SLOTS: '2' }), await startRecorder({ RECORDER_SLOTS: '2' })];
    const recorderPids = recorders.map((r) => r.child.pid!);
    const logs = () => recorders.map((r) => r.log()).join('');
    const busy = spinners(2);
    try {
      const [a, b] = await Promise.all(rooms.map((room) => recordClass(room, recorderPids)));
      const files = await Promise.all(
        rooms.map((room, i) => {
          const r = [a, b][i]!;
          return listed(room, r.taskId, r.stoppedAt, `busy-${String(i)}`);
        }),
      );
      for (const [i, r] of [a!, b!].entries()) {
        console.info(`busy ${String(i)}: stop -> listed ${files[i]!.listedAfter.toFixed(1)} s`);
        console.info(`recording listed: ${JSON.stringify(listedLine(logs(), r.taskId))}`);
      }
      for (const c of busy) await killProcess(c);
      for (const [i, r] of [a!, b!].entries()) await expectWhole(files[i]!.file, (r.stoppedAt - r.startedAt) / 1000, `busy ${String(i)}`);
    } finally {
      for (const c of busy) await killProcess(c);
      for (const r of recorders) await killProcess(r.child);
    }
  }, 240_000);
});
