/**
 * A recorder stand-in for the crash test: runs an Encoder on black frames and silence at real
 * time, printing each closed segment as a JSON line, until it is killed.
 *   node tests/support/encoder-child.ts <workDir> <firstSeq>
 */
import { Encoder } from '../../workers/record/encoder.ts';

const [workDir, firstSeq] = process.argv.slice(2);
const settings = { width: 1280, height: 720, fps: 30, videoKbps: 3000, audioKbps: 128, segmentSeconds: 1 };
const encoder = new Encoder({
  settings,
  workDir: workDir!,
  firstSeq: Number(firstSeq),
  logger: console as never,
  onSegment: (s) => {
    process.stdout.write(`${JSON.stringify(s)}\n`);
    return Promise.resolve();
  },
});
const frame = Buffer.alloc((1280 * 720 * 3) / 2, 16);
const samples = Buffer.alloc(1600 * 2);
const t0 = performance.now();
let n = 0;
setInterval(() => {
  while (n < Math.floor(((performance.now() - t0) * 30) / 1000) + 1) {
    n++;
    encoder.video.write(frame);
    encoder.audio.write(samples);
  }
}, 10);
