/** The operator CLI publishes and lists announcements on the configured database. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { runCli } from '#server/cli.ts';
import { freshPostgresDatabase } from '#tests/support/database.ts';
import type { TestDatabase } from '#tests/support/postgres.ts';

let db: TestDatabase | null = null;
let dir = '';
afterEach(async () => {
  await db?.drop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

it('announce publishes, announcements lists, bad input is refused', async () => {
  db = await freshPostgresDatabase();
  dir = await mkdtemp(path.join(tmpdir(), 'banshu-cli-'));
  const env = { DATABASE_URL: db.url, DATA_DIR: dir, LOG_LEVEL: 'silent', NODE_ENV: 'test' };
  const lines: string[] = [];
  const out = (l: string) => lines.push(l);
  expect(await runCli(['announce', '--title', '开学通知', '--content', '九月一日开学'], env, out)).toBe(0);
  expect(lines.pop()).toMatch(/^published announcement \d+: 开学通知$/);
  expect(await runCli(['announce', '--title', ' ', '--content', 'x'], env, out)).toBe(1);
  expect(await runCli(['announce', '--title', 'only a title'], env, out)).toBe(2);
  expect(await runCli(['bogus'], env, out)).toBe(2);
  lines.length = 0;
  expect(await runCli(['announcements'], env, out)).toBe(0);
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/\t开学通知$/);
});
