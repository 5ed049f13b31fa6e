/**
 * The recorder as operators run it (ADR 077): `ROLE=recorder` processes beside a `ROLE=web,media`
 * process, on PostgreSQL, s3rver and Redis. Three people publish real VP8 and Opus (ffmpeg over
 * RTP through werift). In the kill test the board's background colour, changed by the teacher at
 * known moments, is the minute's clock: a frame of the MP4 tells which part of the minute it shows.
 * - one recording from start to stop: one fast-start MP4, H.264 1280x720 + AAC 48 kHz, as long as
 *   the recording, listed with its size within 15 s of the stop;
 * - `kill -9` of the recorder 20 s into 60 s: the other recorder takes over within 10 s, and the
 *   MP4 plays, lasts at least 45 s and covers the minute's first and last 10 s.
 */
import { type ChildProcess } from 'node:child_process';
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
import { killProcess, startRecorderProcess } from '#tests/support/recorder-process.ts';
import { publishRtp, type RtpPublication } from '#tests/support/rtp-file-publisher.ts';
import { startRedis, type TestRedis } from '#tests/support/redis.ts';
import { startS3, type TestS3 } from '#tests/support/s3.ts';
import { startTestServer, type TestServer } from '#tests/support/server.ts';
import { readFile, writeFile } from 'node:fs/promises';
import { frameAt, measureVolume, readTimecode, CREATOR_TILE } from '#tests/support/av-analysis.ts';
import { probeMedia } from '../../workers/record/join.ts';
import { readBoxes } from '../../workers/record/mp4-boxes.ts';

const run = promisify(execFile);
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
let teacher: { token: string; userId: string };
let roomNumber = '';
/** The teacher's room channel: the board's background colour is the minute's clock in the kill test. */
let teacherRoom: RoomSocket;

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
    ...Array.from(
      { length: 8 },
      (_, bit) => `drawbox=x=${String(bit * 40)}:y=0:w=40:h=30:color=white:t=fill:enable='mod(floor(t/${String(2 ** (7 - bit))})\\,2)'`,
    ),
  ].join(','),
  audio: 'sine=f=440:r=48000,volume=0.1',
  gop: 15,
};

/** A recorder process on the web process's database, store and Redis; resolves once it runs. */
async function startRecorder(): Promise<ChildProcess> {
  const site = { web, redis, s3, dataDir, sessionSecret: SECRET, name: 'recorder' };
  const { child } = await startRecorderProcess(site, { RECORDING_ASSEMBLY: 'true', RECORDER_SLOTS: '1' });
  recorders.push(child);
  return child;
}

const db = () => web.banshu.platform.database.db;

async function task(taskId: string) {
  return db().selectFrom('record_tasks').selectAll().where('id', '=', taskId).executeTakeFirstOrThrow();
}

/** The board as students see it: showState 'wb' with background colour `color` (an index of BACKGROUND_COLOURS). */
async function showBoard(color: number): Promise<void> {
  const a = await ask(teacherRoom, 'customRoomEvent', { showState: 'wb', roomExtend: JSON.stringify({ color, pageIndex: 0 }) });
  expect(a.code).toBe('0');
}

/** Which background colour the main area shows at `t` (the palette index nearest to the pixel at its centre). */
async function boardColourAt(file: string, t: number): Promise<number> {
  const { data } = await sharp(await frameAt(file, t))
    .extract({ left: 470, top: 350, width: 20, height: 20 })
    .raw()
    .toBuffer({ resolveWithObject: true });
  const rgb = [0, 1, 2].map((c) => {
    let sum = 0;
    for (let i = c; i < data.length; i += 3) sum += data[i]!;
    return sum / (data.length / 3);
  });
  let best = 0;
  let bestDistance = Infinity;
  BACKGROUND_COLOURS.forEach((hex, index) => {
    const ref = [1, 3, 5].map((o) => parseInt(hex.slice(o, o + 2), 16));
    const distance = ref.reduce((d, v, c) => d + (v - rgb[c]!) ** 2, 0);
    if (distance < bestDistance) [best, bestDistance] = [index, distance];
  });
  return best;
}

