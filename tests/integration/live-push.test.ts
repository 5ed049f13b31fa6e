/**
 * The live push against a real RTMP server (Debian's nginx with its rtmp module, started here):
 * the recording encoder's one encoding, joined at a keyframe from its MPEG-TS tap and copied to
 * FLV over RTMP (ADR 084). Pulled back with ffprobe: H.264 1280x720 30 fps, AAC 48 kHz, a keyframe
 * every 2 s. nginx stopped for 10 s: the push says 'reconnecting', is back within 5 s of nginx's
 * return, and the encoder's segments (the recording) go on without a gap. A key the server refuses
 * fails at once. The key never reaches the log.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pushUrl } from '#core/contracts/streaming.ts';
import { Encoder } from '../../workers/record/encoder.ts';
import { LivePush, type LiveStatus } from '../../workers/record/live-push.ts';
import { TsTap } from '../../workers/record/ts-tap.ts';
import type { ClosedSegment } from '../../workers/record/types.ts';
import { capturingLogger } from '#tests/support/log-capture.ts';
import { until } from '#tests/support/until.ts';
import { startPublishHook, startRtmpServer, type TestRtmpServer } from '#tests/support/rtmp-server.ts';

const exec = promisify(execFile);
const KEY = 'live-abcd-1234-efgh';
const REFUSED_KEY = 'nope-0000-0000-0000';
const FPS = 30;

let dir = '';
let rtmp: TestRtmpServer;
let hook: Awaited<ReturnType<typeof startPublishHook>> | undefined;
let encoder: Encoder;
let feed: NodeJS.Timeout;
const segments: ClosedSegment[] = [];
const tap = new TsTap();
const { logger, lines } = capturingLogger('debug');

/** A picture that changes every frame (a moving bar), so the stream is not all skipped blocks. */
function frame(n: number): Buffer {
  const w = 1280;
  const h = 720;
  const f = Buffer.alloc((w * h * 3) / 2, 128);
  f.fill(40, 0, w * h);
  const x = (n * 8) % w;
  for (let y = 0; y < h; y++) f.fill(235, y * w + x, y * w + Math.min(w, x + 64));
  return f;
}

/** What ffprobe reads from the live stream: its streams, and the video packets' times and key flags. */
async function pull(
  span: number | string,
): Promise<{ streams: Array<Record<string, unknown>>; packets: Array<{ pts_time: string; flags: string }> }> {
  const { stdout } = await exec(
    'ffprobe',
    [
      '-v',
      'error',
      '-rw_timeout',
      '5000000',
      '-read_intervals',
      `%+${String(span)}`,
      '-show_streams',
      '-show_packets',
      '-select_streams',
      'v',
      '-of',
      'json',
      `${rtmp.url}/${KEY}`,
    ],
    { timeout: 30_000, maxBuffer: 64 * 1024 * 1024 },
  );
  const out = JSON.parse(stdout) as { streams?: Array<Record<string, unknown>>; packets?: Array<{ pts_time: string; flags: string }> };
  return { streams: out.streams ?? [], packets: out.packets ?? [] };
}

async function audioOf(): Promise<Record<string, unknown> | undefined> {
  const { stdout } = await exec(
    'ffprobe',
    ['-v', 'error', '-rw_timeout', '5000000', '-show_streams', '-select_streams', 'a', '-of', 'json', `${rtmp.url}/${KEY}`],
    {
      timeout: 20_000,
    },
  );
  return (JSON.parse(stdout) as { streams?: Array<Record<string, unknown>> }).streams?.[0];
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'banshu-live-'));
  // nginx asks this hook before it takes a stream: the refused key is told no.
  hook = await startPublishHook([REFUSED_KEY]);
  rtmp = await startRtmpServer({ onPublish: hook.url });

  encoder = new Encoder({
    settings: { width: 1280, height: 720, fps: FPS, videoKbps: 2500, audioKbps: 128, segmentSeconds: 2 },
    workDir: dir,
    firstSeq: 0,
    logger,
    onSegment: (s) => {
      segments.push(s);
      return Promise.resolve();
    },
    onLive: (c) => tap.write(c),
  });
  const samples = Buffer.alloc(1600 * 2);
  const t0 = performance.now();
  let n = 0;
  feed = setInterval(() => {
    while (n < Math.floor(((performance.now() - t0) * FPS) / 1000) + 1) {
      encoder.video.write(frame(n));
      encoder.audio.write(samples);
      n++;
    }
  }, 10);
}, 60_000);

