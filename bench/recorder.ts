/**
 * bench/recorder: what a cloud recording costs (issue 13; docs/decisions/070 and 076).
 *
 *   node bench/recorder.ts [--seconds=30] [--minutes=1,10,60] [--recordings=1,2] [--parts=reference,stop,recording,live]
 *
 * Measured, one after the other:
 *   reference   ffmpeg encoding a 720p30 test pattern and a tone at real time (-re) with the
 *               recording's settings: x264 veryfast 3 Mbit/s, keyframe every 2 s (60 frames), AAC
 *               128 kbit/s 48 kHz, 4 s MPEG-TS segments. CPU from /proc/<pid>/stat, memory as PSS
 *               from /proc/<pid>/smaps_rollup, sampled every 250 ms.
 *   stop        what is left to do when a class ends: joinSegments (workers/record/join.ts: the
 *               segments' timestamps read, a stream-copy join to a fast-start MP4, ffprobe check)
 *               over 1, 10 and 60 minutes of segments, then the upload of the MP4 to an S3 store
 *               (s3rver from tests/support/s3.ts, on this machine). The segments are copies of one
 *               real 4 s segment of the reference run. CPU of ffmpeg/ffprobe from this process's
 *               reaped-children ticks. Apart, not in the stop's total: fetching all the segments
 *               from the store, 8 at a time (a task resumed by a recorder that has none of them).
 *               Beside it, in the same run, the stop as it is now (ADR 106): the same segments fed
 *               to an Assembly (workers/record/assembly.ts) one by one as the class would hand
 *               them on (remuxed to fMP4 fragments, parts of 16 MiB sent to the store during the
 *               "class", its cost measured apart), all but the last; the stop then feeds the last
 *               segment and finishes (the cut 2 s before the end: the last segment remuxed again
 *               shorter; init + sidx + first part, the held-back tail, complete) until the object
 *               is in the store.
 *   recording   benchRecording(): a ROLE=web,media server in this process (throwaway PostgreSQL,
 *               s3rver, Redis) and a child ROLE=recorder process with RECORDER_SLOTS=2; for each N
 *               of --recordings, N class rooms of 3 people publishing real VP8 + Opus (ffmpeg +
 *               werift, in this process, so outside the recorder's tree) with the board shown and
 *               changing colour every 2 s, recorded at once for --seconds: the recorder tree's CPU
 *               and PSS from /proc, startTask to recordState '1', and stopTask to the MP4 listed.
 *   live        benchLive() (issue 14): one class room of 3 on the same product, pushed live to
 *               Debian's nginx-rtmp (tests/support/rtmp-server.ts) for --seconds, then recorded as
 *               well for --seconds (one session, one encoding: ADR 085), then recorded alone after
 *               the push ends; the recorder tree's CPU in each window. Goal: live + recording at
 *               most 15 % more CPU than live alone.
 *
 * Run it alone: `flock /tmp/banshu-bench.lock node bench/recorder.ts`. Results go to
 * bench/results/recorder-<time>.{md,json}.
 */
import { spawn } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { cpus, tmpdir, totalmem } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createWriteStream, mkdirSync, writeFileSync } from 'node:fs';
import { BACKGROUND_COLOURS } from '#core/contracts/board.ts';
import { S3ObjectStore } from '#core/platform/s3-objects.ts';
import { DiskObjectStore, type ObjectStore } from '#core/platform/objects.ts';
import { call } from '#tests/support/api.ts';
import { startS3 } from '#tests/support/s3.ts';
import { startRedis } from '#tests/support/redis.ts';
import { startRtmpServer } from '#tests/support/rtmp-server.ts';
import { startTestServer } from '#tests/support/server.ts';
import { startPostgres } from '#tests/support/postgres.ts';
import { ask, connectRoom } from '#tests/support/room-client.ts';
import { MediaTestPeer } from '#tests/support/media-client.ts';
import { until as mediaUntil } from '#tests/support/until.ts';
import { publishRtp } from '#tests/support/rtp-file-publisher.ts';
import { joinSegments, probeMedia, scanSegment } from '../workers/record/join.ts';
import { Assembly } from '../workers/record/assembly.ts';
import { createLogger } from '#core/platform/logger.ts';
import { runBench } from './lib/entry.ts';
import { machineTicks, ownCpuSeconds, reapedChildrenCpuSeconds, sampleTree, type TreeUsage } from './lib/process-tree.ts';
import { markdownTable } from './lib/stats.ts';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '30' },
    minutes: { type: 'string', default: '1,10,60' },
    parts: { type: 'string', default: 'reference,stop,recording,live' },
    recordings: { type: 'string', default: '1,2' },
  },
  allowPositionals: true,
});
const seconds = Math.max(8, Number(values.seconds));
const minutesList = values.minutes
  .split(',')
  .map(Number)
  .filter((m) => m > 0);
const parts = new Set(values.parts.split(','));
const recordingsList = values.recordings
  .split(',')
  .map(Number)
  .filter((n) => n > 0);
const log = (line: string) => console.error(line);

/** The contract's settings (RECORDING_* defaults). */
const SETTINGS = { width: 1280, height: 720, fps: 30, videoKbps: 3000, audioKbps: 128, segmentSeconds: 4 };

