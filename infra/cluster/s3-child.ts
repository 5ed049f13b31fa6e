/**
 * The cluster's S3-compatible store in a process of its own (s3rver, as tests/support/s3.ts), so a
 * test that kills a node never takes the store down with it. Prints one JSON line with its settings,
 * then serves until SIGTERM/SIGINT or until its parent closes stdin (the launcher died).
 */
import { startS3 } from '#tests/support/s3.ts';

const s3 = await startS3(process.argv[2] ?? 'banshu');
process.stdout.write(`${JSON.stringify({ endpoint: s3.endpoint, env: s3.env })}\n`);

let closing = false;
const close = () => {
  if (closing) return;
  closing = true;
  s3.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.on('SIGTERM', close);
process.on('SIGINT', close);
process.stdin.on('end', close);
process.stdin.on('error', close);
process.stdin.resume();
