/**
 * The recording engine end to end on a real media server: three people publish real VP8 and Opus
 * (ffmpeg over RTP through werift, as browsers would), a RecordingSession joins as the hidden
 * recorder and records about 12 s, and the segments are checked with ffprobe and ffmpeg: the
 * format, the length against the wall clock, a camera tile that shows a picture, a mix that is
 * not silent, and the A/V drift between a flash and a click made at the same instants, less the
 * one the publisher made (its picture and sound leave it at different delays).
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createLogger } from '#core/platform/logger.ts';
import { RECORDER_USER_ID } from '#core/contracts/media-signaling.ts';
import { call, signIn } from '#tests/support/api.ts';
import { MediaTestPeer } from '#tests/support/media-client.ts';
import { until } from '#tests/support/until.ts';
import { flashAndClick, publishRtp, type RtpPublication } from '#tests/support/rtp-file-publisher.ts';
import { startTestServer, type TestServer } from '#tests/support/server.ts';
import { RecordingSession, type ClosedSegment } from '../../workers/record/session.ts';
import type { Scene, SceneView } from '../../workers/record/types.ts';

const run = promisify(execFile);
/** At least this long, and this long again once every track is decoded (enough flashes to pair). */
const RECORD_MS = 12_000;
const FPS = 30;
const FIRST_PICTURES_WAIT_MS = 20_000;
/**
 * The most the recorder may hold the sound behind its picture (or the reverse), median over the
 * events, here. The publishers, the SFU and the recorder share this process on two cores: medians
 * of +27, +45 and +109 ms were measured (single events up to +545 ms after a stall). The bound
 * catches a pipeline that has come apart, not the 40 ms, which the real browser's
 * recording is held to (tests/e2e/recording-sync.test.ts).
 */
const RECORDER_ADDS_AT_MOST_MS = 200;

let server: TestServer;
let workDir: string;
const peers: MediaTestPeer[] = [];
const pubs: RtpPublication[] = [];

beforeAll(async () => {
  server = await startTestServer();
  workDir = await mkdtemp(path.join(tmpdir(), 'banshu-rec-'));
});
afterAll(async () => {
  for (const p of pubs) p.stop();
  for (const p of peers) p.close();
  await server.close();
  await rm(workDir, { recursive: true, force: true });
});

/**
 * A stand-in for the room scene: a mid-grey board and a light name strip per person.
 * `REC_SHOW=cameras` shows the room's video view instead (the gallery; for measuring its cost only:
 * the assertions below are the board's).
 */
function greyScene(creatorId: string): Scene & { labels: string[] } {
  const main = Buffer.alloc((960 * 720 * 3) / 2, 128);
  const cameras = process.env['REC_SHOW'] === 'cameras';
  const view: SceneView = { version: 1, showState: cameras ? 'cameras' : 'wb', main: cameras ? null : main, video: null, creatorId };
  const labels: string[] = [];
  const strips = new Map<string, Buffer>();
  return {
    labels,
    current: () => view,
    label: (userId, w, h) => {
      if (!labels.includes(userId)) labels.push(userId);
      const key = `${String(w)}x${String(h)}`;
      let strip = strips.get(key);
      if (!strip) {
        strip = Buffer.alloc((w * h * 3) / 2, 128);
        strip.fill(200, 0, w * h);
        strips.set(key, strip);
      }
      return strip;
    },
    close: () => undefined,
  };
}

async function probe(file: string) {
  const { stdout } = await run('ffprobe', [
    '-v',
    'error',
    '-show_entries',
    'stream=codec_name,width,height,sample_rate,start_time',
    '-of',
    'json',
    file,
  ]);
  return (
    JSON.parse(stdout) as {
      streams: Array<{ codec_name: string; width?: number; height?: number; sample_rate?: string; start_time: string }>;
    }
  ).streams;
}

/** Raw output of ffmpeg as a Buffer. */
async function raw(args: string[]): Promise<Buffer> {
  const { stdout } = await run('ffmpeg', ['-hide_banner', '-nostdin', '-loglevel', 'error', ...args, 'pipe:1'], {
    encoding: 'buffer',
    maxBuffer: 512 * 1024 * 1024,
  });
  return stdout;
}

