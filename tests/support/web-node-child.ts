/**
 * One web node in a process of its own (started by tests/support/web-node-process.ts), so a test
 * can SIGKILL it: no close(), no goodbye to Redis, its timers gone with it. The product as
 * startBanshu builds it from the environment (ROLE=web), without pages. Prints one JSON line,
 * `{"url": ...}`, once it listens; exits when its parent goes away (the IPC channel closes).
 */
import { startBanshu } from '#server/app.ts';

const banshu = await startBanshu(process.env, { web: { mode: 'none' } });
process.stdout.write(`${JSON.stringify({ url: banshu.url })}\n`);
process.on('disconnect', () => process.exit(0));