function encoderArgs(outDir: string, durationSec: number): string[] {
  const { width, height, fps, videoKbps, audioKbps, segmentSeconds } = SETTINGS;
  return [
    ...['-hide_banner', '-nostdin', '-nostats', '-v', 'error', '-y'],
    ...['-re', '-f', 'lavfi', '-i', `testsrc2=size=${String(width)}x${String(height)}:rate=${String(fps)}`],
    ...['-re', '-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=48000'],
    ...['-t', String(durationSec), '-map', '0:v', '-map', '1:a'],
    ...['-c:v', 'libx264', '-preset', 'veryfast', '-b:v', `${String(videoKbps)}k`, '-maxrate', `${String(videoKbps)}k`],
    ...['-bufsize', `${String(2 * videoKbps)}k`, '-g', String(2 * fps), '-keyint_min', String(2 * fps), '-sc_threshold', '0'],
    ...['-pix_fmt', 'yuv420p', '-c:a', 'aac', '-b:a', `${String(audioKbps)}k`, '-ar', '48000', '-ac', '2'],
    ...['-f', 'segment', '-segment_time', String(segmentSeconds), '-segment_format', 'mpegts'],
    path.join(outDir, 'seg-%06d.ts'),
  ];
}

interface ReferenceResult {
  wallS: number;
  /** The whole machine over the run, % of both cores (everything else running included). */
  machinePct: number;
  usage: TreeUsage;
  segments: number;
  segmentBytes: number[];
}

/** (a) The reference encode at real time, sampled from /proc. */
async function reference(dir: string): Promise<ReferenceResult> {
  const out = path.join(dir, 'reference');
  await mkdir(out, { recursive: true });
  const started = performance.now();
  const m0 = machineTicks();
  const child = spawn('ffmpeg', encoderArgs(out, seconds), { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr.on('data', (c: Buffer) => (err = (err + c.toString()).slice(-4000)));
  const sampler = sampleTree(child.pid!, 250);
  const code = await new Promise<number>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (c) => resolve(c ?? 1));
  });
  const usage = sampler.stop();
  const m1 = machineTicks();
  if (code !== 0) throw new Error(`reference encode failed (${String(code)}): ${err}`);
  const files = (await readdir(out)).filter((f) => f.endsWith('.ts')).sort();
  const segmentBytes = await Promise.all(files.map(async (f) => (await stat(path.join(out, f))).size));
  const machinePct = (100 * (m1.busy - m0.busy)) / (m1.total - m0.total);
  return { wallS: (performance.now() - started) / 1000, machinePct, usage, segments: files.length, segmentBytes };
}

interface StopRow {
  minutes: number;
  segments: number;
  scanS: number;
  joinS: number;
  joinCpuS: number;
  uploadS: number;
  totalS: number;
  mp4Bytes: number;
  durationS: number;
  moovFirst: boolean;
  machinePct: number;
  /** Fetching every segment from the store first (a task resumed by a recorder that lacks them). */
  downloadS: number;
}

/** Runs `work` over `items`, `width` at a time. */
async function eachLimited<T>(items: T[], width: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < items.length; i = next++) await work(items[i]!);
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
}

/** (b) One stop: join `minutes` of segments into a fast-start MP4 and upload it. */
async function stopToMp4(dir: string, segment: string, minutes: number, store: S3ObjectStore): Promise<StopRow> {
  const count = Math.round((minutes * 60) / SETTINGS.segmentSeconds);
  const segDir = path.join(dir, `segments-${String(minutes)}`);
  await mkdir(segDir, { recursive: true });
  log(`  ${String(minutes)} min: copying ${String(count)} segments`);
  const files: string[] = [];
  for (let i = 0; i < count; i++) {
    const file = path.join(segDir, `seg-${String(i).padStart(6, '0')}.ts`);
    await copyFile(segment, file);
    files.push(file);
  }
  const out = path.join(dir, `joined-${String(minutes)}.mp4`);
  try {
    log(`  ${String(minutes)} min: joining`);
    // The scan alone (joinSegments does it too, first): how much of the join is reading timestamps.
    const scan0 = performance.now();
    for (const f of files) await scanSegment(f);
    const scanS = (performance.now() - scan0) / 1000;

    const m0 = machineTicks();
    const cpu0 = reapedChildrenCpuSeconds();
    const join0 = performance.now();
    const joined = await joinSegments(files, out);
    const joinS = (performance.now() - join0) / 1000;
    const joinCpuS = reapedChildrenCpuSeconds() - cpu0;

    log(`  ${String(minutes)} min: uploading ${(joined.bytes / 1e6).toFixed(0)} MB`);
    const up0 = performance.now();
    await store.putFile(`records/bench/${String(minutes)}/joined.mp4`, out, 'video/mp4');
    const uploadS = (performance.now() - up0) / 1000;
    const m1 = machineTicks();
    const head = await store.head(`records/bench/${String(minutes)}/joined.mp4`);
    if (head?.size !== joined.bytes) throw new Error(`the store holds ${String(head?.size)} bytes of ${String(joined.bytes)}`);
    const probe = await probeMedia(out);

    // A recorder resuming someone else's task has none of the segments: they come from the store.
    log(`  ${String(minutes)} min: segments to the store and back`);
    const keys = files.map((_, i) => `records/bench/${String(minutes)}/seg-${String(i).padStart(6, '0')}.ts`);
    await eachLimited(keys, 8, async (key) => store.putFile(key, segment, 'video/mp2t'));
    const fetched = path.join(dir, `fetched-${String(minutes)}`);
    await mkdir(fetched, { recursive: true });
    const down0 = performance.now();
    await eachLimited(keys, 8, async (key) => {
      if (!(await store.download(key, path.join(fetched, path.basename(key))))) throw new Error(`${key} is not in the store`);
    });
    const downloadS = (performance.now() - down0) / 1000;
    await rm(fetched, { recursive: true, force: true });
    return {
      minutes,
      segments: count,
      scanS,
      joinS,
      joinCpuS,
      uploadS,
      totalS: joinS + uploadS,
      mp4Bytes: joined.bytes,
      durationS: joined.durationMs / 1000,
      moovFirst: probe.moovFirst,
      machinePct: (100 * (m1.busy - m0.busy)) / (m1.total - m0.total),
      downloadS,
    };
  } finally {
    await rm(segDir, { recursive: true, force: true });
    await rm(out, { force: true });
  }
}

