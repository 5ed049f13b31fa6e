/**
 * How the recorder's frames reach its encoder (ADR 078): 1280x720 yuv420p frames at the recording's
 * rate into ffmpeg (the recorder's own encoder arguments), through the child's stdin or through the
 * named pipe the Encoder uses, with the event loop idle (the reference) and busy (a spin of BUSY_MS
 * of every 25 ms, as beside an SFU serving a class). Prints how far behind real time the frames
 * queued in Node were, at the end and at worst.
 *
 *   node bench/encoder-input.ts [--seconds=15] [--fps=15] [--busy=20]
 */
import { spawn, spawnSync } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Writable } from 'node:stream';
import { encoderArgs } from '../workers/record/encoder.ts';
import { LAYOUT } from '../workers/record/types.ts';

const opt = (name: string, dflt: number) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? dflt);
const SECONDS = opt('seconds', 15);
const FPS = opt('fps', 15);
const BUSY_MS = opt('busy', 20);
const FRAME_BYTES = (LAYOUT.frame.w * LAYOUT.frame.h * 3) / 2;

interface Result {
  input: 'stdin' | 'named pipe';
  loop: 'idle' | 'busy';
  frames: number;
  behindEndS: number;
  behindMaxS: number;
}

async function run(input: Result['input'], busy: boolean): Promise<Result> {
  const dir = await mkdtemp(path.join(tmpdir(), 'banshu-bench-enc-'));
  const settings = { width: LAYOUT.frame.w, height: LAYOUT.frame.h, fps: FPS, videoKbps: 3000, audioKbps: 128, segmentSeconds: 4 };
  const fifo = path.join(dir, 'video.fifo');
  if (input === 'named pipe') spawnSync('mkfifo', [fifo]);
  const args = encoderArgs(settings, 0, dir, path.join(dir, 'list.csv'), input === 'stdin' ? 'pipe:0' : fifo);
  const child = spawn('ffmpeg', args, { stdio: ['pipe', 'ignore', 'ignore', 'pipe'] });
  const video: Writable = input === 'stdin' ? child.stdin! : createWriteStream(fifo);
  const audio = child.stdio[3] as Writable;
  video.on('error', () => undefined);
  audio.on('error', () => undefined);
  const spin = busy
    ? setInterval(() => {
        const end = performance.now() + BUSY_MS;
        while (performance.now() < end);
      }, 25)
    : null;
  const frames = Array.from({ length: 4 }, (_, i) => Buffer.alloc(FRAME_BYTES, 40 + i * 40));
  const samples = Buffer.alloc(Math.round(48000 / FPS) * 2);
  const t0 = performance.now();
  let n = 0;
  let behindMaxS = 0;
  await new Promise<void>((resolve) => {
    const tick = setInterval(
      () => {
        const due = Math.floor(((performance.now() - t0) * FPS) / 1000) + 1;
        while (n < due) {
          video.write(frames[n % frames.length]);
          audio.write(samples);
          n++;
        }
        behindMaxS = Math.max(behindMaxS, video.writableLength / FRAME_BYTES / FPS);
        if (performance.now() - t0 >= SECONDS * 1000) {
          clearInterval(tick);
          resolve();
        }
      },
      Math.floor(1000 / FPS / 2),
    );
  });
  const behindEndS = video.writableLength / FRAME_BYTES / FPS;
  if (spin) clearInterval(spin);
  child.kill('SIGKILL');
  video.destroy();
  await rm(dir, { recursive: true, force: true });
  return { input, loop: busy ? 'busy' : 'idle', frames: n, behindEndS, behindMaxS };
}

const results: Result[] = [];
for (const busy of [false, true]) for (const input of ['stdin', 'named pipe'] as const) results.push(await run(input, busy));
console.log(
  `\n${String(SECONDS)} s of ${String(LAYOUT.frame.w)}x${String(LAYOUT.frame.h)} at ${String(FPS)} fps; busy loop: ${String(BUSY_MS)} ms of every 25 ms`,
);
console.log('| input | event loop | frames | behind at the end (s) | behind at worst (s) |');
console.log('|---|---|---|---|---|');
for (const r of results)
  console.log(`| ${r.input} | ${r.loop} | ${String(r.frames)} | ${r.behindEndS.toFixed(2)} | ${r.behindMaxS.toFixed(2)} |`);
process.exit(0);
