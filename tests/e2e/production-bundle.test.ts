/**
 * No test hooks in the production build (ADR 110): the client bundle `npm run build` makes (the one
 * `npm start` serves) holds no `__banshu` name, while the e2e tests' build (build-e2e/, made by
 * tests/e2e/global-build.ts before this file) does, so the scan is shown to find them.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { E2E_BUILD_DIR } from './helpers.ts';

/** Each script and style the browser is sent (build/client), with its text. */
async function clientFiles(buildDir: string): Promise<Array<{ name: string; text: string }>> {
  const client = path.join(buildDir, 'client');
  const names = (await readdir(client, { recursive: true })).filter((n) => /\.(m?js|css|html|json)$/.test(n));
  return Promise.all(names.map(async (name) => ({ name, text: await readFile(path.join(client, name), 'utf8') })));
}

const HOOK = /__banshu\w*/g;

function hooksIn(files: Array<{ name: string; text: string }>): string[] {
  return files.flatMap((f) => [...new Set(f.text.match(HOOK) ?? [])].map((hook) => `${f.name}: ${hook}`));
}

describe('the production client bundle', () => {
  it('carries no test hook (window.__banshu*), while the e2e build does', async () => {
    const production = await clientFiles(path.resolve('build'));
    // Some scripts at all: an empty or missing build would pass the scan below for nothing.
    expect(production.filter((f) => f.name.endsWith('.js')).length).toBeGreaterThan(10);
    expect(hooksIn(production)).toEqual([]);

    const e2e = hooksIn(await clientFiles(E2E_BUILD_DIR)).map((line) => line.split(': ')[1]);
    expect(new Set(e2e)).toEqual(new Set(['__banshuBoard', '__banshuStudio', '__banshuTools']));
  });

  it('the e2e build is the production React bundle users get: only the hooks differ', async () => {
    // A message only React's development bundle carries; the e2e build once took it (NODE_ENV was
    // 'test' inside vitest) and its pages spent several times the CPU, so media tests missed frames.
    const DEV_ONLY = 'validateDOMNesting';
    const production = await clientFiles(path.resolve('build'));
    const e2e = await clientFiles(E2E_BUILD_DIR);
    expect(production.filter((f) => f.text.includes(DEV_ONLY)).map((f) => f.name)).toEqual([]);
    expect(e2e.filter((f) => f.text.includes(DEV_ONLY)).map((f) => f.name)).toEqual([]);
    expect(e2e.filter((f) => f.name.endsWith('.js')).length).toBe(production.filter((f) => f.name.endsWith('.js')).length);
  });
});
