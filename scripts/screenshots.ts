/**
 * `npm run screenshots` (ADR 087): starts Banshu itself on a free port with a fresh database and
 * the built pages, makes a real class (a teacher, a student at a computer and one on a phone, ink
 * on the board, a converted PDF, chat), and photographs every page and every classroom view in
 * Chinese and English at 1280x720 and 390x844 into docs/screenshots/{lang}-{size}-{page}.png.
 * The landing page's pictures go to public/landing/{lang}-{name}.jpg (JPEG, small), and into the
 * running build too so /home is photographed with them. Run `npm run build` first (the script does).
 */
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { open, startWorld } from '#tests/e2e/helpers.ts';
import { TOUR_ENV, makeClass, PAGES, pageFor, setLang, showView, slideReady, type Cast, type Lang, type Size } from '#tests/e2e/tour.ts';

const root = path.resolve(import.meta.dirname, '..');
const DOCS = path.join(root, 'docs', 'screenshots');
const LANDING = [path.join(root, 'public', 'landing'), path.join(root, 'build', 'client', 'landing')];
const LANGS: Lang[] = ['zh', 'en'];
const SIZES: Size[] = ['1280', '390'];
const written: string[] = [];

async function png(page: Page, lang: Lang, size: Size, name: string): Promise<void> {
  const file = path.join(DOCS, `${lang}-${size}-${name}.png`);
  await page.screenshot({ path: file });
  written.push(path.relative(root, file));
}

/** A landing picture: JPEG, under 150 KB. */
async function jpeg(page: Page, lang: Lang, name: string): Promise<void> {
  for (const quality of [80, 70, 60]) {
    const buffer = await page.screenshot({ type: 'jpeg', quality });
    if (buffer.length > 150_000 && quality > 60) continue;
    for (const dir of LANDING) {
      writeFileSync(path.join(dir, `${lang}-${name}.jpg`), buffer);
    }
    written.push(`public/landing/${lang}-${name}.jpg (${String(Math.round(buffer.length / 1024))} KB)`);
    return;
  }
}

async function classroom(cast: Cast, url: string): Promise<void> {
  const people = [
    { who: 'teacher', page: cast.teacher.page, size: '1280' as Size },
    { who: 'student', page: cast.student.page, size: '1280' as Size },
    { who: 'phone', page: cast.phone.page, size: '390' as Size },
  ];
  for (const lang of LANGS) {
    for (const p of people) {
      await setLang(p.page.context(), url, lang);
      await p.page.reload();
      await p.page.getByTestId('view-area').waitFor({ timeout: 30_000 });
    }
    for (const p of [cast.teacher.page, cast.student.page])
      await p.locator('[data-testid="media-tile"][data-has-video="true"]').nth(2).waitFor({ timeout: 30_000 });
    for (const view of ['video', 'wb', 'ppt'] as const) {
      await showView(cast, view);
      for (const p of people) {
        if (view === 'wb') await p.page.locator('[data-testid="board"][data-status="live"]').waitFor();
        if (view === 'ppt') await slideReady(p.page).waitFor();
        await p.page.waitForTimeout(300); // the fake camera's frame and the layout settle (a picture, not a test)
        await png(p.page, lang, p.size, `class-${view}-${p.who}`);
      }
      const name = view === 'video' ? 'video' : view === 'wb' ? 'board' : 'courseware';
      await jpeg(cast.teacher.page, lang, name);
      if (view === 'video') await jpeg(cast.phone.page, lang, 'phone');
      if (view === 'ppt') await jpeg(cast.student.page, lang, 'hero');
    }
  }
}

async function pages(cast: Cast, url: string): Promise<void> {
  // /home last: it shows the pictures made above.
  const ordered = [...PAGES.filter((p) => p.name !== 'home'), ...PAGES.filter((p) => p.name === 'home')];
  for (const stop of ordered) {
    for (const size of SIZES) {
      const page = pageFor(cast, stop, size);
      for (const lang of LANGS) {
        await setLang(page.context(), url, lang);
        if (stop.static) await page.goto(stop.path(cast));
        else await open(page, stop.path(cast));
        if (stop.ready) await page.locator(stop.ready).first().waitFor({ timeout: 20_000 });
        if (stop.name === 'home')
          await page.waitForFunction(() => [...document.images].slice(0, 1).every((i) => i.complete && i.naturalWidth > 0));
        await page.waitForTimeout(200);
        await png(page, lang, size, stop.name);
        if (size === '1280' && stop.name === 'studio') await jpeg(page, lang, 'studio');
        if (size === '1280' && stop.name === 'recordings') await jpeg(page, lang, 'recordings');
      }
    }
  }
}

async function main(): Promise<void> {
  statSync(path.join(root, 'build', 'server', 'index.js')); // the built pages (npm run build)
  for (const dir of [DOCS, ...LANDING]) mkdirSync(dir, { recursive: true });
  const dir = await mkdtemp(path.join(tmpdir(), 'banshu-shots-'));
  const world = await startWorld({ jobs: true, env: TOUR_ENV });
  try {
    const cast = await makeClass(world, dir);
    await classroom(cast, world.server.url);
    await pages(cast, world.server.url);
  } finally {
    await world.browser.close().catch(() => undefined);
    await world.server.close();
    await rm(dir, { recursive: true, force: true });
  }
  for (const f of written) console.log(f);
  console.log(`${String(written.length)} pictures`);
}

await main();
