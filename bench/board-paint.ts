/**
 * bench/board-paint: the browser half of the whiteboard bench (issue 4): how long Chromium takes
 * to paint a board of 10,000 and of 100,000 operations with the classroom's renderer, beside
 * references painted in the same page in the same run.
 *
 *   node bench/board-paint.ts [--sizes=10000,100000] [--repeat=3] [--dpr=1,2] [--workloads=seed,class]
 *
 * The classroom code (core/board/draw/layer.ts and renderer.ts) is bundled with rolldown into a blank
 * page of Debian Chromium (the flags of the end-to-end tests: software raster, no GPU). Per size,
 * workload and device pixel ratio, the median of `repeat` runs of:
 *   apply      the N sequenced operations applied in order to a LayerView (as after getBoard);
 *   paint      a full paint of the 1024 x 768 board (the renderer's batching of lines of one style)
 *              until the canvas has finished drawing;
 *   append     one more stroke painted on top of that board (what a new stroke costs);
 *   ref: one path   every stroke's points as straight segments in ONE path with one stroke(): the
 *              floor for that many lines;
 *   ref: per line   one path and one stroke() per line, as a renderer without batching would do.
 * Workloads: 'seed' is bench/lib/board-seed.ts (colour and width change at every stroke, so
 * nothing batches), 'class' a lesson (colour changes every 40 strokes; erasers, shapes, text).
 * Goal: 100,000 operations paint in under 1 s. Results go to bench/results/board-paint-<time>.{md,json}.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
import { rolldown } from 'rolldown';
import { CHROMIUM_ARGS } from '../tests/e2e/helpers.ts';
import { runBench } from './lib/entry.ts';
import { fmtMs, markdownTable } from './lib/stats.ts';
import type { Workload } from './lib/board-paint-entry.ts';

const root = path.join(import.meta.dirname, '..');
const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: '10000,100000' },
    repeat: { type: 'string', default: '3' },
    dpr: { type: 'string', default: '1,2' },
    workloads: { type: 'string', default: 'seed,class' },
  },
  allowPositionals: true,
});
const sizes = values.sizes.split(',').map(Number);
const repeat = Math.max(1, Number(values.repeat));
const dprs = values.dpr.split(',').map(Number);
const workloads = values.workloads.split(',') as Workload[];
const log = (line: string) => console.error(line);

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor((s.length - 1) / 2)]!;
};

type BenchApi = {
  make(n: number, w: Workload): void;
  apply(): number;
  cull(dpr: number): { ms: number; drawn: number };
  paint(dpr: number): { ms: number; inked: number };
  append(dpr: number): number;
  cullDiff(dpr: number): number;
  referenceOnePath(dpr: number): number;
  referencePerLine(dpr: number): number;
};

async function main(): Promise<void> {
  const bundle = await rolldown({
    input: path.join(root, 'bench/lib/board-paint-entry.ts'),
    cwd: root,
    platform: 'browser',
    logLevel: 'silent',
  });
  const { output } = await bundle.generate({ format: 'iife' });
  const code = output[0].code;
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
  const loadBefore = loadavg()[0]!;
  const rows: string[][] = [];
  const json: unknown[] = [];
  try {
    for (const dpr of dprs) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: dpr });
      const page = await context.newPage();
      await page.setContent('<!doctype html><html><body style="margin:0"></body></html>');
      await page.addScriptTag({ content: code });
      for (const workload of workloads) {
        for (const n of sizes) {
          await page.evaluate(([count, w]) => (window as unknown as { benchPaint: BenchApi }).benchPaint.make(count, w), [
            n,
            workload,
          ] as const);
          const runs = {
            apply: [] as number[],
            cull: [] as number[],
            paint: [] as number[],
            append: [] as number[],
            onePath: [] as number[],
            perLine: [] as number[],
          };
          let inked = 0;
          let drawn = 0;
          for (let r = 0; r < repeat; r++) {
            const res = await page.evaluate((d) => {
              const b = (window as unknown as { benchPaint: BenchApi }).benchPaint;
              const apply = b.apply();
              const cull = b.cull(d);
              const paint = b.paint(d);
              const append = b.append(d);
              const onePath = b.referenceOnePath(d);
              const perLine = b.referencePerLine(d);
              return { apply, cull, paint, append, onePath, perLine };
            }, dpr);
            runs.apply.push(res.apply);
            runs.cull.push(res.cull.ms);
            drawn = res.cull.drawn;
            runs.paint.push(res.paint.ms);
            runs.append.push(res.append);
            runs.onePath.push(res.onePath);
            runs.perLine.push(res.perLine);
            inked = res.paint.inked;
          }
          const differ = await page.evaluate((d) => (window as unknown as { benchPaint: BenchApi }).benchPaint.cullDiff(d), dpr);
          const m = {
            apply: median(runs.apply),
            cull: median(runs.cull),
            paint: median(runs.paint),
            append: median(runs.append),
            onePath: median(runs.onePath),
            perLine: median(runs.perLine),
          };
          log(
            `dpr ${dpr} ${workload} ${n}: ${differ} px differ from an unculled paint; apply ${fmtMs(m.apply)} ms, cull ${fmtMs(m.cull)} ms (draws ${drawn}), paint ${fmtMs(m.paint)} ms (ref ${fmtMs(m.onePath)} / ${fmtMs(m.perLine)}), append ${fmtMs(m.append)} ms`,
          );
          rows.push([
            String(dpr),
            workload,
            n.toLocaleString('en-US'),
            fmtMs(m.apply),
            fmtMs(m.paint),
            `${((100 * drawn) / n).toFixed(1)} %`,
            String(differ),
            fmtMs(m.apply + m.paint),
            fmtMs(m.append),
            fmtMs(m.onePath),
            fmtMs(m.perLine),
            m.apply + m.paint < 1000 ? 'yes' : 'no',
          ]);
          json.push({ dpr, workload, n, repeat, inkedPixels: inked, drawn, pixelsDifferingFromUnculled: differ, ...m, runs });
        }
      }
      await context.close();
    }
  } finally {
    await browser.close();
  }
  const table = markdownTable(
    [
      'dpr',
      'workload',
      'operations',
      'apply ms',
      'paint ms',
      'lines drawn',
      'px ≠ unculled',
      'apply+paint ms',
      'append 1 ms',
      'ref: one path ms',
      'ref: per line ms',
      '< 1 s',
    ],
    rows,
  );
  const header = `bench/board-paint ${new Date().toISOString()} · ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'} · Chromium (software raster) · median of ${repeat} · load average ${loadBefore.toFixed(1)} before, ${loadavg()[0]!.toFixed(1)} after`;
  console.log(`${header}\n\n${table}`);
  const dir = path.join(root, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  writeFileSync(path.join(dir, `board-paint-${stamp}.md`), `${header}\n\n${table}\n`);
  writeFileSync(path.join(dir, `board-paint-${stamp}.json`), JSON.stringify(json, null, 2));
}

runBench(main, 10 * 60_000, log);
