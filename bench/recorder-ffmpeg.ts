/**
 * bench/recorder-ffmpeg: the server-side route for cloud recording (one class composed by ffmpeg
 * from the tracks the SFU forwards), to weigh against a Chromium page compositor. Goal: two
 * recordings at 720p30 at once on this 2-core machine, at most 80 % of both cores.
 *
 *   node bench/recorder-ffmpeg.ts [--seconds=30]
 *
 * Prepared first (not measured), in a temp dir: 4 camera clips as the SFU would forward them
 * (H.264 640x360 30 fps, testsrc2-like patterns, x264) and 4 Opus mono tracks (sines).
 * Measured, one after the other:
 *   composition x1   ffmpeg reads the 8 inputs with -re (files paced at real time, a stand-in for
 *                    live RTP: no jitter, no loss, no depacketising), plus a board layer of
 *                    1280x720 RGBA frames piped from this Node process at 5 fps (drawn into a
 *                    plain buffer: no Canvas 2D package is installed), cameras in a 2x2 `xstack`,
 *                    the board `overlay`ed with its alpha, audio `amix`ed to AAC-LC 48 kHz,
 *                    libx264 veryfast 3 Mbps, keyframe every 2 s, 10 s MPEG-TS segments.
 *   composition x2   two of those at once (the goal case).
 *   join             the segments of one composition stream-copied into one fast-start MP4.
 *   reference        ffmpeg testsrc2 1280x720 30 fps -> libx264 veryfast 3 Mbps -g 60 -> null,
 *                    as fast as it goes (no -re).
 * CPU of each ffmpeg comes from its own `-benchmark` report (getrusage: utime + stime of all its
 * threads, and its peak RSS), the Node producer's from process.cpuUsage(), the machine's from
 * /proc/stat over the same window. Results go to bench/results/recorder-ffmpeg-<time>.{md,json}.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { cpus, tmpdir, totalmem } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { runBench } from './lib/entry.ts';
import { markdownTable } from './lib/stats.ts';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '30' } }, allowPositionals: true });
const seconds = Math.max(5, Number(values.seconds));
const log = (line: string) => console.error(line);

const WIDTH = 1280;
const HEIGHT = 720;
const BOARD_FPS = 5;
const PATTERNS = ['testsrc2', 'smptehdbars', 'testsrc', 'rgbtestsrc'];
const PITCHES = [220, 330, 440, 550];

interface FfmpegRun {
  wallS: number;
  /** utime + stime, seconds, from ffmpeg's -benchmark line. */
  cpuS: number;
  maxRssKb: number;
  frames: number;
  drops: number;
  speed: string;
  code: number;
  stderrTail: string;
}

/** Runs ffmpeg with -benchmark and reads its own report of CPU time, peak RSS, frames and speed. */
function ffmpeg(args: string[], onSpawn?: (child: ChildProcess) => void): Promise<FfmpegRun> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn('ffmpeg', ['-hide_banner', '-nostdin', '-y', '-benchmark', ...args], {
      stdio: [onSpawn ? 'pipe' : 'ignore', 'ignore', 'pipe'],
    });
    let err = '';
    child.stderr!.on('data', (c: Buffer) => {
      err += c.toString();
      if (err.length > 200_000) err = err.slice(-100_000);
    });
    child.once('error', reject);
    onSpawn?.(child);
    child.once('exit', (code) => {
      const last = (re: RegExp): string | undefined => [...err.matchAll(re)].at(-1)?.[1];
      resolve({
        wallS: (performance.now() - started) / 1000,
        cpuS: Number(last(/bench: utime=([\d.]+)s/g) ?? NaN) + Number(last(/stime=([\d.]+)s/g) ?? NaN),
        maxRssKb: Number(last(/maxrss=(\d+)kB/g) ?? NaN),
        frames: Number(last(/frame=\s*(\d+)/g) ?? NaN),
        drops: Number(last(/drop=\s*(\d+)/g) ?? 0),
        speed: last(/speed=\s*([\d.]+x)/g) ?? '-',
        code: code ?? 1,
        stderrTail: err.slice(-1500),
      });
    });
  });
}