interface AssembledRow {
  minutes: number;
  /** During the class: every segment but the last remuxed and appended, parts sent (wall, CPU of ffmpeg, parts). */
  classS: number;
  classCpuS: number;
  partsBefore: number;
  /** The stop: the last segment fed, the cut, init + sidx, the last parts, complete, until the object is in the store. */
  stopS: number;
  stopCpuS: number;
  /** Of stopS: the store joining the parts (CompleteMultipartUpload). */
  completeS: number;
  bytesAtStop: number;
  store: string;
  mp4Bytes: number;
  durationS: number;
  moovFirst: boolean;
  fragmented: boolean;
  machinePct: number;
}

/** (b') The stop with the MP4 assembled as the class went (ADR 106), over the same segment copies. */
async function stopAssembled(dir: string, segment: string, minutes: number, plain: ObjectStore): Promise<AssembledRow> {
  // The store's own joining of the parts (s3rver copies them in this process; S3 does it on its side), timed apart.
  let completeS = 0;
  const store = new Proxy(plain, {
    get(target, prop) {
      const v = Reflect.get(target, prop, target) as unknown;
      if (typeof v !== 'function') return v;
      const f = (v as (...a: unknown[]) => unknown).bind(target);
      if (prop !== 'completeMultipart') return f;
      return async (...a: unknown[]) => {
        const t0 = performance.now();
        try {
          return await f(...a);
        } finally {
          completeS += (performance.now() - t0) / 1000;
        }
      };
    },
  });
  const count = Math.round((minutes * 60) / SETTINGS.segmentSeconds);
  const segDir = path.join(dir, `assembled-${String(minutes)}`);
  await mkdir(segDir, { recursive: true });
  const files: string[] = [];
  for (let i = 0; i < count; i++) {
    const file = path.join(segDir, `seg-${String(i).padStart(6, '0')}.ts`);
    await copyFile(segment, file);
    files.push(file);
  }
  const key = `records/bench/${String(minutes)}/assembled.mp4`;
  const assembly = new Assembly({ objects: store, key, dir: segDir, logger: createLogger('warn') });
  try {
    log(`  ${String(minutes)} min: the class (${String(count - 1)} segments fed)`);
    const cpu0 = reapedChildrenCpuSeconds();
    const class0 = performance.now();
    for (let i = 0; i < count - 1; i++) assembly.feed({ seq: i, file: files[i]! });
    await assembly.settled();
    const classS = (performance.now() - class0) / 1000;
    const classCpuS = reapedChildrenCpuSeconds() - cpu0;
    if (!assembly.whole) throw new Error('the assembly stopped during the class');
    const partsBefore = assembly.partsSent;

    log(`  ${String(minutes)} min: the stop`);
    const m0 = machineTicks();
    const cpu1 = reapedChildrenCpuSeconds();
    const stop0 = performance.now();
    assembly.feed({ seq: count - 1, file: files[count - 1]! });
    await assembly.settled();
    // The stop came 2 s before the last segment ended (the cut remuxes that segment again, shorter).
    const r = await assembly.finish(
      files.map((_, i) => i),
      assembly.durationSec - 2,
    );
    const head = await store.head(key);
    const stopS = (performance.now() - stop0) / 1000;
    const stopCpuS = reapedChildrenCpuSeconds() - cpu1;
    const m1 = machineTicks();
    if (head?.size !== r.bytes) throw new Error(`the store holds ${String(head?.size)} bytes of ${String(r.bytes)}`);
    // What a player reads first: the store's first bytes (ftyp, moov, free: the index's unused room, sidx, then a moof).
    const start = Buffer.from((await store.readStart(key, 64 * 1024 * 1024))!);
    let at = 0;
    const types: string[] = [];
    while (at + 8 <= start.length && types.length < 5) {
      types.push(start.toString('latin1', at + 4, at + 8));
      at += start.readUInt32BE(at);
    }
    const local = path.join(segDir, 'check.mp4');
    await store.download(key, local);
    const probe = await probeMedia(local);
    await rm(local, { force: true });
    return {
      minutes,
      classS,
      classCpuS,
      partsBefore,
      stopS,
      stopCpuS,
      completeS,
      bytesAtStop: r.bytesAtStop,
      store: plain.adoptFile ? 'disk (rename)' : 's3rver (parts)',
      mp4Bytes: r.bytes,
      durationS: probe.durationSec,
      moovFirst: probe.moovFirst,
      fragmented: types.join(',') === 'ftyp,moov,free,sidx,moof',
      machinePct: (100 * (m1.busy - m0.busy)) / (m1.total - m0.total),
    };
  } finally {
    await assembly.close();
    await rm(segDir, { recursive: true, force: true });
    await store.delete(key).catch(() => undefined);
  }
}

