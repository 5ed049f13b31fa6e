/**
 * The RTMP test server (tests/support/rtmp-server.ts) proven with real ffmpeg, before live
 * streaming (issue 14) relies on it: a stream pushed to it can be played back while it runs, its
 * on_publish hook refuses a key as a video platform does, and it comes back on the same port after
 * an outage. One nginx for the file; its hook is a small HTTP server here that refuses one key.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startRtmpServer, type TestRtmpServer } from '#tests/support/rtmp-server.ts';

const exec = promisify(execFile);

const WIDTH = 640;
const HEIGHT = 360;
const FPS = 25;
const SAMPLE_RATE = 48_000;
const REFUSED_KEY = 'wxyz-wxyz-wxyz-wxyz';

interface HookCall {
  call: string | null;
  app: string | null;
  name: string | null;
  addr: string | null;
}

interface Exit {
  code: number | null;
  ms: number;
  stderr: string;
}

let rtmp: TestRtmpServer;
let hook: Server;
const calls: HookCall[] = [];
const waiting: (() => void)[] = [];
const children = new Set<ChildProcess>();

interface Publisher {
  key: string;
  child: ChildProcess;
  exited: Promise<Exit>;
}

function wakeWaiters() {
  for (const wake of waiting.splice(0)) wake();
}

/** Resolves when nginx has asked the on_publish hook about this publisher's key; fails if ffmpeg ends first. */
async function hookAsked(publisher: Publisher): Promise<HookCall> {
  let ended: Exit | undefined;
  void publisher.exited.then((exit) => {
    ended = exit;
    wakeWaiters();
  });
  for (;;) {
    const found = calls.find((c) => c.name === publisher.key);
    if (found) return found;
    if (ended) throw new Error(`ffmpeg ended (${String(ended.code)}) before the hook was asked about ${publisher.key}: ${ended.stderr}`);
    await new Promise<void>((resolve) => waiting.push(resolve));
  }
}

/** ffmpeg pushing `seconds` of a test picture (H.264) and a tone (AAC) in real time, as FLV over RTMP. */
function publish(key: string, seconds: number): Publisher {
  const started = Date.now();
  const child = spawn(
    'ffmpeg',
    [
      ...['-hide_banner', '-nostdin', '-loglevel', 'error'],
      ...['-re', '-f', 'lavfi', '-i', `testsrc2=size=${String(WIDTH)}x${String(HEIGHT)}:rate=${String(FPS)}`],
      ...['-re', '-f', 'lavfi', '-i', `sine=frequency=440:sample_rate=${String(SAMPLE_RATE)}`],
      ...['-t', String(seconds), '-c:v', 'libx264', '-preset', 'ultrafast', '-tune', 'zerolatency'],
      ...['-g', String(FPS), '-pix_fmt', 'yuv420p'],
      ...['-c:a', 'aac', '-b:a', '96k', '-f', 'flv', `${rtmp.url}/${key}`],
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  children.add(child);
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<Exit>((resolve) =>
    child.once('exit', (code) => {
      children.delete(child);
      resolve({ code, ms: Date.now() - started, stderr });
    }),
  );
  return { key, child, exited };
}

interface ProbedStream {
  codec_type: string;
  codec_name: string;
  width?: number;
  height?: number;
  sample_rate?: string;
  nb_read_packets?: string;
}

/** Plays the live stream for 2 s with ffprobe and returns what it found, packets counted. */
async function play(key: string): Promise<ProbedStream[]> {
  const { stdout } = await exec(
    'ffprobe',
    [
      ...['-v', 'error', '-read_intervals', '%+2', '-count_packets'],
      ...['-show_entries', 'stream=codec_type,codec_name,width,height,sample_rate,nb_read_packets', '-of', 'json'],
      `${rtmp.url}/${key}`,
    ],
    { timeout: 20_000 },
  );
  return (JSON.parse(stdout) as { streams: ProbedStream[] }).streams;
}

async function accepts(port: number): Promise<boolean> {
  return await new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    const done = (result: boolean) => {
      socket.destroy();
      resolve(result);
    };
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** Local addresses (kernel hex, e.g. 0100007F) of the sockets listening on this TCP port, from /proc. */
async function listeningOn(port: number): Promise<string[]> {
  const found: string[] = [];
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    const table = await readFile(file, 'utf8').catch(() => '');
    for (const line of table.split('\n').slice(1)) {
      const [, local, , state] = line.trim().split(/\s+/);
      const [address, hexPort] = local?.split(':') ?? [];
      if (state === '0A' && address && hexPort && Number.parseInt(hexPort, 16) === port) found.push(address);
    }
  }
  return found;
}

async function errorLog(): Promise<string> {
  return await readFile(rtmp.errorLog, 'utf8').catch(() => '');
}

/** A stream played back while the publisher still runs is H.264 at the published size with AAC sound. */
async function expectLive(publisher: Publisher) {
  const streams = await play(publisher.key);
  expect(publisher.child.exitCode, 'the publisher was still pushing during playback').toBeNull();
  const video = streams.find((s) => s.codec_type === 'video');
  const audio = streams.find((s) => s.codec_type === 'audio');
  expect(video).toMatchObject({ codec_name: 'h264', width: WIDTH, height: HEIGHT });
  expect(audio).toMatchObject({ codec_name: 'aac', sample_rate: String(SAMPLE_RATE) });
  // 2 s of playback: about 50 pictures and 94 AAC frames; some may come after the probe's window.
  expect(Number(video?.nb_read_packets)).toBeGreaterThanOrEqual(FPS);
  expect(Number(audio?.nb_read_packets)).toBeGreaterThanOrEqual(SAMPLE_RATE / 1024);
}

beforeAll(async () => {
  hook = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      const form = new URLSearchParams(body);
      calls.push({ call: form.get('call'), app: form.get('app'), name: form.get('name'), addr: form.get('addr') });
      wakeWaiters();
      const refused = req.url !== '/rtmp/publish' || form.get('name') === REFUSED_KEY;
      res.writeHead(refused ? 403 : 200, { 'content-type': 'text/plain' }).end(refused ? 'refused' : 'ok');
    });
  });
  await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
  const address = hook.address();
  const hookPort = typeof address === 'object' && address ? address.port : 0;
  rtmp = await startRtmpServer({ onPublish: `http://127.0.0.1:${String(hookPort)}/rtmp/publish` });
});

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await rtmp?.close();
  await new Promise((resolve) => hook?.close(resolve));
});