const sleepUntil = (t: number) => new Promise((r) => setTimeout(r, Math.max(0, t - Date.now())));

/** Starts a recording and waits until the recorder reports it running; returns the task id and when. */
async function startRecording(): Promise<{ taskId: string; at: number }> {
  const started = await call(web.url, 'startTask', { roomNumber }, { token: teacher.token });
  expect(started.code).toBe('0');
  const taskId = started.data.taskId;
  await until(
    'recordState 1',
    async () => (await call(web.url, 'getRoomMemberRecordState', { roomNumber }, { token: teacher.token })).data,
    (d: { recordState: string }) => d.recordState === '1',
    { timeoutMs: 15_000, everyMs: 100 },
  );
  return { taskId, at: Date.now() };
}

/** Stops it and waits for the listed MP4; returns the local copy and the seconds from stop to listed. */
async function stopRecording(taskId: string, name: string): Promise<{ file: string; listedAfter: number; fileId: string }> {
  const stopped = await call(web.url, 'stopTask', { roomNumber, taskId }, { token: teacher.token });
  expect(stopped.code).toBe('0');
  const at = Date.now();
  const listed = await until(
    'the listed MP4',
    async () => (await call(web.url, 'getRecordList', { recordType: 2, pageSize: 10 }, { token: teacher.token })).data,
    (d: { recordList: Array<{ taskId: string; fileSize: string }> }) => d.recordList.some((r) => r.taskId === taskId && r.fileSize !== ''),
    { timeoutMs: 60_000, everyMs: 100 },
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
  roomNumber = created.data.roomInfo.roomNumber;
  const people = [teacher, await signIn(web), await signIn(web)];
  const sources = [
    TIMECODE_CAMERA,
    { video: 'testsrc2=s=320x240:r=15', audio: 'sine=f=300:r=48000,volume=0.05' },
    { video: 'smptebars=s=320x240:r=15', audio: 'sine=f=500:r=48000,volume=0.05' },
  ];
  for (const [i, who] of people.entries()) {
    const joined = await call(web.url, 'userJoinAgoraRoom', { roomNumber }, { token: who.token });
    const peer = await MediaTestPeer.connect(joined.data.mediaUrl!);
    peers.push(peer);
    await peer.ok('join', { token: joined.data.mediaToken! });
    if (i === 0) {
      teacherRoom = await connectRoom(web.url, joined.data.imToken);
      expect((await ask(teacherRoom, 'joinRoom')).code).toBe('0');
    }
    pubs.push(await publishRtp(peer, sources[i]!));
  }
  await until('publishers sending', () => pubs.every((p) => p.sent.video > 10 && p.sent.audio > 10), 20_000);
  await Promise.all([startRecorder(), startRecorder()]);
}, 120_000);

