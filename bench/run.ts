/**
 * `npm run bench`: runs every benchmark of bench/ in turn, each in its own Node process.
 * A benchmark is a file bench/<name>.ts (helpers live in bench/lib/).
 *
 *   node bench/run.ts                 # all of them
 *   node bench/run.ts api             # those whose name contains "api"
 *   node bench/run.ts api -- --duration=5 --engines=postgres   # options after -- go to each benchmark
 *
 * Exit code: 0 when every benchmark ran to the end, else 1.
 */
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';

const benchDir = import.meta.dirname;
const argv = process.argv.slice(2);
const dash = argv.indexOf('--');
const filters = (dash >= 0 ? argv.slice(0, dash) : argv).filter((a) => !a.startsWith('-'));
const passThrough = dash >= 0 ? argv.slice(dash + 1) : argv.filter((a) => a.startsWith('-'));

const all = readdirSync(benchDir)
  .filter((f) => f.endsWith('.ts') && f !== 'run.ts')
  .map((f) => f.slice(0, -3))
  .sort();
const chosen = filters.length ? all.filter((name) => filters.some((f) => name.includes(f))) : all;

if (chosen.length === 0) {
  console.error(`no benchmark matches ${filters.join(', ')}; there are: ${all.join(', ')}`);
  process.exit(1);
}

let active: ReturnType<typeof spawn> | undefined;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    active?.kill(signal);
    process.exitCode = 1;
  });
}

let failed = 0;
for (const name of chosen) {
  console.error(`\n=== bench/${name} (${process.version}) ===`);
  const code = await new Promise<number>((resolve) => {
    active = spawn(process.execPath, [path.join(benchDir, `${name}.ts`), ...passThrough], { stdio: 'inherit' });
    active.once('exit', (c, sig) => resolve(c ?? (sig ? 1 : 0)));
  });
  active = undefined;
  if (code !== 0) {
    failed++;
    console.error(`bench/${name} failed (exit ${String(code)})`);
  }
}
process.exit(failed ? 1 : 0);
