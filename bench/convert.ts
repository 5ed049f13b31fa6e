/**
 * bench/convert: courseware conversion (issue 6). A 24-slide pptx (Chinese text and shapes, made by
 * LibreOffice from a flat ODF file) and a 60-page PDF (a Chinese text document exported by
 * LibreOffice): time to the first page image and to the last through our converter
 * (workers/convert), beside the bare pipeline in the same run: `soffice --convert-to pdf` then
 * `pdftoppm -jpeg -scale-to-x 1280` for every page.
 *
 *   node bench/convert.ts [--repeat=5] [--slides=24] [--pages=60]
 *
 * Rows (median of `repeat` runs, run interleaved so a busy moment hits all alike):
 *   ours               LocalConverter.convertDocument: first and last onPage, from the call.
 *   ours, no standby   the same with officeStandby off (each conversion starts LibreOffice).
 *   bare               soffice --convert-to pdf (a profile that already exists), then pdftoppm.
 *   bare, new profile  the soffice step with a profile made on the spot (what a first run costs).
 *   back-to-back       ours again right after the previous conversion (the standby it left is
 *                      still starting): what a queue of decks gets.
 *   instance started once  soffice --convert-to on the profile of an soffice started once at the
 *                      beginning: LibreOffice 7.4 ends that instance after the first hand-over, so
 *                      later runs convert by themselves (docs/decisions/045); the step only.
 * Goals: total at most 1.1 x the bare LibreOffice step + 30 ms a page; first page under 2.5 s for
 * the pptx and under 1 s for the PDF. Results go to bench/results/convert-<time>.{md,json}.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { createConverter } from '../workers/convert/index.ts';
import { presentationFodp, sofficeConvert, textFodt, writeFixture } from '../tests/fixtures/courseware.ts';
import { runBench } from './lib/entry.ts';
import { fmtMs, markdownTable } from './lib/stats.ts';

const { values } = parseArgs({
  options: {
    repeat: { type: 'string', default: '5' },
    slides: { type: 'string', default: '24' },
    pages: { type: 'string', default: '60' },
  },
  allowPositionals: true,
});
const repeat = Math.max(1, Number(values.repeat));
const slides = Number(values.slides);
const pdfPages = Number(values.pages);
const log = (line: string) => console.error(line);

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor((s.length - 1) / 2)]!;
};

function exec(command: string, args: string[]): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.once('error', reject);
    child.once('close', (code) =>
      code === 0 ? resolve(performance.now() - started) : reject(new Error(`${command} exited ${String(code)}: ${err}`)),
    );
  });
}

const sofficeArgs = (profile: string, input: string, outDir: string) => [
  '--headless',
  '--norestore',
  '--nologo',
  '--nodefault',
  `-env:UserInstallation=${pathToFileURL(profile).href}`,
  '--convert-to',
  'pdf',
  '--outdir',
  outDir,
  input,
];

async function main() {
  const dir = await mkdtemp(path.join(tmpdir(), 'banshu-bench-convert-'));
  let resident: ChildProcess | null = null;
  const converter = createConverter({ workDir: path.join(dir, 'work') });
  const plain = createConverter({ workDir: path.join(dir, 'work-plain'), officeStandby: false });
  try {
    log(`making a ${String(slides)}-slide pptx and a ${String(pdfPages)}-page PDF…`);
    const setupProfile = path.join(dir, 'profile-setup');
    const pptx = await sofficeConvert(
      await writeFixture(dir, 'deck.fodp', presentationFodp(slides)),
      'pptx',
      dir,
      'deck.pptx',
      setupProfile,
    );
    const pdf = await sofficeConvert(await writeFixture(dir, 'notes.fodt', textFodt(pdfPages)), 'pdf', dir, 'notes.pdf', setupProfile);
    await converter.ready;
    await plain.ready;

    // The bare pipeline's profile exists already (as on a machine that ran soffice before).
    const bareProfile = path.join(dir, 'profile-bare');
    await exec('soffice', sofficeArgs(bareProfile, pptx, path.join(dir, 'warm-bare')));
    // An soffice left running on its own profile; later soffice calls on that profile hand it their work.
    const residentProfile = path.join(dir, 'profile-resident');
    resident = spawn(
      'soffice',
      ['--headless', '--norestore', '--nologo', '--nodefault', `-env:UserInstallation=${pathToFileURL(residentProfile).href}`],
      {
        detached: true,
        stdio: 'ignore',
      },
    );
    await new Promise((r) => setTimeout(r, 3000));
    await exec('soffice', sofficeArgs(residentProfile, pptx, path.join(dir, 'warm-resident')));

    const samples: Record<string, number[]> = {};
    const add = (key: string, ms: number) => (samples[key] ??= []).push(ms);
    const ours = async (file: string, kind: 'pptx' | 'pdf', key: string, which = converter) => {
      const started = performance.now();
      let first = 0;
      let count = 0;
      await which.convertDocument(file, kind, async (page) => {
        if (page.page === 1) first = performance.now() - started;
        count++;
      });
      add(`${key}.first`, first);
      add(`${key}.last`, performance.now() - started);
      if (count !== (kind === 'pptx' ? slides : pdfPages)) throw new Error(`${key}: ${String(count)} pages`);
    };
    const bare = async (file: string, key: string, withSoffice: boolean) => {
      const out = await mkdtemp(path.join(dir, 'bare-'));
      let input = file;
      let sofficeMs = 0;
      if (withSoffice) {
        sofficeMs = await exec('soffice', sofficeArgs(bareProfile, file, out));
        input = path.join(out, `${path.basename(file, path.extname(file))}.pdf`);
        add(`${key}.soffice`, sofficeMs);
      }
      const ppmMs = await exec('pdftoppm', [
        '-jpeg',
        '-jpegopt',
        'quality=85',
        '-scale-to-x',
        '1280',
        '-scale-to-y',
        '-1',
        input,
        path.join(out, 'page'),
      ]);
      const made = (await readdir(out)).filter((f) => f.startsWith('page')).length;
      if (made !== (withSoffice ? slides : pdfPages)) throw new Error(`${key}: pdftoppm made ${String(made)} pages`);
      add(`${key}.pdftoppm`, ppmMs);
      add(`${key}.last`, sofficeMs + ppmMs);
      await rm(out, { recursive: true, force: true });
    };

    const load0 = loadavg()[0]!;
    for (let i = 0; i < repeat; i++) {
      log(`round ${String(i + 1)} of ${String(repeat)}`);
      // Rows without a standby first, while nothing starts in the background; then ours.
      await ours(pptx, 'pptx', 'plain.pptx', plain);
      await bare(pptx, 'bare.pptx', true);
      await ours(pptx, 'pptx', 'ours.pptx');
      await ours(pptx, 'pptx', 'ours.b2b'); // right after the previous one: its standby is still starting
      // Idle time, as between two uploads: the next standby starts here, not during the rows below.
      await new Promise((r) => setTimeout(r, 3000));
      await ours(pdf, 'pdf', 'ours.pdf');
      await bare(pdf, 'bare.pdf', false);
      const fresh = path.join(dir, `profile-fresh-${String(i)}`);
      add('fresh.soffice', await exec('soffice', sofficeArgs(fresh, pptx, path.join(dir, `fresh-${String(i)}`))));
      add('resident.soffice', await exec('soffice', sofficeArgs(residentProfile, pptx, path.join(dir, `resident-${String(i)}`))));
    }
    const load1 = loadavg()[0]!;

    const m = (key: string) => median(samples[key] ?? [Number.NaN]);
    const pptxBudget = 1.1 * m('bare.pptx.soffice') + 30 * slides;
    const pdfBudget = 30 * pdfPages;
    const verdict = (ok: boolean) => (ok ? 'met' : '**not met**');
    const rows = [
      ['pptx', String(slides), 'ours (LibreOffice + mupdf + sharp)', fmtMs(m('ours.pptx.first')), fmtMs(m('ours.pptx.last')), '-', '-'],
      [
        'pptx',
        String(slides),
        'ours, back-to-back (a second deck at once)',
        fmtMs(m('ours.b2b.first')),
        fmtMs(m('ours.b2b.last')),
        '-',
        '-',
      ],
      ['pptx', String(slides), 'ours without the standby soffice', fmtMs(m('plain.pptx.first')), fmtMs(m('plain.pptx.last')), '-', '-'],
      [
        'pptx',
        String(slides),
        'bare: soffice + pdftoppm',
        '-',
        fmtMs(m('bare.pptx.last')),
        fmtMs(m('bare.pptx.soffice')),
        fmtMs(m('bare.pptx.pdftoppm')),
      ],
      ['pptx', String(slides), 'bare soffice, new profile', '-', '-', fmtMs(m('fresh.soffice')), '-'],
      [
        'pptx',
        String(slides),
        'soffice to an instance started once (it ends after one hand-over)',
        '-',
        '-',
        fmtMs(m('resident.soffice')),
        '-',
      ],
      ['pdf', String(pdfPages), 'ours (mupdf + sharp)', fmtMs(m('ours.pdf.first')), fmtMs(m('ours.pdf.last')), '-', '-'],
      ['pdf', String(pdfPages), 'bare: pdftoppm', '-', fmtMs(m('bare.pdf.last')), '-', fmtMs(m('bare.pdf.pdftoppm'))],
    ];
    const table = markdownTable(['file', 'pages', 'pipeline', 'first page ms', 'last page ms', 'soffice ms', 'pdftoppm ms'], rows);
    const goals = markdownTable(
      ['goal', 'target', 'measured', 'verdict'],
      [
        [
          'pptx total ≤ 1.1 × bare soffice + 30 ms/page',
          `${fmtMs(pptxBudget)} ms`,
          `${fmtMs(m('ours.pptx.last'))} ms`,
          verdict(m('ours.pptx.last') <= pptxBudget),
        ],
        ['pptx first page < 2.5 s', '2500 ms', `${fmtMs(m('ours.pptx.first'))} ms`, verdict(m('ours.pptx.first') < 2500)],
        ['pdf total ≤ 30 ms/page', `${fmtMs(pdfBudget)} ms`, `${fmtMs(m('ours.pdf.last'))} ms`, verdict(m('ours.pdf.last') <= pdfBudget)],
        ['pdf first page < 1 s', '1000 ms', `${fmtMs(m('ours.pdf.first'))} ms`, verdict(m('ours.pdf.first') < 1000)],
      ],
    );
    const header = `bench/convert · ${new Date().toISOString()} · ${String(cpus().length)} cores (${cpus()[0]?.model ?? '?'}) · Node ${process.version} · median of ${String(repeat)} · load average ${load0.toFixed(1)} before, ${load1.toFixed(1)} after`;
    const report = `${header}\n\n${table}\n\n${goals}\n`;
    console.log(report);
    const resultsDir = path.join(import.meta.dirname, 'results');
    mkdirSync(resultsDir, { recursive: true });
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    writeFileSync(path.join(resultsDir, `convert-${stamp}.md`), report);
    writeFileSync(
      path.join(resultsDir, `convert-${stamp}.json`),
      JSON.stringify({ repeat, slides, pdfPages, load0, load1, samples }, null, 2),
    );
  } finally {
    await converter.close();
    await plain.close();
    if (resident?.pid) {
      try {
        process.kill(-resident.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    await rm(dir, { recursive: true, force: true });
  }
}

runBench(main, 15 * 60_000, log);