/** Times (s) at which a signal goes above `on` after at least `quietS` below it. */
function onsets(values: ArrayLike<number>, rate: number, on: number, quietS: number): number[] {
  const out: number[] = [];
  let lastAbove = -Infinity;
  for (let i = 0; i < values.length; i++) {
    if (values[i]! < on) continue;
    const t = i / rate;
    if (t - lastAbove > quietS) out.push(t);
    lastAbove = t;
  }
  return out;
}

/**
 * Tried a second time when it fails: it measures real-time media on two cores shared by the
 * publishers, the SFU and the recorder, and one full test run in two paired 2 events (3 needed)
 * when the machine stalled, while runs on their own pair 7-14 (ADR 082). Every attempt prints its
 * numbers, and one must pass whole. A retry starts from a new room and new publishers.
 */
it(
  'records three people publishing real media into H.264 + AAC segments, on time and in sync',
  { retry: 1, timeout: 120_000 },
  async () => {
    for (const p of pubs.splice(0)) p.stop();
    for (const p of peers.splice(0)) p.close();
    const teacher = await signIn(server);
    await server.banshu.platform.services.billingRepo.grant(teacher.userId, { vip_room_time: new Date(Date.now() + 86400_000) });
    const created = await call(server.url, 'createAgoraRoom', { roomType: 1, consumption: 'on' }, { token: teacher.token });
    const roomNumber = created.data.roomInfo.roomNumber;
    const people = [teacher, await signIn(server), await signIn(server)];
    const sources = [
      flashAndClick(1),
      // A keyframe every second: a browser answers the recorder's PLI at once, ffmpeg never does.
      { video: 'testsrc2=s=320x240:r=15', audio: 'sine=f=300:r=48000,volume=0.05', gop: 15 },
      { video: 'smptebars=s=320x240:r=15', audio: 'sine=f=500:r=48000,volume=0.05', gop: 15 },
    ];
    for (const [i, who] of people.entries()) {
      const joined = await call(server.url, 'userJoinAgoraRoom', { roomNumber }, { token: who.token });
      const peer = await MediaTestPeer.connect(joined.data.mediaUrl!);
      peers.push(peer);
      await peer.ok('join', { token: joined.data.mediaToken! });
      pubs.push(await publishRtp(peer, sources[i]!));
    }
    await until('publishers sending', () => pubs.every((p) => p.sent.video > 10 && p.sent.audio > 10), 20_000);

    const access = await server.banshu.platform.services.media!.forRecorder(roomNumber);
    const scene = greyScene(teacher.userId);
    const segments: ClosedSegment[] = [];
    const session = await RecordingSession.start({
      ...access,
      workDir,
      firstSeq: 7,
      settings: { width: 1280, height: 720, fps: FPS, videoKbps: 3000, audioKbps: 128, segmentSeconds: 4 },
      scene,
      // Longer than the 3 s a real start waits: the decoders start slowly on a loaded machine.
      firstPicturesWaitMs: FIRST_PICTURES_WAIT_MS,
      logger: createLogger(process.env['TEST_LOG_LEVEL'] ?? 'silent'),
      onSegment: (s) => {
        segments.push(s);
        return Promise.resolve();
      },
    });
    let brokeWith: unknown = null;
    session.broken.catch((err: unknown) => (brokeWith = err));
    await session.flowing;
    const flowingAt = performance.now();
    // The recording begins with the class: every camera there at the start has a picture.
    const firstPicturesMs = Math.round(session.firstPicturesMs);
    const camerasAtFlowing = [...session.intake.videos.values()].map((v) => v.frames);
    const cpu0 = process.cpuUsage();
    // Every track is followed and decoded: three pictures and three voices.
    await until(
      'every track decoded',
      () =>
        session.intake.videos.size === 3 &&
        [...session.intake.videos.values()].every((v) => v.frames > 5) &&
        [...session.intake.audios.values()].filter((a) => a.received > 48_000).length === 3,
      30_000,
    ).catch((err: unknown) => {
      const state = [...session.intake.videos.values(), ...session.intake.audios.values()].map((t) => ({
        id: t.trackId.slice(0, 4),
        source: t.source,
        decoder: t.decoder?.running,
        frames: 'frames' in t ? t.frames : undefined,
        received: 'received' in t ? t.received : undefined,
        connection: t.pc?.connectionState,
        forwarded: t.forwarded,
      }));
      const pubsNow = server.banshu
        .media!.server.serialize()
        .rooms.flatMap((r) =>
          r.peers.flatMap((p) => [
            ...p.publications.map((x) => [p.userId, x.source, x.packets, x.subscribers]),
            ...p.subscriptions.map((x) => ['sub', p.userId, x.trackId.slice(0, 4), x.packets]),
          ]),
        );
      throw new Error(`${String(err)}: ${JSON.stringify(state)} ${JSON.stringify(pubsNow)} ${JSON.stringify(pubs.map((p) => p.sent))}`);
    });
    const decodedS = (performance.now() - flowingAt) / 1000;
    // Segments are handed on while recording, not only at the end.
    await until('segments while recording', () => segments.length >= 2, 15_000);
    const decodedAt = performance.now();
    await until(
      'the recording length',
      () => performance.now() - flowingAt >= RECORD_MS && performance.now() - decodedAt >= RECORD_MS * 0.75,
      RECORD_MS * 2,
    );
    const stopAt = performance.now();
    const nodeCpu = process.cpuUsage(cpu0);
    // CPU of the recorder's children so far (utime + stime from /proc, in clock ticks of 10 ms).
    const ticks = (pid: number | undefined) => {
      try {
        const f = readFileSync(`/proc/${String(pid)}/stat`, 'latin1')
          .split(') ')[1]!
          .split(' ');
        return (Number(f[11]) + Number(f[12])) / 100;
      } catch {
        return 0;
      }
    };
    const encoderCpuS = ticks(session.encoder.child.pid);
    const decoderCpuS = [...session.intake.videos.values(), ...session.intake.audios.values()].reduce(
      (a, t) => a + ticks(t.decoder?.child.pid),
      0,
    );
    await session.stop();
    // It never broke (encoder alive, media node connected) while it recorded.
    expect(brokeWith).toBeNull();
    const wallS = (stopAt - flowingAt) / 1000;

    // Segments: numbered from firstSeq, every one on disk, H.264 1280x720 + AAC 48 kHz.
    expect(segments.map((s) => s.seq)).toEqual(segments.map((_, i) => 7 + i));
    const files = (await readdir(workDir)).filter((f) => f.endsWith('.ts')).sort();
    expect(files).toEqual(segments.map((s) => path.basename(s.file)));
    for (const s of segments) {
      const streams = await probe(s.file);
      expect(streams.find((x) => x.codec_name === 'h264')).toMatchObject({ width: 1280, height: 720 });
      expect(streams.find((x) => x.codec_name === 'aac')).toMatchObject({ sample_rate: '48000' });
      expect(s.bytes).toBeGreaterThan(10_000);
    }
    const totalS = segments.reduce((a, s) => a + s.durationMs, 0) / 1000;
    expect.soft(Math.abs(totalS - wallS)).toBeLessThanOrEqual(0.5);

    // The first frame of the file shows the three cameras, not empty dark tiles (luma 40).
    const first = await raw(['-i', segments[0]!.file, '-frames:v', '1', '-vf', 'format=gray', '-f', 'rawvideo']);
    const firstTiles = [0, 180, 360].map((y0) => {
      let sum = 0;
      for (let y = y0; y < y0 + 150; y++) for (let x = 960; x < 1280; x++) sum += first[y * 1280 + x]!;
      return Math.round(sum / (320 * 150));
    });
    expect.soft(firstPicturesMs).toBeLessThan(FIRST_PICTURES_WAIT_MS);
    expect.soft(camerasAtFlowing.every((f) => f > 0)).toBe(true);
    for (const l of firstTiles) expect.soft(l).toBeGreaterThan(55);

    const all = `concat:${segments.map((s) => s.file).join('|')}`;
    // A student's tile (slot 2: testsrc2) shows a picture, not black; the main area is the grey board.
    const still = await raw(['-ss', String(Math.floor(totalS - 2)), '-i', all, '-frames:v', '1', '-vf', 'format=gray', '-f', 'rawvideo']);
    const mean = (x0: number, y0: number, w: number, h: number) => {
      let sum = 0;
      for (let y = y0; y < y0 + h; y++) for (let x = x0; x < x0 + w; x++) sum += still[y * 1280 + x]!;
      return sum / (w * h);
    };
    expect.soft(mean(960, 180, 320, 150)).toBeGreaterThan(40);
    expect.soft(Math.abs(mean(100, 100, 700, 500) - 128)).toBeLessThan(6);
    // The name strips were asked for everyone, and the teacher (the creator) has the first slot.
    expect(scene.labels[0]).toBe(teacher.userId);
    expect(new Set(scene.labels)).toEqual(new Set(people.map((p) => p.userId)));

    // The mix is not silent.
    const { stderr } = await run('ffmpeg', [
      '-hide_banner',
      '-nostdin',
      '-i',
      all,
      '-map',
      '0:a',
      '-af',
      'volumedetect',
      '-f',
      'null',
      '-',
    ]);
    const meanVolume = Number(/mean_volume: (-?[\d.]+) dB/.exec(stderr)?.[1]);
    expect.soft(meanVolume).toBeGreaterThan(-45);

    // A/V drift: the teacher's flashes (slot 0 goes white) against the clicks in the mix.
    const streams = await probe(segments[0]!.file);
    const vStart = Number(streams.find((x) => x.codec_name === 'h264')!.start_time);
    const aStart = Number(streams.find((x) => x.codec_name === 'aac')!.start_time);
    const tiles = await raw(['-i', all, '-map', '0:v', '-vf', 'crop=320:150:960:0,scale=32:15,format=gray', '-f', 'rawvideo']);
    const luma: number[] = [];
    for (let at = 0; at + 480 <= tiles.length; at += 480) {
      let s = 0;
      for (let i = at; i < at + 480; i++) s += tiles[i]!;
      luma.push(s / 480);
    }
    // Only once every track was decoded (before, a picture may be missing while the sound is there).
    const from = decodedS + 0.5;
    const flashes = onsets(luma, FPS, 200, 0.5)
      .map((t) => t + vStart)
      .filter((t) => t > from);
    const pcm = await raw(['-i', all, '-map', '0:a', '-ac', '1', '-ar', '48000', '-f', 's16le']);
    const amp = new Float32Array(pcm.length / 2);
    for (let i = 0; i < amp.length; i++) amp[i] = Math.abs(pcm.readInt16LE(i * 2)) / 32768;
    const clicks = onsets(amp, 48_000, 0.4, 0.5).map((t) => t + aStart);
    expect.soft(flashes.length).toBeGreaterThanOrEqual(3);
    expect.soft(clicks.length).toBeGreaterThanOrEqual(3);
    // Each event (a flash and a click at media time k s) as it left the publisher and as it is in the
    // file (file time 0 is the session's first frame). The publisher's own click - flash is taken
    // out: what is left is what the SFU and the recorder added.
    const fileZero = session.startedAtMs;
    const near = (xs: number[], at: number) => xs.find((x) => fileZero + x * 1000 >= at - 100 && fileZero + x * 1000 < at + 700);
    const events: Array<{ k: number; madeMs: number; inFileMs: number; addedMs: number }> = [];
    for (let k = 1; k < 60; k++) {
      const flashSent = pubs[0]!.sentAt('video', k);
      const clickSent = pubs[0]!.sentAt('audio', k);
      if (flashSent === null || clickSent === null) continue;
      const f = near(flashes, flashSent);
      const c = near(clicks, clickSent);
      if (f === undefined || c === undefined) continue;
      const inFileMs = (c - f) * 1000;
      events.push({
        k,
        madeMs: Math.round(clickSent - flashSent),
        inFileMs: Math.round(inFileMs),
        addedMs: Math.round(inFileMs - (clickSent - flashSent)),
      });
    }
    const added = events.map((e) => e.addedMs).sort((a, b) => a - b);
    const median = added[added.length >> 1] ?? NaN;
    console.log(
      JSON.stringify({
        wallS: +wallS.toFixed(3),
        segmentsS: totalS,
        segments: segments.map((s) => s.durationMs),
        flashes: flashes.map((t) => +t.toFixed(3)),
        clicks: clicks.map((t) => +t.toFixed(3)),
        events,
        medianAddedMs: median,
        meanVolumeDb: meanVolume,
        studentTileLuma: Math.round(mean(960, 180, 320, 150)),
        repeatedFrames: session.repeated,
        decodedAfterS: +decodedS.toFixed(2),
        firstPicturesMs,
        firstTilesLuma: firstTiles,
        // % of one core over the recording: the encoder, the six decoders, the compositor and mixer
        // (their own time), and the whole test process (SFU, publishers' werift and recorder together).
        encoderCpuPct: Math.round((encoderCpuS / wallS) * 100),
        decodersCpuPct: Math.round((decoderCpuS / wallS) * 100),
        composeMixPct: Math.round((session.busyMs / 1000 / wallS) * 100),
        testProcessCpuPct: Math.round(((nodeCpu.user + nodeCpu.system) / 1e6 / wallS) * 100),
      }),
    );
    // Checked once every number is printed (above), so a failing run still reports them.
    // Measured from where the packets reach the SFU, the recorder's own part: its sound waits in a
    // buffer of 20-50 ms that its pictures do not (ADR 080), plus what the shared cores add. The
    // issue's 40 ms is held where people see it, from the camera and the microphone of a real
    // browser (tests/e2e/recording-sync): a browser's picture leaves it later after capture than its sound.
    expect(events.length).toBeGreaterThanOrEqual(3);
    expect(Math.abs(median)).toBeLessThanOrEqual(RECORDER_ADDS_AT_MOST_MS);

    // Nobody in the room was told about the recorder.
    for (const p of peers) expect(JSON.stringify(p.notes)).not.toContain(RECORDER_USER_ID);
    // It left: its subscriptions are gone from the node.
    await until('the recorder gone', () => server.banshu.media!.server.load().subscriptions === 0, 5000);
  },
);

