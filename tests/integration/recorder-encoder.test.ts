/**
 * The encoder outlives a recorder killed with -9: its inputs end, it closes the segment it was
 * writing as a whole MPEG-TS file and writes its line in the segment list, for the runner to
 * recover from disk.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { until } from '#tests/support/until.ts';

const run = promisify(execFile);

it('a recorder killed with -9 leaves its last segment whole on disk', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'banshu-enc-'));
  try {
    const child = spawn(process.execPath, ['tests/support/encoder-child.ts', dir, '3'], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    // Two segments handed on while it runs, then the kill in the middle of the third.
    await until('two segments', () => out.split('\n').filter(Boolean).length >= 2, 30_000);
    const handed = out
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { seq: number; durationMs: number });
    expect(handed.map((s) => s.seq).slice(0, 2)).toEqual([3, 4]);
    // The kill comes while the next segment file is being written.
    const writing = `seg-${String(handed.at(-1)!.seq + 1).padStart(6, '0')}.ts`;
    await until('the next segment begun', () => existsSync(path.join(dir, writing)), 10_000);
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
    // The encoder's list gets the line of the segment it closed after its parent died.
    const list = async () => (await readdir(dir)).find((f) => f.endsWith('.csv'));
    let lines: string[] = [];
    const deadline = Date.now() + 15_000;
    while (Date.now() < deadline) {
      const name = await list();
      lines = name ? (await readFile(path.join(dir, name), 'utf8')).split('\n').filter(Boolean) : [];
      if (lines.length > handed.length) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(lines.length).toBeGreaterThan(handed.length);
    const last = lines.at(-1)!.split(',')[0]!;
    const { stdout } = await run('ffprobe', [
      '-v',
      'error',
      '-show_entries',
      'format=duration:stream=codec_name',
      '-of',
      'json',
      path.join(dir, last),
    ]);
    const probe = JSON.parse(stdout) as { streams: Array<{ codec_name: string }>; format: { duration: string } };
    expect(probe.streams.map((s) => s.codec_name).sort()).toEqual(['aac', 'h264']);
    expect(Number(probe.format.duration)).toBeGreaterThan(0.2);
    // And then it exits: nothing is left running.
    let left = true;
    for (let i = 0; i < 50 && left; i++) {
      left = (await run('ps', ['-eo', 'args'])).stdout.includes(dir);
      if (left) await new Promise((r) => setTimeout(r, 100));
    }
    expect(left).toBe(false);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}, 60_000);