afterAll(async () => {
  for (const p of pubs) p.stop();
  for (const p of peers) p.close();
  teacherRoom?.close();
  for (const r of recorders) await killProcess(r);
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
    if (SHOTS) await writeFile(`${SHOTS}/recorder-whole-middle.png`, await frameAt(file, 10));
    expect(listedAfter).toBeLessThan(15);
    const p = await probeMedia(file);
    expect(p).toMatchObject({ videoCodec: 'h264', width: 1280, height: 720, audioCodec: 'aac', sampleRate: 48000, moovFirst: true });
    expect(Math.abs(p.durationSec - wanted)).toBeLessThan(1.5);
    expect((await measureVolume(file)).silent).toBe(false);
    // Assembled as the class went (ADR 106): fragments behind their index, not the stop's join.
    expect(
      readBoxes(await readFile(file))
        .slice(0, 5)
        .map((b) => b.type),
    ).toEqual(['ftyp', 'moov', 'free', 'sidx', 'moof']);
    // It plays whole: every packet decodes, and a seek to 80 % and to its last half second finds a picture.
    const decoded = await run('ffmpeg', ['-v', 'error', '-i', file, '-f', 'null', '-'], { maxBuffer: 64 * 1024 * 1024 });
    expect(decoded.stderr.trim()).toBe('');
    for (const t of [p.durationSec * 0.8, p.durationSec - 0.5]) expect((await sharp(await frameAt(file, t)).metadata()).width).toBe(1280);
    // The segments went once the MP4 was there.
    const left = await db().selectFrom('record_segments').select('seq').where('task_id', '=', taskId).execute();
    for (const s of left)
      expect(
        await web.banshu.platform.objects.head(`records/${teacher.userId}/${taskId}/seg-${String(s.seq).padStart(6, '0')}.ts`),
      ).toBeNull();
  }, 120_000);

  it('survives kill -9 of its recorder 20 s into a minute: the MP4 lasts >= 45 s and covers the first and last 10 s', async () => {
    // The minute's clock: colour 0 for its first 5 s, colour 1 until 52 s, colour 3 (blue) for the last 8 s.
    await showBoard(0);
    const { taskId, at } = await startRecording();
    await sleepUntil(at + 5000);
    await showBoard(1);
    await sleepUntil(at + 20_000);
    const owner = (await task(taskId)).owner!;
    const pid = Number(owner.split(':')[1]);
    const victim = recorders.find((r) => r.pid === pid);
    expect(victim).toBeDefined();
    await killProcess(victim!);
    const killedAt = Date.now();
    const taken = await until(
      'another recorder',
      () => task(taskId),
      (t) => t.owner !== owner && t.owner !== null,
      { timeoutMs: 15_000, everyMs: 100 },
    );
    const takeover = (Date.now() - killedAt) / 1000;
    console.info(`kill -9 -> taken over by ${taken.owner!}: ${takeover.toFixed(1)} s`);
    expect(takeover).toBeLessThan(10);
    await sleepUntil(at + 52_000);
    await showBoard(3);
    await sleepUntil(at + 60_000);
    const stoppedAt = Date.now();
    const { file } = await stopRecording(taskId, 'killed');
    const p = await probeMedia(file);
    console.info(`after kill -9: ${p.durationSec.toFixed(1)} s of ${((stoppedAt - at) / 1000).toFixed(1)} s`);
    expect(p).toMatchObject({ videoCodec: 'h264', width: 1280, height: 720, audioCodec: 'aac', sampleRate: 48000 });
    expect(p.durationSec).toBeGreaterThanOrEqual(45);
    // A task resumed by another recorder has segments it did not make: joined at the stop (ADR 076), not assembled.
    expect(readBoxes(await readFile(file)).some((b) => b.type === 'moof')).toBe(false);
    // It plays: every packet decodes.
    const decoded = await run('ffmpeg', ['-v', 'error', '-i', file, '-f', 'null', '-'], { maxBuffer: 64 * 1024 * 1024 });
    expect(decoded.stderr.trim()).toBe('');
    if (SHOTS) {
      await writeFile(`${SHOTS}/recorder-killed-first.png`, await frameAt(file, 1));
      await writeFile(`${SHOTS}/recorder-killed-last.png`, await frameAt(file, p.durationSec - 1));
    }
    // The board's colour every half second of the file: 0 first, then 1, then 3, never back.
    const colours: number[] = [];
    for (let t = 0.25; t < p.durationSec - 0.1; t += 0.5) colours.push(await boardColourAt(file, t));
    console.info(`board colour every 0.5 s: ${colours.join('')}`);
    expect(colours.every((c) => c === 0 || c === 1 || c === 3)).toBe(true);
    expect([...colours].sort()).toEqual(colours);
    const span = (c: number) => colours.filter((x) => x === c).length / 2;
    // The first 5 s of the minute are there (the teacher's first seconds) ...
    expect(colours[0]).toBe(0);
    expect(span(0)).toBeGreaterThanOrEqual(4);
    // ... and its last 8 s (the scene follows within ~0.3 s; the stop cuts within ~0.3 s).
    expect(colours.at(-1)).toBe(3);
    expect(span(3)).toBeGreaterThanOrEqual(7);
    // The camera tiles carry picture after the takeover too: the teacher's time code reads at the end.
    expect(await readTimecode(file, p.durationSec - 1, CREATOR_TILE, 1)).not.toBeNull();
  }, 180_000);
});
