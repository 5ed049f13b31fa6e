/**
 * The recorder as operators run it (ADR 077): `ROLE=recorder` processes beside a `ROLE=web,media`
 * process, on PostgreSQL, s3rver and Redis. Three people publish real VP8 and Opus (ffmpeg over
 * RTP through werift). The teacher's camera carries a time code (8 blocks = whole seconds since
 * its publisher started), so a frame of the MP4 tells when it was recorded.
 * - one recording from start to stop: one fast-start MP4, H.264 1280x720 + AAC 48 kHz, as long as
 *   the recording, listed with its size within 15 s of the stop;
 * - `kill -9` of the recorder 20 s into 60 s: the other recorder takes over within 10 s, and the
 *   MP4 plays, lasts at least 45 s and covers the minute's first and last 10 s.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, signIn } from '#tests/support/api.ts';
import { postgresAdminUrl } from '#tests/support/database.ts';
import { MediaTestPeer, until } from '#tests/support/media-client.ts';
import { publishRtp, type RtpPublication } from '#tests/support/rtp-file-publisher.ts';
import { startRedis, type TestRedis } from '#tests/support/redis.ts';
import { startS3, type TestS3 } from '#tests/support/s3.ts';
import { startTestServer, type TestServer } from '#tests/support/server.ts';
import { writeFile } from 'node:fs/promises';
import { frameAt, measureVolume, readTimecode, CREATOR_TILE } from '#tests/support/av-analysis.ts';
import { probeMedia } from '../../workers/record/join.ts';

const run = promisify(execFile);
const MAIN = path.resolve('server/main.ts');
const SECRET = 's'.repeat(64);
/** Set to a directory to keep frames of the recordings. */
const SHOTS = process.env['SHOTS'];

let web: TestServer;
let s3: TestS3;
let redis: TestRedis;
let dataDir: string;
const recorders: ChildProcess[] = [];
const peers: MediaTestPeer[] = [];
const pubs: RtpPublication[] = [];
let publishedAt = 0;
let teacher: { token: string; userId: string };
let roomNumber = '';

/**
 * The teacher's camera: grey, with a row of 8 black/white blocks along the top sixth giving the
 * whole seconds since ffmpeg started (most significant bit left), as tests/support/av-analysis.ts
 * reads a time code; a quiet tone for the microphone.
 */
const TIMECODE_CAMERA = {
  // drawbox per bit (cheap, so the source keeps real time even on a busy machine; geq did not).
  video: [
    'color=c=0x505050:s=320x180:r=15',
    'drawbox=x=0:y=0:w=320:h=30:color=black:t=fill',
    ...Array.from({ length: 8 }, (_, bit) => `drawbox=x=${String(bit * 40)}:y=0:w=40:h=30:color=white:t=fill:enable='mod(floor(t/${String(2 ** (7 - bit))})\\,2)'`),
  ].join(','),
  audio: 'sine=f=440:r=48000,volume=0.1',
  gop: 15,
};

/** A recorder process on the web process's database, store and Redis; resolves once it runs. */
async function startRecorder(): Promise<ChildProcess> {
  const { platform } = web.banshu;
  const child = spawn(process.execPath, [MAIN], {
    env: {
      PATH: process.env['PATH'] ?? '',
      HOME: process.env['HOME'] ?? '/tmp',
      NODE_ENV: 'test',
      ROLE: 'recorder',
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      SESSION_SECRET: SECRET,
      DATA_DIR: dataDir,
      DATABASE_URL: platform.database.url!,
      REDIS_URL: redis.url,
      MEDIA_PUBLIC_URL: web.url,
      RECORDER_SLOTS: '1',
      ...s3.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  recorders.push(child);
  let log = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (c: Buffer) => {
      log += c.toString();
      if (log.includes('recorder running')) resolve();
    });
    child.stderr.on('data', (c: Buffer) => (log += c.toString()));
    child.once('exit', (code, signal) => reject(new Error(`recorder exited ${String(code ?? signal)}: ${log.slice(-3000)}`)));
  });
  return child;
}

async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await gone;
}

const db = () => web.banshu.platform.database.db;

async function task(taskId: string) {
  return db().selectFrom('record_tasks').selectAll().where('id', '=', taskId).executeTakeFirstOrThrow();
}

