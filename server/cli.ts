/**
 * Operator commands: `node server/cli.ts announce --title "..." --content "..."` publishes an
 * announcement (same rule as the admin page); `node server/cli.ts announcements` lists the latest.
 * Uses the same settings as the server (DATABASE_URL or the embedded database in DATA_DIR).
 */
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '#core/platform/config.ts';
import { createLogger } from '#core/platform/logger.ts';
import { isDomainError } from '#core/platform/errors.ts';
import { buildPlatform } from './platform.ts';

const USAGE = `usage:
  node server/cli.ts announce --title <title> --content <content> [--author <name>]
  node server/cli.ts announcements`;

export async function runCli(argv: string[], env: Record<string, string | undefined>, out: (line: string) => void): Promise<number> {
  const [command, ...rest] = argv;
  if (command !== 'announce' && command !== 'announcements') {
    out(USAGE);
    return 2;
  }
  const { values } = parseArgs({
    args: rest,
    options: { title: { type: 'string' }, content: { type: 'string' }, author: { type: 'string' } },
    strict: true,
  });
  if (command === 'announce' && (!values.title || !values.content)) {
    out(USAGE);
    return 2;
  }
  // Neither web nor media: the CLI serves nothing, and with jobs off it runs no job either.
  const config = loadConfig({ ...env, ROLE: 'worker' });
  const platform = await buildPlatform(config, { jobs: false, logger: createLogger('warn') });
  try {
    if (command === 'announce') {
      const a = await platform.services.messaging.publish({
        title: values.title!,
        content: values.content!,
        author: values.author ?? 'cli',
      });
      out(`published announcement ${a.id}: ${a.title}`);
    } else {
      const { messageList } = await platform.services.messaging.list({ pageSize: 20 });
      for (const m of messageList) out(`${m.id}\t${new Date(m.createTime).toISOString()}\t${m.title}`);
    }
    return 0;
  } catch (err) {
    if (isDomainError(err)) {
      out(`refused: ${err.message}`);
      return 1;
    }
    throw err;
  } finally {
    await platform.close();
  }
}

if (import.meta.main) {
  try {
    process.exitCode = await runCli(process.argv.slice(2), process.env, (line) => process.stdout.write(`${line}\n`));
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exitCode = 2;
    } else throw err;
  }
}
