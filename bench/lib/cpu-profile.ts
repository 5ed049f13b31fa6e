/**
 * Summarises a V8 .cpuprofile (from `node --cpu-prof`): where the time went, by package or project
 * folder (self time), by function (self time), and the project's own functions by inclusive time.
 *
 *   node bench/lib/cpu-profile.ts <file.cpuprofile> [more files]
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { markdownTable } from './stats.ts';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  hitCount?: number;
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** node_modules/<pkg>, a project folder (core/account, server/web, ...), node:internal, or V8's own. */
function groupOf(url: string, root: string): string {
  if (!url) return '(native / V8)';
  if (url.startsWith('node:')) return 'node: internals';
  let file = url;
  try {
    if (url.startsWith('file://')) file = fileURLToPath(url);
  } catch {
    // keep the URL as it is
  }
  const nm = file.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const parts = file.slice(nm + 'node_modules/'.length).split('/');
    return parts[0]?.startsWith('@') ? `${parts[0]}/${parts[1] ?? ''}` : (parts[0] ?? file);
  }
  const rel = path.relative(root, file);
  if (!rel.startsWith('..')) return path.dirname(rel);
  return file;
}

function label(n: ProfileNode, root: string): string {
  const { functionName, url, lineNumber } = n.callFrame;
  let where = url;
  try {
    if (url.startsWith('file://')) where = path.relative(root, fileURLToPath(url));
  } catch {
    // keep the URL
  }
  where = where.replace(/^.*node_modules\//, '');
  return `${functionName || '(anonymous)'} ${where ? `${where}:${String(lineNumber + 1)}` : ''}`.trim();
}

const isProject = (url: string) => url.startsWith('file://') && !url.includes('/node_modules/');

export function summariseProfile(file: string, root: string, top = 15): string {
  const p = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  for (let i = 0; i < p.samples.length; i++) {
    const id = p.samples[i]!;
    self.set(id, (self.get(id) ?? 0) + (p.timeDeltas[i] ?? 0));
  }
  const totalUs = [...self.values()].reduce((a, b) => a + b, 0);
  const idleUs = [...self.entries()].filter(([id]) => byId.get(id)?.callFrame.functionName === '(idle)').reduce((a, [, v]) => a + v, 0);
  const busyUs = totalUs - idleUs;

  // Inclusive time per node, then per function label, counting a function once per stack.
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const inclusive = new Map<string, number>();
  for (const [id, us] of self) {
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const n = byId.get(cur)!;
      if (!isProject(n.callFrame.url)) continue;
      const l = label(n, root);
      if (seen.has(l)) continue;
      seen.add(l);
      inclusive.set(l, (inclusive.get(l) ?? 0) + us);
    }
  }

  const groups = new Map<string, number>();
  const fns = new Map<string, number>();
  for (const [id, us] of self) {
    const n = byId.get(id)!;
    const name = n.callFrame.functionName;
    if (name === '(idle)') continue;
    const g = name === '(garbage collector)' || name === '(program)' ? name : groupOf(n.callFrame.url, root);
    groups.set(g, (groups.get(g) ?? 0) + us);
    const l = label(n, root);
    fns.set(l, (fns.get(l) ?? 0) + us);
  }
  const pct = (us: number) => `${((100 * us) / busyUs).toFixed(1)} %`;
  const ms = (us: number) => (us / 1000).toFixed(0);
  const sorted = (m: Map<string, number>) => [...m.entries()].sort((a, b) => b[1] - a[1]).slice(0, top);

  return [
    `Profiled ${ms(totalUs)} ms, busy ${ms(busyUs)} ms (${((100 * busyUs) / totalUs).toFixed(0)} %); shares below are of busy time.`,
    '',
    markdownTable(
      ['self time by package / folder', 'ms', 'share'],
      sorted(groups).map(([k, v]) => [k, ms(v), pct(v)]),
    ),
    '',
    markdownTable(
      ['self time by function', 'ms', 'share'],
      sorted(fns).map(([k, v]) => [k, ms(v), pct(v)]),
    ),
    '',
    markdownTable(
      ['project function (inclusive)', 'ms', 'share'],
      sorted(inclusive).map(([k, v]) => [k, ms(v), pct(v)]),
    ),
  ].join('\n');
}

if (import.meta.filename === process.argv[1]) {
  const root = path.join(import.meta.dirname, '..', '..');
  for (const f of process.argv.slice(2)) process.stdout.write(`\n### ${f}\n\n${summariseProfile(f, root)}\n`);
}