/** A running Banshu with a recorder, as benchRecording drives it. */
export interface RecordingProduct {
  /** Base URL of the web + media side (TestServer.url, or a ROLE=web,media process). */
  url: string;
  /** Sign-in codes sent so far (TestServer.outbox). */
  outbox(): Promise<Array<{ mobile: string; code: string }>>;
  /** Gives a creator what class rooms and recording need (tests: billingRepo.grant). */
  grant(userId: string): Promise<void>;
  /** The process that records (ROLE=recorder); its children (the ffmpeg processes) count with it. */
  recorderPid: number;
  /**
   * Puts real media (camera + microphone) into the room as this person, the `index`th of the
   * class; resolves to its stop. The publisher's own processes must not be in the recorder's tree.
   */
  publish(o: { index: number; mediaUrl: string; mediaToken: string }): Promise<() => Promise<void> | void>;
}

export interface RecordingBenchResult {
  recordings: number;
  /** The recorder tree before any recording started (idle cost). */
  idle: TreeUsage;
  /** The recorder tree while all N recorded. */
  recording: TreeUsage;
  /** The whole machine over the same window, % of both cores (the publishers, the SFU and everyone else included). */
  machinePct: number;
  /** The recorder's Node process alone (intake, SRTP, composition, mixing, uploads), % of a core; the rest of its tree is ffmpeg. */
  recorderNodePct: number;
  /** This bench's own tree without the recorder: the web + media server and the publishers (ffmpeg + werift), % of a core. */
  restPct: number;
  /** Per recording: startTask to recordState '1', stopTask to the MP4 listed (fileSize set), in ms. */
  startMs: number[];
  stopToListedMs: number[];
  files: Array<{ fileId: string; bytes: number; durationMs: number | null }>;
}

async function until<T>(what: string, timeoutMs: number, poll: () => Promise<T | null>): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await poll();
    if (v !== null) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

let mobileSeq = 0;
async function signIn(product: RecordingProduct): Promise<{ token: string; userId: string }> {
  const mobile = `137${String(process.pid % 10000).padStart(4, '0')}${String(++mobileSeq).padStart(4, '0')}`;
  const sent = await call(product.url, 'sendPhoneCode', { mobile, area: '86' });
  if (sent.code !== '0') throw new Error(`sendPhoneCode: ${sent.code} ${sent.msg}`);
  const code = (await product.outbox()).find((m) => m.mobile === mobile)?.code;
  if (!code) throw new Error('no code in the outbox');
  const login = await call(product.url, 'loginUser', { mobile, code });
  if (login.code !== '0') throw new Error(`loginUser: ${login.code} ${login.msg}`);
  return { token: login.data.userInfo.userToken, userId: login.data.userInfo.userId };
}

/** People per class: the creator and two students, each with a camera and a microphone. */
const CLASS_SIZE = 3;

/**
 * (c) N concurrent recordings of a running product, each a class room of three people publishing
 * real media, with the board in the main area changing colour every 2 s (set by the creator's
 * room socket, as a teacher does): the recorder process tree sampled while idle and while all N
 * record for `seconds`, the time each took to start, and the time from stop to its MP4 in the
 * library. Uses only the contract's calls (startTask, getRoomMemberRecordState, stopTask,
 * getRecordList) and the room channel.
 */