afterAll(async () => {
  clearInterval(feed);
  await encoder?.end().catch(() => undefined);
  await rtmp?.close();
  await hook?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('the live push', () => {
  let push: LivePush;

  it('streams H.264 1280x720 ~30 fps and AAC 48 kHz with a keyframe every 2 s', async () => {
    push = new LivePush({ url: pushUrl(rtmp.url, KEY), tap, logger, onStatus: () => undefined });
    await until('the push live', () => push.status.state === 'live', 15_000);
    const { streams, packets } = await pull(8);
    const v = streams[0]!;
    expect(v['codec_name']).toBe('h264');
    expect([v['width'], v['height']]).toEqual([1280, 720]);
    const [num, den] = String(v['avg_frame_rate'] ?? v['r_frame_rate'])
      .split('/')
      .map(Number);
    expect(Math.abs(num! / (den || 1) - 30)).toBeLessThan(1.5);
    const a = await audioOf();
    expect(a?.['codec_name']).toBe('aac');
    expect(a?.['sample_rate']).toBe('48000');
    const keys = packets.filter((p) => p.flags.startsWith('K')).map((p) => Number(p.pts_time));
    expect(keys.length).toBeGreaterThanOrEqual(3);
    const gaps = keys.slice(1).map((t, i) => t - keys[i]!);
    console.log(`keyframe gaps (s): ${gaps.map((g) => g.toFixed(3)).join(', ')}; kbps ${String(push.status.kbps)}`);
    for (const g of gaps) expect(Math.abs(g - 2)).toBeLessThanOrEqual(1 / FPS + 0.001);
  }, 60_000);

  it('says reconnecting while the server is down 10 s, is back within 5 s of its return, and the recording has no gap', async () => {
    const segmentsBefore = segments.length;
    await rtmp.stop();
    const stoppedAt = performance.now();
    await until('reconnecting', () => push.status.state === 'reconnecting', 10_000);
    await until('10 s down', () => performance.now() - stoppedAt >= 10_000, 12_000);
    expect(push.status.state).toBe('reconnecting');
    await rtmp.start();
    const back = performance.now();
    await until('live again within 5 s', () => push.status.state === 'live', 5000);
    const liveAfterMs = performance.now() - back;
    // A viewer's first packet (ffprobe reading one).
    const { streams } = await pull('#1');
    const pulledAfterMs = performance.now() - back;
    console.log(
      `live again ${liveAfterMs.toFixed(0)} ms after the server's return; pulled ${pulledAfterMs.toFixed(0)} ms after; attempts ${String(push.attempts)}`,
    );
    expect(streams[0]?.['codec_name']).toBe('h264');
    expect(pulledAfterMs).toBeLessThan(5000);
    // The encoder went on: every 2 s segment of the outage was closed, one after the other.
    const during = segments.slice(segmentsBefore);
    expect(during.length).toBeGreaterThanOrEqual(5);
    expect(during.map((s) => s.seq)).toEqual(during.map((_, i) => segments[segmentsBefore]!.seq + i));
    for (const s of during.slice(0, -1)) expect(Math.abs(s.durationMs - 2000)).toBeLessThanOrEqual(40);
  }, 60_000);

  it('ends cleanly, and a refused key fails within 5 s without retrying', async () => {
    await push.end();
    expect(push.status.state).toBe('ended');
    const refusedStatuses: LiveStatus[] = [];
    const began = performance.now();
    const refused = new LivePush({ url: pushUrl(rtmp.url, REFUSED_KEY), tap, logger, onStatus: (s) => refusedStatuses.push(s) });
    await until('the refusal', () => refused.status.state === 'failed', 5000);
    console.log(`refused after ${(performance.now() - began).toFixed(0)} ms`);
    expect(refused.status.reason).toBe('refused');
    expect(refused.attempts).toBe(1);
    expect(refusedStatuses.map((s) => s.state)).not.toContain('reconnecting');
  }, 30_000);

  it('never writes a key to the log', () => {
    const text = JSON.stringify(lines);
    expect(lines.some((l) => l.msg === 'the live push stopped')).toBe(true);
    expect(text).not.toContain(KEY);
    expect(text).not.toContain(REFUSED_KEY);
  });
});
