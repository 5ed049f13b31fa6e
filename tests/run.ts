// The test step of `npm test` (after set-up, check and build): vitest's unit and integration
// projects in one run, then the media project (real-time recordings, one file at a time, nothing
// beside them), then the e2e project on its own, then one summary line `N passed, N failed`.
// Extra arguments are passed to both vitest runs, e.g. `node tests/run.ts rooms` to filter files.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { MEDIA_FILES } from './media-files.ts';

const root = join(import.meta.dirname, '..');
const vitestBin = join(root, 'node_modules', 'vitest', 'vitest.mjs');

// Projects that must run at least one test; an empty one fails the run, so a broken glob can
// never pass silently.
const requiredProjects = ['unit', 'integration', 'media', 'e2e'];

const phases: { label: string; projects: string[] }[] = [
  { label: 'unit + integration', projects: ['unit', 'integration'] },
  { label: 'media (real-time recordings)', projects: ['media'] },
  { label: 'e2e', projects: ['e2e'] },
];

// The parts of vitest's JSON report that the summary reads.
interface JsonReport {
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numTodoTests: number;
  testResults: {
    name: string;
    status: string;
    /** ms epoch: when the file began and ended (its own wall time, beside the others in parallel). */
    startTime?: number;
    endTime?: number;
    message?: string;
    assertionResults: { status: string; fullName?: string; title?: string; failureMessages?: string[] }[];
  }[];
}

interface PhaseResult {
  exitCode: number;
  passed: number;
  failed: number;
  skipped: number;
  filesByProject: Map<string, number>;
  testsByProject: Map<string, number>;
  /** Each failed test (file > name) or file that failed without one, for the run's last lines. */
  failures: string[];
  /** Each file's wall time (s), slowest first. */
  fileSeconds: { file: string; seconds: number }[];
  /** The phase's own wall time (s), vitest's start and exit included. */
  wallSeconds: number;
}

let activeChild: ReturnType<typeof spawn> | undefined;
let interrupted = false;

/** The terminal colour codes in vitest's failure messages. */
const COLOUR_CODES = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');

/** How long vitest may take to exit after writing its report. */
const EXIT_GRACE_MS = 90_000;

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}

// vitest runs in its own process group, so Ctrl-C is passed on; wait for it so its teardown (the
// throwaway PostgreSQL) runs, instead of dying first and leaving it orphaned.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    interrupted = true;
    if (activeChild?.pid) killGroup(activeChild.pid, signal);
  });
}

function projectOf(file: string): string {
  const path = relative(root, file);
  if (MEDIA_FILES.includes(path)) return 'media';
  if (path.startsWith('tests/integration/')) return 'integration';
  if (path.startsWith('tests/e2e/')) return 'e2e';
  return 'unit';
}

