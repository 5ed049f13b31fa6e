/**
 * bench/recorder-browser: the browser route for cloud recording. A headless Debian Chromium page
 * composes a class at 1280x720, 30 fps (four live camera tiles, a board layer, names) on one
 * canvas and records it with MediaRecorder; what does that cost on this machine, for one and for
 * two concurrent recordings (the goal: two at 720p30 within 80 % of both cores)?
 *
 *   node bench/recorder-browser.ts [--seconds=30] [--compositors=1,2] [--bitrate=3000000] [--reference=true] [--capture-rate=0]
 *
 * The page draws every 1/30 s; `--capture-rate=0` (default) records with captureStream() (a frame
 * whenever the canvas changed), `--capture-rate=30` with captureStream(30), whose rate limit drops
 * the frames drawn a little early (about 25 of 30 fps reach the file here).
 * Per compositor count: that many Chromium browsers (one process tree each), each recording its
 * page for `seconds`. The camera is Chromium's fake device fed from a 640x360 y4m clip (ffmpeg
 * testsrc2) and a sine wav; Chromium exposes one fake camera, so the four tiles are four
 * getUserMedia streams of that one device. The board is a canvas of 300 random strokes, five new
 * strokes a second, each new stroke redrawing the whole layer. Audio: the four microphone streams
 * mixed by WebAudio. Chunks (1 s timeslices) leave the page through exposeFunction and are written
 * to a file, which ffprobe then reads (codec, size, frames / duration).
 * CPU is the sum of utime + stime over every process under this one (the browsers), read from
 * /proc before and after the recording window, per wall second, in % of one core. Memory: the
 * peak over the window (sampled every 500 ms) of the PSS sum (smaps_rollup: shared pages split
 * between the processes sharing them) and, for comparison, of the RSS sum (which counts Chromium's
 * shared pages once per process). "drawn" is the page's own frame rate on the canvas.
 * Reference in the same run: ffmpeg x264 veryfast 720p30 3 Mbps from testsrc2 at real time (-re).
 * If the file holds Opus, the audio transcode to AAC (-c:v copy) is timed per second of video.
 * Results go to bench/results/recorder-browser-<time>.{md,json}.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, appendFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, tmpdir, totalmem } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { chromium, type Browser } from 'playwright-core';
import { CHROMIUM_ARGS } from '../tests/e2e/helpers.ts';
import { runBench } from './lib/entry.ts';
import { markdownTable } from './lib/stats.ts';

const root = path.join(import.meta.dirname, '..');
const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '30' },
    compositors: { type: 'string', default: '1,2' },
    bitrate: { type: 'string', default: '3000000' },
    reference: { type: 'string', default: 'true' },
    'capture-rate': { type: 'string', default: '0' },
  },
});
const seconds = Number(values.seconds);
const compositorCounts = values.compositors.split(',').map(Number);
const bitrate = Number(values.bitrate);
/** canvas.captureStream(rate); 0: captureStream() without a rate (a frame whenever the canvas changed). */
const captureRate = Number(values['capture-rate']);
const log = (line: string) => console.error(`[recorder-browser] ${line}`);

const TICK = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim());
const PAGE_SIZE = Number(execFileSync('getconf', ['PAGESIZE']).toString().trim());

/** Every process under this one, with its CPU ticks (utime + stime) and RSS in bytes. */
function descendantList(): [number, { ticks: number; rss: number }][] {
  const parentOf = new Map<number, number>();
  const stats = new Map<number, { ticks: number; rss: number }>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    // Fields after the command name, which may hold spaces: state is field 3.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const pid = Number(entry);
    parentOf.set(pid, Number(f[1]));
    stats.set(pid, { ticks: Number(f[11]) + Number(f[12]), rss: Number(f[21]) * PAGE_SIZE });
  }
  return [...stats].filter(([pid]) => {
    for (let p = parentOf.get(pid); p !== undefined && p > 1; p = parentOf.get(p)) if (p === process.pid) return true;
    return false;
  });
}

const descendants = () => new Map(descendantList());