export async function benchRecording(
  product: RecordingProduct,
  o: { recordings: number; seconds: number; sampleMs?: number },
): Promise<RecordingBenchResult> {
  const rooms: Array<{ roomNumber: string; token: string; stops: Array<() => Promise<void> | void>; taskId?: string }> = [];
  try {
    for (let i = 0; i < o.recordings; i++) {
      const creator = await signIn(product);
      await product.grant(creator.userId);
      const created = await call(product.url, 'createAgoraRoom', { roomType: 1, consumption: 'on' }, { token: creator.token });
      if (created.code !== '0') throw new Error(`createAgoraRoom: ${created.code} ${created.msg}`);
      const room = {
        roomNumber: created.data.roomInfo.roomNumber,
        token: creator.token,
        stops: [] as Array<() => Promise<void> | void>,
      };
      rooms.push(room);
      for (let p = 0; p < CLASS_SIZE; p++) {
        const who = p === 0 ? creator : await signIn(product);
        const joined = await call(product.url, 'userJoinAgoraRoom', { roomNumber: room.roomNumber }, { token: who.token });
        if (joined.code !== '0') throw new Error(`userJoinAgoraRoom: ${joined.code} ${joined.msg}`);
        if (p === 0) {
          const socket = await connectRoom(product.url, joined.data.imToken);
          room.stops.push(() => void socket.close());
          if ((await ask(socket, 'joinRoom')).code !== '0') throw new Error('joinRoom refused');
          let colour = 0;
          const showBoard = async () => {
            const a = await ask(socket, 'customRoomEvent', {
              showState: 'wb',
              roomExtend: JSON.stringify({ color: colour++ % BACKGROUND_COLOURS.length, pageIndex: 0 }),
            });
            if (a.code !== '0') throw new Error(`customRoomEvent: ${a.code}`);
          };
          await showBoard();
          const timer = setInterval(() => void showBoard().catch((e: unknown) => log(`board: ${String(e)}`)), 2000);
          // First of the stops, so no change is on its way when the socket closes.
          room.stops.unshift(() => clearInterval(timer));
        }
        room.stops.push(await product.publish({ index: p, mediaUrl: joined.data.mediaUrl!, mediaToken: joined.data.mediaToken! }));
      }
    }

    const idleSampler = sampleTree(product.recorderPid, o.sampleMs ?? 500);
    await new Promise((r) => setTimeout(r, 3000));
    const idle = idleSampler.stop();

    const startMs = await Promise.all(
      rooms.map(async (room) => {
        const t0 = performance.now();
        const started = await call(product.url, 'startTask', { roomNumber: room.roomNumber }, { token: room.token });
        if (started.code !== '0') throw new Error(`startTask: ${started.code} ${started.msg}`);
        room.taskId = started.data.taskId;
        await until('recordState 1', 20_000, async () => {
          const s = await call(product.url, 'getRoomMemberRecordState', { roomNumber: room.roomNumber }, { token: room.token });
          return s.code === '0' && s.data.recordState === '1' ? true : null;
        });
        return performance.now() - t0;
      }),
    );

    const m0 = machineTicks();
    const node0 = ownCpuSeconds(product.recorderPid);
    // This process's whole tree holds the recorder's too: the rest is the server, the SFU and the publishers.
    const everything = sampleTree(process.pid, o.sampleMs ?? 500);
    const sampler = sampleTree(product.recorderPid, o.sampleMs ?? 500);
    await new Promise((r) => setTimeout(r, o.seconds * 1000));
    const recording = sampler.stop();
    const all = everything.stop();
    const recorderNodePct = (100 * (ownCpuSeconds(product.recorderPid) - node0)) / recording.seconds;
    const m1 = machineTicks();

    const stopped = await Promise.all(
      rooms.map(async (room) => {
        const t0 = performance.now();
        const stop = await call(product.url, 'stopTask', { roomNumber: room.roomNumber, taskId: room.taskId }, { token: room.token });
        if (stop.code !== '0') throw new Error(`stopTask: ${stop.code} ${stop.msg}`);
        const row = await until('the MP4 in the library', 120_000, async () => {
          // Class recordings are type 2.
          const list = await call(product.url, 'getRecordList', { recordType: 2, pageSize: 50 }, { token: room.token });
          const found = (
            list.data?.recordList as Array<{ taskId: string; fileId: string; fileSize: string; durationMs: number | null }> | undefined
          )?.find((r) => r.taskId === room.taskId && r.fileSize !== '');
          return found ?? null;
        });
        return { ms: performance.now() - t0, file: { fileId: row.fileId, bytes: Number(row.fileSize), durationMs: row.durationMs } };
      }),
    );
    return {
      recordings: o.recordings,
      idle,
      recording,
      machinePct: (100 * (m1.busy - m0.busy)) / (m1.total - m0.total),
      recorderNodePct,
      restPct: all.cpuPct - recording.cpuPct,
      startMs,
      stopToListedMs: stopped.map((s) => s.ms),
      files: stopped.map((s) => s.file),
    };
  } finally {
    for (const room of rooms) for (const stop of room.stops) await stop();
  }
}

export interface LiveBenchResult {
  /** The recorder tree while the class is pushed live only, then pushed and recorded, then recorded only. */
  live: TreeUsage;
  both: TreeUsage;
  recording: TreeUsage;
  /** startLive to liveState '1', ms. */
  startLiveMs: number;
  /** The push's bitrate the recorder reported (kbit/s) at the end of the live window. */
  kbps: number;
}

/**
 * (d) One class room of three pushed live (issue 14): the recorder tree over `seconds` of the push
 * alone, then `seconds` of the push and a recording of the same room (one session and encoding,
 * ADR 085), then `seconds` of the recording alone once the push ended. Uses the contract's calls.
 */