describe('RTMP test server (nginx-rtmp)', () => {
  test('listens on 127.0.0.1 only, at rtmp://127.0.0.1:<port>/live', async () => {
    expect(rtmp.url).toBe(`rtmp://127.0.0.1:${String(rtmp.port)}/live`);
    expect(await listeningOn(rtmp.port)).toEqual(['0100007F']);
  });

  test('an 8 s H.264/AAC publish plays back while it runs', async () => {
    const publisher = publish('abcd-efgh-ijkl-mnop', 8);
    expect(await hookAsked(publisher)).toMatchObject({ call: 'publish', app: 'live', addr: '127.0.0.1' });
    await expectLive(publisher);
    const exit = await publisher.exited;
    expect(exit.code, exit.stderr + (await errorLog())).toBe(0);
    expect(exit.ms).toBeGreaterThanOrEqual(7_500);
  });

  test('a key the on_publish hook refuses fails the publish at once; one it accepts goes through', async () => {
    const refused = publish(REFUSED_KEY, 30);
    const exit = await refused.exited;
    expect(exit.code).not.toBe(0);
    expect(exit.ms).toBeLessThan(5_000);
    // nginx holds the publish until the hook answers, so the question was asked before ffmpeg failed.
    expect(calls.find((c) => c.name === REFUSED_KEY)).toMatchObject({ call: 'publish', app: 'live' });
    expect(await errorLog()).toContain(`publish: name='${REFUSED_KEY}'`);

    const accepted = publish('abcd-efgh-ijkl-0002', 2);
    const ok = await accepted.exited;
    expect(ok.code, ok.stderr + (await errorLog())).toBe(0);
    expect(calls.find((c) => c.name === accepted.key)).toMatchObject({ call: 'publish', app: 'live' });
  });

  test('stop() cuts the stream and frees the port; start() serves a new publish on the same port', async () => {
    const port = rtmp.port;
    const cut = publish('abcd-efgh-ijkl-0003', 30);
    await hookAsked(cut);
    await rtmp.stop();
    expect(await accepts(port)).toBe(false);
    const exit = await cut.exited;
    expect(exit.code).not.toBe(0);
    expect(exit.ms).toBeLessThan(20_000);

    await rtmp.start();
    expect(rtmp.port).toBe(port);
    expect(await listeningOn(port)).toEqual(['0100007F']);
    // Long enough that a loaded machine's ffprobe still finds it running (3 s failed once beside another test file).
    const again = publish('abcd-efgh-ijkl-0004', 8);
    await hookAsked(again);
    await expectLive(again);
    const ok = await again.exited;
    expect(ok.code, ok.stderr + (await errorLog())).toBe(0);
  });
});
