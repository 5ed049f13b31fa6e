/**
 * `npm run cluster`: the local cluster of infra/cluster/cluster.ts for a person at a terminal. Prints
 * the address, restarts a node that exits unexpectedly after 2 s (as systemd's Restart=always
 * would), and stops everything on Ctrl-C (SIGINT) or SIGTERM.
 *
 * Settings (environment): CLUSTER_WEB_NODES, CLUSTER_MEDIA_NODES, CLUSTER_WORKERS,
 * CLUSTER_RECORDERS (counts; default 2, 2, 1, 1); CLUSTER_DIR keeps data and logs in that folder.
 */
import { startCluster } from './cluster.ts';

const stamp = () => new Date().toISOString().slice(11, 19);
const log = (line: string) => process.stdout.write(`[cluster ${stamp()}] ${line}\n`);
const count = (name: string, def: number) => {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return def;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > 16) {
    process.stderr.write(`${name} must be a whole number from 0 to 16\n`);
    process.exit(2);
  }
  return n;
};

const cluster = await startCluster({
  webNodes: count('CLUSTER_WEB_NODES', 2),
  mediaNodes: count('CLUSTER_MEDIA_NODES', 2),
  workers: count('CLUSTER_WORKERS', 1),
  recorders: count('CLUSTER_RECORDERS', 1),
  ...(process.env['CLUSTER_DIR'] ? { dir: process.env['CLUSTER_DIR'] } : {}),
  supervise: true,
  log,
});

process.stdout.write(`\n  Banshu (板书) cluster is running at ${cluster.url}\n`);
for (const n of cluster.nodes) {
  process.stdout.write(`    ${n.name.padEnd(12)} ${n.url || '(no HTTP)'}  pid ${String(n.pid)}  log ${n.logPath}\n`);
}
process.stdout.write(`  Sign-in codes: in the web nodes' logs and at <node>/dev/outbox. Ctrl-C stops everything.\n\n`);

let stopping = false;
const stop = (signal: string) => {
  if (stopping) return;
  stopping = true;
  log(`${signal}: stopping`);
  cluster.stop().then(
    () => process.exit(0),
    (err: unknown) => {
      process.stderr.write(`stop failed: ${String(err)}\n`);
      process.exit(1);
    },
  );
};
process.on('SIGINT', () => stop('SIGINT'));
process.on('SIGTERM', () => stop('SIGTERM'));