export async function benchLive(product: RecordingProduct, o: { seconds: number; sampleMs?: number }): Promise<LiveBenchResult> {
  const stops: Array<() => Promise<void> | void> = [];
  try {
    const creator = await signIn(product);
    await product.grant(creator.userId);
    const created = await call(product.url, 'createAgoraRoom', { roomType: 1, consumption: 'on' }, { token: creator.token });
    if (created.code !== '0') throw new Error(`createAgoraRoom: ${created.code} ${created.msg}`);
    const roomNumber = created.data.roomInfo.roomNumber;
    const api = async (name: string, body: Record<string, unknown>) => {
      const r = await call(product.url, name, { roomNumber, ...body }, { token: creator.token });
      if (r.code !== '0') throw new Error(`${name}: ${r.code} ${r.msg}`);
      return r.data as Record<string, unknown>;
    };
    for (let p = 0; p < CLASS_SIZE; p++) {
      const who = p === 0 ? creator : await signIn(product);
      const joined = await call(product.url, 'userJoinAgoraRoom', { roomNumber }, { token: who.token });
      if (joined.code !== '0') throw new Error(`userJoinAgoraRoom: ${joined.code} ${joined.msg}`);
      if (p === 0) {
        const socket = await connectRoom(product.url, joined.data.imToken);
        stops.push(() => void socket.close());
        if ((await ask(socket, 'joinRoom')).code !== '0') throw new Error('joinRoom refused');
        let colour = 0;
        const showBoard = async () => {
          await ask(socket, 'customRoomEvent', {
            showState: 'wb',
            roomExtend: JSON.stringify({ color: colour++ % BACKGROUND_COLOURS.length, pageIndex: 0 }),
          });
        };
        await showBoard();
        const timer = setInterval(() => void showBoard().catch((e: unknown) => log(`board: ${String(e)}`)), 2000);
        stops.unshift(() => clearInterval(timer));
      }
      stops.push(await product.publish({ index: p, mediaUrl: joined.data.mediaUrl!, mediaToken: joined.data.mediaToken! }));
    }
    const window = async () => {
      const sampler = sampleTree(product.recorderPid, o.sampleMs ?? 500);
      await new Promise((r) => setTimeout(r, o.seconds * 1000));
      return sampler.stop();
    };

    const t0 = performance.now();
    await api('startLive', { pushPlatform: 'Bench', pushStreamUrl: 'benc-h000-live-0001' });
    await until('live', 30_000, async () => ((await api('getLiveState', {}))['liveState'] === '1' ? true : null));
    const startLiveMs = performance.now() - t0;
    // The push settles (its first seconds include the handshake) before the window opens.
    await new Promise((r) => setTimeout(r, 3000));
    log('live: the push alone');
    const live = await window();
    const kbps = Number((await api('getLiveState', {}))['kbps']);

    const task = (await api('startTask', {}))['taskId'] as string;
    await until('recordState 1', 30_000, async () => ((await api('getRoomMemberRecordState', {}))['recordState'] === '1' ? true : null));
    log('live: the push and a recording of the same room');
    const both = await window();

    await api('endLive', {});
    await new Promise((r) => setTimeout(r, 3000));
    log('live: the recording alone');
    const recording = await window();
    await api('stopTask', { taskId: task });
    await until('the MP4 in the library', 120_000, async () => {
      const list = await call(product.url, 'getRecordList', { recordType: 2, pageSize: 50 }, { token: creator.token });
      return (list.data?.recordList as Array<{ taskId: string; fileSize: string }> | undefined)?.some(
        (r) => r.taskId === task && r.fileSize !== '',
      )
        ? true
        : null;
    });
    return { live, both, recording, startLiveMs, kbps };
  } finally {
    for (const stop of stops) await stop();
  }
}

/** Three camera + microphone sources, as the recorder's integration test publishes them. */
const SOURCES = [
  { video: 'testsrc2=s=320x180:r=30', audio: 'sine=f=440:r=48000,volume=0.1', gop: 30 },
  { video: 'testsrc2=s=320x240:r=15', audio: 'sine=f=300:r=48000,volume=0.05', gop: 15 },
  { video: 'smptebars=s=320x240:r=15', audio: 'sine=f=500:r=48000,volume=0.05', gop: 15 },
];

/**
 * The product as operators run it (ADR 077): this process is a `ROLE=web,media` server on a
 * throwaway PostgreSQL, s3rver and Redis, and hosts the publishers (ffmpeg + werift); the
 * recorder is a child `ROLE=recorder` process with RECORDER_SLOTS=2, so its tree holds only it
 * and the ffmpeg processes it starts.
 */
async function startProduct(dir: string): Promise<RecordingProduct & { close(): Promise<void> }> {
  const closers: Array<() => Promise<void> | void> = [];
  const close = async () => {
    for (const c of closers.reverse()) await c();
  };
  try {
    const pg = await startPostgres();
    closers.push(() => pg.stop());
    const [s3, redis] = await Promise.all([startS3(), startRedis()]);
    closers.push(
      () => s3.close(),
      () => redis.close(),
    );
    const secret = 's'.repeat(64);
    // Where the live part pushes (nginx with libnginx-mod-rtmp, every key accepted).
    const rtmp = await startRtmpServer();
    closers.push(() => rtmp.close());
    const web = await startTestServer({
      engine: 'postgres',
      postgresAdminUrl: pg.url,
      env: { ROLE: 'web,media', SESSION_SECRET: secret, REDIS_URL: redis.url, LIVE_PLATFORMS: `Bench=${rtmp.url}`, ...s3.env },
      realTime: true,
    });
    closers.push(() => web.close());
    const recorderLog = path.join(dir, 'recorder.log');
    const child = spawn(process.execPath, [path.resolve(import.meta.dirname, '../server/main.ts')], {
      cwd: path.resolve(import.meta.dirname, '..'),
      env: {
        PATH: process.env['PATH'] ?? '',
        HOME: process.env['HOME'] ?? '/tmp',
        NODE_ENV: 'test',
        ROLE: 'recorder',
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'info',
        SESSION_SECRET: secret,
        DATA_DIR: path.join(dir, 'recorder-data'),
        DATABASE_URL: web.banshu.platform.database.url!,
        REDIS_URL: redis.url,
        MEDIA_PUBLIC_URL: web.url,
        // The recorder hears the room on the web tier's channels (ADR 109).
        PUBLIC_URL: web.url,
        RECORDER_SLOTS: '2',
        LIVE_PLATFORMS: `Bench=${rtmp.url}`,
        ...s3.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    closers.push(async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const gone = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await gone;
      clearTimeout(timer);
    });
    const sink = createWriteStream(recorderLog);
    child.stdout.pipe(sink);
    child.stderr.pipe(sink);
    let text = '';
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (c: Buffer) => {
        text = (text + c.toString()).slice(-20_000);
        if (text.includes('recorder running')) resolve();
      });
      child.stderr.on('data', (c: Buffer) => (text = (text + c.toString()).slice(-20_000)));
      child.once('exit', (code, signal) => reject(new Error(`recorder exited ${String(code ?? signal)}: ${text.slice(-3000)}`)));
    });
    const peers: MediaTestPeer[] = [];
    closers.push(() => {
      for (const p of peers) p.close();
    });
    return {
      url: web.url,
      outbox: () => web.outbox(),
      grant: async (userId) => {
        await web.banshu.platform.services.billingRepo.grant(userId, { vip_room_time: new Date(Date.now() + 86400_000) });
      },
      recorderPid: child.pid!,
      async publish({ index, mediaUrl, mediaToken }) {
        const peer = await MediaTestPeer.connect(mediaUrl);
        peers.push(peer);
        await peer.ok('join', { token: mediaToken });
        const pub = await publishRtp(peer, SOURCES[index % SOURCES.length]!);
        await mediaUntil('publisher sending', () => pub.sent.video > 10 && pub.sent.audio > 10, 20_000);
        return () => {
          pub.stop();
          peer.close();
        };
      },
      close,
    };
  } catch (e) {
    await close();
    throw e;
  }
}