async function runPhase(projects: string[], extraArgs: string[], reportFile: string): Promise<PhaseResult> {
  const args = [
    vitestBin,
    'run',
    ...projects.flatMap((project) => ['--project', project]),
    // Empty projects are checked below (requiredProjects), with a clearer message than vitest's.
    '--passWithNoTests',
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${reportFile}`,
    ...extraArgs,
  ];
  let hung = false;
  const began = performance.now();
  const exitCode = await new Promise<number>((resolve) => {
    // process.execPath: the same Node 24 that runs this script. Its own process group, so that a
    // vitest that hangs can be stopped with everything it started.
    const child = spawn(process.execPath, args, { cwd: root, stdio: 'inherit', detached: true });
    activeChild = child;
    // vitest waits forever for a test file whose child process is still running (a leaked
    // server, a helper a failed test did not stop): once the report is written, it gets
    // EXIT_GRACE_MS to exit, then it is stopped and the phase fails, instead of the whole run
    // hanging until CI gives up.
    let reportedAt = 0;
    const watchdog = setInterval(() => {
      if (!reportedAt && existsSync(reportFile)) reportedAt = Date.now();
      if (reportedAt && Date.now() - reportedAt > EXIT_GRACE_MS && child.pid) {
        hung = true;
        console.error(
          `tests/run: vitest did not exit ${String(EXIT_GRACE_MS / 1000)} s after its report (a test left a process or handle open); stopping it`,
        );
        killGroup(child.pid, 'SIGKILL');
        clearInterval(watchdog);
      }
    }, 1000);
    child.on('error', (error) => {
      clearInterval(watchdog);
      console.error(`tests/run: could not start vitest: ${error.message}`);
      resolve(1);
    });
    child.on('exit', (code, signal) => {
      clearInterval(watchdog);
      activeChild = undefined;
      resolve(code ?? (signal ? 128 : 1));
    });
  });

  const result: PhaseResult = {
    exitCode,
    passed: 0,
    failed: 0,
    skipped: 0,
    filesByProject: new Map(),
    testsByProject: new Map(),
    failures: [],
    fileSeconds: [],
    wallSeconds: (performance.now() - began) / 1000,
  };
  if (!existsSync(reportFile)) {
    // vitest died before reporting (bad config, crash): count it as one failure so the summary
    // never reads as clean.
    console.error('tests/run: vitest wrote no report');
    result.failed = 1;
    result.failures.push(`${projects.join(' + ')}: vitest wrote no report`);
    if (result.exitCode === 0) result.exitCode = 1;
    return result;
  }

  if (hung) {
    result.failures.push(`${projects.join(' + ')}: vitest did not exit after its report`);
    result.failed += 1;
    result.exitCode = 1;
  }
  const report = JSON.parse(await readFile(reportFile, 'utf8')) as JsonReport;
  result.passed = report.numPassedTests;
  result.failed += report.numFailedTests;
  result.skipped = report.numPendingTests + report.numTodoTests;
  for (const file of report.testResults) {
    const project = projectOf(file.name);
    if (file.startTime && file.endTime)
      result.fileSeconds.push({ file: relative(root, file.name), seconds: (file.endTime - file.startTime) / 1000 });
    result.filesByProject.set(project, (result.filesByProject.get(project) ?? 0) + 1);
    result.testsByProject.set(project, (result.testsByProject.get(project) ?? 0) + file.assertionResults.length);
    // A file that failed to load (syntax error, failing beforeAll) has no failed tests in the
    // counts; count it once so the summary agrees with the exit status.
    const failedTests = file.assertionResults.filter((test) => test.status === 'failed');
    for (const test of failedTests) {
      const why = (test.failureMessages?.[0] ?? '').replace(COLOUR_CODES, '').split('\n')[0]!.slice(0, 200);
      result.failures.push(`${relative(root, file.name)} > ${test.fullName ?? test.title ?? '?'}${why ? `\n      ${why}` : ''}`);
    }
    if (file.status === 'failed' && failedTests.length === 0) {
      result.failed += 1;
      result.failures.push(`${relative(root, file.name)}: ${(file.message ?? 'failed to run').split('\n')[0]!.slice(0, 300)}`);
    }
  }
  result.fileSeconds.sort((a, b) => b.seconds - a.seconds);
  return result;
}

/** Each file's wall time, slowest first, and the phase's total: where the suite's minutes go. */
function printTimes(label: string, r: PhaseResult): void {
  const files = r.fileSeconds;
  console.log(`\n--- ${label}: ${String(files.length)} files, ${r.wallSeconds.toFixed(1)} s wall; each file's own wall time ---`);
  for (const f of files) console.log(`${f.seconds.toFixed(1).padStart(8)} s  ${f.file}`);
}

async function main(): Promise<number> {
  const major = Number(process.versions.node.split('.')[0]);
  if (major < 24) {
    console.error(`tests/run: Node ${process.versions.node}; run through npm (npm test) so node_modules/.bin/node (Node 24) is used`);
    return 1;
  }

  const extraArgs = process.argv.slice(2);
  const reportDir = await mkdtemp(join(tmpdir(), 'banshu-test-report-'));
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  let exitCode = 0;
  const failures: string[] = [];
  const testsByProject = new Map<string, number>();
  const phaseTimes: string[] = [];

  try {
    for (const [index, phase] of phases.entries()) {
      if (interrupted) break;
      console.log(`\n=== vitest: ${phase.label} ===\n`);
      const result = await runPhase(phase.projects, extraArgs, join(reportDir, `phase-${String(index)}.json`));
      passed += result.passed;
      failed += result.failed;
      failures.push(...result.failures);
      printTimes(phase.label, result);
      phaseTimes.push(`  ${phase.label}: ${(result.wallSeconds / 60).toFixed(1)} min (${String(result.fileSeconds.length)} files)`);
      skipped += result.skipped;
      if (result.exitCode !== 0) exitCode = 1;
      for (const [project, count] of result.testsByProject) {
        testsByProject.set(project, (testsByProject.get(project) ?? 0) + count);
      }
    }
  } finally {
    await rm(reportDir, { recursive: true, force: true });
  }

  console.log('');
  // With a file filter an empty project is expected; without one it means a broken glob or lost tests.
  if (extraArgs.length === 0 && !interrupted) {
    for (const project of requiredProjects) {
      if ((testsByProject.get(project) ?? 0) === 0) {
        console.error(`tests/run: the ${project} project ran no tests`);
        exitCode = 1;
      }
    }
  }
  if (passed + failed === 0) {
    console.error('tests/run: no tests ran');
    exitCode = 1;
  }
  if (phaseTimes.length > 0) console.log(`wall time by phase:\n${phaseTimes.join('\n')}`);
  if (skipped > 0) console.log(`(${String(skipped)} skipped or todo)`);
  // Every phase's failures at the end, where a CI log's tail shows them.
  if (failures.length > 0) console.log(`failed:\n${failures.map((f) => `  ${f}`).join('\n')}`);
  if (interrupted) {
    console.error('tests/run: interrupted');
    exitCode = 130;
  }
  console.log(`${String(passed)} passed, ${String(failed)} failed`);
  return exitCode;
}

process.exitCode = await main();