/** Busy and total ticks of the whole machine, to show what the window cost both cores. */
function machineTicks(): { busy: number; total: number } {
  const v = (readFileSync('/proc/stat', 'latin1').split('\n', 1)[0] ?? '').trim().split(/\s+/).slice(1).map(Number);
  const total = v.slice(0, 8).reduce((a, b) => a + b, 0);
  return { busy: total - (v[3] ?? 0) - (v[4] ?? 0), total };
}

/**
 * The board layer: strokes drawn into a transparent RGBA buffer, one polyline segment more per
 * frame, the whole frame written to ffmpeg's stdin at BOARD_FPS on the wall clock (as a live
 * board would be rendered from its operation log).
 */
function startBoard(stdin: NodeJS.WritableStream, seed: number): () => void {
  const frame = Buffer.alloc(WIDTH * HEIGHT * 4);
  let x = 100 + seed * 40;
  let y = 100 + seed * 30;
  let n = 0;
  const dot = (cx: number, cy: number) => {
    for (let dy = -3; dy <= 3; dy++) {
      for (let dx = -3; dx <= 3; dx++) {
        const px = Math.round(cx) + dx;
        const py = Math.round(cy) + dy;
        if (px < 0 || py < 0 || px >= WIDTH || py >= HEIGHT) continue;
        frame.writeUInt32BE(0xd03030ff, (py * WIDTH + px) * 4);
      }
    }
  };
  const tick = () => {
    n++;
    // Ten segments per frame: a hand-drawn stroke at a lively pace.
    for (let s = 0; s < 10; s++) {
      const nx = 640 + 500 * Math.sin((n * 10 + s) / (37 + seed));
      const ny = 360 + 300 * Math.cos((n * 10 + s) / (23 + seed));
      const steps = Math.ceil(Math.hypot(nx - x, ny - y) / 2);
      for (let i = 1; i <= steps; i++) dot(x + ((nx - x) * i) / steps, y + ((ny - y) * i) / steps);
      x = nx;
      y = ny;
    }
    // Every 60 s the page is cleared, as a teacher turns to a new page.
    if (n % (BOARD_FPS * 60) === 0) frame.fill(0);
    stdin.write(Buffer.from(frame));
  };
  tick();
  const timer = setInterval(tick, 1000 / BOARD_FPS);
  return () => {
    clearInterval(timer);
    stdin.end();
  };
}

function compositionArgs(dir: string, out: string): string[] {
  const inputs: string[] = [];
  for (let i = 0; i < 4; i++) inputs.push('-re', '-i', path.join(dir, `cam${String(i)}.mp4`));
  for (let i = 0; i < 4; i++) inputs.push('-re', '-i', path.join(dir, `mic${String(i)}.ogg`));
  inputs.push('-f', 'rawvideo', '-pix_fmt', 'rgba', '-s', `${String(WIDTH)}x${String(HEIGHT)}`, '-framerate', String(BOARD_FPS));
  inputs.push('-thread_queue_size', '64', '-i', 'pipe:0');
  const graph = [
    '[0:v][1:v][2:v][3:v]xstack=inputs=4:layout=0_0|w0_0|0_h0|w0_h0,fps=30[grid]',
    '[8:v]format=rgba[board]',
    '[grid][board]overlay=format=auto:eof_action=repeat,format=yuv420p[v]',
    '[4:a][5:a][6:a][7:a]amix=inputs=4,aresample=48000[a]',
  ].join(';');
  mkdirSync(out, { recursive: true });
  return [
    ...inputs,
    '-filter_complex',
    graph,
    '-map',
    '[v]',
    '-map',
    '[a]',
    ...['-c:v', 'libx264', '-preset', 'veryfast', '-b:v', '3M', '-maxrate', '3M', '-bufsize', '6M'],
    ...['-g', '60', '-keyint_min', '60', '-sc_threshold', '0', '-r', '30'],
    ...['-c:a', 'aac', '-b:a', '128k', '-ar', '48000', '-ac', '2'],
    ...['-t', String(seconds), '-f', 'segment', '-segment_time', '10', '-segment_format', 'mpegts'],
    path.join(out, 'seg%03d.ts'),
  ];
}