/** Proportional set size (shared pages split between the processes sharing them), bytes. */
function pss(pid: number): number {
  try {
    const m = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${String(pid)}/smaps_rollup`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** CPU seconds a shell command used, read from the shell's cutime + cstime after it waited for it. */
function cpuOfCommand(args: string[]): Promise<{ cpuSeconds: number; wallSeconds: number }> {
  const quoted = args.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const script = `${quoted} </dev/null >/dev/null 2>&1 || exit 1; cat /proc/$$/stat`;
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`${args.join(' ')} exited ${String(code)}`));
      const f = out.slice(out.lastIndexOf(')') + 2).split(' ');
      resolve({ cpuSeconds: (Number(f[13]) + Number(f[14])) / TICK, wallSeconds: (performance.now() - started) / 1000 });
    });
  });
}

interface Probe {
  codecs: string;
  size: string;
  frames: number;
  duration: number;
}

function probe(file: string): Probe {
  const json = JSON.parse(
    execFileSync('ffprobe', [
      '-v',
      'error',
      '-count_frames',
      '-show_entries',
      'stream=codec_type,codec_name,width,height,nb_read_frames',
      '-show_entries',
      'format=duration',
      '-of',
      'json',
      file,
    ]).toString(),
  ) as {
    streams: { codec_type: string; codec_name: string; width?: number; height?: number; nb_read_frames?: string }[];
    format: { duration?: string };
  };
  const video = json.streams.find((s) => s.codec_type === 'video');
  return {
    codecs: json.streams.map((s) => s.codec_name).join('+'),
    size: video ? `${String(video.width)}x${String(video.height)}` : '-',
    frames: Number(video?.nb_read_frames ?? 0),
    duration: Number(json.format.duration ?? NaN),
  };
}

/** The compositor page: runs in Chromium, started by `window.startRecording(bitrate)`. */
const PAGE = `<!doctype html><meta charset="utf-8"><canvas id="out" width="1280" height="720"></canvas><script>
const W = 1280, H = 720, BOARD_W = 960, TILE_W = 320, TILE_H = 180;
const names = ['Teacher Wang', 'Li Na', 'Zhang Wei', 'Chen Jie'];
const out = document.getElementById('out');
const ctx = out.getContext('2d');
const board = document.createElement('canvas');
board.width = BOARD_W; board.height = H;
const bctx = board.getContext('2d');
const strokes = [];
const colours = ['#222', '#c0392b', '#2e86de', '#27ae60', '#8e44ad'];
function randomStroke() {
  const pts = []; let x = Math.random() * BOARD_W, y = Math.random() * H;
  for (let i = 0; i < 20; i++) { x += (Math.random() - 0.5) * 40; y += (Math.random() - 0.5) * 40; pts.push(x, y); }
  return { colour: colours[Math.floor(Math.random() * colours.length)], width: 1 + Math.random() * 4, pts };
}
function redrawBoard() {
  bctx.fillStyle = '#fdfdf8'; bctx.fillRect(0, 0, BOARD_W, H);
  bctx.lineCap = 'round'; bctx.lineJoin = 'round';
  for (const s of strokes) {
    bctx.strokeStyle = s.colour; bctx.lineWidth = s.width; bctx.beginPath(); bctx.moveTo(s.pts[0], s.pts[1]);
    for (let i = 2; i < s.pts.length; i += 2) bctx.lineTo(s.pts[i], s.pts[i + 1]);
    bctx.stroke();
  }
}
for (let i = 0; i < 300; i++) strokes.push(randomStroke());
redrawBoard();
let videos = [];
window.framesDrawn = 0;
function draw() {
  ctx.fillStyle = '#1e1e1e'; ctx.fillRect(0, 0, W, H);
  ctx.drawImage(board, 0, 0);
  ctx.font = '16px sans-serif';
  videos.forEach((v, i) => {
    const y = i * TILE_H;
    ctx.drawImage(v, BOARD_W, y, TILE_W, TILE_H);
    ctx.fillStyle = 'rgba(0,0,0,0.5)'; ctx.fillRect(BOARD_W, y + TILE_H - 24, TILE_W, 24);
    ctx.fillStyle = '#fff'; ctx.fillText(names[i], BOARD_W + 8, y + TILE_H - 7);
  });
  window.framesDrawn++;
}
window.startRecording = async (bitrate, captureRate) => {
  const streams = [];
  for (let i = 0; i < 4; i++) streams.push(await navigator.mediaDevices.getUserMedia({ video: { width: 640, height: 360, frameRate: 30 }, audio: true }));
  const devices = (await navigator.mediaDevices.enumerateDevices()).filter((d) => d.kind === 'videoinput').length;
  videos = await Promise.all(streams.map(async (s) => {
    const v = document.createElement('video'); v.muted = true; v.playsInline = true; v.srcObject = s; await v.play(); return v;
  }));
  const audio = new AudioContext({ sampleRate: 48000 });
  await audio.resume();
  const mix = audio.createMediaStreamDestination();
  for (const s of streams) audio.createMediaStreamSource(s).connect(mix);
  setInterval(draw, 1000 / 30);
  setInterval(() => { strokes.push(randomStroke()); redrawBoard(); }, 200);
  const candidates = ['video/mp4;codecs=avc1,opus', 'video/mp4;codecs=avc1,mp4a.40.2', 'video/mp4;codecs=avc1', 'video/webm;codecs=h264,opus', 'video/webm;codecs=vp8,opus'];
  const supported = candidates.filter((t) => MediaRecorder.isTypeSupported(t));
  const mimeType = supported[0];
  const recorded = new MediaStream([...(captureRate > 0 ? out.captureStream(captureRate) : out.captureStream()).getVideoTracks(), ...mix.stream.getAudioTracks()]);
  const recorder = new MediaRecorder(recorded, { mimeType, videoBitsPerSecond: bitrate, audioBitsPerSecond: 128000 });
  let pending = Promise.resolve();
  recorder.ondataavailable = (e) => {
    pending = pending.then(async () => {
      const bytes = new Uint8Array(await e.data.arrayBuffer());
      let bin = ''; for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
      await window.sendChunk(btoa(bin));
    });
  };
  window.stopRecording = () => new Promise((resolve) => {
    recorder.onstop = () => pending.then(resolve);
    recorder.stop();
  });
  recorder.start(1000);
  window.framesDrawn = 0;
  return { mimeType: recorder.mimeType || mimeType, supported, devices };
};
</script>`;

interface Run {
  label: string;
  cpu: number; // % of one core
  rssMb: number;
  pssMb: number;
  perRecording: { mimeType: string; probe: Probe; drawnFps: number; bytes: number }[];
  supported: string[];
  devices: number;
}

async function measureCompositors(count: number, tmp: string, baseUrl: string, args: string[]): Promise<Run> {
  const browsers: Browser[] = [];
  try {
    const pages = [];
    for (let i = 0; i < count; i++) {
      const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args });
      browsers.push(browser);
      const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
      page.on('pageerror', (e) => log(`page error: ${e.message}`));
      const file = path.join(tmp, `rec-${String(count)}-${String(i)}.out`);
      writeFileSync(file, '');
      await page.exposeFunction('sendChunk', (b64: string) => appendFileSync(file, Buffer.from(b64, 'base64')));
      await page.goto(baseUrl);
      pages.push({ page, file });
    }
    const started = await Promise.all(
      pages.map(({ page }) =>
        page.evaluate<{ mimeType: string; supported: string[]; devices: number }>(
          `window.startRecording(${String(bitrate)}, ${String(captureRate)})`,
        ),
      ),
    );
    const before = descendants();
    const t0 = performance.now();
    const drawnBefore = await Promise.all(pages.map(({ page }) => page.evaluate<number>('framesDrawn')));
    let peakRss = 0;
    let peakPss = 0;
    const sampler = setInterval(() => {
      let rss = 0;
      let sharedSplit = 0;
      for (const [pid, s] of descendants()) {
        rss += s.rss;
        sharedSplit += pss(pid);
      }
      peakRss = Math.max(peakRss, rss);
      peakPss = Math.max(peakPss, sharedSplit);
    }, 500);
    await new Promise((r) => setTimeout(r, seconds * 1000));
    const after = descendants();
    const wall = (performance.now() - t0) / 1000;
    clearInterval(sampler);
    const drawnAfter = await Promise.all(pages.map(({ page }) => page.evaluate<number>('framesDrawn')));
    let ticks = 0;
    for (const [pid, s] of after) ticks += s.ticks - (before.get(pid)?.ticks ?? 0);
    await Promise.all(pages.map(({ page }) => page.evaluate('window.stopRecording()')));
    return {
      label: `${String(count)} compositor${count > 1 ? 's' : ''}`,
      cpu: (ticks / TICK / wall) * 100,
      rssMb: peakRss / 2 ** 20,
      pssMb: peakPss / 2 ** 20,
      perRecording: pages.map(({ file }, i) => ({
        mimeType: started[i]!.mimeType,
        probe: probe(file),
        drawnFps: (drawnAfter[i]! - drawnBefore[i]!) / wall,
        bytes: statSync(file).size,
      })),
      supported: started[0]!.supported,
      devices: started[0]!.devices,
    };
  } finally {
    await Promise.all(browsers.map((b) => b.close()));
  }
}

async function main(): Promise<void> {
  const tmp = mkdtempSync(path.join(tmpdir(), 'recorder-browser-'));
  const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE));
  try {
    const y4m = path.join(tmp, 'camera.y4m');
    const wav = path.join(tmp, 'mic.wav');
    const ff = ['-v', 'error', '-y'];
    execFileSync('ffmpeg', [...ff, '-f', 'lavfi', '-i', 'testsrc2=size=640x360:rate=30', '-t', '5', '-pix_fmt', 'yuv420p', y4m]);
    execFileSync('ffmpeg', [...ff, '-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=48000', '-t', '5', '-ac', '1', wav]);
    const args = [
      ...CHROMIUM_ARGS,
      `--use-file-for-fake-video-capture=${y4m}`,
      `--use-file-for-fake-audio-capture=${wav}`,
      '--autoplay-policy=no-user-gesture-required',
    ];
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const baseUrl = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}/`;

    const runs: Run[] = [];
    for (const count of compositorCounts) {
      log(`${String(count)} compositor(s), ${String(seconds)} s`);
      runs.push(await measureCompositors(count, tmp, baseUrl, args));
    }

    const rows: string[][] = [];
    for (const run of runs) {
      const fps = run.perRecording.map((r) => (r.probe.frames / r.probe.duration).toFixed(1)).join(' / ');
      const drawn = run.perRecording.map((r) => r.drawnFps.toFixed(1)).join(' / ');
      const mbps = run.perRecording.map((r) => ((r.bytes * 8) / r.probe.duration / 1e6).toFixed(2)).join(' / ');
      const first = run.perRecording[0]!;
      rows.push([
        `Chromium: ${run.label}`,
        `${run.cpu.toFixed(0)} %`,
        `${(run.cpu / cpus().length).toFixed(0)} %`,
        `${run.pssMb.toFixed(0)} (RSS sum ${run.rssMb.toFixed(0)})`,
        `${fps} (drawn ${drawn})`,
        `${first.probe.codecs} ${first.probe.size}, ${mbps} Mbit/s`,
      ]);
    }

    let transcode: { cpuSeconds: number; videoSeconds: number } | undefined;
    const sample = runs[0]?.perRecording[0];
    if (sample && sample.probe.codecs.includes('opus')) {
      const file = path.join(tmp, `rec-${String(runs[0]!.perRecording.length)}-0.out`);
      const r = await cpuOfCommand([
        'ffmpeg',
        '-v',
        'error',
        '-y',
        '-i',
        file,
        '-c:v',
        'copy',
        '-c:a',
        'aac',
        '-b:a',
        '128k',
        path.join(tmp, 'aac.mp4'),
      ]);
      transcode = { cpuSeconds: r.cpuSeconds, videoSeconds: sample.probe.duration };
      rows.push([
        'ffmpeg: Opus -> AAC, -c:v copy',
        `${((r.cpuSeconds / transcode.videoSeconds) * 100).toFixed(1)} % per s of video`,
        '-',
        '-',
        '-',
        `${r.wallSeconds.toFixed(1)} s wall for ${transcode.videoSeconds.toFixed(1)} s`,
      ]);
    }

    if (values.reference === 'true') {
      log(`reference: ffmpeg x264 veryfast, ${String(seconds)} s at real time`);
      const r = await cpuOfCommand([
        'ffmpeg', '-v', 'error', '-re', '-f', 'lavfi', '-i', 'testsrc2=size=1280x720:rate=30',
        '-c:v', 'libx264', '-preset', 'veryfast', '-b:v', '3M', '-g', '60', '-t', String(seconds), '-f', 'null', '-',
      ]); // prettier-ignore
      rows.push([
        'ref: ffmpeg testsrc2 -> x264 veryfast 3M',
        `${((r.cpuSeconds / r.wallSeconds) * 100).toFixed(0)} %`,
        `${((r.cpuSeconds / r.wallSeconds / cpus().length) * 100).toFixed(0)} %`,
        '-',
        '30 (input)',
        'h264 1280x720, -f null',
      ]);
    }

    const table = markdownTable(['what', 'CPU (% of one core)', 'of both cores', 'peak PSS MB', 'output fps', 'output'], rows);
    const header = [
      `recorder-browser, ${String(seconds)} s per run, ${new Date().toISOString()}, ${String(cpus().length)} cores, ${(totalmem() / 2 ** 30).toFixed(1)} GB RAM`,
      `MediaRecorder type used: ${runs[0]?.perRecording[0]?.mimeType ?? '-'}; supported of the candidates: ${runs[0]?.supported.join(', ') ?? '-'}`,
      `fake video input devices: ${String(runs[0]?.devices ?? '-')} (the four tiles are four getUserMedia streams of it)`,
    ].join('\n');
    console.log(`${header}\n\n${table}`);
    const dir = path.join(root, 'bench', 'results');
    mkdirSync(dir, { recursive: true });
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    writeFileSync(path.join(dir, `recorder-browser-${stamp}.md`), `${header}\n\n${table}\n`);
    writeFileSync(path.join(dir, `recorder-browser-${stamp}.json`), JSON.stringify({ seconds, runs, transcode }, null, 2));
  } finally {
    server.close();
    rmSync(tmp, { recursive: true, force: true });
  }
}

runBench(main, 5 * 60_000, log);