async function main(): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), 'banshu-bench-recorder-'));
  const sections: string[] = [
    `recorder · ${new Date().toISOString()} · ${String(cpus().length)} cores (${cpus()[0]?.model ?? '?'}), ` +
      `${String(Math.round(totalmem() / 2 ** 30))} GiB · Node ${process.version}`,
  ];
  const json: Record<string, unknown> = { settings: SETTINGS, seconds };
  try {
    log(`reference: ${String(seconds)} s of 720p30 at real time`);
    const ref = await reference(dir);
    json['reference'] = ref;
    if (parts.has('reference')) {
      const meanSegMb = ref.segmentBytes.reduce((a, b) => a + b, 0) / ref.segmentBytes.length / 1e6;
      sections.push(
        '',
        markdownTable(
          [
            'run',
            'wall s',
            'CPU (% of a core)',
            'CPU s per media s',
            'peak PSS MB',
            'mean PSS MB',
            'segments',
            'segment size',
            'machine busy (% of both cores)',
          ],
          [
            [
              `reference: testsrc2 720p30 + tone -> x264 veryfast 3M, AAC 128k, 4 s TS segments, -re`,
              ref.wallS.toFixed(1),
              `${ref.usage.cpuPct.toFixed(0)} %`,
              (ref.usage.cpuSeconds / ref.usage.seconds).toFixed(3),
              ref.usage.peakPssMb.toFixed(0),
              ref.usage.meanPssMb.toFixed(0),
              String(ref.segments),
              `${meanSegMb.toFixed(2)} MB (${((meanSegMb * 8) / SETTINGS.segmentSeconds).toFixed(2)} Mbit/s)`,
              `${ref.machinePct.toFixed(0)} %`,
            ],
          ],
        ),
      );
    }

    if (parts.has('stop')) {
      // A whole segment from the middle of the run (the last one may be short).
      const segment = path.join(dir, 'reference', 'seg-000001.ts');
      const s3 = await startS3();
      const store = new S3ObjectStore({
        endpoint: s3.endpoint,
        bucket: s3.bucket,
        region: 'us-east-1',
        accessKeyId: 'S3RVER',
        secretAccessKey: 'S3RVER',
      });
      const rows: StopRow[] = [];
      const assembled: AssembledRow[] = [];
      const disk = new DiskObjectStore(path.join(dir, 'disk-store'), 'bench', () => 'http://127.0.0.1');
      try {
        for (const minutes of minutesList) {
          log(`stop to MP4: ${String(minutes)} min`);
          rows.push(await stopToMp4(dir, segment, minutes, store));
          log(`stop to MP4, assembled as the class went: ${String(minutes)} min, s3rver`);
          assembled.push(await stopAssembled(dir, segment, minutes, store));
          log(`stop to MP4, assembled as the class went: ${String(minutes)} min, the disk store`);
          assembled.push(await stopAssembled(dir, segment, minutes, disk));
        }
      } finally {
        await s3.close();
      }
      json['stop'] = rows;
      json['stopAssembled'] = assembled;
      sections.push(
        '',
        markdownTable(
          [
            'class length',
            'store',
            'stop to MP4 in store s: join + upload (ADR 076, s3rver)',
            'stop to MP4 in store s: assembled (ADR 106)',
            'of which the store joins the parts s',
            'stop CPU s (ffmpeg, ffprobe)',
            'sent at the stop',
            'during the class: remux + parts s',
            'during the class: CPU s',
            'parts sent before the stop',
            'MP4',
            'duration s',
            'moov first, sidx, fragments',
            'machine busy at the stop (% of both cores)',
          ],
          assembled.map((a) => [
            `${String(a.minutes)} min`,
            a.store,
            rows.find((r) => r.minutes === a.minutes)!.totalS.toFixed(2),
            a.stopS.toFixed(2),
            a.completeS.toFixed(2),
            a.stopCpuS.toFixed(2),
            `${(a.bytesAtStop / 1e6).toFixed(1)} MB`,
            a.classS.toFixed(1),
            a.classCpuS.toFixed(1),
            String(a.partsBefore),
            `${(a.mp4Bytes / 1e6).toFixed(0)} MB`,
            a.durationS.toFixed(1),
            a.moovFirst && a.fragmented ? 'yes' : 'no',
            `${a.machinePct.toFixed(0)} %`,
          ]),
        ),
      );
      sections.push(
        '',
        markdownTable(
          [
            'class length',
            'segments',
            'scan s',
            'join s (scan + ffmpeg + ffprobe)',
            'join CPU s',
            'upload s (s3rver)',
            'stop to MP4 in store s',
            'MP4',
            'duration s',
            'moov first',
            'machine busy (% of both cores)',
            'segments from the store s',
          ],
          rows.map((r) => [
            `${String(r.minutes)} min`,
            String(r.segments),
            r.scanS.toFixed(2),
            r.joinS.toFixed(2),
            r.joinCpuS.toFixed(2),
            r.uploadS.toFixed(2),
            r.totalS.toFixed(2),
            `${(r.mp4Bytes / 1e6).toFixed(0)} MB`,
            r.durationS.toFixed(1),
            r.moovFirst ? 'yes' : 'no',
            `${r.machinePct.toFixed(0)} %`,
            r.downloadS.toFixed(2),
          ]),
        ),
      );
    }
    if (parts.has('recording')) {
      log('recording: starting PostgreSQL, s3rver, Redis, a web,media server and a ROLE=recorder process');
      const product = await startProduct(dir);
      const rows: RecordingBenchResult[] = [];
      try {
        for (const n of recordingsList) {
          log(`recording: ${String(n)} at once, ${String(seconds)} s`);
          rows.push(await benchRecording(product, { recordings: n, seconds }));
        }
      } finally {
        await product.close();
      }
      json['recording'] = rows;
      const s = (ms: number[]) => ms.map((v) => (v / 1000).toFixed(1)).join(' / ');
      sections.push(
        '',
        markdownTable(
          [
            'recordings (3 publishers each)',
            'window s',
            'recorder tree CPU (% of a core)',
            'of both cores',
            'per recording (% of a core)',
            'CPU s per media s per recording',
            'of it Node / ffmpeg (% of a core)',
            'idle before (% of a core)',
            'peak PSS MB',
            'mean PSS MB',
            'processes',
            'startTask -> recordState 1 s',
            'stopTask -> MP4 listed s',
            'MP4 durations s',
            'server + SFU + publishers (% of a core)',
            'machine busy (% of both cores)',
          ],
          rows.map((r) => [
            String(r.recordings),
            r.recording.seconds.toFixed(1),
            `${r.recording.cpuPct.toFixed(0)} %`,
            `${(r.recording.cpuPct / cpus().length).toFixed(0)} %`,
            `${(r.recording.cpuPct / r.recordings).toFixed(0)} %`,
            (r.recording.cpuSeconds / r.recording.seconds / r.recordings).toFixed(3),
            `${r.recorderNodePct.toFixed(0)} / ${(r.recording.cpuPct - r.recorderNodePct).toFixed(0)} %`,
            `${r.idle.cpuPct.toFixed(0)} %`,
            r.recording.peakPssMb.toFixed(0),
            r.recording.meanPssMb.toFixed(0),
            String(r.recording.processes),
            s(r.startMs),
            s(r.stopToListedMs),
            r.files.map((f) => (f.durationMs === null ? '?' : (f.durationMs / 1000).toFixed(1))).join(' / '),
            `${r.restPct.toFixed(0)} %`,
            `${r.machinePct.toFixed(0)} %`,
          ]),
        ),
      );
    }

    if (parts.has('live')) {
      log('live: starting PostgreSQL, s3rver, Redis, nginx-rtmp, a web,media server and a ROLE=recorder process');
      const product = await startProduct(dir);
      let r: LiveBenchResult;
      try {
        r = await benchLive(product, { seconds });
      } finally {
        await product.close();
      }
      json['live'] = r;
      const row = (what: string, u: TreeUsage) => [
        what,
        u.seconds.toFixed(1),
        `${u.cpuPct.toFixed(0)} %`,
        `${((100 * u.cpuPct) / r.live.cpuPct).toFixed(0)} %`,
        u.peakPssMb.toFixed(0),
        String(u.processes),
      ];
      sections.push(
        '',
        markdownTable(
          ['one class of 3 (recorder tree)', 'window s', 'CPU (% of a core)', 'of live alone', 'peak PSS MB', 'processes'],
          [
            row('live push alone', r.live),
            row('live push + recording of the same room', r.both),
            row('recording alone (after the push ended)', r.recording),
          ],
        ),
        '',
        `startLive -> live: ${(r.startLiveMs / 1000).toFixed(1)} s; push bitrate reported ${String(r.kbps)} kbit/s; ` +
          `live + recording costs ${(100 * (r.both.cpuPct / r.live.cpuPct - 1)).toFixed(0)} % more CPU than live alone (goal: at most 15 %).`,
      );
    }

    const report = sections.join('\n');
    console.log(report);
    const resultsDir = path.join(import.meta.dirname, 'results');
    mkdirSync(resultsDir, { recursive: true });
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    writeFileSync(path.join(resultsDir, `recorder-${stamp}.md`), report + '\n');
    writeFileSync(path.join(resultsDir, `recorder-${stamp}.json`), JSON.stringify(json, null, 2));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

// Imported for benchRecording (integration) it does nothing; run as a script it measures.
if (import.meta.main) runBench(main, 30 * 60_000, log);