interface Row {
  name: string;
  wallS: number;
  /** % of one core per wall second, per process group. */
  ffmpegPct: number;
  nodePct: number;
  machinePct: number;
  cpuPerMediaS: number;
  maxRssMb: number;
  frames: string;
  speed: string;
  note: string;
}

async function compose(dir: string, copies: number): Promise<{ row: Row; outs: string[] }> {
  const outs = Array.from({ length: copies }, (_, i) => path.join(dir, `out-${String(copies)}-${String(i)}`));
  const stops: (() => void)[] = [];
  const m0 = machineTicks();
  const n0 = process.cpuUsage();
  const runs = await Promise.all(
    outs.map((out, i) =>
      ffmpeg(compositionArgs(dir, out), (child) => {
        child.stdin!.on('error', () => {}); // ffmpeg closes its stdin after -t; late writes are dropped.
        stops.push(startBoard(child.stdin!, i));
      }),
    ),
  );
  for (const stop of stops) stop();
  const n1 = process.cpuUsage(n0);
  const m1 = machineTicks();
  for (const r of runs) if (r.code !== 0) throw new Error(`composition failed (${String(r.code)}):\n${r.stderrTail}`);
  const wallS = Math.max(...runs.map((r) => r.wallS));
  const cpuS = runs.reduce((a, r) => a + r.cpuS, 0);
  const nodeS = (n1.user + n1.system) / 1e6;
  return {
    outs,
    row: {
      name: `composition x${String(copies)}`,
      wallS,
      ffmpegPct: (100 * cpuS) / wallS,
      nodePct: (100 * nodeS) / wallS,
      machinePct: (100 * (m1.busy - m0.busy)) / (m1.total - m0.total),
      cpuPerMediaS: (cpuS + nodeS) / (seconds * copies),
      maxRssMb: Math.max(...runs.map((r) => r.maxRssKb)) / 1024,
      frames: runs.map((r) => `${String(r.frames)}${r.drops ? ` (${String(r.drops)} dropped)` : ''}`).join(' / '),
      speed: runs.map((r) => r.speed).join(' / '),
      note: copies === 1 ? 'per recording' : `${String(copies)} recordings; RSS per ffmpeg`,
    },
  };
}