/** Polls `read` until `ok`, every 100 ms. */
async function waitFor<T>(what: string, read: () => Promise<T>, ok: (v: T) => boolean, ms: number): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > end) throw new Error(`timed out after ${String(ms)} ms waiting for ${what}: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Starts a recording and waits until the recorder reports it running; returns the task id and when. */
async function startRecording(): Promise<{ taskId: string; at: number }> {
  const started = await call(web.url, 'startTask', { roomNumber }, { token: teacher.token });
  expect(started.code).toBe('0');
  const taskId = started.data.taskId as string;
  await waitFor(
    'recordState 1',
    async () => (await call(web.url, 'getRoomMemberRecordState', { roomNumber }, { token: teacher.token })).data,
    (d: { recordState: string }) => d.recordState === '1',
    15_000,
  );
  return { taskId, at: Date.now() };
}

/** Stops it and waits for the listed MP4; returns the local copy and the seconds from stop to listed. */
async function stopRecording(taskId: string, name: string): Promise<{ file: string; listedAfter: number; fileId: string }> {
  const stopped = await call(web.url, 'stopTask', { roomNumber, taskId }, { token: teacher.token });
  expect(stopped.code).toBe('0');
  const at = Date.now();
  const listed = await waitFor(
    'the listed MP4',
    async () => (await call(web.url, 'getRecordList', { recordType: 2, pageSize: 10 }, { token: teacher.token })).data,
    (d: { recordList: Array<{ taskId: string; fileSize: string }> }) => d.recordList.some((r) => r.taskId === taskId && r.fileSize !== ''),
    60_000,
  );
  const listedAfter = (Date.now() - at) / 1000;
  const row = listed.recordList.find((r) => r.taskId === taskId)!;
  const rec = await db()
    .selectFrom('records')
    .selectAll()
    .where('id', '=', (row as unknown as { fileId: string }).fileId)
    .executeTakeFirstOrThrow();
  const file = path.join(dataDir, `${name}.mp4`);
  await web.banshu.platform.objects.download(rec.object_key!, file);
  return { file, listedAfter, fileId: rec.id };
}

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'banshu-recorders-'));
  [s3, redis] = await Promise.all([startS3(), startRedis()]);
  web = await startTestServer({
    engine: 'postgres',
    postgresAdminUrl: postgresAdminUrl(),
    env: { ROLE: 'web,media', SESSION_SECRET: SECRET, REDIS_URL: redis.url, ...s3.env },
    realTime: true,
  });
  teacher = await signIn(web);
  await web.banshu.platform.services.billingRepo.grant(teacher.userId, { vip_room_time: new Date(Date.now() + 86400_000) });
  const created = await call(web.url, 'createAgoraRoom', { roomType: 1, consumption: 'on' }, { token: teacher.token });
  roomNumber = created.data.roomInfo.roomNumber as string;
  const people = [teacher, await signIn(web), await signIn(web)];
  const sources = [
    TIMECODE_CAMERA,
    { video: 'testsrc2=s=320x240:r=15', audio: 'sine=f=300:r=48000,volume=0.05' },
    { video: 'smptebars=s=320x240:r=15', audio: 'sine=f=500:r=48000,volume=0.05' },
  ];
  for (const [i, who] of people.entries()) {
    const joined = await call(web.url, 'userJoinAgoraRoom', { roomNumber }, { token: who.token });
    const peer = await MediaTestPeer.connect(joined.data.mediaUrl);
    peers.push(peer);
    await peer.ok('join', { token: joined.data.mediaToken });
    if (i === 0) publishedAt = Date.now();
    pubs.push(await publishRtp(peer, sources[i]!));
  }
  await until(() => pubs.every((p) => p.sent.video > 10 && p.sent.audio > 10), 20_000, 'publishers sending');
  await Promise.all([startRecorder(), startRecorder()]);
}, 120_000);

afterAll(async () => {
  for (const p of pubs) p.stop();
  for (const p of peers) p.close();
  for (const r of recorders) await kill(r);
  await web?.close();
  await Promise.all([s3?.close(), redis?.close()]);
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe('ROLE=recorder beside ROLE=web,media on PostgreSQL, s3rver and Redis', () => {
  it('records a class into one fast-start MP4 (H.264 1280x720, AAC 48 kHz) listed within 15 s of the stop', async () => {
    const { taskId, at } = await startRecording();
    await new Promise((r) => setTimeout(r, 20_000));
    const wanted = (Date.now() - at) / 1000;
    const { file, listedAfter } = await stopRecording(taskId, 'whole');
    console.info(`stop -> listed: ${listedAfter.toFixed(1)} s for ${wanted.toFixed(1)} s recorded`);
    expect(listedAfter).toBeLessThan(15);
    const p = await probeMedia(file);
    expect(p).toMatchObject({ videoCodec: 'h264', width: 1280, height: 720, audioCodec: 'aac', sampleRate: 48000, moovFirst: true });
    expect(Math.abs(p.durationSec - wanted)).toBeLessThan(1.5);
    expect((await measureVolume(file)).silent).toBe(false);
    // The segments went once the MP4 was there.
    const left = await db().selectFrom('record_segments').select('seq').where('task_id', '=', taskId).execute();
    for (const s of left)
      expect(
        await web.banshu.platform.objects.head(`records/${teacher.userId}/${taskId}/seg-${String(s.seq).padStart(6, '0')}.ts`),
      ).toBeNull();
  }, 120_000);

  it('survives kill -9 of its recorder 20 s into a minute: the MP4 lasts >= 45 s and covers the first and last 10 s', async () => {
    const { taskId, at } = await startRecording();
    await new Promise((r) => setTimeout(r, 20_000));
    const owner = (await task(taskId)).owner!;
    const pid = Number(owner.split(':')[1]);
    const victim = recorders.find((r) => r.pid === pid);
    expect(victim).toBeDefined();
    await kill(victim!);
    const killedAt = Date.now();
    const taken = await waitFor(
      'another recorder',
      () => task(taskId),
      (t) => t.owner !== owner && t.owner !== null,
      15_000,
    );
    const takeover = (Date.now() - killedAt) / 1000;
    console.info(`kill -9 -> taken over by ${taken.owner!}: ${takeover.toFixed(1)} s`);
    expect(takeover).toBeLessThan(10);
    await new Promise((r) => setTimeout(r, Math.max(0, at + 60_000 - Date.now())));
    const stoppedAt = Date.now();
    const { file } = await stopRecording(taskId, 'killed');
    const p = await probeMedia(file);
    console.info(`after kill -9: ${p.durationSec.toFixed(1)} s of ${((stoppedAt - at) / 1000).toFixed(1)} s`);
    expect(p).toMatchObject({ videoCodec: 'h264', width: 1280, height: 720, audioCodec: 'aac', sampleRate: 48000 });
    expect(p.durationSec).toBeGreaterThanOrEqual(45);
    // It plays: every packet decodes.
    const decoded = await run('ffmpeg', ['-v', 'error', '-i', file, '-f', 'null', '-'], { maxBuffer: 64 * 1024 * 1024 });
    expect(decoded.stderr.trim()).toBe('');
    if (SHOTS) {
      await writeFile(`${SHOTS}/recorder-killed-first.png`, await frameAt(file, 3));
      await writeFile(`${SHOTS}/recorder-killed-last.png`, await frameAt(file, p.durationSec - 1.5));
    }
    // The camera's time code (seconds since its publisher started) at both ends of the file.
    const first = await readTimecode(file, 3, CREATOR_TILE, 1);
    const last = await readTimecode(file, p.durationSec - 1.5, CREATOR_TILE, 1);
    expect(first).not.toBeNull();
    expect(last).not.toBeNull();
    const startSec = (at - publishedAt) / 1000;
    const stopSec = (stoppedAt - publishedAt) / 1000;
    console.info(
      `time code: first ${String(first!.frame)} s (recording began at ${startSec.toFixed(1)}), last ${String(last!.frame)} s (stopped at ${stopSec.toFixed(1)})`,
    );
    expect(first!.frame).toBeLessThanOrEqual(startSec + 10);
    expect(first!.frame).toBeGreaterThanOrEqual(startSec - 3);
    expect(last!.frame).toBeGreaterThanOrEqual(stopSec - 10);
    expect(last!.frame).toBeLessThanOrEqual(stopSec + 1);
  }, 180_000);
});