it('composes at 1280x720 and lets the encoder scale to another configured size (640x360)', async () => {
  const teacher = await signIn(server);
  await server.banshu.platform.services.billingRepo.grant(teacher.userId, { vip_room_time: new Date(Date.now() + 86400_000) });
  const created = await call(server.url, 'createAgoraRoom', { roomType: 1, consumption: 'on' }, { token: teacher.token });
  const access = await server.banshu.platform.services.media!.forRecorder(created.data.roomInfo.roomNumber);
  const dir = await mkdtemp(path.join(tmpdir(), 'banshu-rec-small-'));
  const segments: ClosedSegment[] = [];
  const session = await RecordingSession.start({
    ...access,
    workDir: dir,
    firstSeq: 0,
    settings: { width: 640, height: 360, fps: FPS, videoKbps: 800, audioKbps: 64, segmentSeconds: 1 },
    scene: greyScene(teacher.userId),
    logger: createLogger(process.env['TEST_LOG_LEVEL'] ?? 'silent'),
    onSegment: (s) => {
      segments.push(s);
      return Promise.resolve();
    },
  });
  try {
    await session.flowing;
    await until('two segments', () => segments.length >= 2, 20_000);
  } finally {
    await session.stop();
  }
  const streams = await probe(segments[0]!.file);
  expect(streams.find((x) => x.codec_name === 'h264')).toMatchObject({ width: 640, height: 360 });
  // The whole layout, scaled: the grey board fills the left three quarters.
  const still = await raw(['-i', segments[1]!.file, '-frames:v', '1', '-vf', 'format=gray', '-f', 'rawvideo']);
  expect(still.length).toBe(640 * 360);
  expect(Math.abs(still[180 * 640 + 240]! - 128)).toBeLessThan(6);
  await rm(dir, { recursive: true, force: true });
}, 60_000);