async function main(): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), 'banshu-recorder-'));
  try {
    log(`preparing ${String(seconds)} s inputs in ${dir}`);
    await Promise.all([
      ...PATTERNS.map((p, i) =>
        ffmpeg([
          ...['-f', 'lavfi', '-i', `${p}=size=640x360:rate=30`, '-t', String(seconds)],
          ...['-c:v', 'libx264', '-preset', 'veryfast', '-profile:v', 'baseline', '-b:v', '600k', '-g', '60', '-pix_fmt', 'yuv420p'],
          path.join(dir, `cam${String(i)}.mp4`),
        ]),
      ),
      ...PITCHES.map((hz, i) =>
        ffmpeg([
          ...['-f', 'lavfi', '-i', `sine=frequency=${String(hz)}:sample_rate=48000`, '-t', String(seconds)],
          ...['-ac', '1', '-c:a', 'libopus', '-b:a', '32k', path.join(dir, `mic${String(i)}.ogg`)],
        ]),
      ),
    ]).then((runs) => {
      for (const r of runs) if (r.code !== 0) throw new Error(`preparing inputs failed:\n${r.stderrTail}`);
    });

    const rows: Row[] = [];
    log('composition x1');
    const one = await compose(dir, 1);
    rows.push(one.row);
    log('composition x2');
    rows.push((await compose(dir, 2)).row);

    log('join');
    const segDir = one.outs[0]!;
    const segments = (await readdir(segDir)).filter((f) => f.endsWith('.ts')).sort();
    const list = path.join(segDir, 'list.txt');
    writeFileSync(list, segments.map((s) => `file '${path.join(segDir, s)}'`).join('\n') + '\n');
    const joined = path.join(dir, 'joined.mp4');
    const join = await ffmpeg(['-f', 'concat', '-safe', '0', '-i', list, '-c', 'copy', '-movflags', '+faststart', joined]);
    if (join.code !== 0) throw new Error(`join failed:\n${join.stderrTail}`);
    const probe = await new Promise<string>((resolve, reject) => {
      const child = spawn('ffprobe', ['-v', 'error', '-show_entries', 'format=duration,size', '-of', 'csv=p=0', joined]);
      let out = '';
      child.stdout.on('data', (c: Buffer) => (out += c.toString()));
      child.once('error', reject);
      child.once('exit', () => resolve(out.trim()));
    });
    // Fast start: the moov box comes before mdat.
    const head = readFileSync(joined)
      .subarray(0, 64 * 1024)
      .toString('latin1');
    const moovFirst = head.includes('moov') && head.indexOf('moov') < (head.indexOf('mdat') + 1 || Infinity);
    const [dur, size] = probe.split(',');
    rows.push({
      name: 'join (stream copy -> fast-start MP4)',
      wallS: join.wallS,
      ffmpegPct: (100 * join.cpuS) / join.wallS,
      nodePct: 0,
      machinePct: NaN,
      cpuPerMediaS: join.cpuS / seconds,
      maxRssMb: join.maxRssKb / 1024,
      frames: '-',
      speed: join.speed,
      note: `${String(segments.length)} segments -> ${Number(dur).toFixed(2)} s, ${(Number(size) / 1e6).toFixed(1)} MB, moov first: ${moovFirst ? 'yes' : 'no'}`,
    });

    log('reference');
    const m0 = machineTicks();
    const ref = await ffmpeg([
      ...['-f', 'lavfi', '-i', `testsrc2=size=${String(WIDTH)}x${String(HEIGHT)}:rate=30`],
      ...['-c:v', 'libx264', '-preset', 'veryfast', '-b:v', '3M', '-g', '60', '-t', String(seconds), '-f', 'null', '-'],
    ]);
    const m1 = machineTicks();
    if (ref.code !== 0) throw new Error(`reference failed:\n${ref.stderrTail}`);
    rows.push({
      name: 'reference: testsrc2 720p30 -> x264 veryfast 3M, no -re',
      wallS: ref.wallS,
      ffmpegPct: (100 * ref.cpuS) / ref.wallS,
      nodePct: 0,
      machinePct: (100 * (m1.busy - m0.busy)) / (m1.total - m0.total),
      cpuPerMediaS: ref.cpuS / seconds,
      maxRssMb: ref.maxRssKb / 1024,
      frames: String(ref.frames),
      speed: ref.speed,
      note: 'as fast as it goes',
    });

    const pct = (v: number) => (Number.isNaN(v) ? '-' : `${v.toFixed(0)} %`);
    const report = [
      `recorder-ffmpeg · ${new Date().toISOString()} · ${String(cpus().length)} cores (${cpus()[0]?.model ?? '?'}), ` +
        `${String(Math.round(totalmem() / 2 ** 30))} GiB · Node ${process.version} · ${String(seconds)} s per run`,
      '',
      markdownTable(
        [
          'run',
          'wall s',
          'ffmpeg CPU (% of a core)',
          'Node board CPU',
          'machine busy (% of both cores)',
          'CPU s per media s',
          'peak RSS MB',
          'frames out',
          'speed',
          'note',
        ],
        rows.map((r) => [
          r.name,
          r.wallS.toFixed(1),
          pct(r.ffmpegPct),
          pct(r.nodePct),
          pct(r.machinePct),
          r.cpuPerMediaS.toFixed(3),
          r.maxRssMb.toFixed(0),
          r.frames,
          r.speed,
          r.note,
        ]),
      ),
    ].join('\n');
    console.log(report);
    const resultsDir = path.join(import.meta.dirname, 'results');
    mkdirSync(resultsDir, { recursive: true });
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    writeFileSync(path.join(resultsDir, `recorder-ffmpeg-${stamp}.md`), report + '\n');
    writeFileSync(path.join(resultsDir, `recorder-ffmpeg-${stamp}.json`), JSON.stringify({ seconds, rows }, null, 2));
    await stat(joined);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

runBench(main, 10 * 60_000, log);
